/*
 * test_mpi.c - the MPI layer through lci-run (CUnit): point-to-point with
 * wildcards and per-(source, tag) order, the send modes, probes,
 * persistent and cancelled requests, error codes, communicators, groups,
 * attributes, derived datatypes, and every collective (blocking and
 * non-blocking) against results computed alone, on every decomposition,
 * with drops on the retransmitting ones, and on 64 nodes; the conformance
 * suite chapter by chapter and the OSU patterns, simulated and live.
 */
#include <stdio.h>

#include "pps_cunit.h"

#define P2P  e2e_prog_path("tests/pps/mpi_p2p")
#define COLL e2e_prog_path("tests/pps/mpi_coll")
#define CALLS e2e_prog_path("tests/pps/mpi_calls")
#define COMMS e2e_prog_path("tests/pps/mpi_comms_types")
#define OSU   e2e_prog_path("bench/mpi_osu")
#define CONF  e2e_prog_path("tests/pps/mpi_conformance")

/* Every pattern of bench/mpi_osu, self-checked (--check), at small sizes
 * over the eager limit and the packet size, on n ranks with the given
 * lci-run options (up to four words, NULL-padded). */
static void osu_all(const char *n, const char *a, const char *b,
                    const char *c, const char *d)
{
    static const char *const p2p[] = {"latency", "bw", "bibw", "mbw_mr"};
    static const char *const coll[] = {"barrier",   "bcast",   "reduce",
                                       "allreduce", "gather",  "scatter",
                                       "allgather", "alltoall"};
    struct e2e_run r;
    for (size_t i = 0; i < sizeof p2p / sizeof p2p[0]; i++) {
        e2e_run(&r, "-n", n, a ? a : "--seed", a ? b : "1",
                c ? c : "--seed", c ? d : "1", OSU, p2p[i], "--max", "40000",
                "--iters", "3", "--warmup", "1", "--window", "4", "--check",
                NULL);
        CU_ASSERT(e2e_contains(r.out, "32768 "));
        pps_expect_ok(&r);
    }
    for (size_t i = 0; i < sizeof coll / sizeof coll[0]; i++) {
        e2e_run(&r, "-n", n, a ? a : "--seed", a ? b : "1",
                c ? c : "--seed", c ? d : "1", OSU, coll[i], "--max", "8192",
                "--iters", "2", "--warmup", "1", "--check", NULL);
        CU_ASSERT(e2e_contains(r.out, i == 0 ? "# mpi_osu barrier" : "8192 "));
        pps_expect_ok(&r);
    }
}

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
    e2e_run(&r, "-n", "5", "--decomp", d, opt, val, CONF, NULL);
    pps_expect_checked(&r);
    osu_all("4", "--decomp", d, opt, val);
}

PPS_DECOMP_TEST(test_rxno_mni_p2p_and_collectives, "rxno-mni", 0)
PPS_DECOMP_TEST(test_rxno_mh_p2p_and_collectives, "rxno-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_p2p_and_collectives, "rxni-mni", 0)
PPS_DECOMP_TEST(test_rxni_mh_p2p_and_collectives, "rxni-mh", 0)
PPS_DECOMP_TEST(test_rxh_mh_p2p_and_collectives, "rxh-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_survives_drops, "rxni-mni", 1)
PPS_DECOMP_TEST(test_rxni_mh_survives_drops, "rxni-mh", 1)
PPS_DECOMP_TEST(test_rxh_mh_survives_drops, "rxh-mh", 1)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_p2p_and_collectives, "rxni-mni-vmmc2", 0)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_survives_drops, "rxni-mni-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_vmmc2_survives_drops, "rxh-mh-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_ssam_survives_drops, "rxh-mh-ssam", 1)
PPS_DECOMP_TEST(test_rxni_mni_am2_survives_drops, "rxni-mni-am2", 1)
PPS_DECOMP_TEST(test_rxni_mni_srd_survives_drops, "rxni-mni-srd", 1)
PPS_DECOMP_TEST(test_rxh_mni_survives_drops, "rxh-mni", 1)

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

/* The conformance suite (every chapter) on 2 and 64 ranks, and live on
 * shared memory on every decomposition and on a lossy UDP wire. */
static void test_conformance_on_64_ranks_and_live(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", CONF, NULL);
    pps_expect_checked(&r);
    e2e_run(&r, "-n", "64", CONF, NULL);
    pps_expect_checked(&r);
    e2e_run(&r, "--platform", "live", "-n", "4", CONF, NULL);
    pps_expect_checked(&r);
    for (size_t i = 0; i < E2E_NDECOMPS; i++) {
        if (!e2e_offered(e2e_decomps[i])) {
            continue;
        }
        e2e_run(&r, "--platform", "live", "--decomp", e2e_decomps[i], "-n",
                "3", CONF, NULL);
        pps_expect_checked(&r);
    }
    e2e_run(&r, "--platform", "live", "--wire", "udp", "--decomp", "rxni-mni",
            "--fault", "drop=0.02,seed=3", "-n", "3", CONF, NULL);
    pps_expect_checked(&r);
}

static void test_osu_patterns_on_64_nodes_and_live(void)
{
    osu_all("64", NULL, NULL, NULL, NULL);
    for (size_t i = 0; i < E2E_NDECOMPS; i++) {
        if (e2e_offered(e2e_decomps[i])) {
            osu_all("4", "--platform", "live", "--decomp", e2e_decomps[i]);
        }
    }
}

/* With 16 KiB packets messages up to eight packets go eagerly: the
 * 100 KB messages of mpi_p2p then arrive before their receives (the
 * unexpected queue's copy) and in place, and the conformance suite's
 * truncation and probe cases meet eager messages of that size; simulated
 * and live. */
static void test_large_packets_send_large_messages_eagerly(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "5", "--packet-size", "16384", "--sram", "16M", P2P,
            "4", NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "3", "--packet-size", "16384", "--sram", "16M", CONF,
            NULL);
    pps_expect_checked(&r);
    e2e_run(&r, "--platform", "live", "-n", "3", "--packet-size", "16384",
            "--sram", "16M", P2P, "4", NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "--platform", "live", "-n", "3", "--packet-size", "16384",
            "--sram", "16M", CONF, NULL);
    pps_expect_checked(&r);
}

static void test_osu_refuses_bad_command_lines(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", OSU, "latencyy", NULL);
    pps_expect_refused(&r, "unknown test");
    e2e_run(&r, "-n", "2", OSU, "bw", "--window", "0", NULL);
    pps_expect_refused(&r, "out of range");
    e2e_run(&r, "-n", "3", OSU, "mbw_mr", NULL);
    pps_expect_refused(&r, "even number of ranks");
    e2e_run(&r, "-n", "1", OSU, "latency", NULL);
    pps_expect_refused(&r, "at least 2 ranks");
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
        PPS_TEST(rxni_mni_vmmc2_p2p_and_collectives),
        PPS_TEST(rxni_mni_survives_drops),
        PPS_TEST(rxni_mh_survives_drops),
        PPS_TEST(rxh_mh_survives_drops),
        PPS_TEST(rxni_mni_vmmc2_survives_drops),
        PPS_TEST(rxh_mh_vmmc2_survives_drops),
        PPS_TEST(rxh_mh_ssam_survives_drops),
        PPS_TEST(rxni_mni_am2_survives_drops),
        PPS_TEST(rxni_mni_srd_survives_drops),
        PPS_TEST(rxh_mni_survives_drops),
        PPS_TEST(collectives_64_nodes_match_serial_results),
        PPS_TEST(single_rank_runs_everything),
        PPS_TEST(calls_on_two_ranks_and_the_process_engine),
        PPS_TEST(conformance_on_64_ranks_and_live),
        PPS_TEST(osu_patterns_on_64_nodes_and_live),
        PPS_TEST(osu_refuses_bad_command_lines),
        PPS_TEST(large_packets_send_large_messages_eagerly),
    };
    return pps_cunit_main("mpi", tests, sizeof tests / sizeof tests[0]);
}
