/*
 * test_barnes.c - Barnes-Hut (CRL) through lci-run (CUnit): the program
 * checks its forces against a direct sum, on every decomposition, with
 * drops on the retransmitting ones, on 64 nodes, on the live platform,
 * twice alike, and refuses bad options.
 */
#include <stdio.h>
#include <string.h>

#include "pps_cunit.h"

#define BARNES e2e_prog_path("apps/barnes")

static void check_decomp(const char *d, int lossy)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    const char *opt = PPS_WIRE_OPT(lossy);
    const char *val = PPS_WIRE_VAL(lossy, "drop=0.02,seed=4");
    e2e_run(&r, "-n", "5", "--decomp", d, opt, val, BARNES, "--bodies", "300",
            "--steps", "2", NULL);
    pps_expect_checked(&r);
}

PPS_DECOMP_TEST(test_rxno_mni_barnes_checks_its_forces, "rxno-mni", 0)
PPS_DECOMP_TEST(test_rxno_mh_barnes_checks_its_forces, "rxno-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_barnes_checks_its_forces, "rxni-mni", 0)
PPS_DECOMP_TEST(test_rxni_mh_barnes_checks_its_forces, "rxni-mh", 0)
PPS_DECOMP_TEST(test_rxh_mh_barnes_checks_its_forces, "rxh-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_barnes_survives_drops, "rxni-mni", 1)
PPS_DECOMP_TEST(test_rxh_mh_barnes_survives_drops, "rxh-mh", 1)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_barnes_checks_its_forces, "rxni-mni-vmmc2", 0)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_barnes_survives_drops, "rxni-mni-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_vmmc2_barnes_survives_drops, "rxh-mh-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_ssam_barnes_survives_drops, "rxh-mh-ssam", 1)
PPS_DECOMP_TEST(test_rxni_mni_am2_barnes_survives_drops, "rxni-mni-am2", 1)
PPS_DECOMP_TEST(test_rxni_mni_srd_barnes_survives_drops, "rxni-mni-srd", 1)
PPS_DECOMP_TEST(test_rxh_mni_barnes_survives_drops, "rxh-mni", 1)

/* The checksum of the accelerations: same run, same bits. */
static void checksum_of(const char *out, char *sum, size_t len)
{
    const char *p = strstr(out, "checksum ");
    sum[0] = '\0';
    if (p != NULL) {
        snprintf(sum, len, "%.*s", (int)strcspn(p + 9, ":"), p + 9);
    }
}

static void test_barnes_on_one_and_64_nodes_checks_its_forces(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "1", BARNES, "--bodies", "500", "--steps", "2", NULL);
    pps_expect_checked(&r);
    e2e_run(&r, "-n", "64", BARNES, "--bodies", "256", "--steps", "1", NULL);
    CU_ASSERT(e2e_contains(r.out, "64 nodes"));
    pps_expect_checked(&r);
}

static void test_barnes_is_deterministic(void)
{
    struct e2e_run r;
    char a[64], b[64];
    e2e_run(&r, "-n", "3", BARNES, "--bodies", "400", "--steps", "2", NULL);
    checksum_of(r.out, a, sizeof a);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "3", "--decomp", "rxno-mh", BARNES, "--bodies", "400",
            "--steps", "2", NULL);
    checksum_of(r.out, b, sizeof b);
    pps_expect_ok(&r);
    CU_ASSERT(a[0] != '\0');
    CU_ASSERT_STRING_EQUAL(a, b);
}

/* The live platform runs the same binary. */
static void test_barnes_on_the_live_platform_checks_its_forces(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "3", "--platform", "live", BARNES, "--bodies", "300",
            "--steps", "2", NULL);
    pps_expect_checked(&r);
}

static void test_barnes_refuses_bad_options_saying_what_was_expected(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", BARNES, "--bodies", "1", NULL);
    pps_expect_refused(&r, "--bodies expects 2..1048576");
    e2e_run(&r, "-n", "2", BARNES, "--theta", "3", NULL);
    pps_expect_refused(&r, "--theta expects 0.1..1.0");
    e2e_run(&r, "-n", "2", BARNES, "--bogus", "3", NULL);
    pps_expect_refused(&r, "unknown option");
}

int main(void)
{
    static const pps_test_t tests[] = {
        PPS_TEST(rxno_mni_barnes_checks_its_forces),
        PPS_TEST(rxno_mh_barnes_checks_its_forces),
        PPS_TEST(rxni_mni_barnes_checks_its_forces),
        PPS_TEST(rxni_mh_barnes_checks_its_forces),
        PPS_TEST(rxh_mh_barnes_checks_its_forces),
        PPS_TEST(rxni_mni_vmmc2_barnes_checks_its_forces),
        PPS_TEST(rxni_mni_barnes_survives_drops),
        PPS_TEST(rxh_mh_barnes_survives_drops),
        PPS_TEST(rxni_mni_vmmc2_barnes_survives_drops),
        PPS_TEST(rxh_mh_vmmc2_barnes_survives_drops),
        PPS_TEST(rxh_mh_ssam_barnes_survives_drops),
        PPS_TEST(rxni_mni_am2_barnes_survives_drops),
        PPS_TEST(rxni_mni_srd_barnes_survives_drops),
        PPS_TEST(rxh_mni_barnes_survives_drops),
        PPS_TEST(barnes_on_one_and_64_nodes_checks_its_forces),
        PPS_TEST(barnes_is_deterministic),
        PPS_TEST(barnes_on_the_live_platform_checks_its_forces),
        PPS_TEST(barnes_refuses_bad_options_saying_what_was_expected),
    };
    return pps_cunit_main("barnes", tests, sizeof tests / sizeof tests[0]);
}
