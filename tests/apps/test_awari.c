/*
 * test_awari.c - Awari (apps/awari) through lci-run (CUnit): each run
 * checks its databases (every board worth the best of its moves, the same
 * copies everywhere, and up to 7 stones a sequential build board by board)
 * on every decomposition, with drops on the retransmitting ones, on 64
 * nodes and on one, on the live platform, and the bad-option errors.
 */
#include <stdio.h>
#include <string.h>

#include "pps_cunit.h"

#define AWARI e2e_prog_path("apps/awari")

static void check_decomp(const char *d, int lossy)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    const char *opt = PPS_WIRE_OPT(lossy);
    const char *val = PPS_WIRE_VAL(lossy, "drop=0.02,seed=4");
    e2e_run(&r, "-n", "7", "--decomp", d, opt, val, AWARI, "--stones", "6",
            "--batch", "16", NULL);
    CU_ASSERT(e2e_contains(r.out, "checked against a sequential build"));
    pps_expect_checked(&r);
}

PPS_DECOMP_TEST(test_rxno_mni_awari_checks_its_databases, "rxno-mni", 0)
PPS_DECOMP_TEST(test_rxno_mh_awari_checks_its_databases, "rxno-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_awari_checks_its_databases, "rxni-mni", 0)
PPS_DECOMP_TEST(test_rxni_mh_awari_checks_its_databases, "rxni-mh", 0)
PPS_DECOMP_TEST(test_rxh_mh_awari_checks_its_databases, "rxh-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_awari_survives_drops, "rxni-mni", 1)
PPS_DECOMP_TEST(test_rxh_mh_awari_survives_drops, "rxh-mh", 1)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_awari_checks_its_databases, "rxni-mni-vmmc2", 0)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_awari_survives_drops, "rxni-mni-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_vmmc2_awari_survives_drops, "rxh-mh-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_ssam_awari_survives_drops, "rxh-mh-ssam", 1)
PPS_DECOMP_TEST(test_rxni_mni_am2_awari_survives_drops, "rxni-mni-am2", 1)
PPS_DECOMP_TEST(test_rxni_mni_srd_awari_survives_drops, "rxni-mni-srd", 1)
PPS_DECOMP_TEST(test_rxh_mni_awari_survives_drops, "rxh-mni", 1)

/* 64 nodes and one give the same databases (the hash is printed). */
static void test_awari_on_64_nodes_and_on_one(void)
{
    struct e2e_run r64, r1;
    e2e_run(&r64, "-n", "64", AWARI, "--stones", "5", NULL);
    CU_ASSERT(e2e_contains(r64.out, ": OK"));
    e2e_run(&r1, "-n", "1", AWARI, "--stones", "5", NULL);
    CU_ASSERT(e2e_contains(r1.out, ": OK"));
    const char *h64 = strstr(r64.out, "databases ");
    const char *h1 = strstr(r1.out, "databases ");
    CU_ASSERT_FATAL(h64 != NULL && h1 != NULL);
    CU_ASSERT(strncmp(h64, h1, 26) == 0);
    pps_expect_ok(&r64);
    pps_expect_ok(&r1);
}

/* The live platform runs the same binary. */
static void test_awari_on_the_live_platform(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "3", "--platform", "live", AWARI, "--stones", "5",
            NULL);
    pps_expect_checked(&r);
}

static void test_awari_refuses_bad_options_saying_what_was_expected(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", AWARI, "--stones", "17", NULL);
    pps_expect_refused(&r, "--stones expects 1..16");
    e2e_run(&r, "-n", "2", AWARI, "--batch", "0", NULL);
    pps_expect_refused(&r, "--batch expects 1..65536");
    e2e_run(&r, "-n", "2", AWARI, "--bogus", "3", NULL);
    pps_expect_refused(&r, "unknown option");
    e2e_run(&r, "-n", "2", AWARI, "--stones", NULL);
    pps_expect_refused(&r, "lacks its value");
}

int main(void)
{
    static const pps_test_t tests[] = {
        PPS_TEST(rxno_mni_awari_checks_its_databases),
        PPS_TEST(rxno_mh_awari_checks_its_databases),
        PPS_TEST(rxni_mni_awari_checks_its_databases),
        PPS_TEST(rxni_mh_awari_checks_its_databases),
        PPS_TEST(rxh_mh_awari_checks_its_databases),
        PPS_TEST(rxni_mni_vmmc2_awari_checks_its_databases),
        PPS_TEST(rxni_mni_awari_survives_drops),
        PPS_TEST(rxh_mh_awari_survives_drops),
        PPS_TEST(rxni_mni_vmmc2_awari_survives_drops),
        PPS_TEST(rxh_mh_vmmc2_awari_survives_drops),
        PPS_TEST(rxh_mh_ssam_awari_survives_drops),
        PPS_TEST(rxni_mni_am2_awari_survives_drops),
        PPS_TEST(rxni_mni_srd_awari_survives_drops),
        PPS_TEST(rxh_mni_awari_survives_drops),
        PPS_TEST(awari_on_64_nodes_and_on_one),
        PPS_TEST(awari_on_the_live_platform),
        PPS_TEST(awari_refuses_bad_options_saying_what_was_expected),
    };
    return pps_cunit_main("awari", tests, sizeof tests / sizeof tests[0]);
}
