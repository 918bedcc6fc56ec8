/*
 * test_mpi.c - the MPI layer through lci-run (CUnit): point-to-point with
 * wildcards and per-(source, tag) order, the send modes, probes,
 * persistent and cancelled requests, error codes, communicators, groups,
 * attributes, derived datatypes, and every collective (blocking and
 * non-blocking) against results computed alone, on every decomposition,
 * with drops on the retransmitting ones, and on 64 nodes.
 */
#include <stdio.h>

#include "pps_cunit.h"

#define P2P  e2e_prog_path("tests/pps/mpi_p2p")
#define COLL e2e_prog_path("tests/pps/mpi_coll")
#define CALLS e2e_prog_path("tests/pps/mpi_calls")
#define COMMS e2e_prog_path("tests/pps/mpi_comms_types")

static void check_decomp(const char *d, int lossy)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    const char *opt = PPS_WIRE_OPT(lossy);
    const char *val = PPS_WIRE_VAL(lossy, "drop=0.02,seed=6");
    e2e_run(&r, "-n", "5", "--decomp", d, opt, val, P2P, "8", NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "6", "--decomp", d, opt, val, COLL, NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "5", "--decomp", d, opt, val, CALLS, NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "7", "--decomp", d, opt, val, COMMS, NULL);
    pps_expect_ok(&r);
}

PPS_DECOMP_TEST(test_rxno_mni_p2p_and_collectives, "rxno-mni", 0)
PPS_DECOMP_TEST(test_rxno_mh_p2p_and_collectives, "rxno-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_p2p_and_collectives, "rxni-mni", 0)
PPS_DECOMP_TEST(test_rxni_mh_p2p_and_collectives, "rxni-mh", 0)
PPS_DECOMP_TEST(test_rxh_mh_p2p_and_collectives, "rxh-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_survives_drops, "rxni-mni", 1)
PPS_DECOMP_TEST(test_rxni_mh_survives_drops, "rxni-mh", 1)
PPS_DECOMP_TEST(test_rxh_mh_survives_drops, "rxh-mh", 1)

static void test_collectives_64_nodes_match_serial_results(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "64", COLL, NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "64", CALLS, NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "64", COMMS, NULL);
    pps_expect_ok(&r);
}

static void test_calls_on_two_ranks_and_the_process_engine(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", CALLS, NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "2", COMMS, NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "3", "--engine", "processes", CALLS, NULL);
    pps_expect_ok(&r);
}

static void test_single_rank_runs_everything(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "1", P2P, "3", NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "1", COLL, NULL);
    pps_expect_ok(&r);
}

int main(void)
{
    static const pps_test_t tests[] = {
        PPS_TEST(rxno_mni_p2p_and_collectives),
        PPS_TEST(rxno_mh_p2p_and_collectives),
        PPS_TEST(rxni_mni_p2p_and_collectives),
        PPS_TEST(rxni_mh_p2p_and_collectives),
        PPS_TEST(rxh_mh_p2p_and_collectives),
        PPS_TEST(rxni_mni_survives_drops),
        PPS_TEST(rxni_mh_survives_drops),
        PPS_TEST(rxh_mh_survives_drops),
        PPS_TEST(collectives_64_nodes_match_serial_results),
        PPS_TEST(single_rank_runs_everything),
        PPS_TEST(calls_on_two_ranks_and_the_process_engine),
    };
    return pps_cunit_main("mpi", tests, sizeof tests / sizeof tests[0]);
}
