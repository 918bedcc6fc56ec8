/*
 * test_apps.c - the paper's applications through lci-run (CUnit): each
 * checks its own answer (SOR against a sequential emulation, QR and LEQ by
 * their residuals) on every decomposition,
 * with drops on the retransmitting ones, and on 64 nodes.
 */
#include <stdio.h>

#include "pps_cunit.h"

#define SOR e2e_prog_path("apps/sor")
#define QR  e2e_prog_path("apps/qr")
#define LEQ e2e_prog_path("apps/leq")
/* Radix runs on every decomposition, with drops, on 64 nodes and live in
 * tests/pps/crl_test (it is CRL's many-writers test too). */
#define RADIX e2e_prog_path("apps/radix")

static void check_decomp(const char *d, int lossy)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    const char *opt = PPS_WIRE_OPT(lossy);
    const char *val = PPS_WIRE_VAL(lossy, "drop=0.02,seed=4");
    e2e_run(&r, "-n", "7", "--decomp", d, opt, val, SOR, "--size", "61",
            "--iters", "20", NULL);
    pps_expect_checked(&r);
    e2e_run(&r, "-n", "5", "--decomp", d, opt, val, QR, "--size", "48", NULL);
    pps_expect_checked(&r);
    e2e_run(&r, "-n", "6", "--decomp", d, opt, val, LEQ, "--equations", "45",
            "--tolerance", "1e-6", NULL);
    pps_expect_checked(&r);
}

PPS_DECOMP_TEST(test_rxno_mni_sor_qr_leq_check_their_answers, "rxno-mni", 0)
PPS_DECOMP_TEST(test_rxno_mh_sor_qr_leq_check_their_answers, "rxno-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_sor_qr_leq_check_their_answers, "rxni-mni", 0)
PPS_DECOMP_TEST(test_rxni_mh_sor_qr_leq_check_their_answers, "rxni-mh", 0)
PPS_DECOMP_TEST(test_rxh_mh_sor_qr_leq_check_their_answers, "rxh-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_apps_survive_drops, "rxni-mni", 1)
PPS_DECOMP_TEST(test_rxh_mh_apps_survive_drops, "rxh-mh", 1)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_sor_qr_leq_check_their_answers, "rxni-mni-vmmc2", 0)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_apps_survive_drops, "rxni-mni-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_vmmc2_apps_survive_drops, "rxh-mh-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_ssam_apps_survive_drops, "rxh-mh-ssam", 1)
PPS_DECOMP_TEST(test_rxni_mni_am2_apps_survive_drops, "rxni-mni-am2", 1)
PPS_DECOMP_TEST(test_rxni_mni_srd_apps_survive_drops, "rxni-mni-srd", 1)
PPS_DECOMP_TEST(test_rxh_mni_apps_survive_drops, "rxh-mni", 1)

static void test_apps_on_64_nodes_check_their_answers(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "64", SOR, "--size", "130", "--iters", "10", NULL);
    pps_expect_checked(&r);
    e2e_run(&r, "-n", "64", QR, "--size", "100", NULL);
    pps_expect_checked(&r);
    e2e_run(&r, "-n", "64", LEQ, "--equations", "64", "--tolerance", "1e-3",
            NULL);
    pps_expect_checked(&r);
}

/* The live platform runs the same binary. */
static void test_apps_on_the_live_platform_check_their_answers(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "3", "--platform", "live", SOR, "--size", "40", "--iters",
            "10", NULL);
    pps_expect_checked(&r);
    e2e_run(&r, "-n", "3", "--platform", "live", QR, "--size", "40", NULL);
    pps_expect_checked(&r);
    e2e_run(&r, "-n", "3", "--platform", "live", LEQ, "--quick", NULL);
    pps_expect_checked(&r);
}

static void test_apps_refuse_bad_options_saying_what_was_expected(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", SOR, "--size", "1", NULL);
    pps_expect_refused(&r, "--size expects 2..65536");
    e2e_run(&r, "-n", "2", SOR, "--bogus", "3", NULL);
    pps_expect_refused(&r, "unknown option");
    e2e_run(&r, "-n", "2", QR, "--size", "x", NULL);
    pps_expect_refused(&r, "--size expects 2..8192");
    e2e_run(&r, "-n", "4", LEQ, "--equations", "3", NULL);
    pps_expect_refused(&r, "at least the number of nodes");
    e2e_run(&r, "-n", "4", RADIX, "--keys", "3", NULL);
    pps_expect_refused(&r, "--keys expects at least one key per node");
    e2e_run(&r, "-n", "2", RADIX, "--radix", "13", NULL);
    pps_expect_refused(&r, "--radix expects 1..12");
    e2e_run(&r, "-n", "2", LEQ, "--tolerance", "2", NULL);
    pps_expect_refused(&r, "--tolerance expects a number in (0, 1)");
}

int main(void)
{
    static const pps_test_t tests[] = {
        PPS_TEST(rxno_mni_sor_qr_leq_check_their_answers),
        PPS_TEST(rxno_mh_sor_qr_leq_check_their_answers),
        PPS_TEST(rxni_mni_sor_qr_leq_check_their_answers),
        PPS_TEST(rxni_mh_sor_qr_leq_check_their_answers),
        PPS_TEST(rxh_mh_sor_qr_leq_check_their_answers),
        PPS_TEST(rxni_mni_vmmc2_sor_qr_leq_check_their_answers),
        PPS_TEST(rxni_mni_apps_survive_drops),
        PPS_TEST(rxh_mh_apps_survive_drops),
        PPS_TEST(rxni_mni_vmmc2_apps_survive_drops),
        PPS_TEST(rxh_mh_vmmc2_apps_survive_drops),
        PPS_TEST(rxh_mh_ssam_apps_survive_drops),
        PPS_TEST(rxni_mni_am2_apps_survive_drops),
        PPS_TEST(rxni_mni_srd_apps_survive_drops),
        PPS_TEST(rxh_mni_apps_survive_drops),
        PPS_TEST(apps_on_64_nodes_check_their_answers),
        PPS_TEST(apps_on_the_live_platform_check_their_answers),
        PPS_TEST(apps_refuse_bad_options_saying_what_was_expected),
    };
    return pps_cunit_main("apps", tests, sizeof tests / sizeof tests[0]);
}
