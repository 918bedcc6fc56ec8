/*
 * crl_test.c - CRL end to end (CUnit): runs the CRL node programs through
 * lci-run on the simulated cluster, on every decomposition, and with
 * dropped packets on the ones that retransmit.
 *
 * crl_coherence checks sequentially consistent reads and writes of shared
 * regions and an exact counter; apps/radix (the paper's Radix) sorts with
 * many writers sharing each region and checks the result; crl_api checks status codes, big
 * regions, broadcast, reductions and delete.  Each program exits 0 only if
 * all its checks passed.  Also: the live platform, determinism, and the
 * Table 5 benchmark running to the end.
 */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "crl_mg_suite.h"

#define COHERENCE e2e_prog_path("tests/pps/crl_coherence")
#define CRL_API   e2e_prog_path("tests/pps/crl_api")
#define CRL_MISS  e2e_prog_path("bench/pps_crl_miss")
#define RADIX     e2e_prog_path("apps/radix")

static int is_rx_no(const char *d)
{
    return strncmp(d, "rxno", 4) == 0;
}

static void run_ok(const char *n, const char *decomp, const char *fault,
                   const char *prog, const char *k)
{
    struct e2e_run r;
    if (fault != NULL) {
        e2e_run(&r, "-n", n, "--decomp", decomp, "--fault", fault, prog, "-k",
                k, NULL);
    } else {
        e2e_run(&r, "-n", n, "--decomp", decomp, prog, "-k", k, NULL);
    }
    crl_mg_expect_ok(&r);
}

static void check_decomp(const char *d)
{
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    run_ok("2", d, NULL, COHERENCE, "200");
    run_ok("7", d, NULL, COHERENCE, "300");
    run_ok("3", d, NULL, CRL_API, "1");
    run_ok("4", d, NULL, RADIX, "1024");
    if (!is_rx_no(d)) {
        run_ok("5", d, "drop=0.02,seed=4", COHERENCE, "200");
        run_ok("3", d, "drop=0.05,seed=5", CRL_API, "1");
        run_ok("4", d, "drop=0.02,seed=5", RADIX, "1024");
    }
}

#define DECOMP_TEST(id, name)                                                  \
    static void test_crl_is_coherent_on_##id(void)                             \
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

static void test_crl_is_coherent_on_64_nodes(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "64", COHERENCE, "-k", "40", "--regions", "2", NULL);
    if (e2e_expect_success(&r)) {
        CU_ASSERT(e2e_contains(r.out, "64 nodes"));
    }
    e2e_run_free(&r);
}

static void test_crl_is_coherent_with_interrupts(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "5", COHERENCE, "-k", "200", "--intr", NULL);
    crl_mg_expect_ok(&r);
}

/* Radix sort on 64 nodes: every region written by neighbours at once. */
static void test_crl_radix_sorts_on_64_nodes(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "64", RADIX, "-k", "256", "--bits", "8", "--radix", "4",
            NULL);
    crl_mg_expect_ok(&r);
}

/* Under rxh-mh a host takes in acknowledgements only outside the upcall,
 * so a home that had to wait for send buffers inside it (63 sharers to
 * invalidate, packets held for retransmission) would stop for good. */
static void test_crl_is_coherent_on_64_nodes_with_drops_on_rxh_mh(void)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered("rxh-mh")) {
        return;
    }
    e2e_run(&r, "-n", "64", "--decomp", "rxh-mh", "--fault", "drop=0.01,seed=3",
            COHERENCE, "-k", "30", "--regions", "1", NULL);
    if (e2e_expect_success(&r)) {
        CU_ASSERT(e2e_contains(r.out, "64 nodes"));
    }
    e2e_run_free(&r);
}

/* The node program reports what it rejects and exits nonzero, which is
 * how every broken invariant it checks shows up in the tests above. */
static void test_crl_program_rejects_a_bad_option(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", COHERENCE, "--regions", "0", NULL);
    e2e_expect_failure(&r, "out of range", NULL);
    e2e_run_free(&r);
}

/* The Table 5 benchmark runs both levels to the end and reports them (its
 * numbers are for the benchmark's reader, not checked here). */
static void test_crl_miss_benchmark_reports_both_levels(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", CRL_MISS, "--iters", "3", "--tput-iters", "2",
            "--tput-size", "8K", NULL);
    if (e2e_expect_success(&r)) {
        CU_ASSERT(e2e_contains(r.out, "latency, 64-byte region"));
        CU_ASSERT(e2e_contains(r.out, "throughput, 8192-byte region"));
    }
    e2e_run_free(&r);
    e2e_run(&r, "-n", "2", CRL_MISS, "--size", "0", NULL);
    e2e_expect_failure(&r, "--size", NULL);
    e2e_run_free(&r);
}

/* The layer adds nothing that depends on addresses, timing or
 * uninitialised memory: the same run gives the same simulated events. */
static void test_crl_runs_are_deterministic(void)
{
    crl_mg_expect_same_trace("5", COHERENCE, "100");
}

/* Real time and real concurrency: node processes run at once, the NI on
 * its own thread, packets over UDP with drops. */
static void test_crl_is_coherent_on_the_live_platform(void)
{
    struct e2e_run r;
    e2e_run(&r, "--platform", "live", "-n", "4", COHERENCE, "-k", "200", NULL);
    crl_mg_expect_ok(&r);
    e2e_run(&r, "--platform", "live", "-n", "4", RADIX, "-k", "1024", NULL);
    crl_mg_expect_ok(&r);
    if (e2e_skip_unless_offered("rxh-mh")) {
        return;
    }
    e2e_run(&r, "--platform", "live", "--wire", "udp", "--nic", "thread", "-n",
            "4", "--decomp", "rxh-mh", "--fault", "drop=0.02,seed=3", COHERENCE,
            "-k", "200", NULL);
    crl_mg_expect_ok(&r);
}

int main(void)
{
    static const pps_test_t tests[] = {
        PPS_TEST(crl_is_coherent_on_rxno_mni),
        PPS_TEST(crl_is_coherent_on_rxno_mh),
        PPS_TEST(crl_is_coherent_on_rxni_mni),
        PPS_TEST(crl_is_coherent_on_rxni_mh),
        PPS_TEST(crl_is_coherent_on_rxh_mh),
        PPS_TEST(crl_is_coherent_on_rxni_mni_vmmc2),
        PPS_TEST(crl_is_coherent_on_rxh_mh_ssam),
        PPS_TEST(crl_is_coherent_on_rxni_mni_am2),
        PPS_TEST(crl_is_coherent_on_rxni_mni_srd),
        PPS_TEST(crl_is_coherent_on_rxh_mni),
        PPS_TEST(crl_is_coherent_on_64_nodes),
        PPS_TEST(crl_radix_sorts_on_64_nodes),
        PPS_TEST(crl_runs_are_deterministic),
        PPS_TEST(crl_is_coherent_on_64_nodes_with_drops_on_rxh_mh),
        PPS_TEST(crl_is_coherent_with_interrupts),
        PPS_TEST(crl_program_rejects_a_bad_option),
        PPS_TEST(crl_miss_benchmark_reports_both_levels),
        PPS_TEST(crl_is_coherent_on_the_live_platform),
    };
    return pps_cunit_main("crl", tests, sizeof tests / sizeof tests[0]);
}
