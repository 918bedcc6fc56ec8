/* test_rx_gbn.c - the go-back-N rx policy (RX_ni / RX_h) against a mock
 * environment: lossy FIFO links, a virtual clock and timers, buffers with
 * reference counts (tests/unit/rx_gbn_mock.c).  Every run also checks the
 * mock's invariants: acks equal what was delivered, windows and sequence
 * numbers respected, all references balanced, no charge() calls. */
#include "config.h"

#include <string.h>

#include "rx_gbn_mock.h"
#include "unit_run.h"


static lci_rx_params_t params(uint32_t nnodes, uint32_t window, uint32_t nbufs,
                              uint64_t rto, uint64_t ack_delay,
                              uint32_t max_retries)
{
    lci_rx_params_t p = {nnodes, nbufs, window, max_retries, rto, ack_delay,
                         0,      0,     0};
    return p;
}

static const mock_tx_t *tx(long i)
{
    CU_ASSERT_FATAL(i >= 0 && (size_t)i < W.ntx);
    return &W.txlog[i];
}

/* ---- the component ------------------------------------------------------ */

static void component_table_is_complete(void)
{
    const lci_rx_component_t *c = &lci_rx_gbn_component;
    CU_ASSERT_STRING_EQUAL(c->name, "gbn");
    CU_ASSERT_PTR_NOT_NULL(c->description);
    CU_ASSERT_EQUAL(c->abi, LCI_POLICY_ABI);
    CU_ASSERT_PTR_NOT_NULL(c->ops.state_size);
    CU_ASSERT_PTR_NOT_NULL(c->ops.timers);
    CU_ASSERT_PTR_NOT_NULL(c->ops.init);
    CU_ASSERT_PTR_NOT_NULL(c->ops.send);
    CU_ASSERT_PTR_NOT_NULL(c->ops.accept);
    CU_ASSERT_PTR_NOT_NULL(c->ops.released);
    CU_ASSERT_PTR_NOT_NULL(c->ops.timer);
}

static void timers_and_state_scale_with_peers_and_buffers(void)
{
    const lci_rx_ops_t *o = &lci_rx_gbn_component.ops;
    lci_rx_params_t p = params(4, 8, 16, MS, 10 * US, 3);
    lci_rx_params_t more_nodes = params(64, 8, 16, MS, 10 * US, 3);
    lci_rx_params_t more_bufs = params(4, 8, 1024, MS, 10 * US, 3);
    CU_ASSERT_EQUAL(o->timers(&p), 8);
    CU_ASSERT_EQUAL(o->timers(&more_nodes), 128);
    CU_ASSERT(o->state_size(&more_nodes) > o->state_size(&p));
    /* One slot per buffer: a header and a little bookkeeping each. */
    CU_ASSERT(o->state_size(&more_bufs) >=
              o->state_size(&p) + 1008 * sizeof(lci_wire_hdr_t));
}

/* ---- delivery under loss ------------------------------------------------ */

typedef struct {
    uint64_t end, retrans, digest;
} outcome_t;

/* A sends n to B and B n/2 to A over links losing `loss` of all packets
 * (data and acks); everything arrives exactly once, in order. */
static outcome_t run_lossy(uint64_t seed, double loss, uint32_t n)
{
    lci_rx_params_t p = params(2, 8, 16, 200 * US, 20 * US, 100000);
    mock_setup(2, &p, 2 * US, seed);
    W.link[A][B].loss = loss;
    W.link[B][A].loss = loss;
    mock_send_at(0, A, B, n);
    mock_send_at(0, B, A, n / 2);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], n);
    CU_ASSERT_EQUAL(W.node[A].delivered[B], n / 2);
    CU_ASSERT_EQUAL(W.nbounce, 0);
    mock_check_clean();
    outcome_t o = {W.now, W.node[A].ctr.retransmissions, 14695981039346656037ull};
    for (size_t i = 0; i < W.ntx; i++) {
        const mock_tx_t *t = &W.txlog[i];
        uint64_t v[4] = {t->time, t->seq, t->type, t->dropped};
        for (int k = 0; k < 4; k++) {
            o.digest = (o.digest ^ v[k]) * 1099511628211ull;
        }
    }
    if (loss > 0) {
        CU_ASSERT(o.retrans > 0);
        CU_ASSERT(W.node[B].ctr.drops_seq > 0);
    }
    mock_teardown();
    return o;
}

static void delivers_exactly_once_in_order_under_1pct_loss(void)
{
    run_lossy(1, 0.01, 3000);
}

static void delivers_exactly_once_in_order_under_10pct_loss(void)
{
    run_lossy(2, 0.10, 1000);
}

static void delivers_exactly_once_in_order_under_50pct_loss(void)
{
    run_lossy(3, 0.50, 200);
}

static void same_seed_gives_the_same_run(void)
{
    outcome_t x = run_lossy(42, 0.10, 500);
    outcome_t y = run_lossy(42, 0.10, 500);
    outcome_t z = run_lossy(43, 0.10, 500);
    CU_ASSERT_EQUAL(x.end, y.end);
    CU_ASSERT_EQUAL(x.retrans, y.retrans);
    CU_ASSERT_EQUAL(x.digest, y.digest);
    CU_ASSERT_NOT_EQUAL(x.digest, z.digest); /* the seed matters */
}

static void lossless_stream_never_times_out(void)
{
    /* The stream lasts many rto: the timer must move on every ack and stop
     * when nothing is outstanding, or it would fire. */
    lci_rx_params_t p = params(2, 8, 16, 50 * US, 20 * US, 3);
    mock_setup(2, &p, 2 * US, 1);
    mock_send_at(0, A, B, 2000);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 2000);
    CU_ASSERT(W.now > 10 * p.rto_ns);
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 0);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 0);
    CU_ASSERT_EQUAL(W.node[B].ctr.drops_seq, 0);
    mock_check_clean();
    mock_teardown();
}

static void sequence_numbers_wrap_past_65535_under_loss(void)
{
    lci_rx_params_t p = params(2, 16, 32, 100 * US, 10 * US, 100000);
    mock_setup(2, &p, 1 * US, 7);
    W.link[A][B].loss = 0.01;
    W.link[B][A].loss = 0.01;
    mock_send_at(0, A, B, 70000);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 70000);
    CU_ASSERT_EQUAL(W.node[A].seq_wrapped[B], 1);
    CU_ASSERT(W.node[A].ctr.retransmissions > 0);
    CU_ASSERT_EQUAL(W.nbounce, 0);
    mock_check_clean();
    mock_teardown();
}

static void state_holds_no_pointers_and_can_move(void)
{
    lci_rx_params_t p = params(2, 8, 16, 100 * US, 10 * US, 100000);
    mock_setup(2, &p, 2 * US, 5);
    mock_run_moving_state(300);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 300);
    CU_ASSERT_EQUAL(W.node[A].delivered[B], 300);
    mock_check_clean();
    mock_teardown();
}

/* ---- window ------------------------------------------------------------- */

static void closed_window_queues_sends_and_drains_them_in_order(void)
{
    lci_rx_params_t p = params(2, 4, 32, MS, 20 * US, 3);
    mock_setup(2, &p, 2 * US, 1);
    mock_send_at(0, A, B, 20);
    mock_run(0); /* the sends at t = 0, nothing arrived yet */
    CU_ASSERT_EQUAL(mock_count_tx(A, B, LCI_PKT_DATA), 4);
    CU_ASSERT_EQUAL(W.node[A].ctr.window_stalls, 16);
    /* The packet that fills the window asks for an ack; the others not. */
    for (uint32_t i = 0; i < 4; i++) {
        const mock_tx_t *t = tx(mock_find_tx(A, B, LCI_PKT_DATA, i));
        CU_ASSERT_EQUAL(t->seq, i);
        CU_ASSERT_EQUAL(!!(t->flags & LCI_HF_ACKREQ), i == 3);
    }
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 20);
    CU_ASSERT_EQUAL(mock_count_tx(A, B, LCI_PKT_DATA), 20);
    CU_ASSERT_EQUAL(W.node[A].ctr.window_stalls, 16);
    mock_check_clean();
    mock_teardown();
}

static void more_packets_than_buffers_is_a_sizing_failure(void)
{
    /* A buffer may wait for LCI_BUF_MAX_SENDS peers, so 4 buffers give
     * 8 slots: only a ninth packet kept is more than any run can have. */
    lci_rx_params_t p = params(2, 2, 4, MS, 20 * US, 3);
    mock_setup(2, &p, 2 * US, 1);
    W.node[A].nsend = LCI_BUF_MAX_SENDS * 4 + 1;
    mock_send_at(0, A, B, LCI_BUF_MAX_SENDS * 4 + 1);
    mock_run(0);
    CU_ASSERT_EQUAL(W.node[A].fails, 1);
    CU_ASSERT_EQUAL(W.node[A].last_fault, LCI_FW_QUEUE_FULL);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], LCI_BUF_MAX_SENDS * 4);
    CU_ASSERT_EQUAL(mock_bufs_in_use(), 0);
    CU_ASSERT_EQUAL(W.bad_releases, 0);
    mock_teardown();
}

static void bad_destination_is_a_failure_and_frees_the_buffer(void)
{
    lci_rx_params_t p = params(2, 4, 8, MS, 20 * US, 3);
    mock_setup(2, &p, 2 * US, 1);
    lci_wire_hdr_t h = {0};
    h.type = LCI_PKT_DATA;
    h.dst = 7;
    W.ops->send(W.node[A].state, &W.node[A].env, mock_buf_new(A), &h);
    CU_ASSERT_EQUAL(W.node[A].fails, 1);
    CU_ASSERT_EQUAL(W.node[A].last_fault, LCI_FW_BAD_COMMAND);
    CU_ASSERT_EQUAL(W.ntx, 0);
    CU_ASSERT_EQUAL(mock_bufs_in_use(), 0);
    mock_teardown();
}

/* ---- acknowledgements --------------------------------------------------- */

static void ack_request_is_acknowledged_at_once(void)
{
    lci_rx_params_t p = params(2, 8, 16, 10 * MS, MS, 3);
    mock_setup(2, &p, 2 * US, 1);
    lci_wire_hdr_t h = {0};
    h.type = LCI_PKT_DATA;
    h.dst = B;
    h.hop_src = A;
    h.seq = 0;
    h.flags = LCI_HF_ACKREQ;
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 1);
    CU_ASSERT_EQUAL_FATAL(W.ntx, 1);
    CU_ASSERT_EQUAL(tx(0)->type, LCI_PKT_CREDIT);
    CU_ASSERT_EQUAL(tx(0)->dst, A);
    CU_ASSERT_EQUAL(tx(0)->ack, 0);
    CU_ASSERT_EQUAL(W.node[B].ctr.pkts_sent_ack, 1);
    /* Without the request the same arrival waits for the ack timer. */
    h.seq = 1;
    h.flags = 0;
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 1);
    CU_ASSERT_EQUAL(W.ntx, 1);
    CU_ASSERT(W.node[B].timer_armed[2 + A]);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].ack_fires, 1);
    CU_ASSERT_EQUAL(mock_count_tx(B, A, LCI_PKT_CREDIT), 2);
    mock_check_clean();
    mock_teardown();
}

static void half_window_of_arrivals_gets_an_explicit_ack(void)
{
    lci_rx_params_t p = params(2, 8, 16, 10 * MS, MS, 3);
    mock_setup(2, &p, 2 * US, 1);
    mock_send_at(0, A, B, 3);
    mock_run(500 * US);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 3);
    CU_ASSERT_EQUAL(mock_count_tx(B, A, 0), 0);
    CU_ASSERT_EQUAL(W.node[A].send_inuse, 3); /* still unacknowledged */
    mock_send_at(500 * US, A, B, 1);
    mock_run(600 * US);
    CU_ASSERT_EQUAL_FATAL(mock_count_tx(B, A, LCI_PKT_CREDIT), 1);
    const mock_tx_t *ack = tx(mock_find_tx(B, A, LCI_PKT_CREDIT, 0));
    CU_ASSERT_EQUAL(ack->ack, 3);
    CU_ASSERT_EQUAL(ack->time, 500 * US + 2 * US + W.gap_ns);
    CU_ASSERT_EQUAL(W.node[A].send_inuse, 0);
    mock_run(FOREVER);
    /* That ack cancelled the delayed-ack timer. */
    CU_ASSERT_EQUAL(W.node[B].ack_fires, 0);
    CU_ASSERT_EQUAL(W.node[B].ctr.pkts_sent_ack, 1);
    mock_check_clean();
    mock_teardown();
}

static void delayed_ack_goes_out_after_ack_delay(void)
{
    lci_rx_params_t p = params(2, 8, 16, 10 * MS, 30 * US, 3);
    mock_setup(2, &p, 2 * US, 1);
    mock_send_at(0, A, B, 1);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL_FATAL(mock_count_tx(B, A, 0), 1);
    const mock_tx_t *ack = tx(mock_find_tx(B, A, 0, 0));
    CU_ASSERT_EQUAL(ack->type, LCI_PKT_CREDIT);
    CU_ASSERT_EQUAL(ack->ack, 0);
    CU_ASSERT_EQUAL(ack->time, 2 * US + W.gap_ns + 30 * US);
    CU_ASSERT_EQUAL(W.node[B].ack_fires, 1);
    CU_ASSERT_EQUAL(W.node[B].ctr.pkts_sent_ack, 1);
    mock_check_clean();
    mock_teardown();
}

static void piggybacked_ack_cancels_the_delayed_ack(void)
{
    lci_rx_params_t p = params(2, 8, 16, 10 * MS, 30 * US, 3);
    mock_setup(2, &p, 2 * US, 1);
    mock_send_at(0, A, B, 1);
    mock_send_at(10 * US, B, A, 1);
    mock_run(13 * US);
    const mock_tx_t *d = tx(mock_find_tx(B, A, LCI_PKT_DATA, 0));
    CU_ASSERT(d->flags & LCI_HF_ACK);
    CU_ASSERT_EQUAL(d->ack, 0);
    CU_ASSERT_EQUAL(W.node[A].send_inuse, 0); /* released by the piggyback */
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(mock_count_tx(B, A, LCI_PKT_CREDIT), 0);
    CU_ASSERT_EQUAL(W.node[B].ack_fires, 0);
    CU_ASSERT_EQUAL(W.node[B].ctr.pkts_sent_ack, 0);
    CU_ASSERT_EQUAL(W.node[A].ctr.pkts_sent_ack, 1); /* for B's packet */
    mock_check_clean();
    mock_teardown();
}

static void lost_ack_causes_a_duplicate_that_is_dropped_and_reacked(void)
{
    lci_rx_params_t p = params(2, 8, 16, 100 * US, 30 * US, 3);
    mock_setup(2, &p, 2 * US, 1);
    W.link[B][A].drop_idx[W.link[B][A].ndrop++] = 0; /* B's first ack */
    mock_send_at(0, A, B, 1);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 1);
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 1);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 1);
    CU_ASSERT_EQUAL(W.node[B].ctr.drops_seq, 1);
    /* The duplicate was acknowledged at its arrival, not after a delay. */
    const mock_tx_t *re = tx(mock_find_tx(A, B, LCI_PKT_DATA, 1));
    const mock_tx_t *ack = tx(mock_find_tx(B, A, LCI_PKT_CREDIT, 1));
    CU_ASSERT_EQUAL(re->seq, 0);
    CU_ASSERT_EQUAL(ack->time, re->time + 2 * US + W.gap_ns);
    CU_ASSERT_EQUAL(W.node[B].ctr.pkts_sent_ack, 2);
    mock_check_clean();
    mock_teardown();
}

static void duplicate_and_stale_acks_change_nothing(void)
{
    lci_rx_params_t p = params(2, 8, 16, 100 * US, 30 * US, 3);
    mock_setup(2, &p, 2 * US, 1);
    mock_send_at(0, A, B, 5);
    mock_run(FOREVER);
    /* Two packets outstanding (lost on a cut link), then acks that are
     * old, repeated or beyond anything sent. */
    W.link[A][B].cut = 1;
    mock_send_at(W.now, A, B, 2);
    mock_run(W.now);
    CU_ASSERT_EQUAL_FATAL(W.node[A].send_inuse, 2);
    size_t ntx = W.ntx;
    lci_wire_hdr_t h = {0};
    h.type = LCI_PKT_CREDIT;
    h.dst = A;
    h.hop_src = B;
    h.flags = LCI_HF_ACK;
    const uint16_t acks[] = {2, 4, 4, 7, 300, 40000, 65535};
    for (size_t i = 0; i < sizeof(acks) / sizeof(acks[0]); i++) {
        h.ack = acks[i];
        CU_ASSERT_EQUAL(mock_inject(A, &h, 0, LCI_HW_OK), 0);
    }
    CU_ASSERT_EQUAL(W.ntx, ntx);
    CU_ASSERT_EQUAL(W.node[A].send_inuse, 2);
    CU_ASSERT_EQUAL(W.bad_releases, 0);
    W.link[A][B].cut = 0;
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 7);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 2);
    mock_check_clean();
    mock_teardown();
}

/* ---- what the receiver drops -------------------------------------------- */

static void hw_seq_gap_and_dup_statuses_are_ignored(void)
{
    lci_rx_params_t p = params(2, 8, 16, 100 * US, 30 * US, 3);
    mock_setup(2, &p, 2 * US, 1);
    lci_wire_hdr_t h = {0};
    h.type = LCI_PKT_DATA;
    h.dst = B;
    h.hop_src = A;
    h.seq = 0;
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_SEQ_GAP), 1);
    h.seq = 1;
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_SEQ_DUP), 1);
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 0); /* our dup */
    CU_ASSERT_EQUAL(W.node[B].ctr.drops_seq, 1);
    h.seq = 5;
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 0); /* beyond a gap */
    CU_ASSERT_EQUAL(W.node[B].ctr.drops_seq, 2);
    h.seq = 2;
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_SEQ_DUP), 1);
    CU_ASSERT_EQUAL(W.node[B].fails, 0);
    mock_run(FOREVER);
    mock_check_clean();
    mock_teardown();
}

static void malformed_headers_are_dropped(void)
{
    lci_rx_params_t p = params(2, 8, 16, 100 * US, 30 * US, 3);
    mock_setup(2, &p, 2 * US, 1);
    lci_wire_hdr_t h = {0};
    h.type = LCI_PKT_DATA;
    h.dst = B;
    h.hop_src = 9;
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 0);
    h.hop_src = A;
    h.type = 0;
    CU_ASSERT_EQUAL(mock_inject(B, &h, 1, LCI_HW_OK), 0);
    CU_ASSERT_EQUAL(W.node[B].ctr.drops_malformed, 2);
    CU_ASSERT_EQUAL(W.ntx, 0);
    mock_check_clean();
    mock_teardown();
}

/* The packet after the damaged one shows the gap: one NACK, and the
 * sender goes back at once instead of at its timeout. */
static void crc_damaged_packet_is_resent_on_the_nack_of_the_gap(void)
{
    lci_rx_params_t p = params(2, 8, 16, 100 * US, 30 * US, 3);
    mock_setup(2, &p, 2 * US, 1);
    W.link[A][B].crc_idx[W.link[A][B].ncrc++] = 1;
    mock_send_at(0, A, B, 5);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 5);
    CU_ASSERT_EQUAL(W.node[B].ctr.drops_crc, 1);
    CU_ASSERT_EQUAL(W.node[B].ctr.drops_seq, 3); /* 2, 3, 4 behind the gap */
    CU_ASSERT_EQUAL(W.node[B].ctr.pkts_sent_nack, 1); /* one per gap */
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 0);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 4); /* go back to 1 */
    CU_ASSERT(W.last_deliver_at < p.rto_ns);
    mock_check_clean();
    mock_teardown();
}

/* ---- NACK on drop -------------------------------------------------------- */

static void nack_recovers_without_waiting_for_the_timeout(void)
{
    lci_rx_params_t p = params(2, 8, 16, MS, 50 * US, 3);
    mock_setup(2, &p, 1 * US, 1);
    W.node[B].rx_limit = 2;
    W.node[B].rx_hold_ns = 5 * US;
    mock_send_at(0, A, B, 16);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 16);
    CU_ASSERT(W.node[B].ctr.drops_nobuf > 0);
    CU_ASSERT(W.node[B].ctr.pkts_sent_nack > 0);
    CU_ASSERT_EQUAL(W.node[B].ctr.pkts_sent_nack,
                    mock_count_tx(B, A, LCI_PKT_NACK));
    CU_ASSERT(W.node[A].ctr.retransmissions > 0);
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 0);
    CU_ASSERT(W.last_deliver_at < p.rto_ns);
    /* The first NACK left when B's first buffer was freed. */
    const mock_tx_t *nack = tx(mock_find_tx(B, A, LCI_PKT_NACK, 0));
    CU_ASSERT_EQUAL(nack->time, 1 * US + W.gap_ns + 5 * US);
    CU_ASSERT(nack->flags & LCI_HF_ACK);
    mock_check_clean();
    mock_teardown();
}

static void nack_serves_every_starved_sender(void)
{
    lci_rx_params_t p = params(3, 8, 16, 10 * MS, 50 * US, 3);
    mock_setup(3, &p, 1 * US, 1);
    W.node[B].rx_limit = 3;
    W.node[B].rx_hold_ns = 3 * US;
    mock_send_at(0, A, B, 100);
    mock_send_at(0, C, B, 100);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 100);
    CU_ASSERT_EQUAL(W.node[B].delivered[C], 100);
    CU_ASSERT(mock_count_tx(B, A, LCI_PKT_NACK) > 0);
    CU_ASSERT(mock_count_tx(B, C, LCI_PKT_NACK) > 0);
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 0);
    CU_ASSERT_EQUAL(W.node[C].rto_fires, 0);
    CU_ASSERT(W.last_deliver_at < p.rto_ns);
    mock_check_clean();
    mock_teardown();
}

/* ---- return to sender ---------------------------------------------------- */

static void cut_link_returns_packets_to_sender_in_order(void)
{
    lci_rx_params_t p = params(3, 4, 32, 100 * US, 20 * US, 3);
    mock_setup(3, &p, 2 * US, 1);
    W.link[A][B].cut = 1;
    mock_send_at(0, A, B, 10);
    mock_send_at(0, A, C, 5);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL_FATAL(W.nbounce, 10);
    for (uint32_t i = 0; i < 10; i++) {
        CU_ASSERT_EQUAL(W.bounce[i].node, A);
        CU_ASSERT_EQUAL(W.bounce[i].dst, B);
        CU_ASSERT_EQUAL(W.bounce[i].tag, i);
        CU_ASSERT_EQUAL(W.bounce[i].reason, LCI_ERR_UNREACHABLE);
        /* first transmission at 0, then max_retries timeouts, each twice
         * as long as the one before, then out */
        CU_ASSERT_EQUAL(W.bounce[i].time, (1 + 2 + 4 + 8) * p.rto_ns);
    }
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 3 * 4);
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 4);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 0);
    CU_ASSERT_EQUAL(W.node[C].delivered[A], 5);
    mock_check_clean();
    mock_teardown();
}

/* A swamped receiver is not a dead one: the timeout doubles after each
 * expiry, up to eight times the first, so retransmissions thin out. */
static void timeouts_back_off_up_to_eight_times(void)
{
    lci_rx_params_t p = params(2, 4, 32, 100 * US, 20 * US, 6);
    mock_setup(2, &p, 2 * US, 1);
    W.link[A][B].cut = 1;
    mock_send_at(0, A, B, 1);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL_FATAL(W.nbounce, 1);
    CU_ASSERT_EQUAL(W.bounce[0].time,
                    (1 + 2 + 4 + 8 + 8 + 8 + 8) * p.rto_ns);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 6);
    mock_teardown();
}

static void down_peer_bounces_later_sends_at_once(void)
{
    lci_rx_params_t p = params(3, 4, 32, 100 * US, 20 * US, 0);
    mock_setup(3, &p, 2 * US, 1);
    W.link[A][B].cut = 1;
    mock_send_at(0, A, B, 3);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL_FATAL(W.nbounce, 3);
    CU_ASSERT_EQUAL(W.bounce[0].time, p.rto_ns);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 0);
    uint32_t sent_to_b = mock_count_tx(A, B, 0);
    mock_send_at(MS, A, B, 2);
    mock_send_at(MS, A, C, 1);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL_FATAL(W.nbounce, 5);
    CU_ASSERT_EQUAL(W.bounce[3].tag, 3);
    CU_ASSERT_EQUAL(W.bounce[4].tag, 4);
    CU_ASSERT_EQUAL(W.bounce[3].time, MS);
    CU_ASSERT_EQUAL(W.bounce[4].time, MS);
    CU_ASSERT_EQUAL(mock_count_tx(A, B, 0), sent_to_b);
    CU_ASSERT_EQUAL(W.node[C].delivered[A], 1);
    CU_ASSERT_EQUAL(W.node[A].rto_fires, 1);
    mock_check_clean();
    mock_teardown();
}

static void progress_resets_the_retry_count(void)
{
    /* Each packet needs one retry; max_retries 1 is enough only if every
     * ack restarts the count. */
    lci_rx_params_t p = params(2, 1, 4, 100 * US, 20 * US, 1);
    mock_setup(2, &p, 2 * US, 1);
    mock_link_t *l = &W.link[A][B];
    l->drop_idx[l->ndrop++] = 0;
    l->drop_idx[l->ndrop++] = 2;
    l->drop_idx[l->ndrop++] = 4;
    mock_send_at(0, A, B, 3);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.nbounce, 0);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 3);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 3);
    mock_check_clean();
    mock_teardown();
}

/* Each test is named after the behaviour it checks. */
#define TEST(f) {#f, f}
static const lci_unit_test_t tests[] = {
    TEST(component_table_is_complete),
    TEST(timers_and_state_scale_with_peers_and_buffers),
    TEST(delivers_exactly_once_in_order_under_1pct_loss),
    TEST(delivers_exactly_once_in_order_under_10pct_loss),
    TEST(delivers_exactly_once_in_order_under_50pct_loss),
    TEST(same_seed_gives_the_same_run),
    TEST(lossless_stream_never_times_out),
    TEST(sequence_numbers_wrap_past_65535_under_loss),
    TEST(state_holds_no_pointers_and_can_move),
    TEST(closed_window_queues_sends_and_drains_them_in_order),
    TEST(more_packets_than_buffers_is_a_sizing_failure),
    TEST(bad_destination_is_a_failure_and_frees_the_buffer),
    TEST(ack_request_is_acknowledged_at_once),
    TEST(half_window_of_arrivals_gets_an_explicit_ack),
    TEST(delayed_ack_goes_out_after_ack_delay),
    TEST(piggybacked_ack_cancels_the_delayed_ack),
    TEST(lost_ack_causes_a_duplicate_that_is_dropped_and_reacked),
    TEST(duplicate_and_stale_acks_change_nothing),
    TEST(hw_seq_gap_and_dup_statuses_are_ignored),
    TEST(malformed_headers_are_dropped),
    TEST(crc_damaged_packet_is_resent_on_the_nack_of_the_gap),
    TEST(nack_recovers_without_waiting_for_the_timeout),
    TEST(nack_serves_every_starved_sender),
    TEST(cut_link_returns_packets_to_sender_in_order),
    TEST(timeouts_back_off_up_to_eight_times),
    TEST(down_peer_bounces_later_sends_at_once),
    TEST(progress_resets_the_retry_count),
};

int main(void)
{
    return lci_unit_run("rx_gbn", tests, LCI_UNIT_COUNT(tests));
}
