/*
 * e2e_compute_ack.c - a receiver that computes while it owes its sender
 * an acknowledgement.  Node 0 sends 7 packets to node 1 and waits in a
 * barrier; node 1 takes them in and computes for 50 ms of simulated time
 * (lci_compute) before it joins.  With a window of 8, the last 3 packets
 * are acknowledged by node 1's delayed-ack timer.  Under host reliability
 * (rxh-mh) that soft timer falls due while node 1 computes: the NI's
 * clock interrupt must bring node 1 in to send the ack, or node 0's
 * retransmission timer (5 ms) goes off again and again meanwhile.  The
 * driver checks `--stats`: no retransmissions, and node 1 interrupted.
 *
 * Usage: lci-run -n 2 ./e2e_compute_ack
 */
#include "e2e_common.h"

#define PACKETS 7

static lci_upcall_result_t count(lci_rpacket_t *p, void *arg)
{
    (void)p;
    ++*(uint64_t *)arg;
    return LCI_UPCALL_RELEASE;
}

int main(int argc, char **argv)
{
    volatile uint64_t got = 0;
    e2e_init(&argc, &argv, "e2e_compute_ack");
    if (lci_size() != 2) {
        e2e_fail("runs on 2 nodes, not %d", lci_size());
    }
    e2e_check(lci_upcall_set(count, (void *)&got), "lci_upcall_set");
    if (lci_rank() == 0) {
        for (uint32_t i = 0; i < PACKETS; i++) {
            lci_packet_t *pkt;
            e2e_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
            e2e_write(pkt, 0, &i, sizeof i);
            e2e_check(lci_send(pkt, 1, sizeof i), "lci_send");
        }
    } else {
        e2e_wait_for(&got, PACKETS, "the packets");
        e2e_check(lci_compute(0.05), "lci_compute");
    }
    e2e_check(lci_barrier(), "lci_barrier");
    e2e_check(lci_finalize(), "lci_finalize");
    return 0;
}
