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
#include <string.h>

#include "lci_policy.h"
#include "lci_seq.h"

#define GBN_NIL UINT32_MAX
/* Wrap-safe comparison needs fewer than 2^15 packets in flight. */
#define GBN_WINDOW_MAX 0x7fffu

/* A packet the policy keeps: queued behind the window or awaiting its ack. */
typedef struct {
    uint32_t next;      /* next slot in the same queue, or GBN_NIL */
    uint32_t buf;       /* the buffer (the policy owns one reference) */
    lci_wire_hdr_t hdr; /* header as sent; seq valid once transmitted */
} gbn_slot_t;

typedef struct {
    uint32_t head;
    uint32_t tail;
    uint32_t count;
} gbn_queue_t;

typedef struct {
    /* sender side */
    gbn_queue_t out;     /* transmitted, unacknowledged, oldest first */
    gbn_queue_t blocked; /* waiting for the window to open, in order */
    uint32_t retries;    /* timeouts of the oldest packet w/o progress */
    lci_seq_t next_seq;  /* sequence number of the next new packet */
    uint8_t rto_on;      /* retransmission timer running */
    uint8_t down;        /* peer unreachable: sends bounce at once */
    /* receiver side */
    lci_seq_t expected;  /* next in-order sequence number from the peer */
    uint16_t unacked;    /* arrivals since an ack last went to the peer */
    uint8_t ack_on;      /* delayed-ack timer running */
    uint8_t nack_owed;   /* dropped a packet for lack of a buffer */
    uint8_t gap_nacked;  /* the gap before expected is NACKed (or owed) */
    uint8_t reserved;
} gbn_peer_t;

typedef struct {
    lci_rx_params_t p;
    uint32_t window;    /* p.window clamped to 1..GBN_WINDOW_MAX */
    uint32_t half;      /* arrivals that force an explicit ack */
    uint32_t free_head; /* free slots, linked by next */
    uint32_t nslots;
} gbn_state_t;

static size_t align8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

static gbn_peer_t *peer_at(gbn_state_t *st, uint32_t i)
{
    return (gbn_peer_t *)((char *)st + align8(sizeof(*st))) + i;
}

static gbn_slot_t *slot_at(gbn_state_t *st, uint32_t i)
{
    char *base = (char *)st + align8(sizeof(*st)) +
                 align8((size_t)st->p.nnodes * sizeof(gbn_peer_t));
    return (gbn_slot_t *)base + i;
}

/* ---- index-based queues --------------------------------------------- */

static void q_init(gbn_queue_t *q)
{
    q->head = GBN_NIL;
    q->tail = GBN_NIL;
    q->count = 0;
}

static void q_push(gbn_state_t *st, gbn_queue_t *q, uint32_t s)
{
    slot_at(st, s)->next = GBN_NIL;
    if (q->tail == GBN_NIL) {
        q->head = s;
    } else {
        slot_at(st, q->tail)->next = s;
    }
    q->tail = s;
    q->count++;
}

static uint32_t q_pop(gbn_state_t *st, gbn_queue_t *q)
{
    uint32_t s = q->head;
    if (s != GBN_NIL) {
        q->head = slot_at(st, s)->next;
        if (q->head == GBN_NIL) {
            q->tail = GBN_NIL;
        }
        q->count--;
    }
    return s;
}

static uint32_t slot_alloc(gbn_state_t *st)
{
    uint32_t s = st->free_head;
    if (s != GBN_NIL) {
        st->free_head = slot_at(st, s)->next;
    }
    return s;
}

static void slot_free(gbn_state_t *st, uint32_t s)
{
    slot_at(st, s)->next = st->free_head;
    st->free_head = s;
}

/* ---- timers ---------------------------------------------------------- */

static void rto_restart(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    gbn_peer_t *pr = peer_at(st, pi);
    uint32_t shift = pr->retries < LCI_RTO_BACKOFF_MAX ? pr->retries
                                                       : LCI_RTO_BACKOFF_MAX;
    env->ops->timer_start(env, pi, env->ops->now(env) + (st->p.rto_ns << shift));
    pr->rto_on = 1;
}

static void rto_stop(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    gbn_peer_t *pr = peer_at(st, pi);
    if (pr->rto_on) {
        env->ops->timer_cancel(env, pi);
        pr->rto_on = 0;
    }
}

/* ---- acknowledgements going out --------------------------------------- */

/* Fills the fields every packet to peer pi carries: the cumulative ack
 * (which makes any pending ack to pi unnecessary) and the hop source. */
static void stamp(gbn_state_t *st, lci_env_t *env, uint32_t pi,
                  lci_wire_hdr_t *h)
{
    gbn_peer_t *pr = peer_at(st, pi);
    h->hop_src = (uint16_t)env->node;
    h->credits = 0;
    h->ack = lci_seq_add(pr->expected, UINT16_MAX); /* expected - 1 */
    h->flags = (uint8_t)(h->flags | LCI_HF_ACK);
    pr->unacked = 0;
    if (pr->ack_on) {
        env->ops->timer_cancel(env, st->p.nnodes + pi);
        pr->ack_on = 0;
    }
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
    gbn_peer_t *pr = peer_at(st, pi);
    if (pr->unacked < UINT16_MAX) {
        pr->unacked++;
    }
    if (ackreq || pr->unacked >= st->half) {
        send_control(st, env, pi, LCI_PKT_CREDIT);
    } else if (!pr->ack_on) {
        env->ops->timer_start(env, st->p.nnodes + pi,
                              env->ops->now(env) + st->p.ack_delay_ns);
        pr->ack_on = 1;
    }
}

/* ---- sender side ------------------------------------------------------ */

/* First transmission of slot s to pi: takes the next sequence number. */
static void transmit_new(gbn_state_t *st, lci_env_t *env, uint32_t pi,
                         uint32_t s)
{
    gbn_peer_t *pr = peer_at(st, pi);
    gbn_slot_t *sl = slot_at(st, s);
    sl->hdr.seq = pr->next_seq;
    pr->next_seq = lci_seq_add(pr->next_seq, 1);
    /* The packet that fills the window asks for an ack at once, so the
     * window reopens without waiting for the receiver's ack timer. */
    if (pr->out.count + 1 >= st->window) {
        sl->hdr.flags = (uint8_t)(sl->hdr.flags | LCI_HF_ACKREQ);
    }
    q_push(st, &pr->out, s);
    lci_wire_hdr_t h = sl->hdr;
    stamp(st, env, pi, &h);
    env->ops->charge(env, LCI_COST_REL_SEND);
    env->ops->transmit(env, sl->buf, &h);
    if (!pr->rto_on) {
        rto_restart(st, env, pi);
    }
}

/* Go-back-N: every unacknowledged packet to pi again, oldest first. */
static void go_back(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    gbn_peer_t *pr = peer_at(st, pi);
    lci_counters_t *c = env->ops->counters(env);
    for (uint32_t s = pr->out.head; s != GBN_NIL; s = slot_at(st, s)->next) {
        gbn_slot_t *sl = slot_at(st, s);
        lci_wire_hdr_t h = sl->hdr;
        /* The last of the burst asks for an ack: recovery ends as soon as
         * the receiver has it, not after its delayed-ack timer. */
        if (sl->next == GBN_NIL) {
            h.flags = (uint8_t)(h.flags | LCI_HF_ACKREQ);
        }
        stamp(st, env, pi, &h);
        env->ops->charge(env, LCI_COST_REL_SEND);
        env->ops->transmit(env, sl->buf, &h);
        c->retransmissions++;
    }
    if (pr->out.count > 0) {
        rto_restart(st, env, pi);
    }
}

/* Sends queued packets while the window to pi has room, in order. */
static void drain_blocked(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    gbn_peer_t *pr = peer_at(st, pi);
    while (pr->blocked.count > 0 && pr->out.count < st->window) {
        transmit_new(st, env, pi, q_pop(st, &pr->blocked));
    }
}

/* Drops the policy's reference to a finished packet and frees its slot. */
static void slot_done(gbn_state_t *st, lci_env_t *env, uint32_t s)
{
    env->ops->release(env, slot_at(st, s)->buf);
    slot_free(st, s);
}

/* A cumulative ack from pi: everything up to and including ack arrived. */
static void on_ack(gbn_state_t *st, lci_env_t *env, uint32_t pi,
                   lci_seq_t ack)
{
    gbn_peer_t *pr = peer_at(st, pi);
    if (pr->out.count == 0) {
        return;
    }
    lci_seq_t una = lci_seq_add(pr->next_seq, 0x10000u - pr->out.count);
    int32_t d = lci_seq_diff(una, ack);
    /* Old (duplicate) acks and nonsense beyond next_seq change nothing. */
    if (d < 0 || (uint32_t)d >= pr->out.count) {
        return;
    }
    for (int32_t i = 0; i <= d; i++) {
        slot_done(st, env, q_pop(st, &pr->out));
    }
    pr->retries = 0;
    if (pr->out.count > 0) {
        rto_restart(st, env, pi);
    } else {
        rto_stop(st, env, pi);
    }
    drain_blocked(st, env, pi);
}

/* Return-to-sender: pi is unreachable.  Unacknowledged packets bounce
 * first (they were sent first), then the queued ones, each in order. */
static void peer_down(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    gbn_peer_t *pr = peer_at(st, pi);
    rto_stop(st, env, pi);
    pr->down = 1;
    gbn_queue_t *qs[2] = {&pr->out, &pr->blocked};
    for (int k = 0; k < 2; k++) {
        while (qs[k]->count > 0) {
            uint32_t s = q_pop(st, qs[k]);
            env->ops->bounce(env, slot_at(st, s)->buf, &slot_at(st, s)->hdr,
                             LCI_ERR_UNREACHABLE);
            slot_done(st, env, s);
        }
    }
}

static void rto_expired(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    gbn_peer_t *pr = peer_at(st, pi);
    pr->rto_on = 0;
    if (pr->out.count == 0 || pr->down) {
        return;
    }
    if (pr->retries >= st->p.max_retries) {
        peer_down(st, env, pi);
        return;
    }
    pr->retries++;
    go_back(st, env, pi);
}

static void ack_expired(gbn_state_t *st, lci_env_t *env, uint32_t pi)
{
    gbn_peer_t *pr = peer_at(st, pi);
    pr->ack_on = 0;
    if (pr->unacked > 0) {
        send_control(st, env, pi, LCI_PKT_CREDIT);
    }
}

/* ---- the ops ----------------------------------------------------------- */

static uint32_t gbn_nslots(const lci_rx_params_t *p)
{
    return LCI_BUF_MAX_SENDS * p->nbufs;
}

static size_t gbn_state_size(const lci_rx_params_t *p)
{
    return align8(sizeof(gbn_state_t)) +
           align8((size_t)p->nnodes * sizeof(gbn_peer_t)) +
           (size_t)gbn_nslots(p) * sizeof(gbn_slot_t);
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
    st->window = p->window == 0 ? 1 : p->window;
    if (st->window > GBN_WINDOW_MAX) {
        st->window = GBN_WINDOW_MAX;
    }
    st->half = st->window / 2 ? st->window / 2 : 1;
    st->free_head = GBN_NIL;
    st->nslots = gbn_nslots(p);
    for (uint32_t i = st->nslots; i > 0; i--) {
        slot_free(st, i - 1);
    }
    for (uint32_t i = 0; i < p->nnodes; i++) {
        q_init(&peer_at(st, i)->out);
        q_init(&peer_at(st, i)->blocked);
    }
}

static void gbn_send(void *state, lci_env_t *env, uint32_t buf,
                     const lci_wire_hdr_t *hdr)
{
    gbn_state_t *st = state;
    uint32_t pi = hdr->dst;
    if (pi >= st->p.nnodes) {
        env->ops->fail(env, LCI_FW_BAD_COMMAND, pi, st->p.nnodes);
        env->ops->release(env, buf);
        return;
    }
    gbn_peer_t *pr = peer_at(st, pi);
    if (lci_pkt_is_control(hdr->type)) {
        /* Header-only control packets are never sequenced nor kept. */
        lci_wire_hdr_t h = *hdr;
        stamp(st, env, pi, &h);
        env->ops->transmit(env, buf, &h);
        if (buf != LCI_BUF_NONE) {
            env->ops->release(env, buf);
        }
        return;
    }
    if (pr->down) {
        env->ops->bounce(env, buf, hdr, LCI_ERR_UNREACHABLE);
        env->ops->release(env, buf);
        return;
    }
    uint32_t s = slot_alloc(st);
    if (s == GBN_NIL) {
        /* More packets kept than the side's buffers can be queued for:
         * a buffer was posted more often than LCI_BUF_MAX_SENDS allows. */
        env->ops->fail(env, LCI_FW_QUEUE_FULL, LCI_NI_Q_SEND, st->nslots);
        env->ops->release(env, buf);
        return;
    }
    gbn_slot_t *sl = slot_at(st, s);
    sl->buf = buf;
    sl->hdr = *hdr;
    sl->hdr.seq = 0;
    /* FIFO: nothing overtakes a packet already waiting for this peer. */
    if (pr->blocked.count > 0 || pr->out.count >= st->window) {
        env->ops->counters(env)->window_stalls++;
        q_push(st, &pr->blocked, s);
        return;
    }
    transmit_new(st, env, pi, s);
}

static int gbn_accept(void *state, lci_env_t *env, uint32_t buf,
                      const lci_wire_hdr_t *hdr, uint32_t hw_status)
{
    gbn_state_t *st = state;
    lci_counters_t *c = env->ops->counters(env);
    /* A damaged packet: no field of it can be trusted, not even the ack. */
    if (hw_status == LCI_HW_CRC) {
        c->drops_crc++;
        return 0;
    }
    /* LCI_HW_SEQ_GAP / LCI_HW_SEQ_DUP are the link's own view; our
     * sequence numbers decide. */
    uint32_t pi = hdr->hop_src;
    if (pi >= st->p.nnodes || hdr->type == 0 ||
        hdr->type >= LCI_PKT_TYPE_MAX) {
        c->drops_malformed++;
        return 0;
    }
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
        if (!pr->down) {
            go_back(st, env, pi);
        }
        return 0;
    }
    if (buf == LCI_BUF_NONE) {
        c->drops_nobuf++;
        pr->nack_owed = 1;
        pr->gap_nacked = 1; /* the NACK owed covers the gap this leaves */
        return 0;
    }
    env->ops->charge(env, LCI_COST_REL_RECV);
    int32_t d = lci_seq_diff(pr->expected, hdr->seq);
    if (d == 0) {
        pr->expected = lci_seq_add(pr->expected, 1);
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
    if (n == 0) {
        return;
    }
    /* Receive buffers are shared by all senders: a free one is a chance
     * for every sender we turned away.  The freed buffer's sender first. */
    uint32_t first = peer < n ? peer : 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t pi = (first + k) % n;
        gbn_peer_t *pr = peer_at(st, pi);
        if (pr->nack_owed) {
            pr->nack_owed = 0;
            send_control(st, env, pi, LCI_PKT_NACK);
        }
    }
}

static uint32_t gbn_pending(const void *state)
{
    gbn_state_t *st = (gbn_state_t *)state;
    uint32_t n = 0;
    for (uint32_t i = 0; i < st->p.nnodes; i++) {
        const gbn_peer_t *pr = peer_at(st, i);
        n += pr->out.count + pr->blocked.count;
    }
    return n;
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
            .timer = gbn_timer,
            .pending = gbn_pending,
        },
};
