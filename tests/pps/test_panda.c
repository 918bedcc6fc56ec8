/*
 * test_panda.c - Panda through lci-run (CUnit): RPC of 0 B to 1 MiB,
 * one-way messages whose fragments interleave, unordered and
 * totally-ordered broadcast from every node at once, Panda-MT with
 * blocking threads, on every decomposition and, on the retransmitting
 * ones, over a lossy wire.
 */
#include <stdio.h>
#include <string.h>

#include "pps_cunit.h"

#define RPC   e2e_prog_path("tests/pps/panda_rpc")
#define BCAST e2e_prog_path("tests/pps/panda_bcast")
#define MT    e2e_prog_path("tests/pps/panda_mt")

#define LOSSY "drop=0.02,seed=4"

/* RPC and one-way messages, then both broadcasts, single-threaded; then
 * Panda-MT; all on decomposition d, over a lossy wire if lossy. */
static void check_decomp(const char *d, int lossy)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    const char *opt = PPS_WIRE_OPT(lossy);
    const char *val = PPS_WIRE_VAL(lossy, LOSSY);
    e2e_run(&r, "-n", "3", "--decomp", d, opt, val, RPC, NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "5", "--decomp", d, opt, val, RPC, "--max", "8192", NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "7", "--decomp", d, opt, val, BCAST, "-k", "8", NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "4", "--decomp", d, opt, val, MT, "--mt", "-k", "6",
            NULL);
    pps_expect_ok(&r);
}

PPS_DECOMP_TEST(test_rxno_mni_rpc_oneway_broadcasts_and_threads, "rxno-mni", 0)
PPS_DECOMP_TEST(test_rxno_mh_rpc_oneway_broadcasts_and_threads, "rxno-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_rpc_oneway_broadcasts_and_threads, "rxni-mni", 0)
PPS_DECOMP_TEST(test_rxni_mh_rpc_oneway_broadcasts_and_threads, "rxni-mh", 0)
PPS_DECOMP_TEST(test_rxh_mh_rpc_oneway_broadcasts_and_threads, "rxh-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_survives_drops, "rxni-mni", 1)
PPS_DECOMP_TEST(test_rxni_mh_survives_drops, "rxni-mh", 1)
PPS_DECOMP_TEST(test_rxh_mh_survives_drops, "rxh-mh", 1)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_rpc_oneway_broadcasts_and_threads, "rxni-mni-vmmc2", 0)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_survives_drops, "rxni-mni-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_vmmc2_survives_drops, "rxh-mh-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_ssam_survives_drops, "rxh-mh-ssam", 1)
PPS_DECOMP_TEST(test_rxni_mni_am2_survives_drops, "rxni-mni-am2", 1)
PPS_DECOMP_TEST(test_rxni_mni_srd_survives_drops, "rxni-mni-srd", 1)
PPS_DECOMP_TEST(test_rxh_mni_survives_drops, "rxh-mni", 1)

static void test_rpc_1_mib_multithreaded_round_trips(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", RPC, "--mt", NULL);
    pps_expect_ok(&r);
}

static void test_ordered_broadcast_64_nodes_one_order(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "64", BCAST, "-k", "2", NULL);
    pps_expect_ok(&r);
}

static void test_ordered_broadcast_multithreaded_one_order(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "6", BCAST, "--mt", "-k", "6", NULL);
    pps_expect_ok(&r);
}

/* The interrupts column of the "sum" row of lci-run --stats, or -1. */
static long stats_interrupts(const char *err)
{
    const char *p = strstr(err != NULL ? err : "", "\n  sum ");
    long v[16];
    if (p == NULL ||
        sscanf(p,
               " sum %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld "
               "%ld %ld",
               &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
               &v[9], &v[10], &v[11], &v[12], &v[13], &v[14]) != 15) {
        return -1;
    }
    return v[14];
}

/* Panda-MT hands the node from thread to thread at fixed points only, so
 * the same seed must give the same trace, also when threads compute and
 * requests come in by interrupt. */
static void test_multithreaded_run_is_deterministic_and_takes_interrupts(void)
{
    struct e2e_run a, b;
    char ha[19], hb[19];
    e2e_run(&a, "-n", "4", "--seed", "9", "--compute", "zero", "--trace-hash",
            "--stats", MT, "--mt", "-t", "4", "-k", "8", "--compute-us", "200",
            NULL);
    e2e_run(&b, "-n", "4", "--seed", "9", "--compute", "zero", "--trace-hash",
            "--stats", MT, "--mt", "-t", "4", "-k", "8", "--compute-us", "200",
            NULL);
    e2e_expect_success(&a);
    e2e_expect_success(&b);
    CU_ASSERT_FATAL(e2e_trace_hash(&a, ha) && e2e_trace_hash(&b, hb));
    if (strcmp(ha, hb) != 0) {
        printf("\n    same seed, different trace hashes: %s vs %s", ha, hb);
    }
    CU_ASSERT_STRING_EQUAL(ha, hb);
    long intr = stats_interrupts(a.err);
    if (intr <= 0) {
        printf("\n    no interrupts counted (%ld)", intr);
    }
    CU_ASSERT(intr > 0);
    e2e_run_free(&a);
    e2e_run_free(&b);
}

static void test_thread_calls_in_single_threaded_panda_fail(void)
{
    struct e2e_run r;
    /* panda_mt insists on Panda-MT and says so. */
    e2e_run(&r, "-n", "2", MT, NULL);
    e2e_expect_failure(&r, "run with --mt", NULL);
    e2e_run_free(&r);
}

int main(void)
{
    static const pps_test_t tests[] = {
        PPS_TEST(rxno_mni_rpc_oneway_broadcasts_and_threads),
        PPS_TEST(rxno_mh_rpc_oneway_broadcasts_and_threads),
        PPS_TEST(rxni_mni_rpc_oneway_broadcasts_and_threads),
        PPS_TEST(rxni_mh_rpc_oneway_broadcasts_and_threads),
        PPS_TEST(rxh_mh_rpc_oneway_broadcasts_and_threads),
        PPS_TEST(rxni_mni_vmmc2_rpc_oneway_broadcasts_and_threads),
        PPS_TEST(rxni_mni_survives_drops),
        PPS_TEST(rxni_mh_survives_drops),
        PPS_TEST(rxh_mh_survives_drops),
        PPS_TEST(rxni_mni_vmmc2_survives_drops),
        PPS_TEST(rxh_mh_vmmc2_survives_drops),
        PPS_TEST(rxh_mh_ssam_survives_drops),
        PPS_TEST(rxni_mni_am2_survives_drops),
        PPS_TEST(rxni_mni_srd_survives_drops),
        PPS_TEST(rxh_mni_survives_drops),
        PPS_TEST(rpc_1_mib_multithreaded_round_trips),
        PPS_TEST(ordered_broadcast_64_nodes_one_order),
        PPS_TEST(ordered_broadcast_multithreaded_one_order),
        PPS_TEST(multithreaded_run_is_deterministic_and_takes_interrupts),
        PPS_TEST(thread_calls_in_single_threaded_panda_fail),
    };
    return pps_cunit_main("panda", tests, sizeof tests / sizeof tests[0]);
}
