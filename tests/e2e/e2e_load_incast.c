/*
 * e2e_load_incast.c - incast: every node but 0 sends K small packets to
 * node 0 at once, as fast as it can.  Node 0's NI receives them far faster
 * than its processor can handle them, so it runs out of receive buffers
 * and arrival-queue room; a retransmitting decomposition must drop, ask
 * again and deliver everything, RX_no must stay within its credits.
 *
 * Usage: lci-run -n N ./e2e_load_incast [-k K]
 *
 * Node 0 checks that each sender's packets arrive exactly once and in
 * order, then tells every sender it is done (so no node exits while its
 * packets are still being resent).
 */
#include "e2e_common.h"

struct incast_msg {
    uint32_t src;
    uint32_t seq;
};

struct incast_state {
    uint32_t *next; /* node 0: next sequence number expected per sender */
    long got;       /* packets received */
};

static lci_upcall_result_t on_packet(lci_rpacket_t *p, void *arg)
{
    struct incast_state *st = arg;
    struct incast_msg m;
    if (p->len != sizeof m) {
        e2e_fail("packet of %zu bytes from node %d, expected %zu", p->len,
                 p->src, sizeof m);
    }
    memcpy(&m, p->data, sizeof m);
    if (st->next != NULL) {
        if (m.src != (uint32_t)p->src || m.src == 0) {
            e2e_fail("packet names sender %u but came from node %d", m.src,
                     p->src);
        }
        if (m.seq != st->next[m.src]) {
            e2e_fail("from node %u: packet %u, expected %u (lost, "
                     "duplicated or reordered)",
                     m.src, m.seq, st->next[m.src]);
        }
        st->next[m.src]++;
    }
    st->got++;
    return LCI_UPCALL_RELEASE;
}

/* Waits for at least one packet; fails on an error. */
static void wait_packet(void)
{
    int n = lci_poll_wait();
    if (n < 0) {
        e2e_fail("lci_poll_wait returned %d (%s): %s", n,
                 lci_strerror((lci_status_t)n), lci_last_error());
    }
}

static void send_msg(int dst, uint32_t seq)
{
    struct incast_msg m = {.src = (uint32_t)lci_rank(), .seq = seq};
    lci_packet_t *pkt;
    e2e_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
    e2e_check(lci_packet_write(pkt, 0, &m, sizeof m), "lci_packet_write");
    e2e_check(lci_send(pkt, dst, sizeof m), "lci_send");
}

int main(int argc, char **argv)
{
    struct incast_state st = {0};
    e2e_init(&argc, &argv, "e2e_load_incast");
    long k = e2e_opt_long(argc, argv, "-k", 20);
    int rank = lci_rank();
    int size = lci_size();
    if (rank == 0) {
        st.next = calloc((size_t)size, sizeof *st.next);
        if (st.next == NULL) {
            e2e_fail("out of memory");
        }
    }
    lci_upcall_set(on_packet, &st);
    if (rank == 0) {
        long total = (long)(size - 1) * k;
        while (st.got < total) {
            wait_packet();
        }
        for (int r = 1; r < size; r++) {
            send_msg(r, 0);
        }
        free(st.next);
    } else {
        for (long i = 0; i < k; i++) {
            send_msg(0, (uint32_t)i);
        }
        while (st.got < 1) {
            wait_packet();
        }
    }
    e2e_check(lci_finalize(), "lci_finalize");
    return 0;
}
