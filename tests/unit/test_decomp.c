/*
 * test_decomp.c - the registry of decompositions: the built-in table that
 * configure chose (--with-decomp), lookup and selection by name, the error
 * for an unknown name, and loadable modules: a good one loads, one built
 * for another ABI or with a NULL op is rejected with a message naming the
 * problem.  The test modules (good_module.c, bad_abi_module.c,
 * null_op_module.c) are built by make check into tests/unit/.libs, which
 * main() puts in front of $LCI_MODULE_DIR.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lci_decomp.h"
#include "unit_run.h"

static const struct {
    const char *name;
    int builtin; /* configure's LCI_DECOMP_* */
    int module;  /* configure's LCI_DECOMP_MODULE_* */
} known[] = {
    {"rxno-mni", LCI_DECOMP_RXNO_MNI, LCI_DECOMP_MODULE_RXNO_MNI},
    {"rxno-mh", LCI_DECOMP_RXNO_MH, LCI_DECOMP_MODULE_RXNO_MH},
    {"rxni-mni", LCI_DECOMP_RXNI_MNI, LCI_DECOMP_MODULE_RXNI_MNI},
    {"rxni-mh", LCI_DECOMP_RXNI_MH, LCI_DECOMP_MODULE_RXNI_MH},
    {"rxh-mh", LCI_DECOMP_RXH_MH, LCI_DECOMP_MODULE_RXH_MH},
    {"rxni-mni-vmmc2", LCI_DECOMP_RXNI_MNI_VMMC2,
     LCI_DECOMP_MODULE_RXNI_MNI_VMMC2},
    {"rxni-mh-vmmc2", LCI_DECOMP_RXNI_MH_VMMC2,
     LCI_DECOMP_MODULE_RXNI_MH_VMMC2},
    {"rxh-mh-vmmc2", LCI_DECOMP_RXH_MH_VMMC2, LCI_DECOMP_MODULE_RXH_MH_VMMC2},
    {"rxh-mh-ssam", LCI_DECOMP_RXH_MH_SSAM, LCI_DECOMP_MODULE_RXH_MH_SSAM},
    {"rxni-mni-am2", LCI_DECOMP_RXNI_MNI_AM2, LCI_DECOMP_MODULE_RXNI_MNI_AM2},
    {"rxni-mni-srd", LCI_DECOMP_RXNI_MNI_SRD, LCI_DECOMP_MODULE_RXNI_MNI_SRD},
    {"rxh-mni", LCI_DECOMP_RXH_MNI, LCI_DECOMP_MODULE_RXH_MNI},
};
#define NKNOWN (sizeof known / sizeof known[0])

static int contains(const char *hay, const char *needle)
{
    if (strstr(hay, needle) == NULL) {
        printf("\n    '%s' not in: %s\n", needle, hay);
        return 0;
    }
    return 1;
}

/* Back to the first built-in decomposition after a test selected another. */
static void restore_active(void)
{
    char err[2048];
    CU_ASSERT_EQUAL(lci_decomp_select(lci_decomp_at(0)->name, err, sizeof err),
                    LCI_OK);
}

static void every_builtin_is_complete_and_of_the_current_abi(void)
{
    CU_ASSERT_FATAL(lci_decomp_count() >= 1);
    CU_ASSERT(lci_decomp_count() <= NKNOWN);
    CU_ASSERT_PTR_NULL(lci_decomp_at(lci_decomp_count()));
    for (size_t i = 0; i < lci_decomp_count(); i++) {
        const lci_decomp_t *d = lci_decomp_at(i);
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        CU_ASSERT(d->name != NULL && d->name[0] != '\0');
        CU_ASSERT(d->description != NULL && d->description[0] != '\0');
        CU_ASSERT_EQUAL(d->abi, LCI_POLICY_ABI);
        CU_ASSERT_EQUAL(d->rx->abi, LCI_POLICY_ABI);
        CU_ASSERT_EQUAL(d->mc->abi, LCI_POLICY_ABI);
        CU_ASSERT_EQUAL(d->fa->abi, LCI_POLICY_ABI);
        const lci_rx_ops_t *o = &d->rx->ops;
        CU_ASSERT(o->state_size && o->timers && o->init && o->send &&
                  o->accept && o->released && o->handled && o->timer &&
                  o->pending);
        CU_ASSERT_PTR_NOT_NULL(d->mc->ops.forward);
        CU_ASSERT_PTR_NOT_NULL(d->fa->ops.serve);
        CU_ASSERT_PTR_NOT_NULL(d->fa->ops.apply);
        char err[512] = "";
        CU_ASSERT_EQUAL(lci_decomp_check(d, err, sizeof err), LCI_OK);
    }
}

static void the_builtin_table_is_what_configure_chose(void)
{
    size_t n = 0;
    for (size_t i = 0; i < NKNOWN; i++) {
        const lci_decomp_t *d = lci_decomp_find(known[i].name);
        if (known[i].builtin) {
            CU_ASSERT_PTR_NOT_NULL(d);
            n++;
        } else {
            if (d != NULL) {
                printf("\n    %s is built in but configure left it out\n",
                       known[i].name);
            }
            CU_ASSERT_PTR_NULL(d);
        }
    }
    CU_ASSERT_EQUAL(lci_decomp_count(), n);
    /* Before any selection the first built-in one is active. */
    CU_ASSERT_PTR_EQUAL(lci_decomp_current(), lci_decomp_at(0));
}

static void every_builtin_name_is_found_and_selected(void)
{
    for (size_t i = 0; i < lci_decomp_count(); i++) {
        const lci_decomp_t *d = lci_decomp_at(i);
        char err[512] = "";
        CU_ASSERT_PTR_EQUAL(lci_decomp_find(d->name), d);
        CU_ASSERT_EQUAL(lci_decomp_select(d->name, err, sizeof err), LCI_OK);
        CU_ASSERT_PTR_EQUAL(lci_decomp_current(), d);
    }
    restore_active();
}

/* What the placement glue cannot run is rejected: with reliability on the
 * host the NI sends no packet of the host's streams, which an F&A reply
 * would be.  Multicast on the NI is fine there (rxh-mni: early copies). */
static void rx_on_host_with_fetch_and_add_on_the_ni_is_rejected(void)
{
    lci_decomp_t d = *lci_decomp_at(0);
    /* An rx that delivers in order (the only one built in may not). */
    lci_rx_component_t rx = *d.rx;
    rx.flags = 0;
    d.rx = &rx;
    char err[512] = "";
    d.name = "rxh-mni";
    d.rx_place = LCI_PLACE_HOST;
    d.mc_place = LCI_PLACE_NI;
    d.fa_place = LCI_PLACE_HOST;
    CU_ASSERT_EQUAL(lci_decomp_check(&d, err, sizeof err), LCI_OK);
    d.fa_place = LCI_PLACE_NI;
    CU_ASSERT_EQUAL(lci_decomp_check(&d, err, sizeof err), LCI_ERR_CONFIG);
    CU_ASSERT(contains(err, "fetch-and-add on the NI"));
    d.mc_place = LCI_PLACE_HOST;
    CU_ASSERT_EQUAL(lci_decomp_check(&d, err, sizeof err), LCI_ERR_CONFIG);
    d.fa_place = LCI_PLACE_HOST;
    CU_ASSERT_EQUAL(lci_decomp_check(&d, err, sizeof err), LCI_OK);
}

/* An rx that delivers out of order needs the host library's reordering
 * above it: on the NI it is fine, with multicast forwarded there too; on
 * the host nothing would reorder.  Flags this library does not know are
 * refused. */
static void unordered_rx_on_the_host_is_rejected(void)
{
    lci_decomp_t d = *lci_decomp_at(0);
    lci_rx_component_t rx = *d.rx;
    char err[512] = "";
    rx.name = "unordered";
    rx.flags = LCI_RX_UNORDERED;
    d.name = "rxu";
    d.rx = &rx;
    d.rx_place = LCI_PLACE_NI;
    d.mc_place = LCI_PLACE_NI;
    d.fa_place = LCI_PLACE_NI;
    CU_ASSERT_EQUAL(lci_decomp_check(&d, err, sizeof err), LCI_OK);
    d.rx_place = LCI_PLACE_HOST;
    d.mc_place = LCI_PLACE_HOST;
    d.fa_place = LCI_PLACE_HOST;
    CU_ASSERT_EQUAL(lci_decomp_check(&d, err, sizeof err), LCI_ERR_CONFIG);
    CU_ASSERT(contains(err, "'rxu': rx component 'unordered' delivers out "
                            "of order"));
    CU_ASSERT(contains(err, "placed on the NI"));
    d.rx_place = LCI_PLACE_NI;
    rx.flags = LCI_RX_UNORDERED | (1u << 7);
    CU_ASSERT_EQUAL(lci_decomp_check(&d, err, sizeof err), LCI_ERR_CONFIG);
    CU_ASSERT(contains(err, "flags 0x81"));
}

static void unknown_name_is_a_config_error_listing_every_valid_name(void)
{
    char err[2048] = "";
    const lci_decomp_t *before = lci_decomp_current();
    CU_ASSERT_EQUAL(lci_decomp_select("rxyz-mq", err, sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_EQUAL(lci_decomp_current(), before);
    CU_ASSERT(contains(err, "unknown decomposition 'rxyz-mq'"));
    CU_ASSERT(contains(err, "valid values are:"));
    for (size_t i = 0; i < lci_decomp_count(); i++) {
        CU_ASSERT(contains(err, lci_decomp_at(i)->name));
    }
    /* Loadable modules are valid names too; rejected ones are not. */
    CU_ASSERT(contains(err, "test-good"));
    CU_ASSERT_PTR_NULL(strstr(err, "test-bad-abi"));
    CU_ASSERT_PTR_NULL(strstr(err, "test-null-op"));
    for (size_t i = 0; i < NKNOWN; i++) {
        if (known[i].module) {
            CU_ASSERT(contains(err, known[i].name));
        }
    }
    /* A name that is not a plain word is never looked for as a file. */
    CU_ASSERT_EQUAL(lci_decomp_select("../unit/.libs/lci_decomp_test-good", err,
                                      sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT(contains(err, "unknown decomposition"));
}

static void module_of_another_abi_is_rejected_naming_the_abi(void)
{
    char err[2048] = "";
    const lci_decomp_t *before = lci_decomp_current();
    CU_ASSERT_EQUAL(lci_decomp_select("test-bad-abi", err, sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_EQUAL(lci_decomp_current(), before);
    CU_ASSERT(contains(err, "lci_decomp_test-bad-abi.so rejected"));
    char abi[96];
    snprintf(abi, sizeof abi, "policy ABI %u, this library expects %u",
             (unsigned)LCI_POLICY_ABI + 1, (unsigned)LCI_POLICY_ABI);
    CU_ASSERT(contains(err, abi));
    CU_ASSERT(contains(err, "valid values are:"));
    CU_ASSERT(contains(err, lci_decomp_at(0)->name));
}

static void module_with_a_null_op_is_rejected_naming_the_op(void)
{
    char err[2048] = "";
    const lci_decomp_t *before = lci_decomp_current();
    CU_ASSERT_EQUAL(lci_decomp_select("test-null-op", err, sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_EQUAL(lci_decomp_current(), before);
    CU_ASSERT(contains(err, "lci_decomp_test-null-op.so rejected"));
    CU_ASSERT(contains(err, "rx component 'stub-rx-no-timer' leaves op "
                            "'timer' NULL"));
    CU_ASSERT(contains(err, "valid values are:"));
}

static void good_module_loads_and_is_selected(void)
{
    char err[2048] = "";
    CU_ASSERT_PTR_NULL(lci_decomp_find("test-good")); /* not built in */
    CU_ASSERT_EQUAL_FATAL(lci_decomp_select("test-good", err, sizeof err),
                          LCI_OK);
    CU_ASSERT_STRING_EQUAL(lci_decomp_current()->name, "test-good");
    CU_ASSERT_STRING_EQUAL(lci_decomp_current()->rx->name, "stub-rx");
    const lci_decomp_t *first = lci_decomp_current();
    /* Selecting it again reuses the loaded module. */
    CU_ASSERT_EQUAL(lci_decomp_select("test-good", err, sizeof err), LCI_OK);
    CU_ASSERT_PTR_EQUAL(lci_decomp_current(), first);
    restore_active();
}

static void the_list_names_builtin_and_valid_modules_once_each(void)
{
    FILE *f = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    lci_decomp_list(f);
    rewind(f);
    char line[128];
    size_t lines = 0, builtin = 0, good = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        lines++;
        builtin += lci_decomp_find(line) != NULL;
        good += strcmp(line, "test-good") == 0;
        CU_ASSERT(strcmp(line, "test-bad-abi") != 0);
        CU_ASSERT(strcmp(line, "test-null-op") != 0);
        CU_ASSERT(strchr(line, ' ') == NULL); /* one name a line */
    }
    fclose(f);
    size_t modules_only = 0;
    for (size_t i = 0; i < NKNOWN; i++) {
        modules_only += known[i].module && !known[i].builtin;
    }
    CU_ASSERT_EQUAL(builtin, lci_decomp_count());
    CU_ASSERT_EQUAL(good, 1);
    CU_ASSERT_EQUAL(lines, lci_decomp_count() + modules_only + 1);
}

/* Every decomposition configure built as a module loads from the build
 * tree's module directory, is complete and is selectable by name. */
static void every_built_module_loads_and_is_complete(void)
{
    for (size_t i = 0; i < NKNOWN; i++) {
        if (!known[i].module) {
            continue;
        }
        const lci_decomp_t *d = NULL;
        char err[2048] = "";
        CU_ASSERT_EQUAL(
            lci_decomp_module_load(known[i].name, &d, err, sizeof err), LCI_OK);
        if (d == NULL) {
            printf("\n    module %s not found in $%s (%s)\n", known[i].name,
                   LCI_DECOMP_MODULE_ENV, err);
            CU_FAIL("a module configure built is found");
            continue;
        }
        CU_ASSERT_STRING_EQUAL(d->name, known[i].name);
        CU_ASSERT_EQUAL(lci_decomp_check(d, err, sizeof err), LCI_OK);
        if (!known[i].builtin) {
            CU_ASSERT_EQUAL(lci_decomp_select(known[i].name, err, sizeof err),
                            LCI_OK);
            CU_ASSERT_PTR_EQUAL(lci_decomp_current(), d);
        } else {
            /* Built in and a module: the built-in one wins. */
            CU_ASSERT_PTR_NOT_EQUAL(lci_decomp_find(known[i].name), d);
        }
    }
    restore_active();
}

/* A relative module directory would load code from wherever the program
 * runs: it is refused, naming the variable and the directory. */
static void relative_module_dir_is_refused_naming_it(void)
{
    const char *saved = getenv(LCI_DECOMP_MODULE_ENV);
    static char keep[8192];
    snprintf(keep, sizeof keep, "%s", saved ? saved : "");
    static const char *const dirs[] = {"tests/unit/.libs", ".",
                                       "/nowhere:rel/dir"};
    static const char *const named[] = {"'tests/unit/.libs'", "'.'",
                                        "'rel/dir'"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        setenv(LCI_DECOMP_MODULE_ENV, dirs[i], 1);
        char err[4096] = "";
        const lci_decomp_t *d = NULL;
        CU_ASSERT_EQUAL(lci_decomp_module_load("test-absent", &d, err,
                                               sizeof err),
                        LCI_ERR_CONFIG);
        CU_ASSERT_PTR_NULL(d);
        CU_ASSERT(contains(err, "$" LCI_DECOMP_MODULE_ENV " holds "));
        CU_ASSERT(contains(err, named[i]));
        CU_ASSERT(contains(err, "not an absolute path"));
        CU_ASSERT_EQUAL(lci_decomp_select("test-absent", err, sizeof err),
                        LCI_ERR_CONFIG);
        CU_ASSERT(contains(err, "not an absolute path"));
    }
    setenv(LCI_DECOMP_MODULE_ENV, keep, 1);
    /* Absolute again: the test module loads. */
    char err[4096] = "";
    const lci_decomp_t *d = NULL;
    CU_ASSERT_EQUAL(lci_decomp_module_load("test-good", &d, err, sizeof err),
                    LCI_OK);
    CU_ASSERT_PTR_NOT_NULL(d);
}

int main(void)
{
    /* The test modules first, then the build tree's real modules. */
    const char *top = getenv("top_builddir");
    const char *dirs = getenv(LCI_DECOMP_MODULE_ENV);
    static char path[8192];
    char cwd[4096];
    if (top == NULL || top[0] != '/') {
        /* Module directories must be absolute. */
        top = getcwd(cwd, sizeof cwd);
    }
    snprintf(path, sizeof path, "%s/tests/unit/.libs%s%s", top ? top : "",
             dirs ? ":" : "", dirs ? dirs : "");
    setenv(LCI_DECOMP_MODULE_ENV, path, 1);

    static const lci_unit_test_t tests[] = {
        {"every_builtin_is_complete_and_of_the_current_abi",
         every_builtin_is_complete_and_of_the_current_abi},
        {"the_builtin_table_is_what_configure_chose",
         the_builtin_table_is_what_configure_chose},
        {"every_builtin_name_is_found_and_selected",
         every_builtin_name_is_found_and_selected},
        {"rx_on_host_with_fetch_and_add_on_the_ni_is_rejected",
         rx_on_host_with_fetch_and_add_on_the_ni_is_rejected},
        {"unordered_rx_on_the_host_is_rejected",
         unordered_rx_on_the_host_is_rejected},
        {"unknown_name_is_a_config_error_listing_every_valid_name",
         unknown_name_is_a_config_error_listing_every_valid_name},
        {"module_of_another_abi_is_rejected_naming_the_abi",
         module_of_another_abi_is_rejected_naming_the_abi},
        {"module_with_a_null_op_is_rejected_naming_the_op",
         module_with_a_null_op_is_rejected_naming_the_op},
        {"good_module_loads_and_is_selected",
         good_module_loads_and_is_selected},
        {"the_list_names_builtin_and_valid_modules_once_each",
         the_list_names_builtin_and_valid_modules_once_each},
        {"every_built_module_loads_and_is_complete",
         every_built_module_loads_and_is_complete},
        {"relative_module_dir_is_refused_naming_it",
         relative_module_dir_is_refused_naming_it},
    };
    return lci_unit_run("decomp", tests, LCI_UNIT_COUNT(tests));
}
