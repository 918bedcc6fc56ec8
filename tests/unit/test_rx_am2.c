/* test_rx_am2.c - AM-II's transport (policies/lci_rx_am2.c) against the
 * mock environment of the rx policy tests: an ACK per packet, NACKs when
 * the NI has no buffer or the endpoint is not resident, endpoint faults
 * paging endpoints into a few frames (least recently used out), recovery
 * by timeout, return to sender.  Quiet runs also check the mock's
 * invariants. */
#include "config.h"

#include <string.h>

#include "rx_gbn_mock.h"
#include "unit_run.h"


static lci_rx_params_t params(uint32_t nnodes, uint32_t frames,
                              uint32_t max_retries)
{
    lci_rx_params_t p = {nnodes, 64,     8,      max_retries, 200 * US,
                         20 * US, 0, frames, 50 * US};
    return p;
}

static void setup(uint32_t nnodes, const lci_rx_params_t *p, uint64_t seed)
{
    mock_rx_ops = &lci_rx_am2_component.ops;
    mock_setup(nnodes, p, 2 * US, seed);
    W.per_packet_acks = 1;
}

static void check_clean(void)
{
    CU_ASSERT_EQUAL(W.bad_releases, 0);
    CU_ASSERT_EQUAL(mock_bufs_in_use(), 0);
    CU_ASSERT_EQUAL(W.refs_taken, W.refs_dropped);
    for (uint32_t i = 0; i < W.nnodes; i++) {
        CU_ASSERT_EQUAL(W.node[i].order_errors, 0);
        CU_ASSERT_EQUAL(W.node[i].fails, 0);
    }
}

/* A data packet from peer for endpoint ep, injected at node. */
static int inject_data(uint32_t node, uint32_t peer, uint16_t ep, uint16_t seq)
{
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof h);
    h.type = LCI_PKT_DATA;
    h.hop_src = (uint16_t)peer;
    h.origin = (uint16_t)peer;
    h.dst = (uint16_t)node;
    h.ep = ep;
    h.seq = seq;
    h.len = 8;
    return mock_inject(node, &h, 1, LCI_HW_OK);
}

static const mock_tx_t *last_tx(void)
{
    CU_ASSERT_FATAL(W.ntx > 0);
    return &W.txlog[W.ntx - 1];
}

static void component_table_is_complete(void)
{
    const lci_rx_component_t *c = &lci_rx_am2_component;
    CU_ASSERT_STRING_EQUAL(c->name, "am2");
    CU_ASSERT_EQUAL(c->abi, LCI_POLICY_ABI);
    lci_rx_params_t p = params(4, 7, 255);
    CU_ASSERT_EQUAL(c->ops.timers(&p), 4 + 7);
    CU_ASSERT_PTR_NOT_NULL(c->ops.handled);
}

/* Every packet that lands is acknowledged by itself; under loss all of
 * them arrive once, in order. */
static void every_packet_is_acknowledged_and_delivered_once(void)
{
    lci_rx_params_t p = params(3, 3, 100000);
    setup(3, &p, 7);
    W.link[A][B].loss = 0.1;
    W.link[B][A].loss = 0.1;
    mock_send_at(0, A, B, 300);
    mock_send_at(0, B, A, 100);
    mock_send_at(0, C, B, 50);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 300);
    CU_ASSERT_EQUAL(W.node[A].delivered[B], 100);
    CU_ASSERT_EQUAL(W.node[B].delivered[C], 50);
    /* one ACK per landing, a few more for duplicates */
    CU_ASSERT(mock_count_tx(B, C, LCI_PKT_CREDIT) == 50);
    CU_ASSERT(mock_count_tx(B, A, LCI_PKT_CREDIT) >= 300);
    CU_ASSERT(W.node[A].ctr.retransmissions > 0);
    CU_ASSERT_EQUAL(W.nbounce, 0);
    check_clean();
    mock_teardown();
}

/* No receive buffer: NACKed, and resent by the sender's timeout. */
static void a_starved_receiver_nacks_and_the_timeout_resends(void)
{
    lci_rx_params_t p = params(2, 2, 100000);
    setup(2, &p, 1);
    W.node[B].rx_limit = 2;
    W.node[B].rx_hold_ns = 30 * US;
    mock_send_at(0, A, B, 40);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 40);
    CU_ASSERT(mock_count_tx(B, A, LCI_PKT_NACK) > 0);
    CU_ASSERT(W.node[A].rto_fires > 0);
    check_clean();
    mock_teardown();
}

/* A packet for an endpoint that is not resident is NACKed and the
 * endpoint paged in; once in, the same packet lands. */
static void a_packet_for_a_non_resident_endpoint_faults_it_in(void)
{
    lci_rx_params_t p = params(2, 2, 10);
    setup(2, &p, 1);
    CU_ASSERT_EQUAL(inject_data(B, A, 5, 0), 0);
    CU_ASSERT_EQUAL(last_tx()->type, LCI_PKT_NACK);
    CU_ASSERT_EQUAL(W.node[B].ctr.ep_faults, 1);
    /* the page-in is a timer of its own, fault_ns from now */
    CU_ASSERT(W.node[B].timer_armed[2 + 1]);
    CU_ASSERT_EQUAL(W.node[B].timer_at[2 + 1], W.now + p.fault_ns);
    /* a second packet meanwhile: NACKed, no second fault */
    CU_ASSERT_EQUAL(inject_data(B, A, 5, 0), 0);
    CU_ASSERT_EQUAL(W.node[B].ctr.ep_faults, 1);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(inject_data(B, A, 5, 0), 1);
    CU_ASSERT_EQUAL(last_tx()->type, LCI_PKT_CREDIT);
    /* endpoint 0 was resident all along */
    CU_ASSERT_EQUAL(inject_data(B, A, 0, 0), 1);
    CU_ASSERT_EQUAL(W.node[B].ctr.ep_faults, 1);
    mock_teardown();
}

/* Two frames, endpoint 0 pinned in one: a second endpoint pages the first
 * out, and the first faults again when it is used again. */
static void the_least_recently_used_endpoint_is_paged_out(void)
{
    lci_rx_params_t p = params(2, 2, 10);
    setup(2, &p, 1);
    inject_data(B, A, 5, 0);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(inject_data(B, A, 5, 0), 1);
    inject_data(B, A, 6, 0);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(inject_data(B, A, 6, 0), 1);
    CU_ASSERT_EQUAL(W.node[B].ctr.ep_faults, 2);
    CU_ASSERT_EQUAL(inject_data(B, A, 5, 1), 0); /* paged out: NACK */
    CU_ASSERT_EQUAL(W.node[B].ctr.ep_faults, 3);
    CU_ASSERT_EQUAL(inject_data(B, A, 0, 0), 1);
    mock_teardown();
}

/* Sequence numbers are per channel (peer, endpoint): a duplicate on one
 * channel is ACKed again and not delivered; the other channel is not
 * disturbed. */
static void channels_are_sequenced_independently(void)
{
    lci_rx_params_t p = params(2, 3, 10);
    setup(2, &p, 1);
    inject_data(B, A, 5, 0);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(inject_data(B, A, 5, 0), 1);
    CU_ASSERT_EQUAL(inject_data(B, A, 0, 0), 1);
    CU_ASSERT_EQUAL(inject_data(B, A, 0, 1), 1);
    CU_ASSERT_EQUAL(inject_data(B, A, 5, 0), 0); /* duplicate */
    CU_ASSERT_EQUAL(last_tx()->type, LCI_PKT_CREDIT);
    CU_ASSERT_EQUAL(inject_data(B, A, 5, 2), 0); /* after a gap */
    CU_ASSERT_EQUAL(last_tx()->type, LCI_PKT_NACK);
    CU_ASSERT_EQUAL(inject_data(B, A, 5, 1), 1);
    mock_teardown();
}

/* A node that never answers: after max_retries timeouts without an ACK
 * or NACK the packets return to their sender, in order. */
static void unreachable_node_returns_packets_to_sender_in_order(void)
{
    lci_rx_params_t p = params(3, 3, 3);
    setup(3, &p, 1);
    W.link[A][B].cut = 1;
    mock_send_at(0, A, B, 5);
    mock_send_at(0, A, C, 2);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL_FATAL(W.nbounce, 5);
    for (uint32_t i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(W.bounce[i].tag, i);
        CU_ASSERT_EQUAL(W.bounce[i].reason, LCI_ERR_UNREACHABLE);
    }
    CU_ASSERT_EQUAL(W.node[C].delivered[A], 2);
    check_clean();
    mock_teardown();
}

static const lci_unit_test_t tests[] = {
#define TEST(f) {#f, f}
    TEST(component_table_is_complete),
    TEST(every_packet_is_acknowledged_and_delivered_once),
    TEST(a_starved_receiver_nacks_and_the_timeout_resends),
    TEST(a_packet_for_a_non_resident_endpoint_faults_it_in),
    TEST(the_least_recently_used_endpoint_is_paged_out),
    TEST(channels_are_sequenced_independently),
    TEST(unreachable_node_returns_packets_to_sender_in_order),
#undef TEST
};

int main(void)
{
    return lci_unit_run("rx_am2", tests, LCI_UNIT_COUNT(tests));
}
