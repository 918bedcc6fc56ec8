/*
 * e2e_echo.c - replies sent from inside the upcall: every node sends K
 * numbered packets to its right neighbour, and each node's upcall answers
 * every request at once with an echo to the requester, while the requests
 * keep coming.  Checks that every request is echoed exactly once, in
 * order.  A node that sends from its upcall must get its send buffers back
 * even then: under host-level reliability (rxh-mh) that needs the
 * acknowledgements that arrive meanwhile.
 *
 * Usage: lci-run -n N ./e2e_echo [-k K]
 */
#include <inttypes.h>

#include "e2e_common.h"

enum { ECHO_REQUEST = 1, ECHO_REPLY = 2 };

struct echo_msg {
    uint32_t kind;
    uint32_t seq;
};

struct echo_state {
    uint32_t next_request; /* from the left neighbour */
    uint32_t next_reply;   /* from the right neighbour */
    uint64_t replies;
    uint64_t requests;
};

static void echo_send(int dest, uint32_t kind, uint32_t seq)
{
    struct echo_msg m = {kind, seq};
    lci_packet_t *pkt;

    e2e_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
    e2e_write(pkt, 0, &m, sizeof m);
    e2e_check(lci_send(pkt, dest, sizeof m), "lci_send");
}

static lci_upcall_result_t echo_upcall(lci_rpacket_t *p, void *arg)
{
    struct echo_state *st = arg;
    struct echo_msg m;

    if (p->len != sizeof m) {
        e2e_fail("packet of %zu bytes from %d", p->len, p->src);
    }
    memcpy(&m, p->data, sizeof m);
    if (m.kind == ECHO_REQUEST) {
        if (m.seq != st->next_request) {
            e2e_fail("request %" PRIu32 " from %d, expected %" PRIu32, m.seq,
                     p->src, st->next_request);
        }
        st->next_request++;
        st->requests++;
        echo_send(p->src, ECHO_REPLY, m.seq); /* from inside the upcall */
    } else if (m.kind == ECHO_REPLY) {
        if (m.seq != st->next_reply) {
            e2e_fail("reply %" PRIu32 " from %d, expected %" PRIu32, m.seq,
                     p->src, st->next_reply);
        }
        st->next_reply++;
        st->replies++;
    } else {
        e2e_fail("unknown kind %" PRIu32 " from %d", m.kind, p->src);
    }
    return LCI_UPCALL_RELEASE;
}

int main(int argc, char **argv)
{
    struct echo_state st;

    e2e_init(&argc, &argv, "e2e_echo");
    memset(&st, 0, sizeof st);
    long k = e2e_opt_long(argc, argv, "-k", 1000);
    if (k < 0 || k > 1000000) {
        e2e_fail("-k %ld out of range 0..1000000", k);
    }
    int n = lci_size(), me = lci_rank();
    e2e_check(lci_upcall_set(echo_upcall, &st), "lci_upcall_set");
    if (n > 1) {
        for (long i = 0; i < k; i++) {
            echo_send((me + 1) % n, ECHO_REQUEST, (uint32_t)i);
        }
        while (st.replies < (uint64_t)k || st.requests < (uint64_t)k) {
            int r = lci_poll_wait();
            if (r < 0) {
                e2e_fail("lci_poll_wait returned %d: %s", r, lci_last_error());
            }
        }
    }
    e2e_check(lci_barrier(), "lci_barrier");
    e2e_check(lci_finalize(), "lci_finalize");
    if (me == 0) {
        printf("e2e_echo: %d nodes x %ld requests, all echoed from upcalls: OK\n",
               n, k);
    }
    return 0;
}
