/* test_reorder.c - the host's reordering behind an unordered rx
 * (lci/lci_reorder.c), alone: each neighbour's packets come out in its
 * order whatever order the NI passed them up in (within its window),
 * across the wrap of the 16-bit numbers, with returned packets passing
 * and impossible ones dropped. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lci_reorder.h"
#include "unit_run.h"

static lci_wire_hdr_t pkt(uint16_t hop, uint16_t seq)
{
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof h);
    h.type = LCI_PKT_DATA;
    h.hop_src = hop;
    h.seq = seq;
    return h;
}

/* What the host would process after a NEXT from hop: the waiting
 * packets whose turn came, their buffers appended to out. */
static uint32_t drain(lci_reorder_t *ro, uint16_t hop, uint32_t *out,
                      uint32_t n)
{
    lci_wire_hdr_t h;
    uint32_t hbuf;
    while (lci_reorder_next(ro, hop, &h, &hbuf)) {
        CU_ASSERT_EQUAL(h.hop_src, hop);
        lci_reorder_take(ro, hop);
        out[n++] = hbuf;
    }
    return n;
}

static void in_order_packets_go_on_at_once(void)
{
    lci_reorder_t *ro = lci_reorder_new(2, 8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ro);
    for (uint16_t s = 0; s < 100; s++) {
        lci_wire_hdr_t h = pkt(1, s);
        CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, s), LCI_REORDER_NEXT);
    }
    CU_ASSERT_EQUAL(lci_reorder_waiting(ro), 0);
    lci_reorder_free(ro);
}

static void early_packets_wait_for_the_one_before_them(void)
{
    lci_reorder_t *ro = lci_reorder_new(2, 8);
    uint32_t out[8], n = 0;
    const uint16_t order[] = {2, 1, 4, 0};
    const lci_reorder_verdict_t want[] = {LCI_REORDER_HELD, LCI_REORDER_HELD,
                                          LCI_REORDER_HELD, LCI_REORDER_NEXT};
    for (uint32_t i = 0; i < 4; i++) {
        lci_wire_hdr_t h = pkt(0, order[i]);
        CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 100 + order[i]), want[i]);
    }
    CU_ASSERT_EQUAL(lci_reorder_waiting(ro), 3);
    n = drain(ro, 0, out, n);
    /* 1 and 2 follow 0; 4 waits for 3 */
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(out[0], 101);
    CU_ASSERT_EQUAL(out[1], 102);
    CU_ASSERT_EQUAL(lci_reorder_waiting(ro), 1);
    lci_wire_hdr_t h = pkt(0, 3);
    CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 103), LCI_REORDER_NEXT);
    n = drain(ro, 0, out, 0);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(out[0], 104);
    CU_ASSERT_EQUAL(lci_reorder_waiting(ro), 0);
    lci_reorder_free(ro);
}

static void neighbours_have_orders_of_their_own(void)
{
    lci_reorder_t *ro = lci_reorder_new(3, 4);
    lci_wire_hdr_t h = pkt(1, 1);
    CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 1), LCI_REORDER_HELD);
    h = pkt(2, 0);
    CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 2), LCI_REORDER_NEXT);
    uint32_t out[4];
    CU_ASSERT_EQUAL(drain(ro, 2, out, 0), 0); /* 1's packet is not 2's */
    h = pkt(1, 0);
    CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 3), LCI_REORDER_NEXT);
    CU_ASSERT_EQUAL(drain(ro, 1, out, 0), 1);
    CU_ASSERT_EQUAL(out[0], 1);
    lci_reorder_free(ro);
}

static void returned_packets_pass_and_impossible_ones_drop(void)
{
    lci_reorder_t *ro = lci_reorder_new(2, 4);
    lci_wire_hdr_t h = pkt(0, 7);
    h.type = LCI_PKT_RETURNED;
    CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 0), LCI_REORDER_PASS);
    h = pkt(0, 0);
    CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 0), LCI_REORDER_NEXT);
    /* seen already */
    CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 0), LCI_REORDER_DROP);
    /* beyond the window: the NI would never pass it */
    h = pkt(0, 5);
    CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 0), LCI_REORDER_DROP);
    /* twice early */
    h = pkt(0, 2);
    CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 0), LCI_REORDER_HELD);
    CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 0), LCI_REORDER_DROP);
    /* from nobody */
    h = pkt(9, 1);
    CU_ASSERT_EQUAL(lci_reorder_arrive(ro, &h, 0), LCI_REORDER_DROP);
    CU_ASSERT_EQUAL(lci_reorder_waiting(ro), 1);
    lci_reorder_free(ro);
}

/* xorshift64: reproducible shuffles. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A stream of n packets from one neighbour, passed up in a random order
 * an NI with window w could produce (each number less than w beyond the
 * first it has not passed), starting at number first: the host gets them
 * back in order, and never more than w - 1 wait. */
static void check_random_stream(uint32_t w, uint16_t first, uint32_t n,
                                uint64_t seed)
{
    lci_reorder_t *ro = lci_reorder_new(2, w);
    /* Numbers before first went through in order. */
    for (uint32_t s = 0; s < first; s++) {
        lci_wire_hdr_t h = pkt(1, (uint16_t)s);
        CU_ASSERT_EQUAL_FATAL(lci_reorder_arrive(ro, &h, 0), LCI_REORDER_NEXT);
    }
    uint8_t *passed = calloc(n, 1);
    uint32_t *out = calloc(n, sizeof *out);
    uint32_t nout = 0, ni_expected = 0, max_waiting = 0;
    for (uint32_t done = 0; done < n; done++) {
        /* any number not passed yet in [ni_expected, ni_expected + w) */
        uint32_t span = n - ni_expected < w ? n - ni_expected : w;
        uint32_t k;
        do {
            k = ni_expected + (uint32_t)(next_random(&seed) % span);
        } while (passed[k]);
        passed[k] = 1;
        while (ni_expected < n && passed[ni_expected]) {
            ni_expected++;
        }
        lci_wire_hdr_t h = pkt(1, (uint16_t)(first + k));
        lci_reorder_verdict_t v = lci_reorder_arrive(ro, &h, k);
        CU_ASSERT(v == LCI_REORDER_NEXT || v == LCI_REORDER_HELD);
        if (v == LCI_REORDER_NEXT) {
            out[nout++] = k;
            nout = drain(ro, 1, out, nout);
        }
        if (lci_reorder_waiting(ro) > max_waiting) {
            max_waiting = lci_reorder_waiting(ro);
        }
    }
    CU_ASSERT_EQUAL(nout, n);
    for (uint32_t i = 0; i < nout; i++) {
        CU_ASSERT_EQUAL(out[i], i);
    }
    CU_ASSERT(max_waiting <= w - 1);
    CU_ASSERT_EQUAL(lci_reorder_waiting(ro), 0);
    free(passed);
    free(out);
    lci_reorder_free(ro);
}

static void any_order_within_the_window_comes_out_in_order(void)
{
    for (uint64_t seed = 1; seed <= 20; seed++) {
        check_random_stream(8, 0, 2000, seed);
        check_random_stream(32, 0, 2000, seed);
    }
}

/* Windows that do not divide 2^16 (7, 13) too: places are counted from
 * the next number, not taken modulo the window. */
static void order_survives_the_wrap_at_65535(void)
{
    const uint32_t windows[] = {7, 8, 13, 64};
    for (uint32_t i = 0; i < 4; i++) {
        check_random_stream(windows[i], 65500, 200, 7 + i);
    }
}

static const lci_unit_test_t tests[] = {
#define TEST(f) {#f, f}
    TEST(in_order_packets_go_on_at_once),
    TEST(early_packets_wait_for_the_one_before_them),
    TEST(neighbours_have_orders_of_their_own),
    TEST(returned_packets_pass_and_impossible_ones_drop),
    TEST(any_order_within_the_window_comes_out_in_order),
    TEST(order_survives_the_wrap_at_65535),
#undef TEST
};

int main(void)
{
    return lci_unit_run("reorder", tests, LCI_UNIT_COUNT(tests));
}
