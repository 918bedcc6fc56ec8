/* test_rx_vmmc2.c - VMMC-2's firmware reliability (policies/lci_rx_vmmc2.c)
 * against the mock environment of the rx policy tests: routes found on
 * demand, an acknowledgement every sixth packet, ack requests when send
 * buffers run low, recovery by timeout alone (no NACKs), routes looked up
 * again after repeated timeouts, return to sender.  Every quiet run also
 * checks the mock's invariants (acks, windows, sequence numbers, buffer
 * references). */
#include "config.h"

#include <string.h>

#include "rx_gbn_mock.h"
#include "unit_run.h"


static lci_rx_params_t params(uint32_t nnodes, uint32_t window, uint32_t nbufs,
                              uint64_t rto, uint64_t ack_delay,
                              uint32_t max_retries, uint32_t nsend)
{
    lci_rx_params_t p = {nnodes, nbufs, window, max_retries, rto,
                         ack_delay, nsend, 0, 0};
    return p;
}

static void setup(uint32_t nnodes, const lci_rx_params_t *p, uint64_t seed)
{
    mock_rx_ops = &lci_rx_vmmc2_component.ops;
    mock_setup(nnodes, p, 2 * US, seed);
}

/* Data packets node src sent to dst that asked for an ack. */
static uint32_t ack_requests(uint32_t src, uint32_t dst)
{
    uint32_t n = 0;
    for (size_t i = 0; i < W.ntx; i++) {
        const mock_tx_t *t = &W.txlog[i];
        n += t->src == src && t->dst == dst && t->type == LCI_PKT_DATA &&
             (t->flags & LCI_HF_ACKREQ);
    }
    return n;
}

static void component_table_is_complete(void)
{
    const lci_rx_component_t *c = &lci_rx_vmmc2_component;
    CU_ASSERT_STRING_EQUAL(c->name, "vmmc2");
    CU_ASSERT_EQUAL(c->abi, LCI_POLICY_ABI);
    CU_ASSERT_PTR_NOT_NULL(c->description);
    CU_ASSERT_PTR_NOT_NULL(c->ops.state_size);
    CU_ASSERT_PTR_NOT_NULL(c->ops.timers);
    CU_ASSERT_PTR_NOT_NULL(c->ops.init);
    CU_ASSERT_PTR_NOT_NULL(c->ops.send);
    CU_ASSERT_PTR_NOT_NULL(c->ops.accept);
    CU_ASSERT_PTR_NOT_NULL(c->ops.released);
    CU_ASSERT_PTR_NOT_NULL(c->ops.timer);
    CU_ASSERT_PTR_NOT_NULL(c->ops.pending);
}

/* The first packet to a node waits for a probe and its answer; the answer
 * teaches the receiver the way back, so its replies need no probe. */
static void first_packet_to_a_node_waits_for_its_route(void)
{
    lci_rx_params_t p = params(2, 8, 32, MS, 20 * US, 10, 0);
    setup(2, &p, 1);
    mock_send_at(0, A, B, 3);
    mock_send_at(100 * US, B, A, 2);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 3);
    CU_ASSERT_EQUAL(W.node[A].delivered[B], 2);
    long probe = mock_find_tx(A, B, LCI_PKT_ROUTE, 0);
    long answer = mock_find_tx(B, A, LCI_PKT_ROUTE, 0);
    long data = mock_find_tx(A, B, LCI_PKT_DATA, 0);
    CU_ASSERT_FATAL(probe >= 0 && answer >= 0 && data >= 0);
    CU_ASSERT(probe < answer && answer < data);
    /* the data leaves one round trip after the probe */
    CU_ASSERT(W.txlog[data].time >= W.txlog[probe].time + 2 * 2 * US);
    CU_ASSERT_EQUAL(W.node[A].ctr.route_probes, 1);
    CU_ASSERT_EQUAL(W.node[B].ctr.route_probes, 0);
    CU_ASSERT_EQUAL(mock_count_tx(A, B, LCI_PKT_ROUTE), 1);
    CU_ASSERT_EQUAL(mock_count_tx(B, A, LCI_PKT_ROUTE), 1);
    mock_check_clean();
    mock_teardown();
}

/* One way traffic: an explicit ack after every sixth packet, no more. */
static void one_way_stream_is_acknowledged_every_sixth_packet(void)
{
    lci_rx_params_t p = params(2, 64, 256, 10 * MS, 5 * MS, 10, 0);
    setup(2, &p, 1);
    mock_send_at(0, A, B, 60);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 60);
    CU_ASSERT_EQUAL(mock_count_tx(B, A, LCI_PKT_CREDIT), 10);
    CU_ASSERT_EQUAL(ack_requests(A, B), 0);
    CU_ASSERT_EQUAL(W.node[B].ack_fires, 0);
    mock_check_clean();
    mock_teardown();
}

/* The same stream from a sender with few send buffers: it asks for acks
 * once fewer than a quarter of them are free. */
static void low_send_buffers_ask_for_acknowledgements(void)
{
    lci_rx_params_t p = params(2, 64, 256, 10 * MS, 5 * MS, 10, 8);
    setup(2, &p, 1);
    W.delay_ns = 50 * US; /* acks take long to come back */
    mock_send_at(0, A, B, 60);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 60);
    CU_ASSERT(ack_requests(A, B) > 0);
    mock_check_clean();
    mock_teardown();
}

/* A lost packet: the receiver drops what follows it and says nothing;
 * the sender's timeout sends it and everything after it again. */
static void loss_is_recovered_by_timeout_without_nacks(void)
{
    lci_rx_params_t p = params(2, 8, 32, 200 * US, 20 * US, 10, 0);
    setup(2, &p, 1);
    mock_link_t *l = &W.link[A][B];
    l->drop_idx[l->ndrop++] = 3; /* the probe, then data 0, 1, lost 2 */
    mock_send_at(0, A, B, 6);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 6);
    CU_ASSERT_EQUAL(mock_count_tx(B, A, LCI_PKT_NACK), 0);
    CU_ASSERT(W.node[B].ctr.drops_seq > 0);
    CU_ASSERT(W.node[A].ctr.retransmissions >= 4);
    CU_ASSERT(W.node[A].rto_fires >= 1);
    mock_check_clean();
    mock_teardown();
}

typedef struct {
    uint64_t end, digest;
} outcome_t;

static outcome_t run_lossy(uint64_t seed, double loss, uint32_t n)
{
    lci_rx_params_t p = params(3, 8, 64, 200 * US, 20 * US, 100000, 0);
    setup(3, &p, seed);
    for (uint32_t s = 0; s < 3; s++) {
        for (uint32_t d = 0; d < 3; d++) {
            W.link[s][d].loss = loss;
        }
    }
    mock_send_at(0, A, B, n);
    mock_send_at(0, B, A, n / 2);
    mock_send_at(0, C, A, n / 3);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], n);
    CU_ASSERT_EQUAL(W.node[A].delivered[B], n / 2);
    CU_ASSERT_EQUAL(W.node[A].delivered[C], n / 3);
    CU_ASSERT_EQUAL(W.nbounce, 0);
    mock_check_clean();
    outcome_t o = {W.now, 14695981039346656037ull};
    for (size_t i = 0; i < W.ntx; i++) {
        const mock_tx_t *t = &W.txlog[i];
        uint64_t v[4] = {t->time, t->seq, t->type, t->dropped};
        for (int k = 0; k < 4; k++) {
            o.digest = (o.digest ^ v[k]) * 1099511628211ull;
        }
    }
    mock_teardown();
    return o;
}

static void delivers_exactly_once_in_order_under_loss(void)
{
    run_lossy(1, 0.01, 2000);
    run_lossy(2, 0.10, 600);
    run_lossy(3, 0.40, 120);
}

static void same_seed_gives_the_same_run(void)
{
    outcome_t x = run_lossy(42, 0.10, 300);
    outcome_t y = run_lossy(42, 0.10, 300);
    outcome_t z = run_lossy(43, 0.10, 300);
    CU_ASSERT_EQUAL(x.end, y.end);
    CU_ASSERT_EQUAL(x.digest, y.digest);
    CU_ASSERT_NOT_EQUAL(x.digest, z.digest);
}

static void state_holds_no_pointers_and_can_move(void)
{
    lci_rx_params_t p = params(2, 8, 16, 100 * US, 10 * US, 100000, 0);
    setup(2, &p, 5);
    mock_run_moving_state(300);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 300);
    CU_ASSERT_EQUAL(W.node[A].delivered[B], 300);
    mock_check_clean();
    mock_teardown();
}

/* Timeouts without progress make the route suspect: it is probed again,
 * and once found the packets go again and arrive. */
static void repeated_timeouts_look_the_route_up_again(void)
{
    lci_rx_params_t p = params(2, 8, 32, 100 * US, 20 * US, 50, 0);
    setup(2, &p, 1);
    mock_send_at(0, A, B, 1);
    mock_run(FOREVER); /* the route is known */
    CU_ASSERT_EQUAL(W.node[A].ctr.route_probes, 1);
    W.link[A][B].cut = 1;
    mock_send_at(W.now + 10 * US, A, B, 4);
    mock_run(W.now + 2 * MS);
    CU_ASSERT(W.node[A].ctr.route_probes >= 2);
    W.link[A][B].cut = 0;
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 5);
    CU_ASSERT_EQUAL(W.nbounce, 0);
    mock_check_clean();
    mock_teardown();
}

/* A node that never answers: after max_retries timeouts its packets come
 * back in order, and later sends to it come back at once. */
static void unreachable_node_returns_packets_to_sender_in_order(void)
{
    lci_rx_params_t p = params(3, 4, 32, 100 * US, 20 * US, 3, 0);
    setup(3, &p, 1);
    W.link[A][B].cut = 1;
    mock_send_at(0, A, B, 6);
    mock_send_at(0, A, C, 2);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL_FATAL(W.nbounce, 6);
    for (uint32_t i = 0; i < 6; i++) {
        CU_ASSERT_EQUAL(W.bounce[i].dst, B);
        CU_ASSERT_EQUAL(W.bounce[i].tag, i);
        CU_ASSERT_EQUAL(W.bounce[i].reason, LCI_ERR_UNREACHABLE);
    }
    /* the probe, then one more per timeout: no data ever left */
    CU_ASSERT_EQUAL(mock_count_tx(A, B, LCI_PKT_DATA), 0);
    CU_ASSERT_EQUAL(mock_count_tx(A, B, LCI_PKT_ROUTE), 1 + 3);
    CU_ASSERT_EQUAL(W.node[A].ctr.route_probes, 1 + 3 + 1); /* and C's */
    CU_ASSERT_EQUAL(W.node[C].delivered[A], 2);
    mock_send_at(W.now + MS, A, B, 1);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.nbounce, 7);
    CU_ASSERT_EQUAL(mock_count_tx(A, B, LCI_PKT_ROUTE), 1 + 3);
    mock_check_clean();
    mock_teardown();
}

/* A NACK on the wire is not VMMC-2's: dropped and counted. */
static void foreign_nack_is_dropped_as_malformed(void)
{
    lci_rx_params_t p = params(2, 8, 32, MS, 20 * US, 10, 0);
    setup(2, &p, 1);
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof h);
    h.type = LCI_PKT_NACK;
    h.hop_src = B;
    h.dst = A;
    CU_ASSERT_EQUAL(mock_inject(A, &h, 0, LCI_HW_OK), 0);
    CU_ASSERT_EQUAL(W.node[A].ctr.drops_malformed, 1);
    CU_ASSERT_EQUAL(W.ntx, 0);
    mock_teardown();
}

static const lci_unit_test_t tests[] = {
#define TEST(f) {#f, f}
    TEST(component_table_is_complete),
    TEST(first_packet_to_a_node_waits_for_its_route),
    TEST(one_way_stream_is_acknowledged_every_sixth_packet),
    TEST(low_send_buffers_ask_for_acknowledgements),
    TEST(loss_is_recovered_by_timeout_without_nacks),
    TEST(delivers_exactly_once_in_order_under_loss),
    TEST(same_seed_gives_the_same_run),
    TEST(state_holds_no_pointers_and_can_move),
    TEST(repeated_timeouts_look_the_route_up_again),
    TEST(unreachable_node_returns_packets_to_sender_in_order),
    TEST(foreign_nack_is_dropped_as_malformed),
#undef TEST
};

int main(void)
{
    return lci_unit_run("rx_vmmc2", tests, LCI_UNIT_COUNT(tests));
}
