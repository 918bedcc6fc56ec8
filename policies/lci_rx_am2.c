/*
 * lci_rx_am2.c - AM-II's virtual-network transport (Chun, Mainwaring and
 * Culler, "Virtual Network Transport Protocols for Myrinet", Hot
 * Interconnects 1997) as an rx module in the NI firmware.
 *
 *   - endpoints and residency: the NI holds params.frames endpoints at a
 *     time; the others live in host memory.  A packet for an endpoint that
 *     is not resident, or one sent from such an endpoint, is an endpoint
 *     fault: the endpoint is paged into a frame (the least recently used
 *     one is paged out), which takes params.fault_ns.  Arrivals meanwhile
 *     are NACKed; sends from it wait.  The default endpoint 0 carries the
 *     library's own traffic (barriers, fetch-and-add) and stays resident;
 *   - sequence numbers per logical channel, a channel being the pair
 *     (peer node, destination endpoint): FIFO holds per channel, and a
 *     fault on one endpoint does not stop the others' traffic;
 *   - every data packet that lands is acknowledged by itself (ACK, no
 *     piggybacking, as in the paper); a packet that cannot land, for a
 *     non-resident endpoint or for want of a buffer, is NACKed, which
 *     tells the sender the receiver is alive (its retry count restarts);
 *   - one retransmission mechanism for everything: the sender's timeout
 *     sends every unacknowledged packet to the peer again; after
 *     max_retries (255) timeouts without an ACK or NACK the packets
 *     return to their sender.
 * The per-peer window (params.window) bounds the packets in flight, as
 * AM-II's channel count per destination NIC does.  Only the NI placement
 * is offered: on the host every endpoint is in host memory, so residency,
 * the point of the protocol, does not arise.
 *
 * Wire use: data carries seq = the channel's sequence number and ep =
 * the destination endpoint; an ACK (LCI_PKT_CREDIT) or NACK
 * (LCI_PKT_NACK) names the packet by the same ep and seq.
 *
 * State layout (state_size() bytes, no pointers):
 *   am_state_t, am_frame_t[frames], lci_rx_sender_t[nnodes],
 *   uint16_t send_seq[nnodes][AM_EPS], uint16_t recv_seq[nnodes][AM_EPS],
 *   lci_slot_t[LCI_BUF_MAX_SENDS * nbufs]
 * Timers: id p < nnodes is peer p's retransmission timer; nnodes + f the
 * end of frame f's page-in.
 */
#include <string.h>

#include "lci_policy.h"
#include "lci_rx_window.h"
#include "lci_seq.h"

/* Endpoints per node whose channels the NI keeps sequence numbers for. */
#define AM_EPS 128u

enum {
    FRAME_FREE = 0,
    FRAME_LOADING = 1,
    FRAME_RESIDENT = 2
};

typedef struct {
    uint16_t ep;
    uint16_t state; /* FRAME_* */
    uint32_t reserved;
    uint64_t last_use; /* for least-recently-used replacement */
} am_frame_t;

typedef struct {
    lci_rx_params_t p;
    uint32_t window;
    uint32_t nframes;
    uint32_t free_head;
    uint32_t nslots;
    uint64_t uses; /* a counter that orders frame uses */
} am_state_t;

static size_t align8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

static uint32_t frames_of(const lci_rx_params_t *p)
{
    return p->frames == 0 ? 1 : p->frames;
}

static size_t off_frames(void)
{
    return align8(sizeof(am_state_t));
}

static size_t off_senders(const lci_rx_params_t *p)
{
    return off_frames() + align8((size_t)frames_of(p) * sizeof(am_frame_t));
}

static size_t off_send_seq(const lci_rx_params_t *p)
{
    return off_senders(p) + align8((size_t)p->nnodes * sizeof(lci_rx_sender_t));
}

static size_t off_recv_seq(const lci_rx_params_t *p)
{
    return off_send_seq(p) + align8((size_t)p->nnodes * AM_EPS * 2);
}

static size_t off_slots(const lci_rx_params_t *p)
{
    return off_recv_seq(p) + align8((size_t)p->nnodes * AM_EPS * 2);
}

static am_frame_t *frame_at(am_state_t *st, uint32_t f)
{
    return (am_frame_t *)((char *)st + off_frames()) + f;
}

static lci_rx_sender_t *sender_at(am_state_t *st, uint32_t pi)
{
    return (lci_rx_sender_t *)((char *)st + off_senders(&st->p)) + pi;
}

static uint16_t *send_seq(am_state_t *st, uint32_t pi, uint32_t ep)
{
    return (uint16_t *)((char *)st + off_send_seq(&st->p)) + pi * AM_EPS + ep;
}

static uint16_t *recv_seq(am_state_t *st, uint32_t pi, uint32_t ep)
{
    return (uint16_t *)((char *)st + off_recv_seq(&st->p)) + pi * AM_EPS + ep;
}

static lci_slot_t *slots_of(am_state_t *st)
{
    return (lci_slot_t *)((char *)st + off_slots(&st->p));
}

/* ---- endpoint frames ------------------------------------------------- */

/* The frame holding ep (resident or on its way in), or -1. */
static int frame_of(am_state_t *st, uint16_t ep)
{
    for (uint32_t f = 0; f < st->nframes; f++) {
        if (frame_at(st, f)->state != FRAME_FREE && frame_at(st, f)->ep == ep) {
            return (int)f;
        }
    }
    return -1;
}

static int resident(am_state_t *st, uint16_t ep)
{
    int f = frame_of(st, ep);
    if (f < 0 || frame_at(st, (uint32_t)f)->state != FRAME_RESIDENT) {
        return 0;
    }
    frame_at(st, (uint32_t)f)->last_use = ++st->uses;
    return 1;
}

/* An endpoint fault: pages ep in, into a free frame or over the least
 * recently used resident one (never endpoint 0's).  With every frame on
 * its way in, nothing is done: the fault happens again on the next try. */
static void fault(am_state_t *st, lci_env_t *env, uint16_t ep)
{
    if (frame_of(st, ep) >= 0) {
        return; /* resident, or already coming in */
    }
    int victim = -1;
    for (uint32_t f = 0; f < st->nframes; f++) {
        am_frame_t *fr = frame_at(st, f);
        if (fr->state == FRAME_FREE) {
            victim = (int)f;
            break;
        }
        if (fr->state == FRAME_RESIDENT && fr->ep != 0 &&
            (victim < 0 ||
             fr->last_use < frame_at(st, (uint32_t)victim)->last_use)) {
            victim = (int)f;
        }
    }
    if (victim < 0) {
        return;
    }
    am_frame_t *fr = frame_at(st, (uint32_t)victim);
    fr->ep = ep;
    fr->state = FRAME_LOADING;
    env->ops->counters(env)->ep_faults++;
    env->ops->timer_start(env, st->p.nnodes + (uint32_t)victim,
                          env->ops->now(env) + st->p.fault_ns);
}

/* ---- sending ----------------------------------------------------------- */

/* A kept packet onto the wire (again): no ack rides on it. */
static void transmit(lci_env_t *env, const lci_slot_t *sl)
{
    lci_wire_hdr_t h = sl->hdr;
    h.hop_src = (uint16_t)env->node;
    h.flags = (uint8_t)(h.flags & ~LCI_HF_ACK);
    env->ops->charge(env, LCI_COST_REL_SEND);
    env->ops->transmit(env, sl->buf, &h);
}

static void transmit_new(am_state_t *st, lci_env_t *env, uint32_t pi,
                         uint32_t s)
{
    lci_rx_sender_t *tx = sender_at(st, pi);
    lci_slot_t *sl = &slots_of(st)[s];
    uint16_t *seq = send_seq(st, pi, sl->hdr.ep);
    sl->hdr.seq = *seq;
    *seq = lci_seq_add(*seq, 1);
    lci_slotq_push(slots_of(st), &tx->out, s);
    transmit(env, sl);
    if (!tx->rto_on) {
        lci_rx_rto_start(env, pi, tx, st->p.rto_ns);
    }
}

/* Sends what waits for pi while the window has room and the sending
 * endpoint is resident (in order: a faulting endpoint holds the rest). */
static void drain(am_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_sender_t *tx = sender_at(st, pi);
    lci_slot_t *slots = slots_of(st);
    while (tx->blocked.count > 0 && tx->out.count < st->window) {
        uint16_t from = slots[tx->blocked.head].hdr.src_ep;
        if (!resident(st, from)) {
            fault(st, env, from);
            return;
        }
        transmit_new(st, env, pi, lci_slotq_pop(slots, &tx->blocked));
    }
}

/* The ACK of the packet to pi on channel ep with sequence number seq. */
static void on_ack(am_state_t *st, lci_env_t *env, uint32_t pi, uint16_t ep,
                   uint16_t seq)
{
    lci_rx_sender_t *tx = sender_at(st, pi);
    lci_slot_t *slots = slots_of(st);
    for (uint32_t k = tx->out.head; k != LCI_SLOT_NIL; k = slots[k].next) {
        if (slots[k].hdr.ep == ep && slots[k].hdr.seq == seq) {
            lci_slotq_remove(slots, &tx->out, k);
            env->ops->release(env, slots[k].buf);
            lci_slot_free(slots, &st->free_head, k);
            lci_rx_progress(env, pi, tx, st->p.rto_ns);
            drain(st, env, pi);
            return;
        }
    }
    /* A late or repeated ACK: nothing left to free. */
}

static void rto_expired(am_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_sender_t *tx = sender_at(st, pi);
    tx->rto_on = 0;
    if (tx->out.count == 0 || tx->down) {
        return;
    }
    if (tx->retries >= st->p.max_retries) {
        lci_rx_bounce_all(env, slots_of(st), &st->free_head, tx);
        return;
    }
    tx->retries++;
    lci_slot_t *slots = slots_of(st);
    for (uint32_t k = tx->out.head; k != LCI_SLOT_NIL; k = slots[k].next) {
        transmit(env, &slots[k]);
        env->ops->counters(env)->retransmissions++;
    }
    lci_rx_rto_start(env, pi, tx, st->p.rto_ns);
}

/* ---- receiving ---------------------------------------------------------- */

/* An ACK or a NACK of packet (ep, seq) back to pi. */
static void answer(lci_env_t *env, uint32_t pi, uint8_t type, uint16_t ep,
                   uint16_t seq)
{
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.type = type;
    h.dst = (uint16_t)pi;
    h.origin = (uint16_t)env->node;
    h.hop_src = (uint16_t)env->node;
    h.ep = ep;
    h.seq = seq;
    env->ops->transmit(env, LCI_BUF_NONE, &h);
    if (type == LCI_PKT_NACK) {
        env->ops->counters(env)->pkts_sent_nack++;
    } else {
        env->ops->counters(env)->pkts_sent_ack++;
    }
}

/* ---- the ops ----------------------------------------------------------- */

static size_t am_state_size(const lci_rx_params_t *p)
{
    return off_slots(p) + (size_t)lci_rx_nslots(p) * sizeof(lci_slot_t);
}

static uint32_t am_timers(const lci_rx_params_t *p)
{
    return p->nnodes + frames_of(p);
}

static void am_init(void *state, const lci_rx_params_t *p)
{
    am_state_t *st = state;
    memset(state, 0, am_state_size(p));
    st->p = *p;
    st->window = lci_rx_window_of(p);
    st->nframes = frames_of(p);
    st->nslots = lci_rx_nslots(p);
    lci_slots_init(slots_of(st), &st->free_head, st->nslots);
    for (uint32_t i = 0; i < p->nnodes; i++) {
        lci_rx_sender_init(sender_at(st, i));
    }
    /* The default endpoint starts resident and stays so. */
    *frame_at(st, 0) = (am_frame_t){.ep = 0, .state = FRAME_RESIDENT};
}

static void am_send(void *state, lci_env_t *env, uint32_t buf,
                    lci_wire_hdr_t *hdr)
{
    am_state_t *st = state;
    uint32_t pi = hdr->dst;
    if (lci_rx_bad_dst(env, buf, pi, st->p.nnodes)) {
        return;
    }
    if (hdr->ep >= AM_EPS || hdr->src_ep >= AM_EPS) {
        /* A channel the NI keeps no sequence numbers for. */
        env->ops->bounce(env, buf, hdr, LCI_ERR_UNSUPPORTED);
        env->ops->release(env, buf);
        return;
    }
    lci_rx_sender_t *tx = sender_at(st, pi);
    lci_rx_receiver_t none = {0};
    uint32_t s = lci_rx_admit(env, slots_of(st), &st->free_head, st->nslots, tx,
                              &none, UINT32_MAX, buf, hdr);
    if (s == LCI_SLOT_NIL) {
        return;
    }
    if (tx->blocked.count > 0 || tx->out.count >= st->window ||
        !resident(st, hdr->src_ep)) {
        if (tx->out.count >= st->window) {
            env->ops->counters(env)->window_stalls++;
        }
        lci_slotq_push(slots_of(st), &tx->blocked, s);
        drain(st, env, pi); /* faults the sending endpoint if need be */
        return;
    }
    transmit_new(st, env, pi, s);
}

static int am_accept(void *state, lci_env_t *env, uint32_t buf,
                     const lci_wire_hdr_t *hdr, uint32_t hw_status)
{
    am_state_t *st = state;
    lci_counters_t *c = env->ops->counters(env);
    /* Dropped, damaged or not: the sender's timeout recovers. */
    if (!lci_rx_usable(env, hdr, hw_status, st->p.nnodes,
                       1u << LCI_PKT_ROUTE)) {
        return 0;
    }
    uint32_t pi = hdr->hop_src;
    if (hdr->ep >= AM_EPS) {
        c->drops_malformed++;
        return 0;
    }
    if (hdr->type == LCI_PKT_CREDIT) {
        env->ops->charge(env, LCI_COST_ACK);
        on_ack(st, env, pi, hdr->ep, hdr->seq);
        return 0;
    }
    if (hdr->type == LCI_PKT_NACK) {
        env->ops->charge(env, LCI_COST_ACK);
        sender_at(st, pi)->retries = 0; /* alive: keep trying */
        return 0;
    }
    env->ops->charge(env, LCI_COST_REL_RECV);
    if (buf == LCI_BUF_NONE) {
        c->drops_nobuf++;
        answer(env, pi, LCI_PKT_NACK, hdr->ep, hdr->seq);
        return 0;
    }
    if (!resident(st, hdr->ep)) {
        fault(st, env, hdr->ep);
        answer(env, pi, LCI_PKT_NACK, hdr->ep, hdr->seq);
        return 0;
    }
    uint16_t *expected = recv_seq(st, pi, hdr->ep);
    int32_t d = lci_seq_diff(*expected, hdr->seq);
    if (d == 0) {
        *expected = lci_seq_add(*expected, 1);
        answer(env, pi, LCI_PKT_CREDIT, hdr->ep, hdr->seq);
        return 1;
    }
    c->drops_seq++;
    /* Landed before (its ACK was lost): ACK again.  After a gap on the
     * channel: NACK, the timeout resends the gap and this. */
    answer(env, pi, d < 0 ? LCI_PKT_CREDIT : LCI_PKT_NACK, hdr->ep, hdr->seq);
    return 0;
}

static void am_timer(void *state, lci_env_t *env, uint32_t id)
{
    am_state_t *st = state;
    uint32_t n = st->p.nnodes;
    env->ops->charge(env, LCI_COST_TIMER);
    if (id < n) {
        rto_expired(st, env, id);
        return;
    }
    if (id - n >= st->nframes) {
        return;
    }
    /* A page-in finished: the endpoint is resident; sends that waited for
     * it go. */
    am_frame_t *fr = frame_at(st, id - n);
    fr->state = FRAME_RESIDENT;
    fr->last_use = ++st->uses;
    for (uint32_t pi = 0; pi < n; pi++) {
        drain(st, env, pi);
    }
}

static uint32_t am_pending(const void *state)
{
    am_state_t *st = (am_state_t *)state;
    uint32_t n = 0;
    for (uint32_t i = 0; i < st->p.nnodes; i++) {
        n += sender_at(st, i)->out.count + sender_at(st, i)->blocked.count;
    }
    return n;
}

const lci_rx_component_t lci_rx_am2_component = {
    .name = "am2",
    .description = "AM-II: endpoints paged into a few NI frames on demand, "
                   "sequence numbers per channel, an ACK or NACK per packet, "
                   "return-to-sender after 255 retries",
    .abi = LCI_POLICY_ABI,
    .ops =
        {
            .state_size = am_state_size,
            .timers = am_timers,
            .init = am_init,
            .send = am_send,
            .accept = am_accept,
            .released = lci_rx_released_ignored, /* NACKed: a timeout */
            .handled = lci_rx_handled_ignored,
            .timer = am_timer,
            .pending = am_pending,
        },
};
