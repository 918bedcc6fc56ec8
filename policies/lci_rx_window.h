/*
 * lci_rx_window.h - what every sliding-window reliability policy keeps per
 * peer, and the steps they all take the same way: the retransmission timer
 * with its back-off, the cumulative ack every packet carries, freeing what
 * an ack covers, sending every unacknowledged packet again, and returning
 * packets to their sender when a peer is given up on; and, for a policy
 * that accepts packets out of order, the map of what arrived beyond the
 * next expected number, the selective acknowledgement made from it and
 * resending only some packets.  A policy (go-back-N, VMMC-2, SRD, ...)
 * decides when each step happens; these say how.
 *
 * Firmware rules apply (lci_env.h): no allocation, no pointers kept.
 */
#ifndef LCI_RX_WINDOW_H
#define LCI_RX_WINDOW_H

#include <stdint.h>

#include "lci_env.h"
#include "lci_ni.h"
#include "lci_seq.h"
#include "lci_slot_queue.h"

/* Wrap-safe comparison needs fewer than 2^15 packets in flight. */
#define LCI_RX_WINDOW_MAX 0x7fffu

/* The send window a policy configured with p uses: 1 .. LCI_RX_WINDOW_MAX. */
static inline uint32_t lci_rx_window_of(const lci_rx_params_t *p)
{
    uint32_t w = p->window == 0 ? 1 : p->window;
    return w > LCI_RX_WINDOW_MAX ? LCI_RX_WINDOW_MAX : w;
}

/* Sizes of the parts of a policy's state, rounded so each part that
 * follows is aligned. */
static inline size_t lci_rx_align8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

/* Slots for the packets a policy keeps: a buffer may be queued or held
 * for two peers at once (a multicast packet forwarded to both children),
 * so there are LCI_BUF_MAX_SENDS per buffer and they never run out before
 * the buffers do. */
static inline uint32_t lci_rx_nslots(const lci_rx_params_t *p)
{
    return LCI_BUF_MAX_SENDS * p->nbufs;
}

/* The usual layout of a policy's state: a header of head_size bytes, one
 * peer_size record per node, then the slots, each part aligned. */
static inline void *lci_rx_peers(void *state, size_t head_size)
{
    return (char *)state + lci_rx_align8(head_size);
}

static inline lci_slot_t *lci_rx_slots(void *state, size_t head_size,
                                       uint32_t nnodes, size_t peer_size)
{
    return (lci_slot_t *)((char *)lci_rx_peers(state, head_size) +
                          lci_rx_align8((size_t)nnodes * peer_size));
}

static inline size_t lci_rx_state_size(size_t head_size, uint32_t nnodes,
                                       size_t peer_size, uint32_t nslots)
{
    return lci_rx_align8(head_size) +
           lci_rx_align8((size_t)nnodes * peer_size) +
           (size_t)nslots * sizeof(lci_slot_t);
}

/* The sending half, per peer. */
typedef struct {
    lci_slot_queue_t out;     /* transmitted, unacknowledged, oldest first */
    lci_slot_queue_t blocked; /* not yet transmitted, in order */
    uint32_t retries;         /* timeouts without progress */
    lci_seq_t next_seq;       /* sequence number of the next new packet */
    uint8_t rto_on;           /* retransmission timer running */
    uint8_t down;             /* unreachable: sends bounce at once */
} lci_rx_sender_t;

/* The receiving half, per peer. */
typedef struct {
    lci_seq_t expected; /* next in-order sequence number */
    uint16_t unacked;   /* arrivals since an ack last went back */
    uint8_t ack_on;     /* delayed-ack timer running */
} lci_rx_receiver_t;

static inline void lci_rx_sender_init(lci_rx_sender_t *s)
{
    lci_slotq_init(&s->out);
    lci_slotq_init(&s->blocked);
}

/* Every slot free and every one of n peers' senders empty: the peers are
 * peer_size bytes apart, each beginning with its lci_rx_sender_t. */
static inline void lci_rx_init_senders(lci_slot_t *slots, uint32_t *free_head,
                                       uint32_t nslots, void *peers,
                                       size_t peer_size, uint32_t n)
{
    lci_slots_init(slots, free_head, nslots);
    for (uint32_t i = 0; i < n; i++) {
        lci_rx_sender_init(
            (lci_rx_sender_t *)((char *)peers + (size_t)i * peer_size));
    }
}

/* (Re)starts timer id: rto_ns doubled per timeout without progress, up to
 * 2^LCI_RTO_BACKOFF_MAX times. */
static inline void lci_rx_rto_start(lci_env_t *env, uint32_t id,
                                    lci_rx_sender_t *s, uint64_t rto_ns)
{
    uint32_t shift =
        s->retries < LCI_RTO_BACKOFF_MAX ? s->retries : LCI_RTO_BACKOFF_MAX;
    env->ops->timer_start(env, id, env->ops->now(env) + (rto_ns << shift));
    s->rto_on = 1;
}

static inline void lci_rx_rto_stop(lci_env_t *env, uint32_t id,
                                   lci_rx_sender_t *s)
{
    if (s->rto_on) {
        env->ops->timer_cancel(env, id);
        s->rto_on = 0;
    }
}

/* Fills what every packet to a peer carries: this node as the hop source
 * and the cumulative ack (expected - 1), which makes a pending delayed ack
 * (timer ack_id) unnecessary. */
static inline void lci_rx_stamp(lci_env_t *env, lci_rx_receiver_t *r,
                                uint32_t ack_id, lci_wire_hdr_t *h)
{
    h->hop_src = (uint16_t)env->node;
    h->credits = 0;
    h->ack = lci_seq_add(r->expected, UINT16_MAX);
    h->flags = (uint8_t)(h->flags | LCI_HF_ACK);
    r->unacked = 0;
    if (r->ack_on) {
        env->ops->timer_cancel(env, ack_id);
        r->ack_on = 0;
    }
}

/* The start of send() every window policy shares.  A bad destination is
 * the caller's failure (checked first: it names no peer).  A control
 * packet goes out at once, neither sequenced nor kept; a packet to a peer
 * given up on returns to its sender.  Otherwise returns a free slot
 * holding buf and hdr (seq 0), for the policy to queue or transmit; and
 * LCI_SLOT_NIL when the packet was dealt with here. */
static inline int lci_rx_bad_dst(lci_env_t *env, uint32_t buf, uint32_t dst,
                                 uint32_t nnodes)
{
    if (dst < nnodes) {
        return 0;
    }
    env->ops->fail(env, LCI_FW_BAD_COMMAND, dst, nnodes);
    env->ops->release(env, buf);
    return 1;
}

static inline uint32_t lci_rx_admit(lci_env_t *env, lci_slot_t *slots,
                                    uint32_t *free_head, uint32_t nslots,
                                    lci_rx_sender_t *tx, lci_rx_receiver_t *rx,
                                    uint32_t ack_id, uint32_t buf,
                                    const lci_wire_hdr_t *hdr)
{
    if (lci_pkt_is_control(hdr->type)) {
        lci_wire_hdr_t h = *hdr;
        lci_rx_stamp(env, rx, ack_id, &h);
        env->ops->transmit(env, buf, &h);
        if (buf != LCI_BUF_NONE) {
            env->ops->release(env, buf);
        }
        return LCI_SLOT_NIL;
    }
    if (tx->down) {
        env->ops->bounce(env, buf, hdr, LCI_ERR_UNREACHABLE);
        env->ops->release(env, buf);
        return LCI_SLOT_NIL;
    }
    uint32_t k = lci_slot_alloc(slots, free_head);
    if (k == LCI_SLOT_NIL) {
        /* More packets kept than the side's buffers can be queued for:
         * a buffer was posted more often than LCI_BUF_MAX_SENDS allows. */
        env->ops->fail(env, LCI_FW_QUEUE_FULL, LCI_NI_Q_SEND, nslots);
        env->ops->release(env, buf);
        return LCI_SLOT_NIL;
    }
    slots[k].buf = buf;
    slots[k].hdr = *hdr;
    slots[k].hdr.seq = 0;
    return k;
}

/* Queues slot k behind the packets already waiting for the peer, or
 * behind a full window (a stall, counted): FIFO, nothing overtakes.
 * Returns 0 if k may go on the wire now. */
static inline int lci_rx_wait_turn(lci_env_t *env, lci_slot_t *slots,
                                   lci_rx_sender_t *tx, uint32_t k,
                                   uint32_t window)
{
    if (tx->blocked.count == 0 && tx->out.count < window) {
        return 0;
    }
    env->ops->counters(env)->window_stalls++;
    lci_slotq_push(slots, &tx->blocked, k);
    return 1;
}

/* Whether an arrival's header can be trusted at all, counting it where
 * not: a damaged packet (not even its ack can be believed), one from no
 * node of the run, of no known type, or of a type that belongs to another
 * protocol (foreign: a mask of 1u << type) is dropped.  The link's own
 * sequence check (LCI_HW_SEQ_GAP / _DUP) is left to the policy's numbers. */
static inline int lci_rx_usable(lci_env_t *env, const lci_wire_hdr_t *hdr,
                                uint32_t hw_status, uint32_t nnodes,
                                uint32_t foreign)
{
    lci_counters_t *c = env->ops->counters(env);
    if (hw_status == LCI_HW_CRC) {
        c->drops_crc++;
        return 0;
    }
    if (hdr->hop_src >= nnodes || hdr->type == 0 ||
        hdr->type >= LCI_PKT_TYPE_MAX || ((foreign >> hdr->type) & 1u)) {
        c->drops_malformed++;
        return 0;
    }
    return 1;
}

/* A cumulative ack: frees the packets up to and including ack and returns
 * how many (0 for an old ack, or one beyond what was sent). */
static inline uint32_t lci_rx_take_acked(lci_env_t *env, lci_slot_t *slots,
                                         uint32_t *free_head,
                                         lci_rx_sender_t *s, lci_seq_t ack)
{
    if (s->out.count == 0) {
        return 0;
    }
    lci_seq_t una = lci_seq_add(s->next_seq, 0x10000u - s->out.count);
    int32_t d = lci_seq_diff(una, ack);
    if (d < 0 || (uint32_t)d >= s->out.count) {
        return 0;
    }
    for (int32_t i = 0; i <= d; i++) {
        uint32_t k = lci_slotq_pop(slots, &s->out);
        env->ops->release(env, slots[k].buf);
        lci_slot_free(slots, free_head, k);
    }
    return (uint32_t)d + 1;
}

/* First transmission of slot k: the next sequence number, an ack request
 * if the policy asks for one, the cumulative ack (stamp), the wire; the
 * retransmission timer timer_id starts if it is not running. */
static inline void lci_rx_transmit_new(lci_env_t *env, lci_slot_t *slots,
                                       uint32_t k, lci_rx_sender_t *tx,
                                       lci_rx_receiver_t *rx, uint32_t ack_id,
                                       int ackreq, uint32_t timer_id,
                                       uint64_t rto_ns)
{
    lci_slot_t *sl = &slots[k];
    sl->hdr.seq = tx->next_seq;
    tx->next_seq = lci_seq_add(tx->next_seq, 1);
    if (ackreq) {
        sl->hdr.flags = (uint8_t)(sl->hdr.flags | LCI_HF_ACKREQ);
    }
    lci_slotq_push(slots, &tx->out, k);
    lci_wire_hdr_t h = sl->hdr;
    lci_rx_stamp(env, rx, ack_id, &h);
    env->ops->charge(env, LCI_COST_REL_SEND);
    env->ops->transmit(env, sl->buf, &h);
    if (!tx->rto_on) {
        lci_rx_rto_start(env, timer_id, tx, rto_ns);
    }
}

/* Packets kept by n peers' senders, unacknowledged or queued: the peers
 * are peer_size bytes apart, each beginning with its lci_rx_sender_t. */
static inline uint32_t lci_rx_pending(const void *peers, size_t peer_size,
                                      uint32_t n)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        const lci_rx_sender_t *tx =
            (const lci_rx_sender_t *)((const char *)peers + i * peer_size);
        total += tx->out.count + tx->blocked.count;
    }
    return total;
}

/* An ack made progress: the retry count starts again, and timer id runs
 * (afresh) while anything is unacknowledged. */
static inline void lci_rx_progress(lci_env_t *env, uint32_t id,
                                   lci_rx_sender_t *tx, uint64_t rto_ns)
{
    tx->retries = 0;
    if (tx->out.count > 0) {
        lci_rx_rto_start(env, id, tx, rto_ns);
    } else {
        lci_rx_rto_stop(env, id, tx);
    }
}

/* Every unacknowledged packet again, oldest first; the last asks for an
 * ack, so recovery ends as soon as the receiver has it. */
static inline void lci_rx_resend_all(lci_env_t *env, lci_slot_t *slots,
                                     lci_rx_sender_t *s, lci_rx_receiver_t *r,
                                     uint32_t ack_id)
{
    lci_counters_t *c = env->ops->counters(env);
    for (uint32_t k = s->out.head; k != LCI_SLOT_NIL; k = slots[k].next) {
        lci_wire_hdr_t h = slots[k].hdr;
        if (slots[k].next == LCI_SLOT_NIL) {
            h.flags = (uint8_t)(h.flags | LCI_HF_ACKREQ);
        }
        lci_rx_stamp(env, r, ack_id, &h);
        env->ops->charge(env, LCI_COST_REL_SEND);
        env->ops->transmit(env, slots[k].buf, &h);
        c->retransmissions++;
    }
}

/* Whether lci_rx_resend_some() picks the k-th oldest packet. */
static inline int lci_rx_picked(uint32_t pick, int beyond, uint32_t k)
{
    return k < 32 ? (int)((pick >> k) & 1u) : beyond != 0;
}

/* Sends again the unacknowledged packets chosen by pick, oldest first:
 * the k-th oldest when bit k of pick is set (k < 32), and every one after
 * the 32nd when beyond is nonzero.  The last asks for an ack; each carries
 * credits, the policy's own use of that field.  Returns the bits (k < 32)
 * of the packets sent.  Selective repeat resends this way; go-back-N
 * sends them all (lci_rx_resend_all). */
static inline uint32_t lci_rx_resend_some(lci_env_t *env, lci_slot_t *slots,
                                          lci_rx_sender_t *s,
                                          lci_rx_receiver_t *r, uint32_t ack_id,
                                          uint32_t pick, int beyond,
                                          uint16_t credits)
{
    /* The last one picked asks for the ack: find it first. */
    uint32_t last = LCI_SLOT_NIL, k = 0;
    for (uint32_t i = s->out.head; i != LCI_SLOT_NIL; i = slots[i].next, k++) {
        if (lci_rx_picked(pick, beyond, k)) {
            last = i;
        }
    }
    lci_counters_t *c = env->ops->counters(env);
    uint32_t sent = 0;
    k = 0;
    for (uint32_t i = s->out.head; last != LCI_SLOT_NIL && i != LCI_SLOT_NIL;
         i = slots[i].next, k++) {
        if (!lci_rx_picked(pick, beyond, k)) {
            continue;
        }
        lci_wire_hdr_t h = slots[i].hdr;
        if (i == last) {
            h.flags = (uint8_t)(h.flags | LCI_HF_ACKREQ);
        }
        lci_rx_stamp(env, r, ack_id, &h);
        h.credits = credits;
        env->ops->charge(env, LCI_COST_REL_SEND);
        env->ops->transmit(env, slots[i].buf, &h);
        c->retransmissions++;
        sent |= k < 32 ? 1u << k : 0;
        if (i == last) {
            break;
        }
    }
    return sent;
}

/* ---- receivers that accept out of order ---------------------------------
 *
 * Which sequence numbers of the window [expected, expected + W) arrived:
 * one bit per number, at the number modulo the map's size.  The size is a
 * power of two (so it divides 2^16 and the wrap of the 16-bit numbers
 * keeps them apart) of at least W bits (so the numbers of one window never
 * share a bit). */
static inline uint32_t lci_rx_seqmap_bits(uint32_t window)
{
    uint32_t bits = 32;
    while (bits < window) {
        bits <<= 1;
    }
    return bits;
}

static inline int lci_rx_seqmap_test(const uint32_t *map, uint32_t bits,
                                     lci_seq_t seq)
{
    uint32_t i = seq & (bits - 1);
    return (int)((map[i >> 5] >> (i & 31u)) & 1u);
}

static inline void lci_rx_seqmap_set(uint32_t *map, uint32_t bits,
                                     lci_seq_t seq)
{
    uint32_t i = seq & (bits - 1);
    map[i >> 5] |= 1u << (i & 31u);
}

static inline void lci_rx_seqmap_clear(uint32_t *map, uint32_t bits,
                                       lci_seq_t seq)
{
    uint32_t i = seq & (bits - 1);
    map[i >> 5] &= ~(1u << (i & 31u));
}

/* Moves expected over the numbers that arrived right after it (clearing
 * their bits); returns how far it moved. */
static inline uint32_t lci_rx_seqmap_advance(uint32_t *map, uint32_t bits,
                                             lci_seq_t *expected)
{
    uint32_t n = 0;
    while (lci_rx_seqmap_test(map, bits, *expected)) {
        lci_rx_seqmap_clear(map, bits, *expected);
        *expected = lci_seq_add(*expected, 1);
        n++;
    }
    return n;
}

/* A selective acknowledgement of the 16 numbers after expected (which has
 * not arrived, or expected would have moved): bit i when expected + 1 + i
 * arrived.  Numbers beyond the window have not. */
static inline uint16_t lci_rx_sack_bits(const uint32_t *map, uint32_t bits,
                                        lci_seq_t expected, uint32_t window)
{
    uint16_t sack = 0;
    for (uint32_t i = 0; i < 16 && i + 1 < window; i++) {
        if (lci_rx_seqmap_test(map, bits, lci_seq_add(expected, i + 1))) {
            sack = (uint16_t)(sack | (1u << i));
        }
    }
    return sack;
}

/* The peer is given up on: unacknowledged packets return to their sender
 * first (they were sent first), then the queued ones, each in order.  The
 * caller has stopped the timer. */
static inline void lci_rx_bounce_all(lci_env_t *env, lci_slot_t *slots,
                                     uint32_t *free_head, lci_rx_sender_t *s)
{
    s->down = 1;
    lci_slot_queue_t *qs[2] = {&s->out, &s->blocked};
    for (int q = 0; q < 2; q++) {
        while (qs[q]->count > 0) {
            uint32_t k = lci_slotq_pop(slots, qs[q]);
            env->ops->bounce(env, slots[k].buf, &slots[k].hdr,
                             LCI_ERR_UNREACHABLE);
            env->ops->release(env, slots[k].buf);
            lci_slot_free(slots, free_head, k);
        }
    }
}

#endif
