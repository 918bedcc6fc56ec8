/*
 * lci_rx_ssam.c - SSAM's reliability (von Eicken, Avula, Basu and Buch,
 * "Low-Latency Communication over ATM Networks Using Active Messages",
 * IEEE Micro, 1995) as an rx module.  SSAM runs wholly in the host library
 * over an ATM network that may lose cells; its active messages come in
 * request/reply pairs.
 *
 *   - a sliding window of W packets per pair of nodes (the buffers SSAM
 *     sets aside for each peer); a packet is kept until acknowledged;
 *   - the reply doubles as the request's acknowledgement: every packet
 *     carries the cumulative ack of the other direction, and a receiver
 *     acknowledges explicitly only when the handler of a packet returned
 *     without sending anything back to its sender (handled());
 *   - so a full window waits for replies or for the handlers to finish,
 *     never for a timer;
 *   - losses are recovered by the sender's timeout: the receiver keeps
 *     nothing out of order, so everything unacknowledged goes again; there
 *     are no NACKs;
 *   - after max_retries timeouts the packets return to their sender.
 *
 * Placement: the host (rxh-mh-ssam).  On the NI, handled() comes when a
 * packet is passed to the host, before any handler ran: the NI cannot wait
 * for a reply it knows nothing of, so reply-as-ack would become an ack per
 * packet, and that placement is not offered.
 *
 * State layout (state_size() bytes, no pointers):
 *   ssam_state_t, ssam_peer_t[nnodes], lci_slot_t[LCI_BUF_MAX_SENDS * nbufs]
 * Timers: id p is peer p's retransmission timer.
 */
#include <stddef.h>
#include <string.h>

#include "lci_policy.h"
#include "lci_rx_window.h"
#include "lci_seq.h"

typedef struct {
    lci_rx_sender_t tx;
    lci_rx_receiver_t rx;
} ssam_peer_t;
_Static_assert(offsetof(ssam_peer_t, tx) == 0,
               "lci_rx_pending needs the sender first");

typedef struct {
    lci_rx_params_t p;
    uint32_t window;    /* p.window clamped to 1..LCI_RX_WINDOW_MAX */
    uint32_t free_head; /* free slots */
    uint32_t nslots;
} ssam_state_t;

static ssam_peer_t *peer_at(ssam_state_t *st, uint32_t i)
{
    return (ssam_peer_t *)lci_rx_peers(st, sizeof(*st)) + i;
}

static lci_slot_t *slots_of(ssam_state_t *st)
{
    return lci_rx_slots(st, sizeof(*st), st->p.nnodes, sizeof(ssam_peer_t));
}

/* The delayed-ack timer id lci_rx_stamp() would cancel: SSAM never arms
 * one, so it names no timer. */
static uint32_t no_ack_timer(const ssam_state_t *st, uint32_t pi)
{
    return st->p.nnodes + pi;
}

static void stamp(ssam_state_t *st, lci_env_t *env, uint32_t pi,
                  lci_wire_hdr_t *h)
{
    lci_rx_stamp(env, &peer_at(st, pi)->rx, no_ack_timer(st, pi), h);
}

/* An explicit acknowledgement: a reply with nothing in it. */
static void send_ack(ssam_state_t *st, lci_env_t *env, uint32_t pi)
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

/* ---- sender side ------------------------------------------------------ */

static void rto_restart(ssam_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_rto_start(env, pi, &peer_at(st, pi)->tx, st->p.rto_ns);
}

static void transmit_new(ssam_state_t *st, lci_env_t *env, uint32_t pi,
                         uint32_t s)
{
    ssam_peer_t *pr = peer_at(st, pi);
    lci_rx_transmit_new(env, slots_of(st), s, &pr->tx, &pr->rx,
                        no_ack_timer(st, pi), 0, pi, st->p.rto_ns);
}

static void drain_blocked(ssam_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_sender_t *tx = &peer_at(st, pi)->tx;
    while (tx->blocked.count > 0 && tx->out.count < st->window) {
        transmit_new(st, env, pi, lci_slotq_pop(slots_of(st), &tx->blocked));
    }
}

static void on_ack(ssam_state_t *st, lci_env_t *env, uint32_t pi, lci_seq_t ack)
{
    lci_rx_sender_t *tx = &peer_at(st, pi)->tx;
    if (lci_rx_take_acked(env, slots_of(st), &st->free_head, tx, ack) == 0) {
        return;
    }
    lci_rx_progress(env, pi, tx, st->p.rto_ns);
    drain_blocked(st, env, pi);
}

static void rto_expired(ssam_state_t *st, lci_env_t *env, uint32_t pi)
{
    ssam_peer_t *pr = peer_at(st, pi);
    pr->tx.rto_on = 0;
    if (pr->tx.out.count == 0 || pr->tx.down) {
        return;
    }
    if (pr->tx.retries >= st->p.max_retries) {
        lci_rx_bounce_all(env, slots_of(st), &st->free_head, &pr->tx);
        return;
    }
    pr->tx.retries++;
    lci_rx_resend_all(env, slots_of(st), &pr->tx, &pr->rx,
                      no_ack_timer(st, pi));
    rto_restart(st, env, pi);
}

/* ---- the ops ----------------------------------------------------------- */

static size_t ssam_state_size(const lci_rx_params_t *p)
{
    return lci_rx_state_size(sizeof(ssam_state_t), p->nnodes,
                             sizeof(ssam_peer_t), lci_rx_nslots(p));
}

static uint32_t ssam_timers(const lci_rx_params_t *p)
{
    return p->nnodes;
}

static void ssam_init(void *state, const lci_rx_params_t *p)
{
    ssam_state_t *st = state;
    memset(state, 0, ssam_state_size(p));
    st->p = *p;
    st->window = lci_rx_window_of(p);
    st->nslots = lci_rx_nslots(p);
    lci_rx_init_senders(slots_of(st), &st->free_head, st->nslots,
                        peer_at(st, 0), sizeof(ssam_peer_t), p->nnodes);
}

static void ssam_send(void *state, lci_env_t *env, uint32_t buf,
                      lci_wire_hdr_t *hdr)
{
    ssam_state_t *st = state;
    uint32_t pi = hdr->dst;
    if (lci_rx_bad_dst(env, buf, pi, st->p.nnodes)) {
        return;
    }
    ssam_peer_t *pr = peer_at(st, pi);
    uint32_t s = lci_rx_admit(env, slots_of(st), &st->free_head, st->nslots,
                              &pr->tx, &pr->rx, no_ack_timer(st, pi), buf, hdr);
    if (s == LCI_SLOT_NIL) {
        return;
    }
    if (!lci_rx_wait_turn(env, slots_of(st), &pr->tx, s, st->window)) {
        transmit_new(st, env, pi, s);
    }
}

static int ssam_accept(void *state, lci_env_t *env, uint32_t buf,
                       const lci_wire_hdr_t *hdr, uint32_t hw_status)
{
    ssam_state_t *st = state;
    lci_counters_t *c = env->ops->counters(env);
    /* NACKs and route probes belong to other protocols. */
    if (!lci_rx_usable(env, hdr, hw_status, st->p.nnodes,
                       1u << LCI_PKT_NACK | 1u << LCI_PKT_ROUTE)) {
        return 0;
    }
    uint32_t pi = hdr->hop_src;
    ssam_peer_t *pr = peer_at(st, pi);
    if (hdr->flags & LCI_HF_ACK) {
        env->ops->charge(env, LCI_COST_ACK);
        on_ack(st, env, pi, hdr->ack);
    }
    if (hdr->type == LCI_PKT_CREDIT) {
        return 0;
    }
    if (buf == LCI_BUF_NONE) {
        c->drops_nobuf++; /* the sender's timeout sends it again */
        return 0;
    }
    env->ops->charge(env, LCI_COST_REL_RECV);
    int32_t d = lci_seq_diff(pr->rx.expected, hdr->seq);
    if (d == 0) {
        pr->rx.expected = lci_seq_add(pr->rx.expected, 1);
        if (pr->rx.unacked < UINT16_MAX) {
            pr->rx.unacked++; /* acknowledged when its handler is done */
        }
        return 1;
    }
    c->drops_seq++;
    /* A duplicate means the ack was lost: say it again at once.  After a
     * gap the packet is dropped, answered only if its sender asks. */
    if (d < 0 || (hdr->flags & LCI_HF_ACKREQ)) {
        send_ack(st, env, pi);
    }
    return 0;
}

/* The handler returned: if it sent nothing back to the peer, the ack the
 * reply would have carried goes alone. */
static void ssam_handled(void *state, lci_env_t *env, uint32_t peer)
{
    ssam_state_t *st = state;
    if (peer < st->p.nnodes && peer_at(st, peer)->rx.unacked > 0) {
        send_ack(st, env, peer);
    }
}

static void ssam_timer(void *state, lci_env_t *env, uint32_t id)
{
    ssam_state_t *st = state;
    env->ops->charge(env, LCI_COST_TIMER);
    if (id < st->p.nnodes) {
        rto_expired(st, env, id);
    }
}

static uint32_t ssam_pending(const void *state)
{
    ssam_state_t *st = (ssam_state_t *)state;
    return lci_rx_pending(peer_at(st, 0), sizeof(ssam_peer_t), st->p.nnodes);
}

const lci_rx_component_t lci_rx_ssam_component = {
    .name = "ssam",
    .description = "SSAM: a window per pair, the reply as the request's "
                   "ack (an explicit ack only when the handler sent none), "
                   "timeouts without NACKs",
    .abi = LCI_POLICY_ABI,
    .ops =
        {
            .state_size = ssam_state_size,
            .timers = ssam_timers,
            .init = ssam_init,
            .send = ssam_send,
            .accept = ssam_accept,
            .released = lci_rx_released_ignored,
            .handled = ssam_handled,
            .timer = ssam_timer,
            .pending = ssam_pending,
        },
};
