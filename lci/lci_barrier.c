/*
 * lci_barrier.c - a barrier built on LCI packets: every node reports to
 * node 0, which broadcasts the release.  Epochs alternate between two
 * counters, so reports for the next barrier may arrive early.
 */
#include <string.h>

#include "lci_host.h"

lci_status_t lci_host_broadcast_internal(lci_packet_t *packet, size_t len);

void lci_host_internal(const lci_wire_hdr_t *hdr, const void *payload)
{
    lci_internal_msg_t msg;
    if (hdr->len != sizeof msg) {
        return;
    }
    memcpy(&msg, payload, sizeof msg);
    if (msg.kind == LCI_INTERNAL_ARRIVE) {
        lci_host.barrier_arrivals[msg.epoch & 1]++;
    } else if (msg.kind == LCI_INTERNAL_RELEASE) {
        lci_host.barrier_released = msg.epoch;
    }
}

static int all_arrived(void *arg)
{
    uint32_t epoch = *(uint32_t *)arg;
    return lci_host.barrier_arrivals[epoch & 1] >= lci_host.size - 1;
}

static int released(void *arg)
{
    uint32_t epoch = *(uint32_t *)arg;
    return lci_host.barrier_released == epoch;
}

static lci_status_t send_internal(int dest, uint32_t kind, uint32_t epoch)
{
    lci_packet_t *packet;
    lci_status_t st = lci_host_packet_get(&packet, 1);
    if (st != LCI_OK) {
        return st;
    }
    lci_internal_msg_t msg = {.kind = kind, .epoch = epoch};
    lci_host_leave();
    st = lci_packet_write(packet, 0, &msg, sizeof msg);
    if (st != LCI_OK) {
        return st;
    }
    if (dest < 0) {
        return lci_host_broadcast_internal(packet, sizeof msg);
    }
    lci_host_enter();
    lci_host_submit(packet, LCI_PKT_DATA, (uint16_t)dest, sizeof msg,
                    LCI_HF_INTERNAL);
    return LCI_OK;
}

lci_status_t lci_barrier(void)
{
    LCI_CHECK_INIT();
    if (lci_host.in_upcall) {
        return lci_error(LCI_ERR_STATE, "lci_barrier: called from an upcall");
    }
    if (lci_host.size == 1) {
        return LCI_OK;
    }
    uint32_t epoch = ++lci_host.barrier_epoch;
    lci_status_t st;
    lci_host_enter();
    if (lci_host.rank == 0) {
        lci_host_wait_until(all_arrived, &epoch);
        lci_host.barrier_arrivals[epoch & 1] -= lci_host.size - 1;
        st = send_internal(-1, LCI_INTERNAL_RELEASE, epoch);
    } else {
        st = send_internal(0, LCI_INTERNAL_ARRIVE, epoch);
        if (st == LCI_OK) {
            lci_host_wait_until(released, &epoch);
        }
    }
    lci_host_leave();
    return st;
}
