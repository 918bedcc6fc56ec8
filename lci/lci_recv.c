/*
 * lci_recv.c - the host receive ring: polling, upcalls, keeping and
 * releasing packets, interrupts.
 */
#include <string.h>

#include "lci_host.h"
#include "lci_policy.h"

lci_status_t lci_upcall_set(lci_upcall_func_t upcall, void *arg)
{
    LCI_CHECK_INIT();
    lci_host.upcall = upcall;
    lci_host.upcall_arg = arg;
    return LCI_OK;
}

static uint32_t slot_index(uint32_t counter)
{
    return counter % lci_seg()->cfg.nring;
}

/* Frees a ring slot; the NI learns of contiguous frees in batches. */
static void release_slot(uint32_t counter)
{
    lci_ring_slot_t *slot = lci_world_ring_slot(lci_host.rank, counter);
    /* Release: the NI may refill the slot once it sees the update. */
    __atomic_store_n(&slot->ni_full, 0, __ATOMIC_RELEASE);
    lci_host.slot_done[slot_index(counter)] = 1;
    while (lci_host.ring_released != lci_host.ring_cons &&
           lci_host.slot_done[slot_index(lci_host.ring_released)]) {
        lci_host.slot_done[slot_index(lci_host.ring_released)] = 0;
        lci_host.ring_released++;
    }
    lci_host_charge(lci_host.prof->host_release_ns);
}

static void report_ring(void)
{
    uint32_t limit = lci_host.ring_released + lci_seg()->cfg.nring;
    if (limit != lci_host.ring_reported) {
        lci_host.ring_reported = limit;
        lci_host_post_ni(LCI_EV_RING_UPDATE, limit);
    }
}

static void fa_reply(const void *payload)
{
    lci_fa_msg_t msg;
    memcpy(&msg, payload, sizeof msg);
    if (msg.token == lci_host.fa_token) {
        lci_host.fa_result = msg.value;
        lci_host.fa_done = 1;
    }
}

int lci_host_deliver(uint64_t *next_p)
{
    int n = 0;
    *next_p = LCI_TIME_INF;
    for (;;) {
        uint32_t counter = lci_host.ring_cons;
        lci_ring_slot_t *slot = lci_world_ring_slot(lci_host.rank, counter);
        /* Acquire: pairs with the NI's release of the full flag. */
        if (!__atomic_load_n(&slot->ni_full, __ATOMIC_ACQUIRE)) {
            break;
        }
        if (slot->ni_time > lci_host.hs->clock) {
            *next_p = slot->ni_time; /* arrived, but not yet at our clock */
            break;
        }
        const lci_wire_hdr_t *hdr = &slot->hdr;
        int internal = hdr->type == LCI_PKT_FA_REP ||
                       (hdr->flags & LCI_HF_INTERNAL);
        if (!internal && lci_host.upcall == NULL) {
            break; /* nobody to give it to yet */
        }
        lci_host.ring_cons++;
        lci_host_charge(lci_host.prof->host_recv_ns);
        if (hdr->type == LCI_PKT_FA_REP) {
            fa_reply(slot + 1);
            release_slot(counter);
            continue;
        }
        if (hdr->flags & LCI_HF_INTERNAL) {
            lci_host_internal(hdr, slot + 1);
            release_slot(counter);
            continue;
        }
        lci_rpacket_t *rp = &lci_host.rpackets[slot_index(counter)];
        rp->data = slot + 1;
        rp->len = hdr->len;
        rp->src = hdr->origin;
        rp->group = hdr->type == LCI_PKT_MCAST ? (int)hdr->group : -1;
        rp->lci_private = (void *)(uintptr_t)(counter + 1);
        lci_host.hs->delivered++;
        n++;
        lci_host.in_upcall = 1;
        lci_upcall_result_t r = lci_host.upcall(rp, lci_host.upcall_arg);
        lci_host.in_upcall = 0;
        if (r == LCI_UPCALL_KEEP) {
            slot->h_kept = 1;
        } else {
            rp->lci_private = NULL;
            release_slot(counter);
        }
    }
    report_ring();
    return n;
}

lci_status_t lci_release(lci_rpacket_t *packet)
{
    LCI_CHECK_INIT();
    if (packet == NULL) {
        return lci_error(LCI_ERR_INVAL, "lci_release: NULL packet");
    }
    if (packet < lci_host.rpackets ||
        packet >= lci_host.rpackets + lci_seg()->cfg.nring ||
        packet->lci_private == NULL) {
        return lci_error(LCI_ERR_STATE,
                         "lci_release: not a kept packet (released twice, "
                         "or released by returning LCI_UPCALL_RELEASE?)");
    }
    uint32_t counter = (uint32_t)(uintptr_t)packet->lci_private - 1;
    lci_ring_slot_t *slot = lci_world_ring_slot(lci_host.rank, counter);
    if (!slot->h_kept) {
        return lci_error(LCI_ERR_STATE, "lci_release: packet was not kept");
    }
    lci_host_account();
    slot->h_kept = 0;
    packet->lci_private = NULL;
    release_slot(counter);
    report_ring();
    lci_host_leave();
    return LCI_OK;
}

static int poll_body(int wait)
{
    lci_host_enter();
    lci_host_charge(lci_host.prof->host_poll_ns);
    lci_host.ni->h_last_poll = lci_host.hs->clock;
    uint64_t next;
    int n = lci_host_deliver(&next);
    int spinning = lci_host.empty_polls > 0 && !lci_host.computed_since_poll;
    while (n == 0 && (wait || spinning)) {
        /* A spinning host is fast-forwarded to its next arrival: idle
         * waiting costs no real time. */
        if (next != LCI_TIME_INF) {
            lci_host.hs->clock = next;
            lci_sched_sync(lci_host.rank);
        } else if (lci_sched_wait(lci_host.rank, wait ? LCI_HOST_WAITING
                                                      : LCI_HOST_IDLE)) {
            break; /* woken only because the whole cluster went idle */
        }
        lci_host.ni->h_last_poll = lci_host.hs->clock;
        n = lci_host_deliver(&next);
    }
    lci_host.empty_polls = n == 0 ? lci_host.empty_polls + 1 : 0;
    lci_host.computed_since_poll = 0;
    lci_host_leave();
    return n;
}

int lci_poll(void)
{
    LCI_CHECK_INIT();
    if (lci_host.in_upcall) {
        return lci_error(LCI_ERR_STATE, "lci_poll: called from an upcall");
    }
    return poll_body(0);
}

int lci_poll_wait(void)
{
    LCI_CHECK_INIT();
    if (lci_host.in_upcall) {
        return lci_error(LCI_ERR_STATE, "lci_poll_wait: called from an upcall");
    }
    if (lci_host.upcall == NULL) {
        return lci_error(LCI_ERR_STATE,
                         "lci_poll_wait: no upcall set; call "
                         "lci_upcall_set first");
    }
    return poll_body(1);
}

lci_status_t lci_host_wait_until(int (*cond)(void *arg), void *arg)
{
    uint64_t next;
    lci_host_deliver(&next);
    while (!cond(arg)) {
        if (next != LCI_TIME_INF) {
            lci_host.hs->clock = next;
            lci_sched_sync(lci_host.rank);
        } else {
            lci_sched_wait(lci_host.rank, LCI_HOST_WAITING);
        }
        lci_host.ni->h_last_poll = lci_host.hs->clock;
        lci_host_deliver(&next);
    }
    return LCI_OK;
}

static lci_status_t set_intr(int on)
{
    LCI_CHECK_INIT();
    lci_host_enter();
    lci_host_post_ni(LCI_EV_INTR_ENABLE, (uint32_t)on);
    lci_host_leave();
    return LCI_OK;
}

lci_status_t lci_intr_enable(void)
{
    return set_intr(1);
}

lci_status_t lci_intr_disable(void)
{
    return set_intr(0);
}
