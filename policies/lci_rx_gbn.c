/*
 * lci_rx_gbn.c - go-back-N reliability between neighbours: RX_ni when the
 * NI firmware runs it, RX_h when the host library does (paper sections
 * 3.2-3.3).  The same code in both places; it talks only to lci_env_t.
 *
 * Sender, per peer: 16-bit wrap-safe sequence numbers, a window of W
 * packets, a blocked-sends queue behind a closed window, the packets kept
 * (the reference send() passed in) until acknowledged, one retransmission
 * timer.  On a timeout every unacknowledged packet goes again (go-back-N)
 * and the next timeout is twice as long (up to 8 times the first);
 * after max_retries timeouts without progress they and the queued packets
 * return to sender (AM-II) and the peer is marked down.  The packet that
 * fills the window asks for an acknowledgement (VMMC-2).
 *
 * Receiver, per peer: only the next expected packet is accepted.  Acks are
 * cumulative and ride on every packet to the peer; an explicit ack goes
 * after W/2 arrivals, at once on an ack request or a duplicate, or when
 * the per-sender delayed-ack timer expires.  A data packet the NI had no
 * buffer for is dropped and a NACK is owed, sent when a buffer frees up so
 * the sender need not wait for its timeout.  The first packet beyond a gap
 * (one before it was lost or damaged) draws a NACK at once, one per gap:
 * the sender goes back without waiting for its timeout either.
 *
 * State layout (state_size() bytes, no pointers, so it may live in a
 * segment mapped at different addresses):
 *
 *   gbn_state_t            params, slot free list
 *   gbn_peer_t[nnodes]     per-peer sender and receiver state
 *   gbn_slot_t[nslots]     one per queued or held packet, linked by index
 *
 * A buffer may be queued or held for two peers at once (a multicast packet
 * forwarded to both children of a binary tree), so there are
 * LCI_BUF_MAX_SENDS slots per buffer: the slots never run out before the
 * buffers do, and a slow child never stops the run.
 *
 * Timers: id p (0 <= p < nnodes) is peer p's retransmission timer, id
 * nnodes + p its delayed-ack timer.
 */
#include <stddef.h>
#include <string.h>

#include "lci_policy.h"
#include "lci_rx_window.h"
#include "lci_seq.h"

typedef lci_slot_t gbn_slot_t;

typedef struct {
    lci_rx_sender_t tx;
    lci_rx_receiver_t rx;
    uint8_t nack_owed;  /* dropped a packet for lack of a buffer */
    uint8_t gap_nacked; /* the gap before expected is NACKed (or owed) */
} gbn_peer_t;
_Static_assert(offsetof(gbn_peer_t, tx) == 0,
               "lci_rx_pending needs the sender first");

typedef struct {
    lci_rx_params_t p;
    uint32_t window;    /* p.window clamped to 1..LCI_RX_WINDOW_MAX */
    uint32_t half;      /* arrivals that force an explicit ack */
    uint32_t free_head; /* free slots, linked by next */
    uint32_t nslots;
    uint32_t nacks_owed; /* peers with nack_owed set */
} gbn_state_t;

static gbn_peer_t *peer_at(gbn_state_t *st, uint32_t i)
{
    return (gbn_peer_t *)lci_rx_peers(st, sizeof(*st)) + i;
}

static gbn_slot_t *slots_of(gbn_state_t *st)
{
    return lci_rx_slots(st, sizeof(*st), st->p.nnodes, sizeof(gbn_peer_t));
}

/* ---- timers ---------------------------------------------------------- */

static void rto_restart(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_rto_start(env, pi, &peer_at(st, pi)->tx, st->p.rto_ns);
}

static void rto_stop(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_rto_stop(env, pi, &peer_at(st, pi)->tx);
}

/* ---- acknowledgements going out --------------------------------------- */

/* Fills the fields every packet to peer pi carries: the cumulative ack
 * and the hop source. */
static void stamp(gbn_state_t *st, lci_env_t *env, uint32_t pi,
                  lci_wire_hdr_t *h)
{
    lci_rx_stamp(env, &peer_at(st, pi)->rx, st->p.nnodes + pi, h);
}

/* Sends a header-only, unsequenced control packet (ack or NACK) to pi. */
static void send_control(gbn_state_t *st, lci_env_t *env, uint32_t pi,
                         uint8_t type)
{
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.type = type;
    h.dst = (uint16_t)pi;
    h.origin = (uint16_t)env->node;
    stamp(st, env, pi, &h);
    env->ops->transmit(env, LCI_BUF_NONE, &h);
    if (type == LCI_PKT_NACK) {
        env->ops->counters(env)->pkts_sent_nack++;
    } else {
        env->ops->counters(env)->pkts_sent_ack++;
    }
}

/* A data packet from pi arrived (in order or not): ack now or later. */
static void note_arrival(gbn_state_t *st, lci_env_t *env, uint32_t pi,
                         int ackreq)
{
    lci_rx_receiver_t *rx = &peer_at(st, pi)->rx;
    if (rx->unacked < UINT16_MAX) {
        rx->unacked++;
    }
    if (ackreq || rx->unacked >= st->half) {
        send_control(st, env, pi, LCI_PKT_CREDIT);
    } else if (!rx->ack_on) {
        env->ops->timer_start(env, st->p.nnodes + pi,
                              env->ops->now(env) + st->p.ack_delay_ns);
        rx->ack_on = 1;
    }
}

/* ---- sender side ------------------------------------------------------ */

/* First transmission of slot s to pi.  The packet that fills the window
 * asks for an ack at once, so the window reopens without waiting for the
 * receiver's ack timer. */
static void transmit_new(gbn_state_t *st, lci_env_t *env, uint32_t pi,
                         uint32_t s)
{
    gbn_peer_t *pr = peer_at(st, pi);
    lci_rx_transmit_new(env, slots_of(st), s, &pr->tx, &pr->rx,
                        st->p.nnodes + pi, pr->tx.out.count + 1 >= st->window,
                        pi, st->p.rto_ns);
}

/* Go-back-N: every unacknowledged packet to pi again, oldest first. */
static void go_back(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    gbn_peer_t *pr = peer_at(st, pi);
    lci_rx_resend_all(env, slots_of(st), &pr->tx, &pr->rx, st->p.nnodes + pi);
    if (pr->tx.out.count > 0) {
        rto_restart(st, env, pi);
    }
}

/* Sends queued packets while the window to pi has room, in order. */
static void drain_blocked(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_sender_t *tx = &peer_at(st, pi)->tx;
    while (tx->blocked.count > 0 && tx->out.count < st->window) {
        transmit_new(st, env, pi, lci_slotq_pop(slots_of(st), &tx->blocked));
    }
}

/* A cumulative ack from pi: everything up to and including ack arrived.
 * Old (duplicate) acks and nonsense beyond next_seq change nothing. */
static void on_ack(gbn_state_t *st, lci_env_t *env, uint32_t pi, lci_seq_t ack)
{
    lci_rx_sender_t *tx = &peer_at(st, pi)->tx;
    if (lci_rx_take_acked(env, slots_of(st), &st->free_head, tx, ack) == 0) {
        return;
    }
    lci_rx_progress(env, pi, tx, st->p.rto_ns);
    drain_blocked(st, env, pi);
}

/* Return-to-sender: pi is unreachable. */
static void peer_down(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    rto_stop(st, env, pi);
    lci_rx_bounce_all(env, slots_of(st), &st->free_head, &peer_at(st, pi)->tx);
}

static void rto_expired(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_sender_t *tx = &peer_at(st, pi)->tx;
    tx->rto_on = 0;
    if (tx->out.count == 0 || tx->down) {
        return;
    }
    if (tx->retries >= st->p.max_retries) {
        peer_down(st, env, pi);
        return;
    }
    tx->retries++;
    go_back(st, env, pi);
}

static void ack_expired(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_receiver_t *rx = &peer_at(st, pi)->rx;
    rx->ack_on = 0;
    if (rx->unacked > 0) {
        send_control(st, env, pi, LCI_PKT_CREDIT);
    }
}

/* ---- the ops ----------------------------------------------------------- */

static size_t gbn_state_size(const lci_rx_params_t *p)
{
    return lci_rx_state_size(sizeof(gbn_state_t), p->nnodes, sizeof(gbn_peer_t),
                             lci_rx_nslots(p));
}

static uint32_t gbn_timers(const lci_rx_params_t *p)
{
    return 2 * p->nnodes;
}

static void gbn_init(void *state, const lci_rx_params_t *p)
{
    gbn_state_t *st = state;
    memset(state, 0, gbn_state_size(p));
    st->p = *p;
    st->window = lci_rx_window_of(p);
    st->half = st->window / 2 ? st->window / 2 : 1;
    st->nslots = lci_rx_nslots(p);
    lci_rx_init_senders(slots_of(st), &st->free_head, st->nslots,
                        peer_at(st, 0), sizeof(gbn_peer_t), p->nnodes);
}

static void gbn_send(void *state, lci_env_t *env, uint32_t buf,
                     lci_wire_hdr_t *hdr)
{
    gbn_state_t *st = state;
    uint32_t pi = hdr->dst;
    if (lci_rx_bad_dst(env, buf, pi, st->p.nnodes)) {
        return;
    }
    gbn_peer_t *pr = peer_at(st, pi);
    uint32_t s = lci_rx_admit(env, slots_of(st), &st->free_head, st->nslots,
                              &pr->tx, &pr->rx, st->p.nnodes + pi, buf, hdr);
    if (s == LCI_SLOT_NIL) {
        return;
    }
    if (!lci_rx_wait_turn(env, slots_of(st), &pr->tx, s, st->window)) {
        transmit_new(st, env, pi, s);
    }
}

static int gbn_accept(void *state, lci_env_t *env, uint32_t buf,
                      const lci_wire_hdr_t *hdr, uint32_t hw_status)
{
    gbn_state_t *st = state;
    lci_counters_t *c = env->ops->counters(env);
    /* Route probes belong to VMMC-2's protocol, not to this one. */
    if (!lci_rx_usable(env, hdr, hw_status, st->p.nnodes,
                       1u << LCI_PKT_ROUTE)) {
        return 0;
    }
    uint32_t pi = hdr->hop_src;
    gbn_peer_t *pr = peer_at(st, pi);
    if (hdr->flags & LCI_HF_ACK) {
        env->ops->charge(env, LCI_COST_ACK);
        on_ack(st, env, pi, hdr->ack);
    }
    if (hdr->type == LCI_PKT_CREDIT) {
        return 0;
    }
    if (hdr->type == LCI_PKT_NACK) {
        /* The receiver missed a packet (it had no buffer, and has some
         * again; or it saw a gap): resend from the first unacknowledged
         * packet now. */
        if (!pr->tx.down) {
            go_back(st, env, pi);
        }
        return 0;
    }
    if (buf == LCI_BUF_NONE) {
        c->drops_nobuf++;
        st->nacks_owed += !pr->nack_owed;
        pr->nack_owed = 1;
        pr->gap_nacked = 1; /* the NACK owed covers the gap this leaves */
        return 0;
    }
    env->ops->charge(env, LCI_COST_REL_RECV);
    int32_t d = lci_seq_diff(pr->rx.expected, hdr->seq);
    if (d == 0) {
        pr->rx.expected = lci_seq_add(pr->rx.expected, 1);
        pr->gap_nacked = 0;
        note_arrival(st, env, pi, hdr->flags & LCI_HF_ACKREQ);
        return 1;
    }
    c->drops_seq++;
    if (d < 0) {
        /* A duplicate: the sender missed our ack, so tell it at once. */
        send_control(st, env, pi, LCI_PKT_CREDIT);
    } else if (!pr->gap_nacked) {
        /* Beyond a gap: the packet expected was lost.  Say so once; the
         * packets behind this one are resent anyway. */
        pr->gap_nacked = 1;
        send_control(st, env, pi, LCI_PKT_NACK);
    } else {
        note_arrival(st, env, pi, hdr->flags & LCI_HF_ACKREQ);
    }
    return 0;
}

static void gbn_released(void *state, lci_env_t *env, uint32_t peer)
{
    gbn_state_t *st = state;
    uint32_t n = st->p.nnodes;
    if (st->nacks_owed == 0) {
        return; /* nobody was turned away: no scan of every peer */
    }
    /* Receive buffers are shared by all senders: a free one is a chance
     * for every sender we turned away.  The freed buffer's sender first. */
    uint32_t pi = peer < n ? peer : 0;
    for (uint32_t k = 0; k < n && st->nacks_owed > 0; k++) {
        gbn_peer_t *pr = peer_at(st, pi);
        if (pr->nack_owed) {
            pr->nack_owed = 0;
            st->nacks_owed--;
            send_control(st, env, pi, LCI_PKT_NACK);
        }
        pi = pi + 1 == n ? 0 : pi + 1;
    }
}

static uint32_t gbn_pending(const void *state)
{
    gbn_state_t *st = (gbn_state_t *)state;
    return lci_rx_pending(peer_at(st, 0), sizeof(gbn_peer_t), st->p.nnodes);
}

static void gbn_timer(void *state, lci_env_t *env, uint32_t id)
{
    gbn_state_t *st = state;
    uint32_t n = st->p.nnodes;
    env->ops->charge(env, LCI_COST_TIMER);
    if (id < n) {
        rto_expired(st, env, id);
    } else if (id < 2 * n) {
        ack_expired(st, env, id - n);
    }
}

const lci_rx_component_t lci_rx_gbn_component = {
    .name = "gbn",
    .description = "go-back-N retransmission with piggybacked, half-window "
                   "and delayed acks, NACK on drop (RX_ni / RX_h)",
    .abi = LCI_POLICY_ABI,
    .ops =
        {
            .state_size = gbn_state_size,
            .timers = gbn_timers,
            .init = gbn_init,
            .send = gbn_send,
            .accept = gbn_accept,
            .released = gbn_released,
            .handled = lci_rx_handled_ignored,
            .timer = gbn_timer,
            .pending = gbn_pending,
        },
};
