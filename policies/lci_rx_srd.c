/*
 * lci_rx_srd.c - reliable but unordered delivery between NIs, in the
 * manner of the datagram transports of today's cloud NICs (AWS's Scalable
 * Reliable Datagram): the NI repairs losses without holding anything back,
 * and the host library puts each neighbour's packets in order again
 * (LCI_RX_UNORDERED; lci/lci_reorder.c).  Decomposition rxni-mni-srd.
 *
 * Sender, per peer: 16-bit sequence numbers, a window of W packets, the
 * packets kept until the cumulative ack covers them.  Every packet to the
 * peer carries the cumulative ack of the other direction and, in the
 * header's credits field, a selective ack (below).  Losses are repaired
 * one packet at a time:
 *   - fast retransmit: when a selective ack shows a hole behind packets
 *     that did arrive, the hole goes again at once, once;
 *   - on the retransmission timeout only the packets no selective ack
 *     covered go again (always the oldest: the cumulative ack waits for
 *     it, and should it have arrived its duplicate draws the ack that was
 *     lost); the next timeout is twice as long (up to 8 times);
 *   - after max_retries timeouts without progress the packets return to
 *     their sender (lci_rx_bounce_all) and the peer is marked down.
 *
 * Receiver, per peer: any new packet in [expected, expected + W) is
 * accepted and passed up at once; a bitmap keeps what arrived beyond
 * expected, which moves over the contiguous prefix.  Duplicates and
 * packets beyond the window are dropped (a duplicate is acked at once).
 * An explicit ack goes after W/2 arrivals, at once on LCI_HF_ACKREQ or
 * when an arrival shows a new gap (so the sender learns of the loss now),
 * or when the delayed-ack timer expires.  No NACKs.
 *
 * Except multicast: a multicast packet is accepted only in order.  An NI
 * forwards it to the next hop of its tree as it accepts it, under the
 * next hop's own sequence numbers, so a multicast accepted out of order
 * would be forwarded out of order, and the host below could not put it
 * back in its root's order.  Unicast packets are the host's to order.
 *
 * The credits field, for this module: the selective ack.  Bit i (0..15)
 * set means packet ack + 2 + i arrived (ack + 1 is the first missing one,
 * or the ack would be higher).
 *
 * State layout (state_size() bytes, no pointers):
 *   srd_state_t, srd_peer_t[nnodes], uint32_t map[nnodes][mapwords],
 *   lci_slot_t[LCI_BUF_MAX_SENDS * nbufs]
 * Timers: id p is peer p's retransmission timer, nnodes + p its
 * delayed-ack timer.
 */
#include <stddef.h>
#include <string.h>

#include "lci_policy.h"
#include "lci_rx_window.h"
#include "lci_seq.h"

typedef struct {
    lci_rx_sender_t tx;
    lci_rx_receiver_t rx;
    /* sender: bit k for the k-th oldest unacknowledged packet */
    uint32_t sacked; /* a selective ack said it arrived */
    uint32_t resent; /* sent again since it was first sent */
    /* receiver: one past the highest number accepted (an arrival beyond
     * it shows a new gap) */
    lci_seq_t top;
} srd_peer_t;
_Static_assert(offsetof(srd_peer_t, tx) == 0,
               "lci_rx_pending needs the sender first");

typedef struct {
    lci_rx_params_t p;
    uint32_t window;    /* p.window clamped to 1..LCI_RX_WINDOW_MAX */
    uint32_t half;      /* arrivals that force an explicit ack */
    uint32_t mapbits;   /* bits of each peer's arrival map */
    uint32_t free_head; /* free slots */
    uint32_t nslots;
} srd_state_t;

static size_t peers_bytes(uint32_t nnodes)
{
    return lci_rx_align8((size_t)nnodes * sizeof(srd_peer_t));
}

static size_t maps_bytes(uint32_t nnodes, uint32_t mapbits)
{
    return lci_rx_align8((size_t)nnodes * (mapbits / 32) * sizeof(uint32_t));
}

static srd_peer_t *peer_at(srd_state_t *st, uint32_t i)
{
    return (srd_peer_t *)((char *)st + lci_rx_align8(sizeof(*st))) + i;
}

static uint32_t *map_of(srd_state_t *st, uint32_t i)
{
    return (uint32_t *)((char *)st + lci_rx_align8(sizeof(*st)) +
                        peers_bytes(st->p.nnodes)) +
           (size_t)i * (st->mapbits / 32);
}

static lci_slot_t *slots_of(srd_state_t *st)
{
    return (lci_slot_t *)((char *)st + lci_rx_align8(sizeof(*st)) +
                          peers_bytes(st->p.nnodes) +
                          maps_bytes(st->p.nnodes, st->mapbits));
}

/* Bits 0 .. k-1. */
static uint32_t below(uint32_t k)
{
    return k >= 32 ? UINT32_MAX : (1u << k) - 1u;
}

/* The highest bit set in a nonzero x. */
static uint32_t highest_bit(uint32_t x)
{
    uint32_t k = 0;
    while (x >>= 1) {
        k++;
    }
    return k;
}

/* ---- acknowledgements going out --------------------------------------- */

static uint16_t sack_of(srd_state_t *st, uint32_t pi)
{
    return lci_rx_sack_bits(map_of(st, pi), st->mapbits,
                            peer_at(st, pi)->rx.expected, st->window);
}

/* What every packet to pi carries: the cumulative and the selective ack. */
static void stamp(srd_state_t *st, lci_env_t *env, uint32_t pi,
                  lci_wire_hdr_t *h)
{
    lci_rx_stamp(env, &peer_at(st, pi)->rx, st->p.nnodes + pi, h);
    h->credits = sack_of(st, pi);
}

/* An explicit ack: a header-only, unsequenced packet. */
static void send_ack(srd_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.type = LCI_PKT_CREDIT;
    h.dst = (uint16_t)pi;
    h.origin = (uint16_t)env->node;
    stamp(st, env, pi, &h);
    env->ops->transmit(env, LCI_BUF_NONE, &h);
    env->ops->counters(env)->pkts_sent_ack++;
}

/* A data packet from pi was accepted: ack now or later. */
static void note_arrival(srd_state_t *st, lci_env_t *env, uint32_t pi, int now)
{
    lci_rx_receiver_t *rx = &peer_at(st, pi)->rx;
    if (rx->unacked < UINT16_MAX) {
        rx->unacked++;
    }
    if (now || rx->unacked >= st->half) {
        send_ack(st, env, pi);
    } else if (!rx->ack_on) {
        env->ops->timer_start(env, st->p.nnodes + pi,
                              env->ops->now(env) + st->p.ack_delay_ns);
        rx->ack_on = 1;
    }
}

/* ---- sender side ------------------------------------------------------ */

static void rto_restart(srd_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_rto_start(env, pi, &peer_at(st, pi)->tx, st->p.rto_ns);
}

static void transmit_new(srd_state_t *st, lci_env_t *env, uint32_t pi,
                         uint32_t s)
{
    lci_rx_sender_t *tx = &peer_at(st, pi)->tx;
    lci_slot_t *sl = &slots_of(st)[s];
    sl->hdr.seq = tx->next_seq;
    tx->next_seq = lci_seq_add(tx->next_seq, 1);
    /* The packet that fills the window asks for an ack at once, so the
     * window reopens without waiting for the receiver's ack timer. */
    if (tx->out.count + 1 >= st->window) {
        sl->hdr.flags = (uint8_t)(sl->hdr.flags | LCI_HF_ACKREQ);
    }
    lci_slotq_push(slots_of(st), &tx->out, s);
    lci_wire_hdr_t h = sl->hdr;
    stamp(st, env, pi, &h); /* with the selective ack */
    env->ops->charge(env, LCI_COST_REL_SEND);
    env->ops->transmit(env, sl->buf, &h);
    if (!tx->rto_on) {
        rto_restart(st, env, pi);
    }
}

/* Sends again the packets to pi that pick names (beyond: and every one
 * past the 32nd), and remembers them as resent. */
static void resend(srd_state_t *st, lci_env_t *env, uint32_t pi, uint32_t pick,
                   int beyond)
{
    srd_peer_t *pr = peer_at(st, pi);
    pr->resent |=
        lci_rx_resend_some(env, slots_of(st), &pr->tx, &pr->rx,
                           st->p.nnodes + pi, pick, beyond, sack_of(st, pi));
}

static void drain_blocked(srd_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_sender_t *tx = &peer_at(st, pi)->tx;
    while (tx->blocked.count > 0 && tx->out.count < st->window) {
        transmit_new(st, env, pi, lci_slotq_pop(slots_of(st), &tx->blocked));
    }
}

/* Marks what the selective ack sack (relative to the cumulative ack) says
 * arrived. */
static void note_sack(srd_peer_t *pr, lci_seq_t ack, uint16_t sack)
{
    lci_rx_sender_t *tx = &pr->tx;
    lci_seq_t una = lci_seq_add(tx->next_seq, 0x10000u - tx->out.count);
    uint32_t tracked = tx->out.count < 32 ? tx->out.count : 32;
    for (uint32_t i = 0; i < 16 && (sack >> i) != 0; i++) {
        if (!((sack >> i) & 1u)) {
            continue;
        }
        int32_t k = lci_seq_diff(una, lci_seq_add(ack, i + 2));
        if (k >= 0 && (uint32_t)k < tracked) {
            pr->sacked |= 1u << k;
        }
    }
}

/* An ack from pi: the cumulative part frees packets, the selective part
 * marks some as arrived; holes behind them go again at once. */
static void on_ack(srd_state_t *st, lci_env_t *env, uint32_t pi, lci_seq_t ack,
                   uint16_t sack)
{
    srd_peer_t *pr = peer_at(st, pi);
    lci_rx_sender_t *tx = &pr->tx;
    uint32_t n = lci_rx_take_acked(env, slots_of(st), &st->free_head, tx, ack);
    if (n > 0) {
        pr->sacked = n < 32 ? pr->sacked >> n : 0;
        pr->resent = n < 32 ? pr->resent >> n : 0;
        lci_rx_progress(env, pi, tx, st->p.rto_ns);
    }
    note_sack(pr, ack, sack);
    if (pr->sacked != 0 && !tx->down) {
        /* Holes: below the newest packet known to have arrived. */
        uint32_t holes =
            below(highest_bit(pr->sacked)) & ~pr->sacked & ~pr->resent;
        if (holes != 0) {
            resend(st, env, pi, holes, 0);
        }
    }
    if (n > 0) {
        drain_blocked(st, env, pi);
    }
}

static void peer_down(srd_state_t *st, lci_env_t *env, uint32_t pi)
{
    srd_peer_t *pr = peer_at(st, pi);
    lci_rx_rto_stop(env, pi, &pr->tx);
    pr->sacked = 0;
    pr->resent = 0;
    lci_rx_bounce_all(env, slots_of(st), &st->free_head, &pr->tx);
}

static void rto_expired(srd_state_t *st, lci_env_t *env, uint32_t pi)
{
    srd_peer_t *pr = peer_at(st, pi);
    pr->tx.rto_on = 0;
    if (pr->tx.out.count == 0 || pr->tx.down) {
        return;
    }
    if (pr->tx.retries >= st->p.max_retries) {
        peer_down(st, env, pi);
        return;
    }
    pr->tx.retries++;
    resend(st, env, pi, ~pr->sacked | 1u, 1);
    rto_restart(st, env, pi);
}

static void ack_expired(srd_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_receiver_t *rx = &peer_at(st, pi)->rx;
    rx->ack_on = 0;
    if (rx->unacked > 0) {
        send_ack(st, env, pi);
    }
}

/* ---- receiver side ---------------------------------------------------- */

/* A data packet with sequence number seq from pi, in a buffer: 1 when it
 * is new and to be passed up. */
static int take_in(srd_state_t *st, lci_env_t *env, uint32_t pi,
                   const lci_wire_hdr_t *hdr)
{
    srd_peer_t *pr = peer_at(st, pi);
    uint32_t *map = map_of(st, pi);
    int ackreq = (hdr->flags & LCI_HF_ACKREQ) != 0;
    int32_t d = lci_seq_diff(pr->rx.expected, hdr->seq);
    if (d < 0 || ((uint32_t)d < st->window &&
                  lci_rx_seqmap_test(map, st->mapbits, hdr->seq))) {
        /* A duplicate: the sender missed our ack, so tell it at once. */
        env->ops->counters(env)->drops_seq++;
        send_ack(st, env, pi);
        return 0;
    }
    if ((uint32_t)d >= st->window || (d > 0 && hdr->type == LCI_PKT_MCAST)) {
        /* Beyond the window (the sender's is the same), or a multicast
         * that cannot be forwarded yet: sent again as a hole behind later
         * packets, or on the sender's timeout. */
        env->ops->counters(env)->drops_seq++;
        if (ackreq) {
            send_ack(st, env, pi);
        }
        return 0;
    }
    int new_gap = lci_seq_lt(pr->top, hdr->seq);
    if (lci_seq_le(pr->top, hdr->seq)) {
        pr->top = lci_seq_add(hdr->seq, 1);
    }
    lci_rx_seqmap_set(map, st->mapbits, hdr->seq);
    lci_rx_seqmap_advance(map, st->mapbits, &pr->rx.expected);
    note_arrival(st, env, pi, ackreq || new_gap);
    return 1;
}

/* ---- the ops ----------------------------------------------------------- */

static size_t srd_state_size(const lci_rx_params_t *p)
{
    return lci_rx_align8(sizeof(srd_state_t)) + peers_bytes(p->nnodes) +
           maps_bytes(p->nnodes, lci_rx_seqmap_bits(lci_rx_window_of(p))) +
           (size_t)lci_rx_nslots(p) * sizeof(lci_slot_t);
}

static uint32_t srd_timers(const lci_rx_params_t *p)
{
    return 2 * p->nnodes;
}

static void srd_init(void *state, const lci_rx_params_t *p)
{
    srd_state_t *st = state;
    memset(state, 0, srd_state_size(p));
    st->p = *p;
    st->window = lci_rx_window_of(p);
    st->half = st->window / 2 ? st->window / 2 : 1;
    st->mapbits = lci_rx_seqmap_bits(st->window);
    st->nslots = lci_rx_nslots(p);
    lci_slots_init(slots_of(st), &st->free_head, st->nslots);
    for (uint32_t i = 0; i < p->nnodes; i++) {
        lci_rx_sender_init(&peer_at(st, i)->tx);
    }
}

static void srd_send(void *state, lci_env_t *env, uint32_t buf,
                     lci_wire_hdr_t *hdr)
{
    srd_state_t *st = state;
    uint32_t pi = hdr->dst;
    if (lci_rx_bad_dst(env, buf, pi, st->p.nnodes)) {
        return;
    }
    srd_peer_t *pr = peer_at(st, pi);
    uint32_t s = lci_rx_admit(env, slots_of(st), &st->free_head, st->nslots,
                              &pr->tx, &pr->rx, st->p.nnodes + pi, buf, hdr);
    if (s == LCI_SLOT_NIL) {
        return;
    }
    /* Sequence numbers follow the order of send(): the host's order. */
    if (!lci_rx_wait_turn(env, slots_of(st), &pr->tx, s, st->window)) {
        transmit_new(st, env, pi, s);
    }
}

static int srd_accept(void *state, lci_env_t *env, uint32_t buf,
                      const lci_wire_hdr_t *hdr, uint32_t hw_status)
{
    srd_state_t *st = state;
    lci_counters_t *c = env->ops->counters(env);
    /* NACKs and route probes belong to other protocols. */
    if (!lci_rx_usable(env, hdr, hw_status, st->p.nnodes,
                       1u << LCI_PKT_NACK | 1u << LCI_PKT_ROUTE)) {
        return 0;
    }
    uint32_t pi = hdr->hop_src;
    if (hdr->flags & LCI_HF_ACK) {
        env->ops->charge(env, LCI_COST_ACK);
        on_ack(st, env, pi, hdr->ack, hdr->credits);
    }
    if (hdr->type == LCI_PKT_CREDIT) {
        return 0;
    }
    if (buf == LCI_BUF_NONE) {
        c->drops_nobuf++; /* the selective acks or the timeout resend it */
        return 0;
    }
    env->ops->charge(env, LCI_COST_REL_RECV);
    return take_in(st, env, pi, hdr);
}

static uint32_t srd_pending(const void *state)
{
    srd_state_t *st = (srd_state_t *)state;
    return lci_rx_pending(peer_at(st, 0), sizeof(srd_peer_t), st->p.nnodes);
}

static void srd_timer(void *state, lci_env_t *env, uint32_t id)
{
    srd_state_t *st = state;
    uint32_t n = st->p.nnodes;
    env->ops->charge(env, LCI_COST_TIMER);
    if (id < n) {
        rto_expired(st, env, id);
    } else if (id < 2 * n) {
        ack_expired(st, env, id - n);
    }
}

const lci_rx_component_t lci_rx_srd_component = {
    .name = "srd",
    .description = "SRD-like reliable datagrams: per-pair window, "
                   "out-of-order delivery put back in order by the host, "
                   "cumulative and selective acks, only lost packets resent",
    .abi = LCI_POLICY_ABI,
    .flags = LCI_RX_UNORDERED,
    .ops =
        {
            .state_size = srd_state_size,
            .timers = srd_timers,
            .init = srd_init,
            .send = srd_send,
            .accept = srd_accept,
            .released = lci_rx_released_ignored,
            .handled = lci_rx_handled_ignored,
            .timer = srd_timer,
            .pending = srd_pending,
        },
};
