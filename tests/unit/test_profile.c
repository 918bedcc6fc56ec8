/* test_profile.c - cost profiles: syntax, units, errors that name file and
 * line and leave the profile untouched, format/parse round trip, look-up by
 * name, and the shipped profiles. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lci_profile.h"
#include "unit_run.h"

#define ERRLEN 512

/* Names of every field, from the same table the parser uses. */
static const char *const field_names[] = {
#define NAME(field, def, unit, desc) #field,
    LCI_PROFILE_FIELDS(NAME)
#undef NAME
};

#define NFIELDS (sizeof(field_names) / sizeof(field_names[0]))

/* Field values in table order. */
static void profile_values(const lci_profile_t *p, double *out)
{
    size_t i = 0;

#define GET(field, def, unit, desc) out[i++] = p->field;
    LCI_PROFILE_FIELDS(GET)
#undef GET
}

static void profile_fill(lci_profile_t *p, double v)
{
    memset(p, 0, sizeof(*p));
#define SET(field, def, unit, desc) p->field = v;
    LCI_PROFILE_FIELDS(SET)
#undef SET
    snprintf(p->name, sizeof(p->name), "%s", "sentinel");
}

static char tmpdir[256];

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_EQUAL(fputs(text, fp) >= 0, 1);
    CU_ASSERT_EQUAL(fclose(fp), 0);
}

static char *read_file(const char *path)
{
    FILE *fp = fopen(path, "r");

    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof(buf) - 1, fp);

    CU_ASSERT_TRUE(n < sizeof(buf) - 1);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

/* ---- defaults and syntax ------------------------------------------------ */

static void profile_defaults_follow_the_field_table(void)
{
    lci_profile_t p;
    double got[NFIELDS];
    const double want[] = {
#define DEF(field, def, unit, desc) def,
        LCI_PROFILE_FIELDS(DEF)
#undef DEF
    };

    lci_profile_defaults(&p);
    profile_values(&p, got);
    for (size_t i = 0; i < NFIELDS; i++) {
        CU_ASSERT_EQUAL(got[i], want[i]);
    }
}

static void profile_parse_skips_comments_and_blank_lines(void)
{
    lci_profile_t p;
    char err[ERRLEN];
    static const char text[] = "# a comment\n"
                               "\n"
                               "   \t \n"
                               "host_send_ns = 1234   # trailing comment\n"
                               "\tni_tx_ns=77\r\n"
                               "#link_mb_s = 1\n"
                               "wire_ns = 9"; /* no final newline */

    lci_profile_defaults(&p);
    CU_ASSERT_EQUAL_FATAL(lci_profile_parse(text, "t", &p, err, sizeof(err)),
                          LCI_OK);
    CU_ASSERT_EQUAL(p.host_send_ns, 1234.0);
    CU_ASSERT_EQUAL(p.ni_tx_ns, 77.0);
    CU_ASSERT_EQUAL(p.wire_ns, 9.0);
    CU_ASSERT_EQUAL(p.link_mb_s, 160.0);
    CU_ASSERT_STRING_EQUAL(err, "");
}

static void profile_parse_keeps_fields_it_does_not_mention(void)
{
    lci_profile_t p;
    char err[ERRLEN];

    profile_fill(&p, 42.0);
    CU_ASSERT_EQUAL_FATAL(
        lci_profile_parse("ni_fa_ns = 1 us\n", "t", &p, err, sizeof(err)),
        LCI_OK);
    CU_ASSERT_EQUAL(p.ni_fa_ns, 1000.0);
    CU_ASSERT_EQUAL(p.host_alloc_ns, 42.0);
    CU_ASSERT_EQUAL(p.pci_mb_s, 42.0);
    CU_ASSERT_STRING_EQUAL(p.name, "sentinel");
    /* Empty text changes nothing. */
    CU_ASSERT_EQUAL(lci_profile_parse("", "t", &p, err, sizeof(err)), LCI_OK);
    CU_ASSERT_EQUAL(p.ni_fa_ns, 1000.0);
}

static void profile_parse_converts_time_units_to_ns(void)
{
    lci_profile_t p;
    char err[ERRLEN];
    static const char text[] = "host_alloc_ns = 42\n"
                               "host_send_ns = 300 ns\n"
                               "host_poll_ns = 1.5 us\n"
                               "host_recv_ns = 2 ms\n"
                               "host_release_ns = 1 s\n"
                               "host_intr_ns = 25us\n"
                               "watchdog_ns = 7e1 us\n"
                               "ni_clock_ns = .5 us\n";

    lci_profile_defaults(&p);
    CU_ASSERT_EQUAL_FATAL(lci_profile_parse(text, "t", &p, err, sizeof(err)),
                          LCI_OK);
    CU_ASSERT_EQUAL(p.host_alloc_ns, 42.0);
    CU_ASSERT_EQUAL(p.host_send_ns, 300.0);
    CU_ASSERT_EQUAL(p.host_poll_ns, 1500.0);
    CU_ASSERT_EQUAL(p.host_recv_ns, 2e6);
    CU_ASSERT_EQUAL(p.host_release_ns, 1e9);
    CU_ASSERT_EQUAL(p.host_intr_ns, 25000.0);
    CU_ASSERT_EQUAL(p.watchdog_ns, 70000.0);
    CU_ASSERT_EQUAL(p.ni_clock_ns, 500.0);
}

static void profile_parse_reads_rates_in_mb_per_s_and_plain_factors(void)
{
    lci_profile_t p;
    char err[ERRLEN];
    static const char text[] = "link_mb_s = 12500 MB/s\n"
                               "pci_mb_s = 127\n"
                               "host_speed = 0.02\n";

    lci_profile_defaults(&p);
    CU_ASSERT_EQUAL_FATAL(lci_profile_parse(text, "t", &p, err, sizeof(err)),
                          LCI_OK);
    CU_ASSERT_EQUAL(p.link_mb_s, 12500.0);
    CU_ASSERT_EQUAL(p.pci_mb_s, 127.0);
    CU_ASSERT_EQUAL(p.host_speed, 0.02);
}

/* ---- errors ------------------------------------------------------------- */

typedef struct {
    const char *text;
    unsigned line;      /* where the error is */
    const char *phrase; /* part of the message */
} bad_case_t;

static const bad_case_t bad_cases[] = {
    {"no_such_field = 1\n", 1, "unknown field \"no_such_field\""},
    {"# ok\nhost_send_ns = 1\nHost_Send_ns = 2\n", 3, "unknown field"},
    {"host_send_ns = abc\n", 1, "bad number"},
    {"host_send_ns = 1.2.3\n", 1, "bad number"},
    {"host_send_ns = 0x10\n", 1, "bad number"},
    {"host_send_ns = nan\n", 1, "bad number"},
    {"host_send_ns = inf\n", 1, "bad number"},
    {"host_send_ns = 1e999\n", 1, "host_send_ns = 1e999 is out of range"},
    {"\n\nhost_send_ns = -1\n", 3, "negative value"},
    {"host_send_ns = -0\n", 1, "negative value"},
    {"link_mb_s = -5 MB/s\n", 1, "negative value"},
    {"host_send_ns = 5 MB/s\n", 1, "wrong unit"},
    {"link_mb_s = 5 us\n", 1, "wrong unit"},
    {"host_speed = 5 ns\n", 1, "wrong unit"},
    {"host_speed = 5 MB/s\n", 1, "wrong unit"},
    {"host_send_ns = 5 furlongs\n", 1, "unknown unit"},
    {"host_send_ns = 5 us extra\n", 1, "unknown unit"},
    {"link_mb_s = 5 mb/s\n", 1, "unknown unit"},
    {"ni_tx_ns = 1\nni_rx_ns = 2\nni_tx_ns = 3\n", 3, "duplicate field"},
    {"host_send_ns 1000\n", 1, "expected"},
    {"host_send_ns =\n", 1, "missing value"},
    {"host_send_ns = # comment\n", 1, "missing value"},
    {" = 5\n", 1, "missing field name"},
};

/* Values that parse as numbers but make no physical sense: each message
 * names the field, the value as written and the range. */
static const bad_case_t out_of_range_cases[] = {
    {"link_mb_s = 0 MB/s\n", 1,
     "link_mb_s = 0 MB/s is out of range (expected a rate from 0.001 MB/s "
     "to 1e+09 MB/s)"},
    {"pci_mb_s = 1e-310\n", 1, "pci_mb_s = 1e-310 is out of range"},
    {"host_copy_mb_s = 0.0009 MB/s\n", 1, "host_copy_mb_s = 0.0009 MB/s"},
    {"link_mb_s = 2e9 MB/s\n", 1, "link_mb_s = 2e9 MB/s is out of range"},
    {"host_send_ns = 1e300\n", 1,
     "host_send_ns = 1e300 is out of range (expected a time from 0 ns to "
     "1e+12 ns)"},
    {"host_send_ns = 1e19\n", 1, "host_send_ns = 1e19 is out of range"},
    {"# a comment\nwatchdog_ns = 1001 s\n", 2,
     "watchdog_ns = 1001 s is out of range"},
    {"ni_rx_ns = 1e-320 ns\n", 1, "ni_rx_ns = 1e-320 ns is out of range"},
    {"host_pio_ns_per_byte = 2e7\n", 1,
     "host_pio_ns_per_byte = 2e7 is out of range (expected a time from 0 "
     "ns to 1e+07 ns)"},
    {"host_speed = 0\n", 1,
     "host_speed = 0 is out of range (expected a number from 0.001 to "
     "1e+06)"},
    {"host_speed = 1e7\n", 1, "host_speed = 1e7 is out of range"},
    {"host_send_ns = -1\n", 1, "expected a time from 0 ns to 1e+12 ns"},
};

static void check_bad_cases(const bad_case_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        lci_profile_t p;
        lci_profile_t before;
        char err[ERRLEN];
        char prefix[64];

        lci_profile_defaults(&p);
        /* Something unusual in every field, so "unchanged" means it. */
        p.ni_tx_ns = 1.25;
        p.host_send_ns = 3.5;
        before = p;
        memset(err, 0, sizeof(err));
        lci_status_t st = lci_profile_parse(cases[i].text, "bad.prof", &p,
                                            err, sizeof(err));

        snprintf(prefix, sizeof(prefix), "bad.prof:%u: ", cases[i].line);
        if (st != LCI_ERR_CONFIG || strncmp(err, prefix, strlen(prefix)) != 0 ||
            strstr(err, cases[i].phrase) == NULL ||
            memcmp(&p, &before, sizeof(p)) != 0) {
            fprintf(stderr, "\ncase %zu: status %d, message \"%s\"\n", i,
                    (int)st, err);
        }
        CU_ASSERT_EQUAL(st, LCI_ERR_CONFIG);
        CU_ASSERT_EQUAL(strncmp(err, prefix, strlen(prefix)), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].phrase));
        CU_ASSERT_EQUAL(memcmp(&p, &before, sizeof(p)), 0);
    }
}

static void profile_value_out_of_its_range_names_field_value_and_range(void)
{
    check_bad_cases(out_of_range_cases,
                    sizeof(out_of_range_cases) / sizeof(out_of_range_cases[0]));
}

/* The ends of every range are accepted, so the bounds are what they say. */
static void profile_range_ends_are_accepted(void)
{
    lci_profile_t p;
    char err[ERRLEN];

    lci_profile_defaults(&p);
    CU_ASSERT_EQUAL(lci_profile_parse("link_mb_s = 0.001 MB/s\n"
                                      "pci_mb_s = 1e9\n"
                                      "host_send_ns = 1000 s\n"
                                      "host_recv_ns = 0\n"
                                      "host_pio_ns_per_byte = 1e7\n"
                                      "host_speed = 0.001\n",
                                      "ends", &p, err, sizeof(err)),
                    LCI_OK);
    CU_ASSERT_EQUAL(p.link_mb_s, 0.001);
    CU_ASSERT_EQUAL(p.pci_mb_s, 1e9);
    CU_ASSERT_EQUAL(p.host_send_ns, 1e12);
    CU_ASSERT_EQUAL(p.host_recv_ns, 0.0);
    CU_ASSERT_EQUAL(p.host_pio_ns_per_byte, 1e7);
    CU_ASSERT_EQUAL(p.host_speed, 0.001);
    CU_ASSERT_EQUAL(lci_profile_parse("host_speed = 1e6\n", "ends", &p, err,
                                      sizeof(err)),
                    LCI_OK);
    CU_ASSERT_EQUAL(p.host_speed, 1e6);
}

static void profile_nul_byte_is_an_error_naming_the_line(void)
{
    static const char text[] = "host_send_ns = 1\nni_tx_ns = 2\0 junk\n";
    lci_profile_t p;
    lci_profile_t before;
    char err[ERRLEN];

    lci_profile_defaults(&p);
    before = p;
    CU_ASSERT_EQUAL(lci_profile_parse_bytes(text, sizeof(text) - 1, "nul", &p,
                                            err, sizeof(err)),
                    LCI_ERR_CONFIG);
    CU_ASSERT_EQUAL(strncmp(err, "nul:2: NUL byte", 15), 0);
    CU_ASSERT_EQUAL(memcmp(&p, &before, sizeof(p)), 0);
    /* Without the NUL the same bytes are a good profile. */
    CU_ASSERT_EQUAL(lci_profile_parse_bytes(text, 29, "nul", &p, err,
                                            sizeof(err)),
                    LCI_OK);
    CU_ASSERT_EQUAL(p.ni_tx_ns, 2.0);
}

static void profile_text_over_one_mib_is_an_error(void)
{
    size_t size = 1024 * 1024 + 1;
    char *text = malloc(size);
    lci_profile_t p;
    char err[ERRLEN];

    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    /* Blank lines: fine but for the size. */
    memset(text, '\n', size);
    lci_profile_defaults(&p);
    CU_ASSERT_EQUAL(lci_profile_parse_bytes(text, size, "big", &p, err,
                                            sizeof(err)),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "big: larger than 1048576 bytes"));
    CU_ASSERT_EQUAL(lci_profile_parse_bytes(text, size - 1, "big", &p, err,
                                            sizeof(err)),
                    LCI_OK);
    free(text);
}

/* An endless file stops the read at the size limit at once, instead of
 * growing memory until allocation fails. */
static void profile_load_of_dev_zero_fails_fast(void)
{
    lci_profile_t p;
    lci_profile_t before;
    char err[ERRLEN];

    if (access("/dev/zero", R_OK) != 0) {
        return;
    }
    profile_fill(&p, 9.0);
    before = p;
    CU_ASSERT_EQUAL(lci_profile_load("/dev/zero", &p, err, sizeof(err)),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "/dev/zero"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "larger than 1048576 bytes"));
    CU_ASSERT_EQUAL(memcmp(&p, &before, sizeof(p)), 0);
}

static void profile_every_error_names_file_and_line_and_changes_nothing(void)
{
    check_bad_cases(bad_cases, sizeof(bad_cases) / sizeof(bad_cases[0]));
}

static void profile_error_on_a_late_line_discards_earlier_lines(void)
{
    lci_profile_t p;
    lci_profile_t before;
    char err[ERRLEN];

    lci_profile_defaults(&p);
    before = p;
    CU_ASSERT_EQUAL(lci_profile_parse("host_send_ns = 1\nni_tx_ns = 2\n"
                                      "link_mb_s = 3\nbogus = 4\n",
                                      "x", &p, err, sizeof(err)),
                    LCI_ERR_CONFIG);
    CU_ASSERT_EQUAL(strncmp(err, "x:4: ", 5), 0);
    CU_ASSERT_EQUAL(memcmp(&p, &before, sizeof(p)), 0);
}

static void profile_parse_rejects_overlong_line(void)
{
    lci_profile_t p;
    lci_profile_t before;
    char err[ERRLEN];
    char *text = malloc(5000);

    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    strcpy(text, "host_send_ns = 1\n# ");
    memset(text + strlen(text), 'x', 3000);
    strcpy(text + 19 + 3000, "\n");
    lci_profile_defaults(&p);
    before = p;
    CU_ASSERT_EQUAL(lci_profile_parse(text, "long", &p, err, sizeof(err)),
                    LCI_ERR_CONFIG);
    CU_ASSERT_EQUAL(strncmp(err, "long:2: ", 8), 0);
    CU_ASSERT_EQUAL(memcmp(&p, &before, sizeof(p)), 0);
    free(text);
}

static void profile_error_message_is_truncated_safely(void)
{
    lci_profile_t p;
    char err[8];

    lci_profile_defaults(&p);
    memset(err, 'z', sizeof(err));
    CU_ASSERT_EQUAL(
        lci_profile_parse("bogus = 1\n", "file", &p, err, sizeof(err)),
        LCI_ERR_CONFIG);
    CU_ASSERT_STRING_EQUAL(err, "file:1:");
    /* No buffer at all is allowed too. */
    CU_ASSERT_EQUAL(lci_profile_parse("bogus = 1\n", "file", &p, NULL, 0),
                    LCI_ERR_CONFIG);
}

/* ---- format ------------------------------------------------------------- */

static void check_round_trip(const lci_profile_t *p)
{
    char buf[8192];
    char err[ERRLEN];
    lci_profile_t back;
    double a[NFIELDS];
    double b[NFIELDS];

    int n = lci_profile_format(p, buf, sizeof(buf));

    CU_ASSERT_TRUE_FATAL(n > 0 && (size_t)n < sizeof(buf));
    profile_fill(&back, 123456.0);
    CU_ASSERT_EQUAL_FATAL(
        lci_profile_parse(buf, "fmt", &back, err, sizeof(err)), LCI_OK);
    profile_values(p, a);
    profile_values(&back, b);
    /* Bit for bit: %.17g loses nothing. */
    CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
}

static void profile_format_then_parse_gives_back_every_field(void)
{
    lci_profile_t p;

    lci_profile_defaults(&p);
    check_round_trip(&p);

    /* Values that a short format would round. */
    double v = 1.0 / 3.0;

#define ODD(field, def, unit, desc) p.field = (v = fmod(v * 7.31, 1e5));
    LCI_PROFILE_FIELDS(ODD)
#undef ODD
    /* And the ends of the ranges. */
    p.host_speed = 0.1;
    p.wire_ns = 1e-300;
    p.ni_clock_ns = 0.0;
    p.switch_hop_ns = 1e12;
    p.link_mb_s = 1e9;
    p.pci_mb_s = 1e-3;
    check_round_trip(&p);
}

static void profile_format_lists_every_field_with_its_unit(void)
{
    lci_profile_t p;
    char buf[8192];

    lci_profile_defaults(&p);
    CU_ASSERT_TRUE_FATAL(lci_profile_format(&p, buf, sizeof(buf)) > 0);
    for (size_t i = 0; i < NFIELDS; i++) {
        char needle[96];

        snprintf(needle, sizeof(needle), "\n%s = ", field_names[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, needle));
    }
    char line[96];
    snprintf(line, sizeof(line), "\nhost_send_ns = %g ns", p.host_send_ns);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, line));
    snprintf(line, sizeof(line), "\nlink_mb_s = %g MB/s", p.link_mb_s);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, line));
}

static void profile_format_prints_shortest_exact_numbers(void)
{
    lci_profile_t p;
    char buf[8192];

    lci_profile_defaults(&p);
    p.host_pio_ns_per_byte = 0.15;
    p.wire_ns = 0.1 + 0.2; /* needs all 17 digits */
    CU_ASSERT_TRUE_FATAL(lci_profile_format(&p, buf, sizeof(buf)) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\nhost_pio_ns_per_byte = 0.15 ns"));
    CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\nwire_ns = 0.30000000000000004 ns"));
    check_round_trip(&p);
}

static void profile_format_returns_full_length_when_truncated(void)
{
    lci_profile_t p;
    char big[8192];
    char small[16];

    lci_profile_defaults(&p);
    int full = lci_profile_format(&p, big, sizeof(big));

    CU_ASSERT_TRUE_FATAL(full > 0);
    CU_ASSERT_EQUAL((size_t)full, strlen(big));
    CU_ASSERT_EQUAL(lci_profile_format(&p, NULL, 0), full);
    memset(small, 'z', sizeof(small));
    CU_ASSERT_EQUAL(lci_profile_format(&p, small, sizeof(small)), full);
    CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
    CU_ASSERT_EQUAL(strncmp(small, big, sizeof(small) - 1), 0);
    CU_ASSERT_EQUAL(lci_profile_format(NULL, big, sizeof(big)), -1);
}

/* ---- loading ------------------------------------------------------------ */

static void profile_load_by_path_names_the_profile_after_the_file(void)
{
    char path[512];
    char err[ERRLEN];
    lci_profile_t p;

    snprintf(path, sizeof(path), "%s/lab-nic", tmpdir);
    write_file(path, "ni_tx_ns = 2 us\n");
    profile_fill(&p, 9.0);
    CU_ASSERT_EQUAL_FATAL(lci_profile_load(path, &p, err, sizeof(err)), LCI_OK);
    CU_ASSERT_STRING_EQUAL(p.name, "lab-nic");
    CU_ASSERT_EQUAL(p.ni_tx_ns, 2000.0);
    /* Unlisted fields come from the defaults, not from *p. */
    lci_profile_t def;
    lci_profile_defaults(&def);
    CU_ASSERT_EQUAL(p.host_send_ns, def.host_send_ns);
}

static void profile_load_error_names_file_and_line_and_changes_nothing(void)
{
    char path[512];
    char err[ERRLEN];
    char prefix[600];
    lci_profile_t p;
    lci_profile_t before;

    snprintf(path, sizeof(path), "%s/broken", tmpdir);
    write_file(path, "# fine\nni_tx_ns = 2 MB/s\n");
    profile_fill(&p, 9.0);
    before = p;
    CU_ASSERT_EQUAL(lci_profile_load(path, &p, err, sizeof(err)),
                    LCI_ERR_CONFIG);
    snprintf(prefix, sizeof(prefix), "%s:2: ", path);
    CU_ASSERT_EQUAL(strncmp(err, prefix, strlen(prefix)), 0);
    CU_ASSERT_EQUAL(memcmp(&p, &before, sizeof(p)), 0);
}

static void profile_load_of_missing_path_is_a_config_error(void)
{
    char path[512];
    char err[ERRLEN];
    lci_profile_t p;
    lci_profile_t before;

    snprintf(path, sizeof(path), "%s/does-not-exist", tmpdir);
    profile_fill(&p, 9.0);
    before = p;
    CU_ASSERT_EQUAL(lci_profile_load(path, &p, err, sizeof(err)),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
    CU_ASSERT_EQUAL(memcmp(&p, &before, sizeof(p)), 0);
    CU_ASSERT_EQUAL(lci_profile_load("", &p, err, sizeof(err)), LCI_ERR_CONFIG);
}

static void profile_load_by_name_prefers_lci_profile_dir(void)
{
    char path[512];
    char err[ERRLEN];
    lci_profile_t p;
    char *saved = getenv("LCI_PROFILE_DIR");

    saved = saved != NULL ? strdup(saved) : NULL;
    /* Shadows the shipped profile of the same name. */
    snprintf(path, sizeof(path), "%s/myrinet-1999", tmpdir);
    write_file(path, "wire_ns = 3\n");
    CU_ASSERT_EQUAL_FATAL(setenv("LCI_PROFILE_DIR", tmpdir, 1), 0);
    CU_ASSERT_EQUAL(lci_profile_load("myrinet-1999", &p, err, sizeof(err)),
                    LCI_OK);
    CU_ASSERT_EQUAL(p.wire_ns, 3.0);
    CU_ASSERT_STRING_EQUAL(p.name, "myrinet-1999");

    /* Without it, the build tree's copy is found. */
    CU_ASSERT_EQUAL_FATAL(unsetenv("LCI_PROFILE_DIR"), 0);
    CU_ASSERT_EQUAL(lci_profile_load("myrinet-1999", &p, err, sizeof(err)),
                    LCI_OK);
    CU_ASSERT_EQUAL(p.wire_ns, 50.0);
    unlink(path);
    if (saved != NULL) {
        setenv("LCI_PROFILE_DIR", saved, 1);
        free(saved);
    }
}

static void profile_load_not_found_lists_the_directories_tried(void)
{
    char err[ERRLEN];
    lci_profile_t p;
    lci_profile_t before;
    char *saved = getenv("LCI_PROFILE_DIR");

    saved = saved != NULL ? strdup(saved) : NULL;
    CU_ASSERT_EQUAL_FATAL(setenv("LCI_PROFILE_DIR", tmpdir, 1), 0);
    profile_fill(&p, 9.0);
    before = p;
    CU_ASSERT_EQUAL(lci_profile_load("no-such-profile", &p, err, sizeof(err)),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no-such-profile"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, tmpdir));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, LCI_PROFILE_DIR_BUILD));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, LCI_PROFILE_DIR_INSTALL));
    CU_ASSERT_EQUAL(memcmp(&p, &before, sizeof(p)), 0);
    if (saved != NULL) {
        setenv("LCI_PROFILE_DIR", saved, 1);
        free(saved);
    } else {
        unsetenv("LCI_PROFILE_DIR");
    }
}

/* ---- the shipped profiles ----------------------------------------------- */

/* Parses a shipped profile over NaNs, so that a field it leaves out
 * shows. */
static void parse_shipped(const char *name, lci_profile_t *p)
{
    char path[512];
    char err[ERRLEN];

    snprintf(path, sizeof(path), "%s/%s", LCI_PROFILE_DIR_BUILD, name);
    profile_fill(p, NAN);
    lci_status_t st =
        lci_profile_parse(read_file(path), path, p, err, sizeof(err));

    if (st != LCI_OK) {
        fprintf(stderr, "\n%s\n", err);
    }
    CU_ASSERT_EQUAL_FATAL(st, LCI_OK);

    double v[NFIELDS];

    profile_values(p, v);
    for (size_t i = 0; i < NFIELDS; i++) {
        if (isnan(v[i])) {
            fprintf(stderr, "\n%s does not set %s\n", name, field_names[i]);
        }
        CU_ASSERT_FALSE(isnan(v[i]));
    }
}

static void profile_myrinet_1999_lists_every_field_at_its_default(void)
{
    lci_profile_t p;
    lci_profile_t def;
    double a[NFIELDS];
    double b[NFIELDS];

    parse_shipped("myrinet-1999", &p);
    lci_profile_defaults(&def);
    profile_values(&p, a);
    profile_values(&def, b);
    for (size_t i = 0; i < NFIELDS; i++) {
        if (a[i] != b[i]) {
            fprintf(stderr, "\nmyrinet-1999: %s = %g, default %g\n",
                    field_names[i], a[i], b[i]);
        }
        CU_ASSERT_EQUAL(a[i], b[i]);
    }
}

static void profile_smartnic_2024_lists_every_field_in_modern_ranges(void)
{
    lci_profile_t p;

    parse_shipped("smartnic-2024", &p);
    CU_ASSERT_TRUE(p.host_send_ns >= 20.0 && p.host_send_ns <= 200.0);
    CU_ASSERT_TRUE(p.link_mb_s >= 12500.0 && p.link_mb_s <= 25000.0);
    CU_ASSERT_TRUE(p.pci_mb_s >= 16000.0 && p.pci_mb_s <= 25000.0);
    CU_ASSERT_TRUE(p.watchdog_ns == 5000.0);
    CU_ASSERT_TRUE(p.host_intr_ns >= 1000.0 && p.host_intr_ns <= 5000.0);
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"profile_defaults_follow_the_field_table",
         profile_defaults_follow_the_field_table},
        {"profile_parse_skips_comments_and_blank_lines",
         profile_parse_skips_comments_and_blank_lines},
        {"profile_parse_keeps_fields_it_does_not_mention",
         profile_parse_keeps_fields_it_does_not_mention},
        {"profile_parse_converts_time_units_to_ns",
         profile_parse_converts_time_units_to_ns},
        {"profile_parse_reads_rates_in_mb_per_s_and_plain_factors",
         profile_parse_reads_rates_in_mb_per_s_and_plain_factors},
        {"profile_every_error_names_file_and_line_and_changes_nothing",
         profile_every_error_names_file_and_line_and_changes_nothing},
        {"profile_value_out_of_its_range_names_field_value_and_range",
         profile_value_out_of_its_range_names_field_value_and_range},
        {"profile_range_ends_are_accepted", profile_range_ends_are_accepted},
        {"profile_nul_byte_is_an_error_naming_the_line",
         profile_nul_byte_is_an_error_naming_the_line},
        {"profile_text_over_one_mib_is_an_error",
         profile_text_over_one_mib_is_an_error},
        {"profile_load_of_dev_zero_fails_fast",
         profile_load_of_dev_zero_fails_fast},
        {"profile_error_on_a_late_line_discards_earlier_lines",
         profile_error_on_a_late_line_discards_earlier_lines},
        {"profile_parse_rejects_overlong_line",
         profile_parse_rejects_overlong_line},
        {"profile_error_message_is_truncated_safely",
         profile_error_message_is_truncated_safely},
        {"profile_format_then_parse_gives_back_every_field",
         profile_format_then_parse_gives_back_every_field},
        {"profile_format_lists_every_field_with_its_unit",
         profile_format_lists_every_field_with_its_unit},
        {"profile_format_prints_shortest_exact_numbers",
         profile_format_prints_shortest_exact_numbers},
        {"profile_format_returns_full_length_when_truncated",
         profile_format_returns_full_length_when_truncated},
        {"profile_load_by_path_names_the_profile_after_the_file",
         profile_load_by_path_names_the_profile_after_the_file},
        {"profile_load_error_names_file_and_line_and_changes_nothing",
         profile_load_error_names_file_and_line_and_changes_nothing},
        {"profile_load_of_missing_path_is_a_config_error",
         profile_load_of_missing_path_is_a_config_error},
        {"profile_load_by_name_prefers_lci_profile_dir",
         profile_load_by_name_prefers_lci_profile_dir},
        {"profile_load_not_found_lists_the_directories_tried",
         profile_load_not_found_lists_the_directories_tried},
        {"profile_myrinet_1999_lists_every_field_at_its_default",
         profile_myrinet_1999_lists_every_field_at_its_default},
        {"profile_smartnic_2024_lists_every_field_in_modern_ranges",
         profile_smartnic_2024_lists_every_field_in_modern_ranges},
    };

    snprintf(tmpdir, sizeof(tmpdir), "%s/lci-test-profile-XXXXXX",
             getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    int rc = lci_unit_run("profile", tests, LCI_UNIT_COUNT(tests));
    char cmd[512];

    /* Remove what the tests wrote (names known, so no shell needed). */
    static const char *const files[] = {"lab-nic", "broken", "myrinet-1999"};

    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(cmd, sizeof(cmd), "%s/%s", tmpdir, files[i]);
        unlink(cmd);
    }
    rmdir(tmpdir);
    return rc;
}
