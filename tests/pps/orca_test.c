/*
 * orca_test.c - the Orca shared-object layer through lci-run (CUnit):
 * replicated objects under concurrent writes from two threads per node,
 * a single-copy object invoked by RPC from every node, guarded operations
 * (a bounded queue, a token passed round the nodes), and misuse, on
 * every decomposition and, on the retransmitting ones, over a lossy wire;
 * replicated writes on 64 nodes.
 */
#include "pps_cunit.h"

#define REPLICATED e2e_prog_path("tests/pps/orca_replicated")
#define SINGLE     e2e_prog_path("tests/pps/orca_single")
#define GUARDS     e2e_prog_path("tests/pps/orca_guards")
#define ERRORS     e2e_prog_path("tests/pps/orca_errors")

#define LOSSY "drop=0.02,seed=6"

/* Replicated and single-copy objects, and guards, on decomposition d,
 * over a lossy wire if lossy. */
static void check_decomp(const char *d, int lossy)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    const char *opt = PPS_WIRE_OPT(lossy), *val = PPS_WIRE_VAL(lossy, LOSSY);
    e2e_run(&r, "-n", "4", "--decomp", d, opt, val, REPLICATED, "--mt", "-t",
            "2", "-k", "6", NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "4", "--decomp", d, opt, val, SINGLE, "--mt", "-t", "2",
            "-k", "5", "--owner", "2", NULL);
    pps_expect_ok(&r);
    e2e_run(&r, "-n", "4", "--decomp", d, opt, val, GUARDS, "--mt", "-k", "6",
            NULL);
    pps_expect_ok(&r);
}

PPS_DECOMP_TEST(test_rxno_mni_replicated_single_copy_and_guards, "rxno-mni", 0)
PPS_DECOMP_TEST(test_rxno_mh_replicated_single_copy_and_guards, "rxno-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_replicated_single_copy_and_guards, "rxni-mni", 0)
PPS_DECOMP_TEST(test_rxni_mh_replicated_single_copy_and_guards, "rxni-mh", 0)
PPS_DECOMP_TEST(test_rxh_mh_replicated_single_copy_and_guards, "rxh-mh", 0)
PPS_DECOMP_TEST(test_rxni_mni_survives_drops, "rxni-mni", 1)
PPS_DECOMP_TEST(test_rxni_mh_survives_drops, "rxni-mh", 1)
PPS_DECOMP_TEST(test_rxh_mh_survives_drops, "rxh-mh", 1)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_replicated_single_copy_and_guards, "rxni-mni-vmmc2", 0)
PPS_DECOMP_TEST(test_rxni_mni_vmmc2_survives_drops, "rxni-mni-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_vmmc2_survives_drops, "rxh-mh-vmmc2", 1)
PPS_DECOMP_TEST(test_rxh_mh_ssam_survives_drops, "rxh-mh-ssam", 1)
PPS_DECOMP_TEST(test_rxni_mni_am2_survives_drops, "rxni-mni-am2", 1)
PPS_DECOMP_TEST(test_rxni_mni_srd_survives_drops, "rxni-mni-srd", 1)
PPS_DECOMP_TEST(test_rxh_mni_survives_drops, "rxh-mni", 1)

static void test_replicated_writes_64_nodes_one_order(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "64", REPLICATED, "--mt", "-t", "2", "-k", "2", NULL);
    pps_expect_ok(&r);
}

static void test_single_copy_on_node_0_with_four_threads(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "3", SINGLE, "--mt", "-t", "4", "-k", "4", "--owner", "0",
            NULL);
    pps_expect_ok(&r);
}

static void test_guards_64_nodes(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "64", GUARDS, "--mt", "-k", "2", NULL);
    pps_expect_ok(&r);
}

/* Panda-MT switches threads at fixed points only and kept invocations run
 * in a fixed order, so the same seed must give the same trace. */
static void test_guarded_run_is_deterministic(void)
{
    struct e2e_run a, b;
    char ha[19], hb[19];
    e2e_run(&a, "-n", "5", "--seed", "3", "--compute", "zero", "--trace-hash",
            GUARDS, "--mt", "-k", "5", NULL);
    e2e_run(&b, "-n", "5", "--seed", "3", "--compute", "zero", "--trace-hash",
            GUARDS, "--mt", "-k", "5", NULL);
    e2e_expect_success(&a);
    e2e_expect_success(&b);
    CU_ASSERT_FATAL(e2e_trace_hash(&a, ha) && e2e_trace_hash(&b, hb));
    CU_ASSERT_STRING_EQUAL(ha, hb);
    e2e_run_free(&a);
    e2e_run_free(&b);
}

static void test_misuse_returns_status_and_message(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", ERRORS, "--mt", NULL);
    pps_expect_ok(&r);
}

static void test_replicated_objects_need_panda_mt(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", REPLICATED, NULL);
    e2e_expect_failure(&r, "run with --mt", NULL);
    e2e_run_free(&r);
}

int main(void)
{
    static const pps_test_t tests[] = {
        PPS_TEST(rxno_mni_replicated_single_copy_and_guards),
        PPS_TEST(rxno_mh_replicated_single_copy_and_guards),
        PPS_TEST(rxni_mni_replicated_single_copy_and_guards),
        PPS_TEST(rxni_mh_replicated_single_copy_and_guards),
        PPS_TEST(rxh_mh_replicated_single_copy_and_guards),
        PPS_TEST(rxni_mni_vmmc2_replicated_single_copy_and_guards),
        PPS_TEST(rxni_mni_survives_drops),
        PPS_TEST(rxni_mh_survives_drops),
        PPS_TEST(rxh_mh_survives_drops),
        PPS_TEST(rxni_mni_vmmc2_survives_drops),
        PPS_TEST(rxh_mh_vmmc2_survives_drops),
        PPS_TEST(rxh_mh_ssam_survives_drops),
        PPS_TEST(rxni_mni_am2_survives_drops),
        PPS_TEST(rxni_mni_srd_survives_drops),
        PPS_TEST(rxh_mni_survives_drops),
        PPS_TEST(replicated_writes_64_nodes_one_order),
        PPS_TEST(single_copy_on_node_0_with_four_threads),
        PPS_TEST(guards_64_nodes),
        PPS_TEST(guarded_run_is_deterministic),
        PPS_TEST(misuse_returns_status_and_message),
        PPS_TEST(replicated_objects_need_panda_mt),
    };
    return pps_cunit_main("orca", tests, sizeof tests / sizeof tests[0]);
}
