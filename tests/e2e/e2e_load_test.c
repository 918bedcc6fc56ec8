/*
 * e2e_load_test.c - the NI under load (CUnit): more traffic than its
 * processor, its receive buffers or its queues can take at once must slow
 * a run down, never stop it.
 *
 *  - incast: 63 nodes send to one at once, on every decomposition.  The
 *    receiving NI drops what it has no buffer or arrival-queue room for
 *    and, under RX_ni, asks the senders again; RX_no stays within its
 *    credits.
 *  - multicast throughput on the RX_ni decompositions: a forwarding NI
 *    keeps each packet for both of its tree children until both acked it,
 *    with and without drops on the wire.
 *  - a receiver without buffers for 100 ms on the retransmitting
 *    decompositions: every NACK draws its sender's whole window again, and
 *    the NIs' transmit queues must merge the copies still waiting for the
 *    link instead of filling the network (which once stopped the run).
 */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "e2e_runner.h"
#include "pps_cunit.h" /* the shared main of one-suite test drivers */

#define INCAST e2e_prog_path("tests/e2e/e2e_load_incast")
#define ALLTOALL e2e_prog_path("tests/e2e/e2e_alltoall")
#define BCAST e2e_prog_path("bench/lci_bcast")

/* The count in column col of row name (a node number or "sum") of the
 * --stats table, or -1. */
static long stat_of(const char *err, const char *name, const char *col)
{
    const char *head = strstr(err, " node ");
    if (head == NULL) {
        return -1;
    }
    /* The column's index in the header line. */
    int idx = -1, i = 0;
    char word[32];
    int used;
    for (const char *q = head; q < strchr(head, '\n') &&
                               sscanf(q, "%31s%n", word, &used) == 1;
         q += used, i++) {
        if (strcmp(word, col) == 0) {
            idx = i;
            break;
        }
    }
    char start[16];
    snprintf(start, sizeof start, "\n%5s ", name);
    const char *row = strstr(head, start);
    if (idx < 1 || row == NULL) {
        return -1;
    }
    long v = -1;
    const char *q = row + strlen(start); /* past the row's name: column 0 */
    for (i = 1; i <= idx && sscanf(q, "%ld%n", &v, &used) == 1; i++) {
        q += used;
    }
    return i == idx + 1 ? v : -1;
}

static long node0_stat(const char *err, const char *col)
{
    return stat_of(err, "0", col);
}

/* The run succeeds, and the receiver really was overloaded: where
 * receive buffers are shared (not RX_no), node 0 dropped packets it had
 * no buffer for, and under RX_ni it asked their senders again. */
static void check_incast(const char *decomp)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(decomp)) {
        return;
    }
    e2e_run(&r, "-n", "64", "--decomp", decomp, "--stats", INCAST, "-k", "16",
            NULL);
    if (e2e_expect_success(&r)) {
        long nobuf = node0_stat(r.err, "nobuf");
        long nack = node0_stat(r.err, "nack");
        if (strncmp(decomp, "rxno", 4) == 0) {
            CU_ASSERT_EQUAL(nobuf, 0);
        } else {
            CU_ASSERT(nobuf > 0);
        }
        if (strncmp(decomp, "rxni", 4) == 0) {
            CU_ASSERT(nack > 0);
        }
    }
    e2e_run_free(&r);
}

/* Exactly-once FIFO delivery (e2e_alltoall checks it) while node 0 has no
 * receive buffer for 100 ms; copies were merged in the transmit queues. */
static void check_starved_receiver(const char *decomp)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(decomp)) {
        return;
    }
    e2e_run(&r, "-n", "4", "--decomp", decomp, "--stats", "--fault",
            "nobuf=0@0+100ms", ALLTOALL, NULL);
    if (e2e_expect_success(&r)) {
        CU_ASSERT(e2e_contains(r.out, ": OK"));
        CU_ASSERT(node0_stat(r.err, "nobuf") > 0);
        long merged = stat_of(r.err, "sum", "merged");
        CU_ASSERT(merged > 0);
    }
    e2e_run_free(&r);
}

static void test_starved_receiver_rxni_mni(void)
{
    check_starved_receiver("rxni-mni");
}

static void test_starved_receiver_rxh_mh(void)
{
    check_starved_receiver("rxh-mh");
}

static void check_bcast(const char *decomp, const char *n, const char *fault)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(decomp)) {
        return;
    }
    if (fault != NULL) {
        e2e_run(&r, "-n", n, "--decomp", decomp, "--fault", fault, BCAST,
                "--test", "throughput", "--sizes", "512K", NULL);
    } else {
        e2e_run(&r, "-n", n, "--decomp", decomp, BCAST, "--test",
                "throughput", "--sizes", "512K", NULL);
    }
    if (e2e_expect_success(&r)) {
        /* The one result row: the message size, then its figures. */
        CU_ASSERT(e2e_contains(r.out, "\n524288 "));
    }
    e2e_run_free(&r);
}

/* Load never stops a run: every node sends to every other at 256 nodes,
 * and 1,023 nodes send to one at 1,024 (RX_no needs a receive buffer per
 * sender for its credits, and the SRAM to hold them). */
static void check_large(const char *decomp)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(decomp)) {
        return;
    }
    e2e_run(&r, "-n", "256", "--decomp", decomp, ALLTOALL, "-k", "2", NULL);
    if (e2e_expect_success(&r)) {
        CU_ASSERT(e2e_contains(r.out, "256 nodes x 2 packets each way"));
        CU_ASSERT(e2e_contains(r.out, ": OK"));
    }
    e2e_run_free(&r);
    if (strncmp(decomp, "rxno", 4) == 0) {
        e2e_run(&r, "-n", "1024", "--decomp", decomp, "--recv-buffers",
                "1024", "--sram", "4M", "--stats", INCAST, "-k", "4", NULL);
    } else {
        e2e_run(&r, "-n", "1024", "--decomp", decomp, "--stats", INCAST, "-k",
                "4", NULL);
    }
    if (e2e_expect_success(&r)) {
        /* node 0 took every packet of every sender */
        CU_ASSERT_EQUAL(node0_stat(r.err, "deliv") >= 1023 * 4, 1);
    }
    e2e_run_free(&r);
}

#define LARGE_TEST(id, name)                                                   \
    static void test_256_and_1024_nodes_##id(void)                             \
    {                                                                          \
        check_large(name);                                                     \
    }
LARGE_TEST(rxno_mni, "rxno-mni")
LARGE_TEST(rxno_mh, "rxno-mh")
LARGE_TEST(rxni_mni, "rxni-mni")
LARGE_TEST(rxni_mh, "rxni-mh")
LARGE_TEST(rxh_mh, "rxh-mh")

#define INCAST_TEST(id, name)                                                  \
    static void test_incast_64_nodes_##id(void)                                \
    {                                                                          \
        check_incast(name);                                                    \
    }
INCAST_TEST(rxno_mni, "rxno-mni")
INCAST_TEST(rxno_mh, "rxno-mh")
INCAST_TEST(rxni_mni, "rxni-mni")
INCAST_TEST(rxni_mh, "rxni-mh")
INCAST_TEST(rxh_mh, "rxh-mh")

static void test_bcast_throughput_with_drops_rxni_mni(void)
{
    check_bcast("rxni-mni", "5", "drop=0.03,seed=11");
}

static void test_bcast_throughput_with_drops_rxni_mh(void)
{
    check_bcast("rxni-mh", "5", "drop=0.03,seed=11");
}

static void test_bcast_throughput_16_nodes_rxni_mni(void)
{
    check_bcast("rxni-mni", "16", NULL);
}

int main(void)
{
    static const pps_test_t tests[] = {
        PPS_TEST(incast_64_nodes_rxno_mni),
        PPS_TEST(incast_64_nodes_rxno_mh),
        PPS_TEST(incast_64_nodes_rxni_mni),
        PPS_TEST(incast_64_nodes_rxni_mh),
        PPS_TEST(incast_64_nodes_rxh_mh),
        PPS_TEST(bcast_throughput_with_drops_rxni_mni),
        PPS_TEST(bcast_throughput_with_drops_rxni_mh),
        PPS_TEST(bcast_throughput_16_nodes_rxni_mni),
        PPS_TEST(starved_receiver_rxni_mni),
        PPS_TEST(starved_receiver_rxh_mh),
        PPS_TEST(256_and_1024_nodes_rxno_mni),
        PPS_TEST(256_and_1024_nodes_rxno_mh),
        PPS_TEST(256_and_1024_nodes_rxni_mni),
        PPS_TEST(256_and_1024_nodes_rxni_mh),
        PPS_TEST(256_and_1024_nodes_rxh_mh),
    };
    return pps_cunit_main("load", tests, sizeof tests / sizeof tests[0]);
}
