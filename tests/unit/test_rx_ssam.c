/* test_rx_ssam.c - SSAM's reliability (policies/lci_rx_ssam.c) against the
 * mock environment of the rx policy tests: the reply as the request's
 * acknowledgement, an explicit ack only when the handler sent nothing
 * back, recovery by timeout without NACKs, return to sender.  Every quiet
 * run also checks the mock's invariants. */
#include "config.h"

#include <string.h>

#include "rx_gbn_mock.h"
#include "unit_run.h"


static lci_rx_params_t params(uint32_t nnodes, uint32_t window,
                              uint64_t rto, uint32_t max_retries)
{
    lci_rx_params_t p = {nnodes, 64, window, max_retries, rto, 20 * US, 0, 0, 0};
    return p;
}

static void setup(uint32_t nnodes, const lci_rx_params_t *p, uint64_t seed)
{
    mock_rx_ops = &lci_rx_ssam_component.ops;
    mock_setup(nnodes, p, 2 * US, seed);
}

static void component_table_is_complete(void)
{
    const lci_rx_component_t *c = &lci_rx_ssam_component;
    CU_ASSERT_STRING_EQUAL(c->name, "ssam");
    CU_ASSERT_EQUAL(c->abi, LCI_POLICY_ABI);
    CU_ASSERT_PTR_NOT_NULL(c->ops.handled);
    CU_ASSERT_PTR_NOT_NULL(c->ops.accept);
    CU_ASSERT_PTR_NOT_NULL(c->ops.pending);
}

/* Requests answered from their handler: the replies acknowledge them, and
 * no explicit ack goes from the server (whose window never blocks a
 * reply here: a queued reply carries nothing, and the ack goes alone). */
static void replies_acknowledge_the_requests(void)
{
    lci_rx_params_t p = params(2, 64, MS, 10);
    setup(2, &p, 1);
    W.node[B].echo = 1;
    mock_send_at(0, A, B, 20);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 20);
    CU_ASSERT_EQUAL(W.node[A].delivered[B], 20);
    CU_ASSERT_EQUAL(mock_count_tx(B, A, LCI_PKT_CREDIT), 0);
    /* the client's handler of the replies sends nothing: one ack each */
    CU_ASSERT_EQUAL(mock_count_tx(A, B, LCI_PKT_CREDIT), 20);
    CU_ASSERT_EQUAL(W.node[A].ctr.retransmissions, 0);
    mock_check_clean();
    mock_teardown();
}

/* One-way messages: each handler returns without a reply, so each packet
 * draws an explicit ack (the price of reply-as-ack on one-way traffic). */
static void one_way_packets_are_acknowledged_one_by_one(void)
{
    lci_rx_params_t p = params(2, 64, MS, 10);
    setup(2, &p, 1);
    mock_send_at(0, A, B, 30);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], 30);
    CU_ASSERT_EQUAL(mock_count_tx(B, A, LCI_PKT_CREDIT), 30);
    mock_check_clean();
    mock_teardown();
}

static uint64_t run_lossy(uint64_t seed, double loss, uint32_t n)
{
    lci_rx_params_t p = params(3, 8, 200 * US, 100000);
    setup(3, &p, seed);
    for (uint32_t s = 0; s < 3; s++) {
        for (uint32_t d = 0; d < 3; d++) {
            W.link[s][d].loss = loss;
        }
    }
    W.node[C].echo = 1;
    mock_send_at(0, A, B, n);
    mock_send_at(0, B, A, n / 2);
    mock_send_at(0, A, C, n / 4);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL(W.node[B].delivered[A], n);
    CU_ASSERT_EQUAL(W.node[A].delivered[B], n / 2);
    CU_ASSERT_EQUAL(W.node[C].delivered[A], n / 4);
    CU_ASSERT_EQUAL(W.node[A].delivered[C], n / 4);
    CU_ASSERT_EQUAL(W.nbounce, 0);
    CU_ASSERT_EQUAL(mock_count_tx(A, B, LCI_PKT_NACK) +
                        mock_count_tx(B, A, LCI_PKT_NACK),
                    0);
    if (loss > 0) {
        CU_ASSERT(W.node[A].ctr.retransmissions > 0);
    }
    mock_check_clean();
    uint64_t digest = 14695981039346656037ull;
    for (size_t i = 0; i < W.ntx; i++) {
        uint64_t v[3] = {W.txlog[i].time, W.txlog[i].seq, W.txlog[i].dropped};
        for (int k = 0; k < 3; k++) {
            digest = (digest ^ v[k]) * 1099511628211ull;
        }
    }
    mock_teardown();
    return digest;
}

static void delivers_exactly_once_in_order_under_loss(void)
{
    run_lossy(1, 0.01, 1000);
    run_lossy(2, 0.10, 400);
    run_lossy(3, 0.40, 80);
}

static void same_seed_gives_the_same_run(void)
{
    CU_ASSERT_EQUAL(run_lossy(42, 0.1, 200), run_lossy(42, 0.1, 200));
    CU_ASSERT_NOT_EQUAL(run_lossy(42, 0.1, 200), run_lossy(43, 0.1, 200));
}

static void unreachable_node_returns_packets_to_sender_in_order(void)
{
    lci_rx_params_t p = params(3, 4, 100 * US, 3);
    setup(3, &p, 1);
    W.link[A][B].cut = 1;
    mock_send_at(0, A, B, 6);
    mock_send_at(0, A, C, 2);
    mock_run(FOREVER);
    CU_ASSERT_EQUAL_FATAL(W.nbounce, 6);
    for (uint32_t i = 0; i < 6; i++) {
        CU_ASSERT_EQUAL(W.bounce[i].tag, i);
        CU_ASSERT_EQUAL(W.bounce[i].reason, LCI_ERR_UNREACHABLE);
    }
    CU_ASSERT_EQUAL(W.bounce[0].time, (1 + 2 + 4 + 8) * p.rto_ns);
    CU_ASSERT_EQUAL(W.node[C].delivered[A], 2);
    mock_check_clean();
    mock_teardown();
}

static void other_protocols_control_packets_are_dropped(void)
{
    lci_rx_params_t p = params(2, 8, MS, 10);
    setup(2, &p, 1);
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof h);
    h.hop_src = B;
    h.dst = A;
    h.type = LCI_PKT_NACK;
    CU_ASSERT_EQUAL(mock_inject(A, &h, 0, LCI_HW_OK), 0);
    h.type = LCI_PKT_ROUTE;
    CU_ASSERT_EQUAL(mock_inject(A, &h, 0, LCI_HW_OK), 0);
    CU_ASSERT_EQUAL(W.node[A].ctr.drops_malformed, 2);
    CU_ASSERT_EQUAL(W.ntx, 0);
    mock_teardown();
}

static const lci_unit_test_t tests[] = {
#define TEST(f) {#f, f}
    TEST(component_table_is_complete),
    TEST(replies_acknowledge_the_requests),
    TEST(one_way_packets_are_acknowledged_one_by_one),
    TEST(delivers_exactly_once_in_order_under_loss),
    TEST(same_seed_gives_the_same_run),
    TEST(unreachable_node_returns_packets_to_sender_in_order),
    TEST(other_protocols_control_packets_are_dropped),
#undef TEST
};

int main(void)
{
    return lci_unit_run("rx_ssam", tests, LCI_UNIT_COUNT(tests));
}
