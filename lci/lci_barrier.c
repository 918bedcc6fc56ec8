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
        lci_host->barrier_arrivals[msg.epoch & 1]++;
    } else if (msg.kind == LCI_INTERNAL_RELEASE) {
        lci_host->barrier_released = msg.epoch;
    }
}

/* Nodes a packet could not reach (return-to-sender) take no part. */
static uint32_t coordinator(void)
{
    uint32_t r = 0;
    while (r < lci_host->size && lci_host->unreachable[r]) {
        r++;
    }
    return r;
}

static uint32_t live_others(void)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < lci_host->size; r++) {
        n += r != lci_host->rank && !lci_host->unreachable[r];
    }
    return n;
}

static int all_arrived(void *arg)
{
    uint32_t epoch = *(uint32_t *)arg;
    return lci_host->barrier_arrivals[epoch & 1] >= live_others();
}

static int released_or_moved(void *arg)
{
    uint32_t *w = arg; /* epoch, coordinator we reported to */
    return lci_host->barrier_released == w[0] || coordinator() != w[1];
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
    if (lci_host->in_upcall) {
        return lci_error(LCI_ERR_STATE, "lci_barrier: called from an upcall");
    }
    if (lci_host->size == 1) {
        return LCI_OK;
    }
    uint32_t epoch = ++lci_host->barrier_epoch;
    lci_status_t st = LCI_OK;
    lci_host_enter();
    for (;;) {
        uint32_t coord = coordinator();
        if (lci_host->rank == coord) {
            lci_host_wait_until(all_arrived, &epoch);
            lci_host->barrier_arrivals[epoch & 1] -= live_others();
            if (live_others() == lci_host->size - 1) {
                st = send_internal(-1, LCI_INTERNAL_RELEASE, epoch);
            } else {
                /* Around the unreachable nodes: one release each. */
                for (uint32_t r = 0; r < lci_host->size && st == LCI_OK; r++) {
                    if (r != lci_host->rank && !lci_host->unreachable[r]) {
                        st = send_internal((int)r, LCI_INTERNAL_RELEASE, epoch);
                    }
                }
            }
            break;
        }
        st = send_internal((int)coord, LCI_INTERNAL_ARRIVE, epoch);
        if (st != LCI_OK) {
            break;
        }
        uint32_t wait[2] = {epoch, coord};
        lci_host_wait_until(released_or_moved, wait);
        if (lci_host->barrier_released == epoch) {
            break;
        }
        /* The coordinator turned out unreachable: report to the next. */
    }
    lci_host_leave();
    return st;
}
