/*
 * mg_test.c - the Multigame-like search layer end to end (CUnit): runs
 * mg_jobs (every job processed exactly once, on its owner, termination
 * detected only when all are done) and the example 8-puzzle search
 * (checked against a serial search) through lci-run on the simulated
 * cluster: on every decomposition, with k = 1, 4 and 64 jobs a message,
 * and with dropped packets on the decompositions that retransmit.
 */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "crl_mg_suite.h"

#define JOBS   e2e_prog_path("tests/pps/mg_jobs")
#define PUZZLE e2e_prog_path("ppsbindings/multigame/mg_puzzle")

static void check_decomp(const char *d)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    e2e_run(&r, "-n", "2", "--decomp", d, JOBS, "-k", "4", NULL);
    crl_mg_expect_ok(&r);
    e2e_run(&r, "-n", "7", "--decomp", d, JOBS, "-k", "64", "--runs", "2",
            NULL);
    crl_mg_expect_ok(&r);
    e2e_run(&r, "-n", "5", "--decomp", d, PUZZLE, "--depth", "12", "-k", "4",
            NULL);
    crl_mg_expect_ok(&r);
    if (strncmp(d, "rxno", 4) != 0) {
        e2e_run(&r, "-n", "5", "--decomp", d, "--fault", "drop=0.02,seed=6",
                JOBS, "-k", "4", NULL);
        crl_mg_expect_ok(&r);
        e2e_run(&r, "-n", "4", "--decomp", d, "--fault", "drop=0.02,seed=7",
                PUZZLE, "--depth", "10", "-k", "64", NULL);
        crl_mg_expect_ok(&r);
    }
}

#define DECOMP_TEST(id, name)                                                  \
    static void test_mg_jobs_once_and_terminates_on_##id(void)                 \
    {                                                                          \
        check_decomp(name);                                                    \
    }

DECOMP_TEST(rxno_mni, "rxno-mni")
DECOMP_TEST(rxno_mh, "rxno-mh")
DECOMP_TEST(rxni_mni, "rxni-mni")
DECOMP_TEST(rxni_mh, "rxni-mh")
DECOMP_TEST(rxh_mh, "rxh-mh")
DECOMP_TEST(rxni_mni_vmmc2, "rxni-mni-vmmc2")
DECOMP_TEST(rxh_mh_ssam, "rxh-mh-ssam")
DECOMP_TEST(rxni_mni_am2, "rxni-mni-am2")
DECOMP_TEST(rxni_mni_srd, "rxni-mni-srd")
DECOMP_TEST(rxh_mni, "rxh-mni")

/* Chains of single jobs hopping between nodes: most nodes are idle while
 * a job is on the wire, so a detector that trusts idleness alone (or one
 * wave of it) returns early and mg_jobs reports the unprocessed job. */
static void test_mg_chains_of_jobs_terminate_only_when_done(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "7", JOBS, "-k", "1", "--fanout", "1", "--gens", "20",
            "--roots", "2", NULL);
    crl_mg_expect_ok(&r);
    e2e_run(&r, "-n", "7", JOBS, "-k", "4", "--fanout", "1", "--gens", "20",
            "--roots", "2", NULL);
    crl_mg_expect_ok(&r);
}

static void test_mg_single_node_runs_everything_locally(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "1", PUZZLE, "--depth", "8", NULL);
    crl_mg_expect_ok(&r);
}

static void test_mg_puzzle_on_64_nodes_matches_serial_search(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "64", PUZZLE, "--depth", "14", "-k", "16", NULL);
    if (e2e_expect_success(&r)) {
        CU_ASSERT(e2e_contains(r.out, "64 nodes"));
        CU_ASSERT(e2e_contains(r.out, ": OK"));
    }
    e2e_run_free(&r);
}

static void test_mg_rejects_k_out_of_range(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", JOBS, "-k", "0", NULL);
    e2e_expect_failure(&r, "k = 0", NULL);
    e2e_run_free(&r);
    e2e_run(&r, "-n", "2", PUZZLE, "--depth", "40", NULL);
    e2e_expect_failure(&r, "--depth expects", NULL);
    e2e_run_free(&r);
}

/* The layer adds nothing that depends on addresses, timing or
 * uninitialised memory: the same run gives the same simulated events. */
static void test_mg_runs_are_deterministic(void)
{
    crl_mg_expect_same_trace("5", JOBS, "4");
}

/* Real time and real concurrency: node processes run at once, the NI on
 * its own thread, packets over UDP with drops. */
static void test_mg_jobs_once_and_terminate_on_the_live_platform(void)
{
    struct e2e_run r;
    e2e_run(&r, "--platform", "live", "-n", "4", JOBS, "-k", "4", "--fanout",
            "1", "--gens", "30", "--roots", "3", NULL);
    crl_mg_expect_ok(&r);
    if (e2e_skip_unless_offered("rxh-mh")) {
        return;
    }
    e2e_run(&r, "--platform", "live", "--wire", "udp", "--nic", "thread", "-n",
            "4", "--decomp", "rxh-mh", "--fault", "drop=0.02,seed=3", JOBS,
            "-k", "4", "--fanout", "1", "--gens", "30", "--roots", "3", NULL);
    crl_mg_expect_ok(&r);
}

int main(void)
{
    static const pps_test_t tests[] = {
        PPS_TEST(mg_jobs_once_and_terminates_on_rxno_mni),
        PPS_TEST(mg_jobs_once_and_terminates_on_rxno_mh),
        PPS_TEST(mg_jobs_once_and_terminates_on_rxni_mni),
        PPS_TEST(mg_jobs_once_and_terminates_on_rxni_mh),
        PPS_TEST(mg_jobs_once_and_terminates_on_rxh_mh),
        PPS_TEST(mg_jobs_once_and_terminates_on_rxni_mni_vmmc2),
        PPS_TEST(mg_jobs_once_and_terminates_on_rxh_mh_ssam),
        PPS_TEST(mg_jobs_once_and_terminates_on_rxni_mni_am2),
        PPS_TEST(mg_jobs_once_and_terminates_on_rxni_mni_srd),
        PPS_TEST(mg_jobs_once_and_terminates_on_rxh_mni),
        PPS_TEST(mg_chains_of_jobs_terminate_only_when_done),
        PPS_TEST(mg_single_node_runs_everything_locally),
        PPS_TEST(mg_puzzle_on_64_nodes_matches_serial_search),
        PPS_TEST(mg_rejects_k_out_of_range),
        PPS_TEST(mg_runs_are_deterministic),
        PPS_TEST(mg_jobs_once_and_terminate_on_the_live_platform),
    };
    return pps_cunit_main("multigame", tests, sizeof tests / sizeof tests[0]);
}
