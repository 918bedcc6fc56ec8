/*
 * live_test_platform.c - end-to-end tests (CUnit) of the live platform:
 * the same node programs as tests/e2e run in real time on real processes,
 * with the NI firmware inline or on its own thread, over the shared-memory
 * wire and over UDP on loopback, with injected faults and a node that is
 * killed.
 *
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "e2e_runner.h"
#include "pps_cunit.h" /* the CUnit main of the test drivers */

/* Generous timers: the machine may be shared and loaded, and a live node
 * that is not scheduled for a few hundred milliseconds must not look
 * dead (a peer gives up after RTO x retries without progress). */
#define LIVE_RTO "5000000"
#define LIVE_RETRIES "400"

static void run_ok(const char *nic, const char *wire, const char *d,
                   const char *nodes, const char *program, const char *k,
                   const char *extra)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    e2e_run(&r, "-n", nodes, "--platform", "live", "--nic", nic, "--wire",
            wire, "--decomp", d, "--rto", LIVE_RTO, "--max-retries",
            LIVE_RETRIES, program, "-k", k, extra, NULL);
    e2e_expect_success(&r);
    CU_ASSERT(e2e_contains(r.out, ": OK"));
    e2e_run_free(&r);
}

/* Every node program over one decomposition, NI placement and wire. */
static void run_programs(const char *nic, const char *wire, const char *d)
{
    run_ok(nic, wire, d, "4", ALLTOALL, "200", NULL);
    run_ok(nic, wire, d, "4", MCAST, "100", NULL);
    run_ok(nic, wire, d, "3", ENDPOINTS, "20", NULL);
    run_ok(nic, wire, d, "4", FA, "100", NULL);
    run_ok(nic, wire, d, "4", ALLTOALL, "50", "--intr");
}

#define PROGRAMS_TEST(fn, nic, wire, d)                                        \
    static void fn(void)                                                       \
    {                                                                          \
        run_programs(nic, wire, d);                                            \
    }

PROGRAMS_TEST(test_inline_shm_rxno_mni_delivers_exactly_once_in_order,
              "inline", "shm", "rxno-mni")
PROGRAMS_TEST(test_inline_shm_rxno_mh_delivers_exactly_once_in_order,
              "inline", "shm", "rxno-mh")
PROGRAMS_TEST(test_inline_shm_rxni_mni_delivers_exactly_once_in_order,
              "inline", "shm", "rxni-mni")
PROGRAMS_TEST(test_inline_shm_rxni_mh_delivers_exactly_once_in_order,
              "inline", "shm", "rxni-mh")
PROGRAMS_TEST(test_inline_shm_rxh_mh_delivers_exactly_once_in_order,
              "inline", "shm", "rxh-mh")
PROGRAMS_TEST(test_thread_shm_rxno_mni_delivers_exactly_once_in_order,
              "thread", "shm", "rxno-mni")
PROGRAMS_TEST(test_thread_shm_rxno_mh_delivers_exactly_once_in_order,
              "thread", "shm", "rxno-mh")
PROGRAMS_TEST(test_thread_shm_rxni_mni_delivers_exactly_once_in_order,
              "thread", "shm", "rxni-mni")
PROGRAMS_TEST(test_thread_shm_rxni_mh_delivers_exactly_once_in_order,
              "thread", "shm", "rxni-mh")
PROGRAMS_TEST(test_thread_shm_rxh_mh_delivers_exactly_once_in_order,
              "thread", "shm", "rxh-mh")
PROGRAMS_TEST(test_inline_udp_rxni_mni_delivers_exactly_once_in_order,
              "inline", "udp", "rxni-mni")
PROGRAMS_TEST(test_inline_udp_rxni_mh_delivers_exactly_once_in_order,
              "inline", "udp", "rxni-mh")
PROGRAMS_TEST(test_inline_udp_rxh_mh_delivers_exactly_once_in_order,
              "inline", "udp", "rxh-mh")
PROGRAMS_TEST(test_inline_shm_rxni_mni_vmmc2_delivers_exactly_once_in_order,
              "inline", "shm", "rxni-mni-vmmc2")
PROGRAMS_TEST(test_thread_udp_rxh_mh_vmmc2_delivers_exactly_once_in_order,
              "thread", "udp", "rxh-mh-vmmc2")
PROGRAMS_TEST(test_inline_shm_rxh_mh_ssam_delivers_exactly_once_in_order,
              "inline", "shm", "rxh-mh-ssam")
PROGRAMS_TEST(test_inline_shm_rxni_mni_srd_delivers_exactly_once_in_order,
              "inline", "shm", "rxni-mni-srd")
PROGRAMS_TEST(test_thread_udp_rxh_mni_delivers_exactly_once_in_order,
              "thread", "udp", "rxh-mni")
PROGRAMS_TEST(test_inline_udp_rxni_mni_am2_delivers_exactly_once_in_order,
              "inline", "udp", "rxni-mni-am2")
PROGRAMS_TEST(test_thread_udp_rxni_mni_delivers_exactly_once_in_order,
              "thread", "udp", "rxni-mni")
PROGRAMS_TEST(test_thread_udp_rxh_mh_delivers_exactly_once_in_order,
              "thread", "udp", "rxh-mh")

static void test_64_nodes_inline_shm_alltoall_delivers_everything(void)
{
    run_ok("inline", "shm", "rxno-mni", "64", ALLTOALL, "5", NULL);
}

/* Node k's count in column word (" intr ", " deliv ": the word with a
 * space each side) of lci-run --stats; -1 if there is no such row. */
static long stats_value(const char *err, const char *word, int k)
{
    const char *head = strstr(err, word);
    const char *table = head ? strstr(err, " node ") : NULL;
    if (table == NULL) {
        return -1;
    }
    int col = 0; /* the word is the col-th of the header */
    for (const char *p = table; p < head; p++) {
        if (p[0] == ' ' && p[1] != ' ') {
            col++;
        }
    }
    for (const char *line = strchr(table, '\n'); line != NULL;
         line = strchr(line + 1, '\n')) {
        long v[32];
        int n = 0, used = 0;
        const char *p = line + 1;
        while (n < 32 && sscanf(p, "%ld%n", &v[n], &used) == 1) {
            p += used;
            n++;
            if (*p != ' ') {
                break;
            }
        }
        if (n > col && v[0] == k) {
            return v[col];
        }
    }
    return -1;
}

/* ---- one node ----------------------------------------------------------- */

/* A node alone sends to itself (live_pingpong's software path): every
 * packet comes back through its own NI and ring, exactly once. */
static void test_a_node_alone_gets_each_packet_it_sends_itself(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "1", "--platform", "live", "--stats",
            e2e_prog_path("bench/live_pingpong"), "--iters", "250",
            "--warmup", "10", NULL);
    e2e_expect_success(&r);
    const char *at = strstr(r.out, "self_ns ");
    CU_ASSERT(at != NULL && strtod(at + 8, NULL) > 0.0);
    CU_ASSERT_EQUAL(stats_value(r.err, " deliv ", 0), 260);
    e2e_run_free(&r);
}

/* ---- interrupt mode ------------------------------------------------------ */

/* A receiver asleep with interrupts on polls no more: the packet's arrival
 * does not wake it, the NI's polling watchdog does (70 us after the packet
 * reached the host in the default profile).  So no round trip to it is
 * shorter than the watchdog delay, and each one costs it an interrupt. */
static void run_interrupt_wakeup(const char *nic)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", "--platform", "live", "--nic", nic, "--stats",
            e2e_prog_path("bench/live_pingpong"), "--iters", "10", "--warmup",
            "0", "--msgs", "1", "--intr-gap", "5000", "--intr-iters", "5",
            NULL);
    e2e_expect_success(&r);
    const char *at = strstr(r.out, "intr_rtt_us ");
    double rtt = at ? strtod(at + 12, NULL) : 0.0;
    CU_ASSERT(rtt >= 70.0);
    CU_ASSERT(stats_value(r.err, " intr ", 1) >= 3);
    CU_ASSERT(stats_value(r.err, " intr ", 0) == 0); /* it never enabled them */
    e2e_run_free(&r);
}

static void test_sleeping_host_in_interrupt_mode_wakes_by_the_watchdog(void)
{
    run_interrupt_wakeup("inline");
    run_interrupt_wakeup("thread");
}

/* ---- faults injected on the live wire ---------------------------------- */

static const char *const retransmitting[] = {
    "rxni-mni",     "rxni-mh",     "rxh-mh", "rxni-mni-vmmc2",
    "rxh-mh-vmmc2", "rxh-mh-ssam",    "rxni-mni-am2", "rxni-mni-srd",
    "rxh-mni"};

static void run_faulty(const char *wire, const char *spec)
{
    for (size_t i = 0; i < sizeof retransmitting / sizeof *retransmitting;
         i++) {
        const char *d = retransmitting[i];
        if (e2e_skip_unless_offered(d)) {
            continue;
        }
        struct e2e_run r;
        e2e_run(&r, "-n", "4", "--platform", "live", "--wire", wire,
                "--decomp", d, "--rto", LIVE_RTO, "--max-retries",
                LIVE_RETRIES, "--fault", spec, "--stats", ALLTOALL, "-k",
                "300", NULL);
        e2e_expect_success(&r);
        CU_ASSERT(e2e_contains(r.out, ": OK"));
        CU_ASSERT(e2e_contains(r.err, "wire faults injected"));
        e2e_run_free(&r);
        e2e_run(&r, "-n", "4", "--platform", "live", "--wire", wire,
                "--decomp", d, "--rto", LIVE_RTO, "--max-retries",
                LIVE_RETRIES, "--fault", spec, MCAST, "-k", "100", NULL);
        e2e_expect_success(&r);
        e2e_run_free(&r);
    }
}

static void test_shm_with_drops_dups_and_damage_retransmitting_decomps_deliver(
    void)
{
    run_faulty("shm", "drop=0.02,dup=0.01,corrupt=0.01,seed=7");
}

static void test_udp_with_drops_dups_and_damage_retransmitting_decomps_deliver(
    void)
{
    run_faulty("udp", "drop=0.02,dup=0.01,corrupt=0.01,seed=11");
}

static void run_rxno_fails(const char *wire, const char *spec)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered("rxno-mni")) {
        return;
    }
    e2e_run(&r, "-n", "2", "--platform", "live", "--wire", wire, "--decomp",
            "rxno-mni", "--fault", spec, ALLTOALL, "-k", "500", NULL);
    e2e_expect_failure(&r, "RX_no", NULL);
    e2e_run_free(&r);
}

static void test_rxno_over_lossy_shm_fails_loudly(void)
{
    run_rxno_fails("shm", "drop=0.05,seed=3");
}

static void test_rxno_over_udp_with_damage_fails_loudly(void)
{
    run_rxno_fails("udp", "corrupt=0.05,seed=3");
}

static void test_rxno_over_udp_with_duplicates_fails_loudly(void)
{
    run_rxno_fails("udp", "dup=0.05,seed=3");
}

/* ---- a node process killed (die=N@T sends it SIGKILL) ------------------- */

static void run_death(const char *nic, const char *wire, const char *d)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    /* Death long after start-up, sends long after death; the dead node is
     * given up on after 10 timeouts without an acknowledgement: 25, 50,
     * 100, then 200 ms each (the timeout backs off), 1.575 s in all. */
    e2e_run(&r, "-n", "4", "--platform", "live", "--nic", nic, "--wire", wire,
            "--decomp", d, "--rto", "25000000", "--max-retries", "10",
            "--fault", "die=3@400ms", e2e_prog_path("tests/e2e/e2e_deadnode"),
            "-k", "20", "--after-us", "800000", NULL);
    /* lci-run names the dead node and fails the run; the survivors got
     * their packets to it back and finished. */
    e2e_expect_failure(&r, "node 3", "killed by signal 9", NULL);
    CU_ASSERT(e2e_contains(r.out, "20 to the dead returned: OK"));
    CU_ASSERT(!e2e_contains(r.err, "did not finish"));
    e2e_run_free(&r);
}

static void test_killed_node_packets_return_to_sender_rxni_mni_shm(void)
{
    run_death("inline", "shm", "rxni-mni");
}

static void test_killed_node_packets_return_to_sender_rxh_mh_udp(void)
{
    run_death("inline", "udp", "rxh-mh");
}

static void test_killed_node_packets_return_to_sender_rxni_mni_vmmc2_udp(void)
{
    run_death("inline", "udp", "rxni-mni-vmmc2");
}

static void test_killed_node_packets_return_to_sender_rxni_mh_thread_udp(void)
{
    run_death("thread", "udp", "rxni-mh");
}

/* ---- bad options -------------------------------------------------------- */

static void expect_bad_option(const char *name, const char *value,
                              const char *expected)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", name, value, ALLTOALL, NULL);
    e2e_expect_failure(&r, expected, NULL);
    CU_ASSERT(r.exited && r.status == 2);
    e2e_run_free(&r);
}

static void test_bad_platform_nic_and_wire_say_what_was_expected(void)
{
    expect_bad_option("--platform", "real", "expected platform 'sim'");
    expect_bad_option("--nic", "fpga", "expected 'inline', 'thread'");
    expect_bad_option("--wire", "tcp", "expected 'shm' or 'udp'");
    expect_bad_option("--netns", "ns0", "need --platform live");
}

static void test_node_placement_lists_need_one_item_per_node(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "3", "--platform", "live", "--udp-addrs",
            "127.0.0.1,127.0.0.1", ALLTOALL, NULL);
    e2e_expect_failure(&r, "--udp-addrs: expected 3 comma-separated items",
                       NULL);
    CU_ASSERT(r.exited && r.status == 2);
    e2e_run_free(&r);
    /* One address per node, all on loopback: runs. */
    e2e_run(&r, "-n", "3", "--platform", "live", "--wire", "udp",
            "--udp-addrs", "127.0.0.1,127.0.0.1,127.0.0.1", ALLTOALL, "-k",
            "50", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
}

static void test_trace_hash_on_live_platform_is_refused(void)
{
    struct e2e_run r;
    e2e_run(&r, "-n", "2", "--platform", "live", "--trace-hash", ALLTOALL,
            NULL);
    e2e_expect_failure(&r, "--trace-hash needs --platform sim", NULL);
    e2e_run_free(&r);
}

/* ---- registry ----------------------------------------------------------- */

static const pps_test_t tests[] = {
    PPS_TEST(inline_shm_rxno_mni_delivers_exactly_once_in_order),
    PPS_TEST(inline_shm_rxno_mh_delivers_exactly_once_in_order),
    PPS_TEST(inline_shm_rxni_mni_delivers_exactly_once_in_order),
    PPS_TEST(inline_shm_rxni_mh_delivers_exactly_once_in_order),
    PPS_TEST(inline_shm_rxh_mh_delivers_exactly_once_in_order),
    PPS_TEST(thread_shm_rxno_mni_delivers_exactly_once_in_order),
    PPS_TEST(thread_shm_rxno_mh_delivers_exactly_once_in_order),
    PPS_TEST(thread_shm_rxni_mni_delivers_exactly_once_in_order),
    PPS_TEST(thread_shm_rxni_mh_delivers_exactly_once_in_order),
    PPS_TEST(thread_shm_rxh_mh_delivers_exactly_once_in_order),
    PPS_TEST(64_nodes_inline_shm_alltoall_delivers_everything),
    PPS_TEST(inline_udp_rxni_mni_delivers_exactly_once_in_order),
    PPS_TEST(inline_udp_rxni_mh_delivers_exactly_once_in_order),
    PPS_TEST(inline_udp_rxh_mh_delivers_exactly_once_in_order),
    PPS_TEST(inline_shm_rxni_mni_vmmc2_delivers_exactly_once_in_order),
    PPS_TEST(thread_udp_rxh_mh_vmmc2_delivers_exactly_once_in_order),
    PPS_TEST(inline_shm_rxh_mh_ssam_delivers_exactly_once_in_order),
    PPS_TEST(inline_shm_rxni_mni_srd_delivers_exactly_once_in_order),
    PPS_TEST(thread_udp_rxh_mni_delivers_exactly_once_in_order),
    PPS_TEST(inline_udp_rxni_mni_am2_delivers_exactly_once_in_order),
    PPS_TEST(thread_udp_rxni_mni_delivers_exactly_once_in_order),
    PPS_TEST(thread_udp_rxh_mh_delivers_exactly_once_in_order),
    PPS_TEST(a_node_alone_gets_each_packet_it_sends_itself),
    PPS_TEST(sleeping_host_in_interrupt_mode_wakes_by_the_watchdog),
    PPS_TEST(shm_with_drops_dups_and_damage_retransmitting_decomps_deliver),
    PPS_TEST(udp_with_drops_dups_and_damage_retransmitting_decomps_deliver),
    PPS_TEST(rxno_over_lossy_shm_fails_loudly),
    PPS_TEST(rxno_over_udp_with_damage_fails_loudly),
    PPS_TEST(rxno_over_udp_with_duplicates_fails_loudly),
    PPS_TEST(killed_node_packets_return_to_sender_rxni_mni_shm),
    PPS_TEST(killed_node_packets_return_to_sender_rxh_mh_udp),
    PPS_TEST(killed_node_packets_return_to_sender_rxni_mni_vmmc2_udp),
    PPS_TEST(killed_node_packets_return_to_sender_rxni_mh_thread_udp),
    PPS_TEST(bad_platform_nic_and_wire_say_what_was_expected),
    PPS_TEST(trace_hash_on_live_platform_is_refused),
    PPS_TEST(node_placement_lists_need_one_item_per_node),
};

int main(void)
{
    return pps_cunit_main("live", tests, sizeof tests / sizeof tests[0]);
}
