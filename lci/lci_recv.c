/*
 * lci_recv.c - the host receive ring: polling, upcalls, keeping and
 * releasing packets, interrupts.
 */
#include <string.h>

#include "lci_decomp.h"
#include "lci_host.h"
#include "lci_place.h"
#include "lci_policy.h"
#include "lci_reorder.h"
#include "lci_rx_window.h"

lci_status_t lci_upcall_set(lci_upcall_func_t upcall, void *arg)
{
    LCI_CHECK_INIT();
    lci_host->upcall = upcall;
    lci_host->upcall_arg = arg;
    return LCI_OK;
}

lci_status_t lci_error_upcall_set(lci_error_upcall_func_t upcall, void *arg)
{
    LCI_CHECK_INIT();
    lci_host->error_upcall = upcall;
    lci_host->error_upcall_arg = arg;
    return LCI_OK;
}

/* A packet the decomposition gave up on comes back to the client; returns
 * 1 if the client's error upcall ran. */
int lci_host_returned(const lci_wire_hdr_t *hdr, const void *data)
{
    lci_status_t reason = -(lci_status_t)hdr->aux;
    if (hdr->dst < lci_host->size) {
        lci_host->unreachable[hdr->dst] = 1;
    }
    if (hdr->flags & LCI_HF_INTERNAL) {
        return 0; /* the library's own packet: the barrier works around it */
    }
    if (lci_host->error_upcall == NULL) {
        lci_sched_fail((int)lci_host->rank, reason,
                       "%s: a packet to node %u could not be delivered (%s) "
                       "and no error upcall is set (lci_error_upcall_set)",
                       lci_decomp_active->name, hdr->dst,
                       lci_strerror(reason));
    }
    lci_rpacket_t rp = {.data = data, .len = hdr->len, .src = (int)lci_host->rank,
                        .group = -1};
    lci_host->in_upcall = 1;
    lci_host->upcalls++;
    lci_host->error_upcall(&rp, hdr->dst, reason, lci_host->error_upcall_arg);
    lci_host->in_upcall = 0;
    return 1;
}

/* Returns a host receive buffer to the pool; the NI learns of freed
 * buffers in batches (report_ring). */
static void release_hbuf(uint32_t hbuf)
{
    uint32_t node = lci_host->rank;
    lci_hbuf_stack_t *stack = lci_world_hbuf_stack(node);
    lci_world_hbuf_stack_slots(node)[stack->h_count++] = hbuf;
    lci_host->hbuf_released++;
    lci_host_charge("release", lci_host->prof->host_release_ns);
}

static void report_ring(void)
{
    uint32_t limit = lci_host->hbuf_released + lci_seg()->cfg.nring;
    if (limit != lci_host->ring_reported) {
        lci_host->ring_reported = limit;
        lci_host_post_ni(LCI_EV_RING_UPDATE, limit);
    }
}

static void fa_reply(const void *payload)
{
    lci_fa_msg_t msg;
    memcpy(&msg, payload, sizeof msg);
    if (msg.token == lci_host->fa_token) {
        lci_host->fa_result = msg.value;
        lci_host->fa_done = 1;
    }
}

static int deliver(uint64_t *next_p);

int lci_host_deliver(uint64_t *next_p)
{
    if (lci_host->delivering) {
        *next_p = LCI_TIME_INF;
        return 0; /* packets are taken in order, by the outer call */
    }
    lci_host->delivering = 1;
    int n = deliver(next_p);
    lci_host->delivering = 0;
    return n;
}

/* What the library consumes itself needs no client upcall. */
static int needs_no_upcall(const lci_wire_hdr_t *hdr)
{
    return hdr->type == LCI_PKT_FA_REP || hdr->type == LCI_PKT_FA_REQ ||
           hdr->type == LCI_PKT_RETURNED || lci_pkt_is_control(hdr->type) ||
           (hdr->flags & LCI_HF_INTERNAL);
}

/* Whether hdr must stay where it is until an upcall is set: it is for
 * the client's default endpoint, which has none yet. */
static int waits_for_upcall(const lci_wire_hdr_t *hdr)
{
    void *upcall_arg = NULL;
    return !needs_no_upcall(hdr) &&
           lci_host_endpoint_upcall(hdr->ep, &upcall_arg) == NULL &&
           hdr->ep == 0;
}

/* Everything the library does with a packet taken from the ring, in its
 * sender's order: F&A requests and replies, returned packets, its own
 * internal packets, multicast forwarding by the host and the upcall of
 * the endpoint it is for.  Returns the upcalls it made. */
static int process(lci_wire_hdr_t hdr, uint32_t hbuf, const char *data)
{
    int n = 0;
    void *upcall_arg = NULL;
    lci_upcall_func_t upcall = lci_host_endpoint_upcall(hdr.ep, &upcall_arg);
    if (hdr.type == LCI_PKT_FA_REQ) {
        lci_host_serve_fa(&hdr, data);
        release_hbuf(hbuf);
        lci_host_rx_handled(&hdr);
        return n;
    }
    if (!lci_mcast_once_take(&hdr)) {
        release_hbuf(hbuf); /* rxh-mni: a copy already taken, or early */
        lci_host_rx_handled(&hdr);
        return n;
    }
    /* The host forwards multicast (M_h), and with reliability on the host
     * it forwards the reliable copies even when the NI sends early ones. */
    if (hdr.type == LCI_PKT_MCAST &&
        (lci_decomp_active->mc_place == LCI_PLACE_HOST ||
         lci_decomp_active->rx_place == LCI_PLACE_HOST)) {
        lci_host_forward(&hdr, data); /* re-inject before the upcall */
    }
    if (hdr.type == LCI_PKT_FA_REP) {
        fa_reply(data);
        release_hbuf(hbuf);
        lci_host_rx_handled(&hdr);
        return n;
    }
    if (hdr.type == LCI_PKT_RETURNED) {
        n += lci_host_returned(&hdr, data);
        release_hbuf(hbuf);
        return n;
    }
    if (hdr.flags & LCI_HF_INTERNAL) {
        lci_host_internal(&hdr, data);
        release_hbuf(hbuf);
        lci_host_rx_handled(&hdr);
        return n;
    }
    if (upcall == NULL) {
        /* For an endpoint that is not open: dropped, and counted. */
        lci_host->ni->counters.drops_endpoint++;
        release_hbuf(hbuf);
        lci_host_rx_handled(&hdr);
        return n;
    }
    lci_rpacket_t *rp = &lci_host->rpackets[hbuf];
    rp->data = data;
    rp->len = hdr.len;
    rp->src = hdr.origin;
    rp->group = hdr.type == LCI_PKT_MCAST ? (int)hdr.group : -1;
    rp->lci_private = NULL;
    rp->ep = hdr.ep;
    rp->src_ep = hdr.src_ep;
    lci_host->hs->delivered++;
    lci_host->upcalls++;
    n++;
    lci_host->in_upcall = 1;
    lci_host_upcall_begin();
    lci_upcall_result_t r = upcall(rp, upcall_arg);
    lci_host_upcall_end();
    lci_host->in_upcall = 0;
    if (r == LCI_UPCALL_KEEP) {
        lci_host->hbuf_kept[hbuf] = 1;
    } else {
        release_hbuf(hbuf);
    }
    lci_host_rx_handled(&hdr);
    return n;
}

/* ---- FIFO order behind an unordered rx (LCI_RX_UNORDERED) -------------- */

lci_status_t lci_host_reorder_init(const lci_config_t *cfg)
{
    if (!(lci_decomp_active->rx->flags & LCI_RX_UNORDERED)) {
        return LCI_OK;
    }
    lci_rx_params_t p;
    lci_rx_params_from_config(cfg, lci_host->prof, &p);
    uint32_t window = lci_rx_window_of(&p);
    /* Early packets keep their host buffers; the NI needs one more free
     * for the packet they wait for, or none of them ever goes on. */
    uint64_t most = (uint64_t)cfg->nnodes * (window - 1);
    if (most >= cfg->nring) {
        return lci_error(LCI_ERR_CONFIG,
                         "lci_init: %s delivers out of order and the host "
                         "may keep up to %u packets from each of %u nodes "
                         "(%llu) while it puts them back in order, which "
                         "the %u ring slots cannot hold; raise --ring or "
                         "lower --window",
                         lci_decomp_active->name, window - 1, cfg->nnodes,
                         (unsigned long long)most, cfg->nring);
    }
    lci_host->reorder = lci_reorder_new(cfg->nnodes, window);
    if (lci_host->reorder == NULL) {
        return lci_error(LCI_ERR_NOMEM, "lci_init: out of memory");
    }
    return LCI_OK;
}

/* A packet whose turn came: processed, unless it came up only for its
 * place in the order (the NI served or dropped it). */
static int process_in_turn(lci_wire_hdr_t hdr, uint32_t hbuf,
                           const char *data)
{
    if (hdr.flags & LCI_HF_SEQ_ONLY) {
        release_hbuf(hbuf);
        return 0;
    }
    return process(hdr, hbuf, data);
}

/* The waiting packets from neighbour hop whose turn has come, in order.
 * One for the default endpoint while it has no upcall waits for one
 * (deliver() comes back to it). */
static int release_waiting(uint32_t hop)
{
    int n = 0;
    lci_wire_hdr_t hdr;
    uint32_t hbuf;
    while (lci_reorder_next(lci_host->reorder, hop, &hdr, &hbuf)) {
        if (!(hdr.flags & LCI_HF_SEQ_ONLY) && waits_for_upcall(&hdr)) {
            lci_host->reorder_stalled = 1;
            break;
        }
        lci_reorder_take(lci_host->reorder, hop);
        n += process_in_turn(hdr, hbuf, lci_world_hbuf(lci_host->rank, hbuf));
    }
    return n;
}

/* A packet from the ring, behind an unordered rx: one that came early
 * waits, with its buffer; the next from its neighbour is processed, and
 * then every waiting one whose turn came. */
static int deliver_in_turn(const lci_wire_hdr_t *hdr, uint32_t hbuf,
                           const char *data)
{
    switch (lci_reorder_arrive(lci_host->reorder, hdr, hbuf)) {
    case LCI_REORDER_HELD:
        return 0;
    case LCI_REORDER_DROP:
        release_hbuf(hbuf);
        return 0;
    case LCI_REORDER_PASS:
        return process(*hdr, hbuf, data);
    case LCI_REORDER_NEXT:
        break;
    }
    int n = process_in_turn(*hdr, hbuf, data);
    return n + release_waiting(hdr->hop_src);
}

/* Waiting packets held up for want of an upcall, once there is one. */
static int release_stalled(void)
{
    int n = 0;
    lci_host->reorder_stalled = 0;
    for (uint32_t hop = 0; hop < lci_host->size; hop++) {
        n += release_waiting(hop);
    }
    return n;
}

static int deliver(uint64_t *next_p)
{
    int n = 0;
    uint32_t node = lci_host->rank;
    *next_p = LCI_TIME_INF;
    if (lci_host->forwarding) {
        return 0; /* forwarding waits for a buffer: deliveries stay in order */
    }
    if (lci_host->reorder_stalled) {
        n += release_stalled();
    }
    uint64_t synced = lci_host->hs->clock; /* callers entered the library */
    for (;;) {
        lci_ring_slot_t *slot = lci_world_ring_slot(node, lci_host->ring_cons);
        /* Acquire: pairs with the NI's release of the full flag. */
        int full = __atomic_load_n(&slot->ni_full, __ATOMIC_ACQUIRE);
        if (!full || slot->ni_time > lci_host->hs->clock) {
            if (lci_host->hs->clock != synced) {
                /* The upcalls took time: what reached the ring by the
                 * host's clock now is there only once the events up to
                 * it have run (and lagging hosts have caught up). */
                lci_platform->sync(node);
                synced = lci_host->hs->clock;
                continue;
            }
            if (full) {
                *next_p = slot->ni_time; /* arrived, not yet at our clock */
            }
            break;
        }
        uint8_t *ahead = &lci_host->slot_taken[lci_ring_pos(
            lci_host->ring_cons, lci_seg()->cfg.nring)];
        lci_wire_hdr_t hdr = slot->hdr;
        if (waits_for_upcall(&hdr)) {
            break; /* nobody to give it to yet */
        }
        uint32_t hbuf = slot->ni_hbuf;
        const char *data = lci_world_hbuf(node, hbuf);
        /* The descriptor is read: recycle it at once. */
        __atomic_store_n(&slot->ni_full, 0, __ATOMIC_RELAXED);
        lci_host->ring_cons++;
        uint8_t done = *ahead; /* taken in ahead (lci_host_take_ahead)? */
        *ahead = LCI_SLOT_UNSEEN;
        if (done == LCI_SLOT_CONSUMED) {
            release_hbuf(hbuf);
            continue;
        }
        if (done != LCI_SLOT_ACCEPTED) {
            lci_host_charge("recv", lci_host->prof->host_recv_ns);
            if (!lci_host_rx_accept(&hdr, hbuf)) {
                release_hbuf(hbuf); /* an acknowledgement, or out of order */
                continue;
            }
        }
        if (lci_host->reorder != NULL) {
            n += deliver_in_turn(&hdr, hbuf, data);
        } else {
            n += process(hdr, hbuf, data);
        }
    }
    if (lci_host_forward_pending()) {
        lci_host_forward_drain(); /* acknowledgements may have freed buffers */
    }
    report_ring();
    return n;
}

/* Inside an upcall the ring cannot be delivered in order, yet the host's
 * reliability protocol must go on: without the acknowledgements that
 * arrive, a node that sends from its upcall waits for send buffers
 * forever, and without taking in (and acknowledging) the data that
 * arrives, its peers wait for it.  So the protocol sees every arrived
 * packet now, in ring order, and the client gets the accepted ones later,
 * still in ring order.  Slots stay full until the ring reaches them, which
 * keeps the NI from refilling a slot the host has not read. */
void lci_host_take_ahead(uint64_t *next_p)
{
    *next_p = LCI_TIME_INF;
    if (lci_decomp_active->rx_place != LCI_PLACE_HOST || lci_host->taking_ahead) {
        return; /* reliability is the NI's, or this is a nested call */
    }
    lci_host->taking_ahead = 1;
    uint32_t node = lci_host->rank, nring = lci_seg()->cfg.nring;
    for (uint32_t i = 0; i < nring; i++) {
        uint32_t idx = lci_host->ring_cons + i;
        lci_ring_slot_t *slot = lci_world_ring_slot(node, idx);
        if (!__atomic_load_n(&slot->ni_full, __ATOMIC_ACQUIRE)) {
            break;
        }
        if (slot->ni_time > lci_host->hs->clock) {
            *next_p = slot->ni_time;
            break;
        }
        uint8_t *ahead = &lci_host->slot_taken[lci_ring_pos(idx, nring)];
        if (*ahead != LCI_SLOT_UNSEEN) {
            continue;
        }
        lci_wire_hdr_t hdr = slot->hdr;
        lci_host_charge("recv", lci_host->prof->host_recv_ns);
        *ahead = lci_host_rx_accept(&hdr, slot->ni_hbuf) ? LCI_SLOT_ACCEPTED
                                                          : LCI_SLOT_CONSUMED;
    }
    lci_host->taking_ahead = 0;
}

lci_status_t lci_release(lci_rpacket_t *packet)
{
    LCI_CHECK_INIT();
    if (packet == NULL) {
        return lci_error(LCI_ERR_INVAL, "lci_release: NULL packet");
    }
    uint32_t nring = lci_seg()->cfg.nring;
    if (packet < lci_host->rpackets || packet >= lci_host->rpackets + nring) {
        return lci_error(LCI_ERR_INVAL,
                         "lci_release: not a packet LCI delivered");
    }
    uint32_t hbuf = (uint32_t)(packet - lci_host->rpackets);
    if (!lci_host->hbuf_kept[hbuf]) {
        return lci_error(LCI_ERR_STATE,
                         "lci_release: not a kept packet (released twice, "
                         "or released by returning LCI_UPCALL_RELEASE?)");
    }
    lci_host_account();
    lci_host->computed_since_poll = 1; /* a releasing host is not idle */
    lci_host->hbuf_kept[hbuf] = 0;
    release_hbuf(hbuf);
    report_ring();
    lci_host_leave();
    return LCI_OK;
}

int lci_host_idle_step(uint64_t next, lci_host_status_t how)
{
    uint64_t now = lci_host->hs->clock;
    uint64_t tn = lci_host_timers_next();
    int woken_idle = 0;
    if (tn <= now) {
        /* a soft timer is due: handle it first */
    } else if (next != LCI_TIME_INF) {
        /* Nothing can arrive before the next packet already in the ring,
         * so the host spins until it or a timer, whichever is first. */
        lci_host->hs->clock = next < tn ? next : tn;
        lci_platform->sync(lci_host->rank);
    } else {
        uint64_t d = (uint64_t)lci_host->prof->host_doorbell_ns;
        uint64_t at = tn > now + d ? tn : now + d;
        /* The NI's clock interrupt backs up the soft timers of a host that
         * waits: it wakes the host when the timer is due.  One wake-up
         * still to come, no later than this one, does it already: a host
         * that waits again and again (each poll of a spinning live host)
         * must not pile up one event per wait.  But one due within the
         * lookahead of our clock may have run while we were running
         * (without waking us), so it counts only beyond that. */
        uint64_t pending_from = now + lci_seg()->lookahead_ns;
        if (tn != LCI_TIME_INF &&
            !(lci_host->wake_posted > pending_from &&
              lci_host->wake_posted <= at)) {
            lci_host->wake_posted = at;
            lci_platform->post(at, LCI_EV_HOST_WAKE, lci_host->rank, 0, 0);
        }
        woken_idle = lci_platform->wait(lci_host->rank, how);
    }
    lci_host_timers_run();
    return woken_idle;
}

/* See idle_grace: a test call and the wait it makes, with room to spare;
 * a program that only spins still sleeps again soon, and a deadlock is
 * reported as before. */
#define LCI_IDLE_GRACE_POLLS 16

static int poll_body(int wait)
{
    /* Counted as upcalls made, whatever made them: deliveries, an
     * interrupt, or a packet returned when a soft timer gave up. */
    uint64_t before = lci_host->upcalls;
    lci_host_enter();
    lci_host_charge("poll", lci_host->prof->host_poll_ns);
    lci_host->ni->h_last_poll = lci_host->hs->clock;
    uint64_t next;
    lci_host_deliver(&next);
    int n = (int)(lci_host->upcalls - before);
    if (n > 0 || lci_host->computed_since_poll) {
        lci_host->idle_grace = 0;
    }
    int spinning = lci_host->empty_polls > 0 &&
                   !lci_host->computed_since_poll && lci_host->idle_grace == 0;
    if (n == 0 && lci_host->idle_grace > 0) {
        lci_host->idle_grace--;
    }
    while (n == 0 && (wait || spinning)) {
        /* A spinning host is fast-forwarded to its next arrival: idle
         * waiting costs no real time. */
        if (lci_host_idle_step(next, wait ? LCI_HOST_WAITING
                                          : LCI_HOST_IDLE)) {
            /* Woken only because the whole cluster went idle. */
            lci_host->idle_grace = LCI_IDLE_GRACE_POLLS;
            break;
        }
        lci_host->ni->h_last_poll = lci_host->hs->clock;
        lci_host_deliver(&next);
        n = (int)(lci_host->upcalls - before);
    }
    lci_host->empty_polls = n == 0 ? lci_host->empty_polls + 1 : 0;
    lci_host->computed_since_poll = 0;
    lci_host_leave();
    return n;
}

int lci_poll(void)
{
    LCI_CHECK_INIT();
    if (lci_host->in_upcall) {
        return lci_error(LCI_ERR_STATE, "lci_poll: called from an upcall");
    }
    return poll_body(0);
}

int lci_poll_wait(void)
{
    LCI_CHECK_INIT();
    if (lci_host->in_upcall) {
        return lci_error(LCI_ERR_STATE, "lci_poll_wait: called from an upcall");
    }
    if (lci_host->upcall == NULL) {
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
        lci_host_idle_step(next, LCI_HOST_WAITING);
        lci_host->ni->h_last_poll = lci_host->hs->clock;
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
