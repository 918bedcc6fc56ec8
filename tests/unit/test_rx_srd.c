/* test_rx_srd.c - reliable unordered delivery (policies/lci_rx_srd.c)
 * against the mock environment of the rx policy tests, its receivers set
 * to accept deliveries out of order: every message exactly once, losses
 * repaired by resending only the lost packets (at once when a selective
 * ack shows the hole), packets after a gap passed up before it is
 * filled, selective acks across the wrap of the sequence numbers,
 * multicast taken only in order, return to sender, determinism.  Every
 * quiet run also checks the mock's invariants (acks, windows, sequence
 * numbers, buffer references). */
#include "config.h"

#include <string.h>

#include "rx_gbn_mock.h"
#include "unit_run.h"


static lci_rx_params_t params(uint32_t nnodes, uint32_t window, uint64_t rto,
                              uint32_t max_retries)
{
    lci_rx_params_t p = {.nnodes = nnodes,
                         .nbufs = 64,
                         .window = window,
                         .max_retries = max_retries,
                         .rto_ns = rto,
                         .ack_delay_ns = 20 * US};
    return p;
}

static void setup_with(const lci_rx_ops_t *ops, uint32_t nnodes,
                       const lci_rx_params_t *p, uint64_t seed)
{
    mock_rx_ops = ops;
    mock_setup(nnodes, p, 2 * US, seed);
    for (uint32_t i = 0; i < nnodes; i++) {
        W.node[i].unordered = 1;
    }
}

static void setup(uint32_t nnodes, const lci_rx_params_t *p, uint64_t seed)
{
    setup_with(&lci_rx_srd_component.ops, nnodes, p, seed);
}

/* Exactly once: n messages from src at dst, each once, none missing. */
static void check_exactly_once(uint32_t src, uint32_t dst, uint32_t n)
{
    CU_ASSERT_EQUAL(W.node[dst].delivered[src], n);
    CU_ASSERT_EQUAL(W.node[dst].prefix[src], n);
    CU_ASSERT_EQUAL(W.node[dst].dup_errors, 0);
}

/* Transmissions of data packet seq from src to dst. */
static uint32_t sends_of(uint32_t src, uint32_t dst, uint16_t seq)
{
    uint32_t n = 0;
    for (size_t i = 0; i < W.ntx; i++) {
        const mock_tx_t *t = &W.txlog[i];
        n += t->src == src && t->dst == dst && t->type == LCI_PKT_DATA &&
             t->seq == seq;
    }
    return n;
}

/* A header from peer for mock_inject(). */
static lci_wire_hdr_t from(uint32_t peer, uint32_t to, uint8_t type,
                           uint16_t seq)
{
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof h);
    h.type = type;
    h.hop_src = (uint16_t)peer;
    h.origin = (uint16_t)peer;
    h.dst = (uint16_t)to;
    h.seq = seq;
    h.len = 64;
    h.ack = UINT16_MAX; /* nothing of to's acknowledged */
    h.flags = LCI_HF_ACK;
    return h;
}

static void component_table_is_complete(void)
{
    const lci_rx_component_t *c = &lci_rx_srd_component;
    CU_ASSERT_STRING_EQUAL(c->name, "srd");
    CU_ASSERT_EQUAL(c->abi, LCI_POLICY_ABI);
    CU_ASSERT(c->flags & LCI_RX_UNORDERED);
    CU_ASSERT_PTR_NOT_NULL(c->description);
    CU_ASSERT_PTR_NOT_NULL(c->ops.state_size);
    CU_ASSERT_PTR_NOT_NULL(c->ops.timers);
    CU_ASSERT_PTR_NOT_NULL(c->ops.init);
    CU_ASSERT_PTR_NOT_NULL(c->ops.send);
    CU_ASSERT_PTR_NOT_NULL(c->ops.accept);
    CU_ASSERT_PTR_NOT_NULL(c->ops.released);
    CU_ASSERT_PTR_NOT_NULL(c->ops.handled);
    CU_ASSERT_PTR_NOT_NULL(c->ops.timer);
    CU_ASSERT_PTR_NOT_NULL(c->ops.pending);
    /* The paper's policies deliver in order. */
    CU_ASSERT_EQUAL(lci_rx_gbn_component.flags, 0);
}

/* ---- a clean wire -------------------------------------------------------- */

static void clean_stream_needs_no_retransmission(void)
{
    lci_rx_params_t p = params(2, 8, 50 * US, 3);
    setup(2, &p, 1);
    mock_send_at(0, A, B, 2000);
    mock_run(FOREVER);
    check_exactly_once(A, B, 2000);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 0);
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 0);
    CU_ASSERT_EQUAL(W.node[B].ctr.drops_seq, 0);
    /* In order on a clean wire, and an explicit ack per half window. */
    for (uint32_t t = 0; t < 2000; t++) {
        CU_ASSERT_EQUAL(mock_arrival(B, A, t), t + 1);
    }
    CU_ASSERT(mock_count_tx(B, A, LCI_PKT_CREDIT) <= 2000 / 4 + 2);
    mock_check_clean();
    mock_teardown();
}

/* ---- losses -------------------------------------------------------------- */

/* One lost packet: the packets behind it are passed up before it, the
 * first of them draws an ack at once whose selective part shows the hole,
 * and the hole alone goes again, without waiting for the timeout. */
static void a_loss_is_repaired_by_resending_only_the_lost_packet(void)
{
    lci_rx_params_t p = params(2, 8, MS, 3);
    setup(2, &p, 1);
    W.link[A][B].drop_seq[0] = 5;
    W.link[A][B].ndrop_seq = 1;
    mock_send_at(0, A, B, 20);
    mock_run(FOREVER);
    check_exactly_once(A, B, 20);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 1);
    CU_ASSERT_EQUAL(sends_of(A, B, 5), 2);
    for (uint16_t s = 0; s < 20; s++) {
        if (s != 5) {
            CU_ASSERT_EQUAL(sends_of(A, B, s), 1);
        }
    }
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 0);
    CU_ASSERT(W.now < p.rto_ns);
    /* Delivered before the gap was filled. */
    CU_ASSERT(mock_arrival(B, A, 6) < mock_arrival(B, A, 5));
    CU_ASSERT_EQUAL(mock_count_tx(A, B, LCI_PKT_NACK) +
                        mock_count_tx(B, A, LCI_PKT_NACK),
                    0);
    mock_check_clean();
    mock_teardown();
}

/* Several holes in one window: one retransmission each. */
static void every_hole_goes_once(void)
{
    lci_rx_params_t p = params(2, 16, MS, 3);
    setup(2, &p, 1);
    const uint16_t lost[] = {2, 3, 7, 11};
    for (uint32_t i = 0; i < 4; i++) {
        W.link[A][B].drop_seq[i] = lost[i];
    }
    W.link[A][B].ndrop_seq = 4;
    mock_send_at(0, A, B, 40);
    mock_run(FOREVER);
    check_exactly_once(A, B, 40);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 4);
    for (uint32_t i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(sends_of(A, B, lost[i]), 2);
    }
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 0);
    mock_check_clean();
    mock_teardown();
}

/* The fast retransmission is lost too: the timeout resends the hole and
 * nothing a selective ack covered. */
static void timeout_resends_only_what_no_sack_covered(void)
{
    lci_rx_params_t p = params(2, 8, 200 * US, 3);
    setup(2, &p, 1);
    /* packets 0..7, then the fast retransmission of 2 is the 9th */
    W.link[A][B].drop_idx[0] = 2;
    W.link[A][B].drop_idx[1] = 8;
    W.link[A][B].ndrop = 2;
    mock_send_at(0, A, B, 8);
    mock_run(FOREVER);
    check_exactly_once(A, B, 8);
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 1);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 2);
    CU_ASSERT_EQUAL(sends_of(A, B, 2), 3);
    for (uint16_t s = 3; s < 8; s++) {
        CU_ASSERT_EQUAL(sends_of(A, B, s), 1);
    }
    mock_check_clean();
    mock_teardown();
}

/* The last packet lost: nothing after it shows the hole, the timeout
 * resends it. */
static void tail_loss_is_repaired_by_the_timeout(void)
{
    lci_rx_params_t p = params(2, 8, 200 * US, 3);
    setup(2, &p, 1);
    W.link[A][B].drop_seq[0] = 5;
    W.link[A][B].ndrop_seq = 1;
    mock_send_at(0, A, B, 6);
    mock_run(FOREVER);
    check_exactly_once(A, B, 6);
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 1);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 1);
    mock_check_clean();
    mock_teardown();
}

/* Lost acks: the selective acks of later ones stand in for them, and a
 * lost last ack is recovered by the oldest packet's duplicate. */
static void lost_acks_are_made_up_for(void)
{
    lci_rx_params_t p = params(2, 8, 200 * US, 5);
    setup(2, &p, 1);
    W.link[B][A].cut = 1;
    mock_send_at(0, A, B, 8);
    mock_run(500 * US);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 8);
    W.link[B][A].cut = 0;
    mock_run(FOREVER);
    check_exactly_once(A, B, 8);
    CU_ASSERT_EQUAL(W.nbounce, 0);
    CU_ASSERT(W.node[B].ctr.drops_seq > 0); /* the duplicates */
    mock_check_clean();
    mock_teardown();
}

static uint64_t run_lossy(const lci_rx_ops_t *ops, uint64_t seed, double loss,
                          uint32_t n, uint64_t *retx)
{
    lci_rx_params_t p = params(3, 8, 200 * US, 100000);
    setup_with(ops, 3, &p, seed);
    for (uint32_t s = 0; s < 3; s++) {
        for (uint32_t d = 0; d < 3; d++) {
            W.link[s][d].loss = loss;
        }
    }
    if (ops != &lci_rx_srd_component.ops) {
        for (uint32_t i = 0; i < 3; i++) {
            W.node[i].unordered = 0; /* an ordered policy: check order */
        }
    }
    mock_send_at(0, A, B, n);
    mock_send_at(0, B, A, n / 2);
    mock_send_at(0, A, C, n / 4);
    mock_send_at(0, C, B, n / 4);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], n);
    CU_ASSERT_EQUAL(W.node[A].delivered[B], n / 2);
    CU_ASSERT_EQUAL(W.node[C].delivered[A], n / 4);
    CU_ASSERT_EQUAL(W.node[B].delivered[C], n / 4);
    if (W.node[B].unordered) {
        check_exactly_once(A, B, n);
        check_exactly_once(B, A, n / 2);
        check_exactly_once(A, C, n / 4);
        check_exactly_once(C, B, n / 4);
    }
    CU_ASSERT_EQUAL(W.nbounce, 0);
    if (loss > 0) {
        CU_ASSERT(W.node[A].ctr.retransmissions > 0);
    }
    mock_check_clean();
    *retx = 0;
    for (uint32_t i = 0; i < 3; i++) {
        *retx += W.node[i].ctr.retransmissions;
        CU_ASSERT_EQUAL(W.node[i].order_errors, 0);
    }
    uint64_t digest = 14695981039346656037ull;
    for (size_t i = 0; i < W.ntx; i++) {
        uint64_t v[4] = {W.txlog[i].time, W.txlog[i].seq, W.txlog[i].credits,
                         W.txlog[i].dropped};
        for (int k = 0; k < 4; k++) {
            digest = (digest ^ v[k]) * 1099511628211ull;
        }
    }
    mock_teardown();
    return digest;
}

static void delivers_exactly_once_under_loss(void)
{
    uint64_t retx;
    run_lossy(&lci_rx_srd_component.ops, 1, 0.01, 1000, &retx);
    run_lossy(&lci_rx_srd_component.ops, 2, 0.10, 400, &retx);
    run_lossy(&lci_rx_srd_component.ops, 3, 0.40, 80, &retx);
}

/* On the same lossy links, fewer packets go twice than with go-back-N,
 * which resends everything after a loss. */
static void resends_fewer_packets_than_go_back_n(void)
{
    for (uint64_t seed = 1; seed <= 3; seed++) {
        uint64_t srd = 0, gbn = 0;
        run_lossy(&lci_rx_srd_component.ops, seed, 0.05, 600, &srd);
        run_lossy(&lci_rx_gbn_component.ops, seed, 0.05, 600, &gbn);
        CU_ASSERT(srd > 0);
        CU_ASSERT(srd < gbn);
    }
}

static void same_seed_gives_the_same_run(void)
{
    uint64_t r;
    const lci_rx_ops_t *o = &lci_rx_srd_component.ops;
    CU_ASSERT_EQUAL(run_lossy(o, 42, 0.1, 200, &r),
                    run_lossy(o, 42, 0.1, 200, &r));
    CU_ASSERT_NOT_EQUAL(run_lossy(o, 42, 0.1, 200, &r),
                        run_lossy(o, 43, 0.1, 200, &r));
}

static void state_holds_no_pointers_and_can_move(void)
{
    lci_rx_params_t p = params(2, 8, 100 * US, 100000);
    setup(2, &p, 5);
    mock_run_moving_state(300);
    check_exactly_once(A, B, 300);
    check_exactly_once(B, A, 300);
    mock_check_clean();
    mock_teardown();
}

/* ---- selective acks ------------------------------------------------------ */

/* The credits field of an ack: bit i for packet ack + 2 + i. */
static void sack_bits_say_what_arrived_beyond_the_gap(void)
{
    lci_rx_params_t p = params(2, 32, MS, 3);
    setup(2, &p, 1);
    const uint16_t seqs[] = {0, 2, 3, 5, 17};
    for (uint32_t i = 0; i < 5; i++) {
        lci_wire_hdr_t h = from(A, B, LCI_PKT_DATA, seqs[i]);
        CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 1);
    }
    /* Acks at once: the gap at 1 (seen with 2), a new one at 4 (with 5),
     * another at 6 (with 17). */
    CU_ASSERT_EQUAL(mock_count_tx(B, A, LCI_PKT_CREDIT), 3);
    long last = mock_find_tx(B, A, LCI_PKT_CREDIT, 2);
    CU_ASSERT_FATAL(last >= 0);
    CU_ASSERT_EQUAL(W.txlog[last].ack, 0);
    CU_ASSERT_EQUAL(W.txlog[last].credits,
                    (1u << 0) | (1u << 1) | (1u << 3) | (1u << 15));
    mock_teardown();
}

/* Selective acks across the wrap of the sequence numbers: losses just
 * before and after 65535 are each resent once, at once. */
static void sacks_wrap_around_65535(void)
{
    lci_rx_params_t p = params(2, 16, MS, 3);
    setup(2, &p, 7);
    mock_link_t *l = &W.link[A][B];
    const uint16_t before[] = {65530, 65533, 65535};
    for (uint32_t i = 0; i < 3; i++) {
        l->drop_seq[l->ndrop_seq++] = before[i];
    }
    mock_send_at(0, A, B, 65560);
    /* Numbers 0 and 2 are lost only after the wrap. */
    for (uint64_t t = 0; W.node[A].next_new[B] < 65000; t += 10 * US) {
        mock_run(t);
    }
    l->drop_seq[l->ndrop_seq++] = 0;
    l->drop_seq[l->ndrop_seq++] = 2;
    mock_run(FOREVER);
    check_exactly_once(A, B, 65560);
    CU_ASSERT_EQUAL(W.node[A].seq_wrapped[B], 1);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 5);
    CU_ASSERT_EQUAL(sends_of(A, B, 65535), 2);
    CU_ASSERT_EQUAL(sends_of(A, B, 0), 3); /* message 0, and 65536 twice */
    CU_ASSERT_EQUAL(sends_of(A, B, 2), 3);
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 0);
    /* Some ack reached across: its cumulative part before 65535, a
     * selective bit after it. */
    int across = 0;
    for (size_t i = 0; i < W.ntx; i++) {
        const mock_tx_t *t = &W.txlog[i];
        if (t->src != B || t->ack < 65500) {
            continue;
        }
        for (uint32_t b = 0; b < 16; b++) {
            if (((t->credits >> b) & 1u) && (uint16_t)(t->ack + 2 + b) < 100) {
                across = 1;
            }
        }
    }
    CU_ASSERT(across);
    mock_check_clean();
    mock_teardown();
}

/* ---- what the receiver refuses ------------------------------------------- */

static void duplicates_are_dropped_and_acked_at_once(void)
{
    lci_rx_params_t p = params(2, 8, MS, 3);
    setup(2, &p, 1);
    lci_wire_hdr_t h = from(A, B, LCI_PKT_DATA, 0);
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 1);
    uint32_t acks = mock_count_tx(B, A, LCI_PKT_CREDIT);
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 0);
    CU_ASSERT_EQUAL(mock_count_tx(B, A, LCI_PKT_CREDIT), acks + 1);
    /* ahead of the gap, twice */
    h = from(A, B, LCI_PKT_DATA, 3);
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 1);
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 0);
    /* beyond the window */
    h = from(A, B, LCI_PKT_DATA, 9);
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 0);
    CU_ASSERT_EQUAL(W.node[B].ctr.drops_seq, 3);
    CU_ASSERT_EQUAL(W.node[B].dup_errors, 0);
    mock_teardown();
}

/* A multicast packet is forwarded as the NI accepts it: out of order it
 * would be forwarded out of order, so it waits for its turn. */
static void multicast_is_taken_only_in_order(void)
{
    lci_rx_params_t p = params(2, 8, MS, 3);
    setup(2, &p, 1);
    lci_wire_hdr_t h = from(A, B, LCI_PKT_MCAST, 1);
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 0);
    h = from(A, B, LCI_PKT_DATA, 2);
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 1);
    h = from(A, B, LCI_PKT_MCAST, 0);
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 1);
    h = from(A, B, LCI_PKT_MCAST, 1);
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 1);
    CU_ASSERT_EQUAL(W.node[B].ctr.drops_seq, 1);
    CU_ASSERT_EQUAL(W.node[B].prefix[A], 3);
    mock_teardown();
}

/* ---- return to sender ---------------------------------------------------- */

static void cut_link_returns_packets_to_sender_in_order(void)
{
    lci_rx_params_t p = params(2, 4, 100 * US, 3);
    setup(2, &p, 1);
    W.link[A][B].cut = 1;
    mock_send_at(0, A, B, 10);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL_FATAL(W.nbounce, 10);
    for (uint32_t i = 0; i < 10; i++) {
        CU_ASSERT_EQUAL(W.bounce[i].node, A);
        CU_ASSERT_EQUAL(W.bounce[i].dst, B);
        CU_ASSERT_EQUAL(W.bounce[i].tag, i);
        CU_ASSERT_EQUAL(W.bounce[i].reason, LCI_ERR_UNREACHABLE);
        /* given up after max_retries doubling timeouts */
        CU_ASSERT_EQUAL(W.bounce[i].time, (1 + 2 + 4 + 8) * p.rto_ns);
    }
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 0);
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 4);
    /* A peer given up on: later sends come back at once. */
    mock_send_at(W.now + MS, A, B, 2);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL_FATAL(W.nbounce, 12);
    CU_ASSERT_EQUAL(W.bounce[10].tag, 10);
    CU_ASSERT_EQUAL(W.bounce[11].tag, 11);
    mock_check_clean();
    mock_teardown();
}

static const lci_unit_test_t tests[] = {
#define TEST(f) {#f, f}
    TEST(component_table_is_complete),
    TEST(clean_stream_needs_no_retransmission),
    TEST(a_loss_is_repaired_by_resending_only_the_lost_packet),
    TEST(every_hole_goes_once),
    TEST(timeout_resends_only_what_no_sack_covered),
    TEST(tail_loss_is_repaired_by_the_timeout),
    TEST(lost_acks_are_made_up_for),
    TEST(delivers_exactly_once_under_loss),
    TEST(resends_fewer_packets_than_go_back_n),
    TEST(same_seed_gives_the_same_run),
    TEST(state_holds_no_pointers_and_can_move),
    TEST(sack_bits_say_what_arrived_beyond_the_gap),
    TEST(sacks_wrap_around_65535),
    TEST(duplicates_are_dropped_and_acked_at_once),
    TEST(multicast_is_taken_only_in_order),
    TEST(cut_link_returns_packets_to_sender_in_order),
#undef TEST
};

int main(void)
{
    return lci_unit_run("rx_srd", tests, LCI_UNIT_COUNT(tests));
}
