/*
 * e2e_deadnode.c - a node dies; the others' packets to it come back through
 * the error upcall (return-to-sender), their traffic to each other keeps
 * flowing, and nobody hangs.
 *
 * Usage: lci-run -n N --fault die=D@T ./e2e_deadnode [-k K] [--dead D]
 *        [--after-us U]
 * Node D (default N-1) dies at T; the others wait until after-us (default
 * 1000, which must be later than T), then each sends K packets to every
 * other node, the dead one included, and expects: K packets from each
 * living peer, in order, and exactly K returned packets, all addressed to
 * D, in the order they were sent.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_common.h"

struct dn_state {
    int rank, size, dead;
    long k;
    uint32_t *next_seq; /* per source */
    uint64_t received;
    uint32_t bounced;   /* returned packets, in order */
};

static lci_upcall_result_t dn_upcall(lci_rpacket_t *p, void *arg)
{
    struct dn_state *st = arg;
    uint32_t seq;
    if (p->len != sizeof seq || p->src < 0 || p->src >= st->size ||
        p->src == st->dead) {
        e2e_fail("unexpected packet from %d, %zu bytes", p->src, p->len);
    }
    memcpy(&seq, p->data, sizeof seq);
    if (seq != st->next_seq[p->src]) {
        e2e_fail("from %d: seq %" PRIu32 ", expected %" PRIu32, p->src, seq,
                 st->next_seq[p->src]);
    }
    st->next_seq[p->src]++;
    st->received++;
    return LCI_UPCALL_RELEASE;
}

static void dn_returned(const lci_rpacket_t *p, int dest, lci_status_t reason,
                        void *arg)
{
    struct dn_state *st = arg;
    uint32_t seq;
    if (dest != st->dead || reason != LCI_ERR_UNREACHABLE ||
        p->len != sizeof seq) {
        e2e_fail("returned packet to %d (reason %d, %zu bytes); expected "
                 "packets to the dead node %d",
                 dest, (int)reason, p->len, st->dead);
    }
    memcpy(&seq, p->data, sizeof seq);
    if (seq != st->bounced) {
        e2e_fail("returned packet seq %" PRIu32 ", expected %" PRIu32, seq,
                 st->bounced);
    }
    st->bounced++;
}

int main(int argc, char **argv)
{
    struct dn_state st;
    e2e_init(&argc, &argv, "e2e_deadnode");
    memset(&st, 0, sizeof st);
    st.rank = lci_rank();
    st.size = lci_size();
    st.k = e2e_opt_long(argc, argv, "-k", 20);
    st.dead = (int)e2e_opt_long(argc, argv, "--dead", st.size - 1);
    long after_us = e2e_opt_long(argc, argv, "--after-us", 1000);
    if (st.size < 2 || st.dead < 0 || st.dead >= st.size) {
        e2e_fail("needs 2 or more nodes and a dead node among them");
    }
    st.next_seq = e2e_calloc((size_t)st.size, sizeof *st.next_seq);
    e2e_check(lci_upcall_set(dn_upcall, &st), "lci_upcall_set");
    e2e_check(lci_error_upcall_set(dn_returned, &st), "lci_error_upcall_set");
    e2e_check(lci_barrier(), "lci_barrier");
    /* Past the moment of death: the dead node dies at its next LCI call. */
    e2e_check(lci_compute((double)after_us * 1e-6), "lci_compute");
    if (st.rank == st.dead) {
        lci_poll();
        e2e_fail("node %d should have died", st.rank);
    }
    for (uint32_t seq = 0; seq < (uint32_t)st.k; seq++) {
        for (int off = 1; off < st.size; off++) {
            int dst = (st.rank + off) % st.size;
            lci_packet_t *pkt;
            e2e_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
            e2e_check(lci_packet_write(pkt, 0, &seq, sizeof seq),
                      "lci_packet_write");
            e2e_check(lci_send(pkt, dst, sizeof seq), "lci_send");
        }
    }
    uint64_t expect = (uint64_t)(st.size - 2) * (uint64_t)st.k;
    while (st.received < expect || st.bounced < (uint32_t)st.k) {
        int n = lci_poll_wait();
        if (n < 0) {
            e2e_fail("lci_poll_wait: %s", lci_last_error());
        }
    }
    e2e_check(lci_finalize(), "lci_finalize");
    if (st.rank == 0 || (st.dead == 0 && st.rank == 1)) {
        printf("e2e_deadnode: %d nodes, node %d dead: %ld packets each to the "
               "living returned none, %ld to the dead returned: OK\n",
               st.size, st.dead, st.k, st.k);
    }
    free(st.next_seq);
    return 0;
}
