/*
 * test_apps.c - the paper's applications through lci-run (CUnit): each
 * checks its own answer against a sequential run, on every decomposition,
 * with drops on the retransmitting ones, and on 64 nodes.
 */
#include <stdio.h>

#include "pps_cunit.h"

#define SOR e2e_prog_path("apps/sor")

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
    CU_ASSERT(e2e_contains(r.out, ": OK"));
    pps_expect_ok(&r);
}

PPS_DECOMP_TEST(test_rxno_mni_sor_equals_the_sequential_run, "rxno-mni", 0)
PPS_DECOMP_TEST(test_rxno_mh_sor_equals_the_sequential_run, "rxno-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_sor_equals_the_sequential_run, "rxni-mni", 0)
PPS_DECOMP_TEST(test_rxni_mh_sor_equals_the_sequential_run, "rxni-mh", 0)
PPS_DECOMP_TEST(test_rxh_mh_sor_equals_the_sequential_run, "rxh-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_sor_survives_drops, "rxni-mni", 1)
PPS_DECOMP_TEST(test_rxh_mh_sor_survives_drops, "rxh-mh", 1)

static void test_sor_on_64_nodes_equals_the_sequential_run(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "64", SOR, "--size", "130", "--iters", "10", NULL);
    CU_ASSERT(e2e_contains(r.out, ": OK"));
    pps_expect_ok(&r);
}

/* The live platform runs the same binary. */
static void test_sor_on_the_live_platform_equals_the_sequential_run(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "3", "--platform", "live", SOR, "--size", "40",
            "--iters", "10", NULL);
    CU_ASSERT(e2e_contains(r.out, ": OK"));
    pps_expect_ok(&r);
}

static void test_sor_refuses_bad_options_saying_what_was_expected(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", SOR, "--size", "1", NULL);
    CU_ASSERT(r.status != 0);
    CU_ASSERT(e2e_contains(r.err, "--size expects 2..65536"));
    e2e_run_free(&r);
    e2e_run(&r, "-n", "2", SOR, "--bogus", "3", NULL);
    CU_ASSERT(r.status != 0);
    CU_ASSERT(e2e_contains(r.err, "unknown option"));
    e2e_run_free(&r);
}

int main(void)
{
    static const pps_test_t tests[] = {
        PPS_TEST(rxno_mni_sor_equals_the_sequential_run),
        PPS_TEST(rxno_mh_sor_equals_the_sequential_run),
        PPS_TEST(rxni_mni_sor_equals_the_sequential_run),
        PPS_TEST(rxni_mh_sor_equals_the_sequential_run),
        PPS_TEST(rxh_mh_sor_equals_the_sequential_run),
        PPS_TEST(rxni_mni_sor_survives_drops),
        PPS_TEST(rxh_mh_sor_survives_drops),
        PPS_TEST(sor_on_64_nodes_equals_the_sequential_run),
        PPS_TEST(sor_on_the_live_platform_equals_the_sequential_run),
        PPS_TEST(sor_refuses_bad_options_saying_what_was_expected),
    };
    return pps_cunit_main("apps", tests, sizeof tests / sizeof tests[0]);
}
