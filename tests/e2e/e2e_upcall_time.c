/*
 * e2e_upcall_time.c - a packet that reaches the host ring while an upcall
 * runs is there when the upcall returns.  Node 1 sends node 0 a packet,
 * computes for 100 us, and sends another.  Node 0's upcall for the first
 * copies 64 KiB (lci_copy, charged at the host's copy bandwidth: over a
 * millisecond of simulated time), long after the second packet reached
 * node 0's ring.  The poll
 * that made the first upcall must make the second too: after an upcall
 * the host looks at its ring again, at its clock by then, and what the NI
 * put there by that time is there.  Node 0 prints
 * "upcalls in the first poll: N" and fails unless N is 2.
 *
 * Usage: lci-run -n 2 ./e2e_upcall_time
 */
#include "e2e_common.h"

#define COPY_BYTES (64u << 10)

static char copy_from[COPY_BYTES], copy_to[COPY_BYTES];

static lci_upcall_result_t take_slowly(lci_rpacket_t *p, void *arg)
{
    (void)p;
    if (++*(uint64_t *)arg == 1) {
        e2e_check(lci_copy(copy_to, copy_from, COPY_BYTES), "lci_copy");
    }
    return LCI_UPCALL_RELEASE;
}

int main(int argc, char **argv)
{
    volatile uint64_t got = 0;
    e2e_init(&argc, &argv, "e2e_upcall_time");
    if (lci_size() != 2) {
        e2e_fail("runs on 2 nodes, not %d", lci_size());
    }
    e2e_check(lci_upcall_set(take_slowly, (void *)&got), "lci_upcall_set");
    if (lci_rank() == 1) {
        for (uint32_t i = 0; i < 2; i++) {
            lci_packet_t *pkt;
            e2e_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
            e2e_write(pkt, 0, &i, sizeof i);
            e2e_check(lci_send(pkt, 0, sizeof i), "lci_send");
            if (i == 0) {
                e2e_check(lci_compute(100e-6), "lci_compute");
            }
        }
    } else {
        int first = lci_poll_wait();
        printf("upcalls in the first poll: %d\n", first);
        if (first != 2) {
            e2e_fail("the second packet reached the ring during the first "
                     "upcall, but the poll that made it made %d upcall(s)",
                     first);
        }
    }
    e2e_check(lci_barrier(), "lci_barrier");
    e2e_check(lci_finalize(), "lci_finalize");
    return 0;
}
