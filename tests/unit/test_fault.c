/* test_fault.c - the fault specification (core/lci_fault.c): every item
 * parses to the configuration it names, and every input that makes no sense
 * is an error that names the key and says what was expected, leaving the
 * configuration as it was: numbers out of range (never saturated), a key
 * given twice, an empty item, an empty specification. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lci_config.h"
#include "unit_run.h"

#define ERRLEN 1024

/* A configuration with something in every field, so that "unchanged"
 * means it. */
static void fault_fill(lci_fault_config_t *f)
{
    memset(f, 0, sizeof *f);
    f->drop = 0.125;
    f->corrupt = 0.25;
    f->dup = 0.375;
    f->burst = 0.5;
    f->burst_len = 3;
    f->drop_nth = 17;
    f->seed = 99;
    f->linkdown = (lci_fault_window_t){.a = 1, .b = 2, .start = 3, .dur = 4};
    f->nobuf = (lci_fault_window_t){.a = 5, .start = 6, .dur = 7};
    f->nopoll = (lci_fault_window_t){.a = 8, .start = 9, .dur = 10};
    f->die = (lci_fault_window_t){.a = 11, .start = 12, .dur = 1};
}

static int contains(const char *hay, const char *needle)
{
    if (strstr(hay, needle) == NULL) {
        printf("\n    '%s' not in: %s\n", needle, hay);
        return 0;
    }
    return 1;
}

static void every_item_sets_its_field(void)
{
    lci_fault_config_t f;
    char err[ERRLEN] = "";
    memset(&f, 0, sizeof f);
    CU_ASSERT_EQUAL_FATAL(
        lci_fault_parse("drop=0.5,corrupt=0.25,dup=1,burst=0.125:8,"
                        "drop-nth=18446744073709551615,seed=7,"
                        "linkdown=3-4095@2ms+5us,nobuf=2@1.5us+3s,"
                        "nopoll=4@0+2,die=6@1000000000s",
                        &f, err, sizeof err),
        LCI_OK);
    CU_ASSERT_EQUAL(f.drop, 0.5);
    CU_ASSERT_EQUAL(f.corrupt, 0.25);
    CU_ASSERT_EQUAL(f.dup, 1.0);
    CU_ASSERT_EQUAL(f.burst, 0.125);
    CU_ASSERT_EQUAL(f.burst_len, 8);
    CU_ASSERT_EQUAL(f.drop_nth, UINT64_MAX);
    CU_ASSERT_EQUAL(f.seed, 7);
    CU_ASSERT_EQUAL(f.linkdown.a, 3);
    CU_ASSERT_EQUAL(f.linkdown.b, 4095);
    CU_ASSERT_EQUAL(f.linkdown.start, 2000000);
    CU_ASSERT_EQUAL(f.linkdown.dur, 5000);
    CU_ASSERT_EQUAL(f.nobuf.a, 2);
    CU_ASSERT_EQUAL(f.nobuf.start, 1500);
    CU_ASSERT_EQUAL(f.nobuf.dur, 3000000000ull);
    CU_ASSERT_EQUAL(f.nopoll.a, 4);
    CU_ASSERT_EQUAL(f.nopoll.start, 0);
    CU_ASSERT_EQUAL(f.nopoll.dur, 2);
    CU_ASSERT_EQUAL(f.die.a, 6);
    CU_ASSERT_EQUAL(f.die.start, 1000000000000000000ull); /* the 1e18 bound */
    CU_ASSERT_EQUAL(f.die.dur, 1);
}

typedef struct {
    const char *spec;
    const char *phrases[2]; /* parts of the message (NULL: none) */
} bad_spec_t;

static void check_rejected(const bad_spec_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        lci_fault_config_t f, before;
        char err[ERRLEN] = "";
        fault_fill(&f);
        before = f;
        lci_status_t st = lci_fault_parse(cases[i].spec, &f, err, sizeof err);
        if (st != LCI_ERR_CONFIG) {
            printf("\n    '%s' was accepted\n", cases[i].spec);
        }
        CU_ASSERT_EQUAL(st, LCI_ERR_CONFIG);
        for (size_t k = 0; k < 2 && cases[i].phrases[k] != NULL; k++) {
            CU_ASSERT(contains(err, cases[i].phrases[k]));
        }
        CU_ASSERT_EQUAL(memcmp(&f, &before, sizeof f), 0);
    }
}

static void numbers_out_of_range_are_errors_naming_the_key(void)
{
    static const bad_spec_t cases[] = {
        {"drop=1.5", {"for fault drop", "expected a probability in [0,1]"}},
        {"corrupt=-0.1", {"for fault corrupt", "in [0,1]"}},
        {"dup=nan", {"for fault dup", "in [0,1]"}},
        {"dup=1e-400", {"for fault dup", "in [0,1]"}},
        {"drop= 0.5", {"for fault drop", "in [0,1]"}},
        /* 23 digits: strtoull saturates; it used to inject nothing. */
        {"drop-nth=12345678901234567890123",
         {"for fault drop-nth", "expected a packet number from 1 to"}},
        {"drop-nth=18446744073709551616", {"for fault drop-nth", "from 1"}},
        {"drop-nth=0", {"for fault drop-nth", "the first data packet is 1"}},
        {"drop-nth=-1", {"for fault drop-nth", "from 1"}},
        {"seed=18446744073709551616", {"for fault seed", "expected a seed"}},
        {"burst=0.1:0", {"for fault burst", "burst length from 1"}},
        {"burst=0.1:99999999999999999999", {"for fault burst", "P:LEN"}},
        {"burst=2:4", {"for fault burst", "in [0,1]"}},
        {"die=4096@1ms", {"for fault die", "a node number from 0 to 4095"}},
        {"die=99999999999999999999@1ms", {"for fault die", "0 to 4095"}},
        {"die=4294967297@1ms", {"for fault die", "0 to 4095"}},
        {"nobuf=1@1e19ns+1ms", {"for fault nobuf", "start time up to 1e18"}},
        {"nopoll=1@1ms+0", {"for fault nopoll", "at least 1 ns"}},
        {"nopoll=1@1ms+0.2ns", {"for fault nopoll", "at least 1 ns"}},
        {"linkdown=0-4096@0+1ms", {"for fault linkdown", "0 to 4095"}},
        {"linkdown=2-2@0+1ms",
         {"for fault linkdown", "two different node numbers"}},
        {"linkdown=0-1@1ms", {"for fault linkdown", "'+' and a duration"}},
        {"die=1@1ms+1ms", {"for fault die", "a node number"}},
    };
    check_rejected(cases, sizeof cases / sizeof cases[0]);
}

/* Only the last would count: die=0@1ms,die=1@1ms used to kill node 1
 * alone. */
static void a_key_given_twice_is_an_error_naming_it(void)
{
    static const bad_spec_t cases[] = {
        {"die=0@1ms,die=1@1ms", {"fault 'die' given twice", NULL}},
        {"drop=0.1,seed=1,drop=0.2", {"fault 'drop' given twice", NULL}},
        {"seed=1,seed=1", {"fault 'seed' given twice", NULL}},
    };
    check_rejected(cases, sizeof cases / sizeof cases[0]);
}

static void an_empty_spec_or_item_is_an_error(void)
{
    static const bad_spec_t cases[] = {
        {"", {"empty fault specification", "expected drop=P"}},
        {",", {"empty item", "expected drop=P"}},
        {"drop=0.1,", {"empty item", NULL}},
        {",drop=0.1", {"empty item", NULL}},
        {"drop=0.1,,dup=0.1", {"empty item", NULL}},
        {"drop=", {"for fault drop", "in [0,1]"}},
        {"drop", {"is not NAME=VALUE", "expected drop=P"}},
        {"=1", {"unknown fault ''", NULL}},
        {"smoke=1", {"unknown fault 'smoke'", "expected drop=P"}},
    };
    check_rejected(cases, sizeof cases / sizeof cases[0]);
    lci_fault_config_t f;
    char err[ERRLEN] = "";
    fault_fill(&f);
    CU_ASSERT_EQUAL(lci_fault_parse(NULL, &f, err, sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT(contains(err, "empty fault specification"));
}

static void an_overlong_spec_is_an_error(void)
{
    char spec[600];
    memset(spec, '1', sizeof spec - 1);
    spec[sizeof spec - 1] = '\0';
    memcpy(spec, "seed=", 5);
    lci_fault_config_t f;
    char err[ERRLEN] = "";
    fault_fill(&f);
    CU_ASSERT_EQUAL(lci_fault_parse(spec, &f, err, sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT(contains(err, "longer than 511 bytes"));
}

/* A later specification (LCI_FAULT, then --fault) keeps what an earlier
 * one set and replaces what it names again. */
static void a_spec_changes_only_what_it_names(void)
{
    lci_fault_config_t f;
    char err[ERRLEN] = "";
    fault_fill(&f);
    lci_fault_config_t want = f;
    want.drop = 0.0;
    want.die.a = 3;
    want.die.start = 2000;
    CU_ASSERT_EQUAL(lci_fault_parse("drop=0,die=3@2us", &f, err, sizeof err),
                    LCI_OK);
    CU_ASSERT_EQUAL(memcmp(&f, &want, sizeof f), 0);
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"every_item_sets_its_field", every_item_sets_its_field},
        {"numbers_out_of_range_are_errors_naming_the_key",
         numbers_out_of_range_are_errors_naming_the_key},
        {"a_key_given_twice_is_an_error_naming_it",
         a_key_given_twice_is_an_error_naming_it},
        {"an_empty_spec_or_item_is_an_error",
         an_empty_spec_or_item_is_an_error},
        {"an_overlong_spec_is_an_error", an_overlong_spec_is_an_error},
        {"a_spec_changes_only_what_it_names",
         a_spec_changes_only_what_it_names},
    };
    return lci_unit_run("fault", tests, LCI_UNIT_COUNT(tests));
}
