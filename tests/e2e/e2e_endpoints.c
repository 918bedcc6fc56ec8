/*
 * e2e_endpoints.c - several endpoints per node, each with its own upcall:
 * every node opens E endpoints and sends K numbered packets from each of
 * them to each endpoint of its right neighbour (and endpoint 0 too).
 * Checks: each packet reaches the upcall of the endpoint it was sent to,
 * names the sending node and endpoint, arrives exactly once and in order
 * per (sending endpoint, receiving endpoint); a packet for an endpoint that
 * is not open is dropped and counted, not given to another upcall; the
 * API's errors.
 *
 * Usage: lci-run -n N ./e2e_endpoints [-e E] [-k K]
 */
#include <inttypes.h>

#include "e2e_common.h"

#define MAX_E 64

struct ep_msg {
    uint32_t seq;
    uint16_t to_ep;
    uint16_t from_ep;
};

struct ep_state {
    int id;                    /* this endpoint's number */
    uint32_t next[MAX_E + 1];  /* next seq from each sending endpoint */
    uint64_t got;
};

static struct ep_state states[MAX_E + 1];

static lci_upcall_result_t ep_upcall(lci_rpacket_t *p, void *arg)
{
    struct ep_state *st = arg;
    struct ep_msg m;
    if (p->len != sizeof m) {
        e2e_fail("packet of %zu bytes from %d", p->len, p->src);
    }
    memcpy(&m, p->data, sizeof m);
    int left = (lci_rank() + lci_size() - 1) % lci_size();
    if (p->ep != st->id || m.to_ep != st->id) {
        e2e_fail("endpoint %d's upcall got a packet for endpoint %d (%u)",
                 st->id, p->ep, m.to_ep);
    }
    if (p->src != left || p->src_ep != m.from_ep || m.from_ep > MAX_E) {
        e2e_fail("endpoint %d: packet from node %d endpoint %d, expected "
                 "node %d endpoint %u",
                 st->id, p->src, p->src_ep, left, m.from_ep);
    }
    if (m.seq != st->next[m.from_ep]) {
        e2e_fail("endpoint %d: packet %" PRIu32 " from endpoint %u, "
                 "expected %" PRIu32,
                 st->id, m.seq, m.from_ep, st->next[m.from_ep]);
    }
    st->next[m.from_ep]++;
    st->got++;
    return LCI_UPCALL_RELEASE;
}

static void send_one(lci_endpoint_t *from, int dest, int to_ep, uint32_t seq)
{
    int from_id = lci_endpoint_id(from);
    struct ep_msg m = {seq, (uint16_t)to_ep, (uint16_t)from_id};
    lci_packet_t *pkt;
    e2e_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
    e2e_write(pkt, 0, &m, sizeof m);
    if (from_id == 0 && to_ep == 0) {
        e2e_check(lci_send(pkt, dest, sizeof m), "lci_send");
    } else {
        e2e_check(lci_endpoint_send(from, pkt, dest, to_ep, sizeof m),
                  "lci_endpoint_send");
    }
}

/* Misuse gets an error code, and a handed-over packet is not lost. */
static void check_errors(lci_endpoint_t *ep)
{
    lci_endpoint_t *none;
    if (lci_endpoint_open(NULL, ep_upcall, NULL) != LCI_ERR_INVAL ||
        lci_endpoint_open(&none, NULL, NULL) != LCI_ERR_INVAL) {
        e2e_fail("lci_endpoint_open accepted a NULL argument");
    }
    lci_packet_t *pkt;
    e2e_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
    if (lci_endpoint_send(ep, pkt, 0, LCI_MAX_ENDPOINTS, 4) != LCI_ERR_INVAL) {
        e2e_fail("lci_endpoint_send accepted endpoint %d", LCI_MAX_ENDPOINTS);
    }
    e2e_check(lci_packet_alloc(&pkt), "lci_packet_alloc after an error");
    if (lci_endpoint_send(ep, pkt, lci_size(), 0, 4) != LCI_ERR_RANK) {
        e2e_fail("lci_endpoint_send accepted node %d", lci_size());
    }
    if (lci_endpoint_close(NULL) != LCI_ERR_INVAL ||
        lci_endpoint_close(lci_endpoint_default()) != LCI_ERR_INVAL) {
        e2e_fail("lci_endpoint_close accepted NULL or the default endpoint");
    }
}

int main(int argc, char **argv)
{
    e2e_init(&argc, &argv, "e2e_endpoints");
    long e = e2e_opt_long(argc, argv, "-e", 4);
    long k = e2e_opt_long(argc, argv, "-k", 50);
    if (e < 1 || e > MAX_E || k < 0 || k > 100000) {
        e2e_fail("-e %ld (1..%d) or -k %ld (0..100000) out of range", e, MAX_E,
                 k);
    }
    int n = lci_size(), me = lci_rank();
    lci_endpoint_t *eps[MAX_E + 1] = {lci_endpoint_default()};
    states[0].id = 0;
    e2e_check(lci_upcall_set(ep_upcall, &states[0]), "lci_upcall_set");
    for (int i = 1; i <= e; i++) {
        states[i].id = i;
        e2e_check(lci_endpoint_open(&eps[i], ep_upcall, &states[i]),
                  "lci_endpoint_open");
        if (lci_endpoint_id(eps[i]) != i) {
            e2e_fail("endpoint opened %d-th has number %d", i,
                     lci_endpoint_id(eps[i]));
        }
    }
    check_errors(eps[1]);
    e2e_check(lci_barrier(), "lci_barrier"); /* every endpoint is open */
    int right = (me + 1) % n;
    /* First one for an endpoint nobody opened: dropped and counted.  Sent
     * first, so that FIFO order has it taken in before the rest. */
    send_one(eps[1], right, (int)e + 1, 0);
    for (long s = 0; s < k; s++) {
        for (int from = 0; from <= e; from++) {
            for (int to = 0; to <= e; to++) {
                send_one(eps[from], right, to, (uint32_t)s);
            }
        }
    }
    uint64_t want = (uint64_t)k * (uint64_t)(e + 1), got;
    do {
        got = 0;
        for (int i = 0; i <= e; i++) {
            got += states[i].got;
        }
        if (got < want * (uint64_t)(e + 1) && lci_poll_wait() < 0) {
            e2e_fail("lci_poll_wait: %s", lci_last_error());
        }
    } while (got < want * (uint64_t)(e + 1));
    for (int i = 0; i <= e; i++) {
        if (states[i].got != want) {
            e2e_fail("endpoint %d got %" PRIu64 " packets, expected %" PRIu64,
                     i, states[i].got, want);
        }
    }
    e2e_check(lci_barrier(), "lci_barrier");
    lci_counters_t c;
    e2e_check(lci_counters_get(&c), "lci_counters_get");
    if (c.drops_endpoint != 1) {
        e2e_fail("%" PRIu64 " packets dropped for a closed endpoint, expected "
                 "1",
                 c.drops_endpoint);
    }
    for (int i = 1; i <= e; i++) {
        e2e_check(lci_endpoint_close(eps[i]), "lci_endpoint_close");
    }
    if (lci_endpoint_close(eps[1]) != LCI_ERR_INVAL) {
        e2e_fail("an endpoint closed twice");
    }
    e2e_check(lci_finalize(), "lci_finalize");
    if (me == 0) {
        printf("e2e_endpoints: %d nodes x %ld endpoints x %ld packets each "
               "way: OK\n",
               n, e, k);
    }
    return 0;
}
