/*
 * test_puzzle.c - Puzzle-4 and Puzzle-64 (apps/puzzle) through lci-run
 * (CUnit): each run checks its solution (the moves reach the goal, and
 * length, moves and positions visited equal a sequential IDA* run's) on
 * every decomposition, with drops on the retransmitting ones, on 64 nodes,
 * on the live platform, and the bad-option errors.
 */
#include <stdio.h>

#include "pps_cunit.h"

#define PUZZLE e2e_prog_path("apps/puzzle")

static void check_decomp(const char *d, int lossy)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    const char *opt = PPS_WIRE_OPT(lossy);
    const char *val = PPS_WIRE_VAL(lossy, "drop=0.02,seed=4");
    e2e_run(&r, "-n", "7", "--decomp", d, opt, val, PUZZLE, "-k", "4",
            "--instance", "short32", "--cutoff", "3", NULL);
    pps_expect_checked(&r);
    e2e_run(&r, "-n", "5", "--decomp", d, opt, val, PUZZLE, "-k", "64",
            "--instance", "short32", "--cutoff", "5", NULL);
    pps_expect_checked(&r);
}

PPS_DECOMP_TEST(test_rxno_mni_puzzle_checks_its_solution, "rxno-mni", 0)
PPS_DECOMP_TEST(test_rxno_mh_puzzle_checks_its_solution, "rxno-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_puzzle_checks_its_solution, "rxni-mni", 0)
PPS_DECOMP_TEST(test_rxni_mh_puzzle_checks_its_solution, "rxni-mh", 0)
PPS_DECOMP_TEST(test_rxh_mh_puzzle_checks_its_solution, "rxh-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_puzzle_survives_drops, "rxni-mni", 1)
PPS_DECOMP_TEST(test_rxh_mh_puzzle_survives_drops, "rxh-mh", 1)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_puzzle_checks_its_solution, "rxni-mni-vmmc2", 0)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_puzzle_survives_drops, "rxni-mni-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_vmmc2_puzzle_survives_drops, "rxh-mh-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_ssam_puzzle_survives_drops, "rxh-mh-ssam", 1)
PPS_DECOMP_TEST(test_rxni_mni_am2_puzzle_survives_drops, "rxni-mni-am2", 1)
PPS_DECOMP_TEST(test_rxni_mni_srd_puzzle_survives_drops, "rxni-mni-srd", 1)
PPS_DECOMP_TEST(test_rxh_mni_puzzle_survives_drops, "rxh-mni", 1)

static void test_puzzle_on_64_nodes_and_on_one(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "64", PUZZLE, "-k", "4", "--quick", NULL);
    CU_ASSERT(e2e_contains(r.out, ": OK"));
    CU_ASSERT(e2e_contains(r.out, "sequential IDA*"));
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "1", PUZZLE, "--instance", "short32", NULL);
    pps_expect_checked(&r);
}

/* The live platform runs the same binary. */
static void test_puzzle_on_the_live_platform(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "3", "--platform", "live", PUZZLE, "-k", "4",
            "--instance", "short32", NULL);
    pps_expect_checked(&r);
}

static void test_puzzle_refuses_bad_options_saying_what_was_expected(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", PUZZLE, "-k", "0", NULL);
    pps_expect_refused(&r, "-k expects 1..4096");
    e2e_run(&r, "-n", "2", PUZZLE, "--bogus", "3", NULL);
    pps_expect_refused(&r, "unknown option");
    e2e_run(&r, "-n", "2", PUZZLE, "--board",
            "1 0 2 3 4 5 6 7 8 9 10 11 12 13 15 14", NULL);
    pps_expect_refused(&r, "wrong permutation parity");
    e2e_run(&r, "-n", "2", PUZZLE, "--instance", "korf99", NULL);
    pps_expect_refused(&r, "--instance expects");
}

int main(void)
{
    static const pps_test_t tests[] = {
        PPS_TEST(rxno_mni_puzzle_checks_its_solution),
        PPS_TEST(rxno_mh_puzzle_checks_its_solution),
        PPS_TEST(rxni_mni_puzzle_checks_its_solution),
        PPS_TEST(rxni_mh_puzzle_checks_its_solution),
        PPS_TEST(rxh_mh_puzzle_checks_its_solution),
        PPS_TEST(rxni_mni_vmmc2_puzzle_checks_its_solution),
        PPS_TEST(rxni_mni_puzzle_survives_drops),
        PPS_TEST(rxh_mh_puzzle_survives_drops),
        PPS_TEST(rxni_mni_vmmc2_puzzle_survives_drops),
        PPS_TEST(rxh_mh_vmmc2_puzzle_survives_drops),
        PPS_TEST(rxh_mh_ssam_puzzle_survives_drops),
        PPS_TEST(rxni_mni_am2_puzzle_survives_drops),
        PPS_TEST(rxni_mni_srd_puzzle_survives_drops),
        PPS_TEST(rxh_mni_puzzle_survives_drops),
        PPS_TEST(puzzle_on_64_nodes_and_on_one),
        PPS_TEST(puzzle_on_the_live_platform),
        PPS_TEST(puzzle_refuses_bad_options_saying_what_was_expected),
    };
    return pps_cunit_main("puzzle", tests, sizeof tests / sizeof tests[0]);
}
