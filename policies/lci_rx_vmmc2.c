/*
 * lci_rx_vmmc2.c - VMMC-2's firmware reliability (Bilas et al., Princeton
 * TR-581, sections 3-4), as an rx module: the NI keeps every sent packet
 * in its retransmission buffers until the receiving NI acknowledges it.
 * Written against lci_env.h like go-back-N, so it also runs on the host
 * (the paper rules that placement out because a host must copy or wait;
 * here it is measured instead).
 *
 * What makes it VMMC-2's and not go-back-N's (lci_rx_gbn.c):
 *   - acknowledgements: piggybacked on every packet to the peer, explicit
 *     after every VM_ACK_EVERY (the paper's six) unacknowledged arrivals,
 *     at once when the sender asks, and after the delayed-ack timeout
 *     ("timeouts handle boundary cases");
 *   - the sender asks for an acknowledgement (LCI_HF_ACKREQ) when its
 *     send buffers run low (fewer than a quarter free), or when the
 *     packets in flight to one peer reach the window: the paper's bound c
 *     on the distance between live sequence numbers;
 *   - no negative acknowledgements: a packet after a gap, or one the NI
 *     had no buffer for, is dropped and the sender's timeout resends it
 *     and everything after it;
 *   - on-demand routes: the first packet to a node waits while a probe
 *     (LCI_PKT_ROUTE) finds it; the answer, or any packet from that node,
 *     puts the route in the cache (a source route is reversible, so the
 *     receiver learns the way back too).  VM_REMAP_AFTER timeouts without
 *     progress make the route suspect: it is dropped and probed again,
 *     and the packets go again once it is found;
 *   - a node that never answers is declared unreachable after
 *     max_retries timeouts: its state and route are cleared and its
 *     packets return to their sender (the paper drops them and tells the
 *     user at the next send; return-to-sender tells the same, earlier).
 * Sequence numbers are 16 bits per pair, compared wrap-safely (the paper's
 * MoreRecent).
 *
 * State layout (state_size() bytes, no pointers):
 *   vm_state_t, vm_peer_t[nnodes], lci_slot_t[LCI_BUF_MAX_SENDS * nbufs]
 * Timers: id p is peer p's retransmission (or probe) timer, nnodes + p its
 * delayed-ack timer.
 */
#include <stddef.h>
#include <string.h>

#include "lci_policy.h"
#include "lci_rx_window.h"
#include "lci_seq.h"

/* The paper's default: an explicit acknowledgement every sixth packet. */
#define VM_ACK_EVERY 6u
/* Timeouts without progress after which a route is no longer trusted. */
#define VM_REMAP_AFTER 2u

enum {
    ROUTE_NONE = 0,
    ROUTE_PROBING = 1,
    ROUTE_OK = 2
};

typedef struct {
    lci_rx_sender_t tx;
    lci_rx_receiver_t rx;
    uint8_t route; /* ROUTE_*: the route cache entry */
} vm_peer_t;
_Static_assert(offsetof(vm_peer_t, tx) == 0,
               "lci_rx_pending needs the sender first");

typedef struct {
    lci_rx_params_t p;
    uint32_t window;    /* p.window clamped to 1..LCI_RX_WINDOW_MAX */
    uint32_t pool;      /* send buffers */
    uint32_t low_free;  /* ask for acks when fewer than this are free */
    uint32_t held;      /* packets awaiting an ack, to all peers */
    uint32_t free_head; /* free slots */
    uint32_t nslots;
} vm_state_t;

static vm_peer_t *peer_at(vm_state_t *st, uint32_t i)
{
    return (vm_peer_t *)lci_rx_peers(st, sizeof(*st)) + i;
}

static lci_slot_t *slots_of(vm_state_t *st)
{
    return lci_rx_slots(st, sizeof(*st), st->p.nnodes, sizeof(vm_peer_t));
}

/* ---- timers and control packets --------------------------------------- */

static void rto_restart(vm_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_rto_start(env, pi, &peer_at(st, pi)->tx, st->p.rto_ns);
}

static void rto_stop(vm_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_rto_stop(env, pi, &peer_at(st, pi)->tx);
}

/* The cumulative ack every packet to pi carries. */
static void stamp(vm_state_t *st, lci_env_t *env, uint32_t pi,
                  lci_wire_hdr_t *h)
{
    lci_rx_stamp(env, &peer_at(st, pi)->rx, st->p.nnodes + pi, h);
}

/* A header-only packet to pi: an explicit ack, or a route probe / answer
 * (aux). */
static void send_control(vm_state_t *st, lci_env_t *env, uint32_t pi,
                         uint8_t type, uint32_t aux)
{
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof(h));
    h.type = type;
    h.dst = (uint16_t)pi;
    h.origin = (uint16_t)env->node;
    h.aux = aux;
    stamp(st, env, pi, &h);
    env->ops->transmit(env, LCI_BUF_NONE, &h);
    if (type == LCI_PKT_ROUTE) {
        if (aux == LCI_ROUTE_PROBE) {
            env->ops->counters(env)->route_probes++;
        }
    } else {
        env->ops->counters(env)->pkts_sent_ack++;
    }
}

/* Looks the route to pi up: a probe, answered by pi itself. */
static void probe(vm_state_t *st, lci_env_t *env, uint32_t pi)
{
    peer_at(st, pi)->route = ROUTE_PROBING;
    send_control(st, env, pi, LCI_PKT_ROUTE, LCI_ROUTE_PROBE);
    rto_restart(st, env, pi);
}

/* A data packet from pi arrived in order: ack now or later. */
static void note_arrival(vm_state_t *st, lci_env_t *env, uint32_t pi,
                         int ackreq)
{
    lci_rx_receiver_t *rx = &peer_at(st, pi)->rx;
    if (rx->unacked < UINT16_MAX) {
        rx->unacked++;
    }
    if (ackreq || rx->unacked >= VM_ACK_EVERY) {
        send_control(st, env, pi, LCI_PKT_CREDIT, 0);
    } else if (!rx->ack_on) {
        env->ops->timer_start(env, st->p.nnodes + pi,
                              env->ops->now(env) + st->p.ack_delay_ns);
        rx->ack_on = 1;
    }
}

/* ---- sender side ------------------------------------------------------ */

static void transmit_new(vm_state_t *st, lci_env_t *env, uint32_t pi,
                         uint32_t s)
{
    vm_peer_t *pr = peer_at(st, pi);
    /* Buffers running low (overall, or for this peer): ask for an ack. */
    int ackreq = pr->tx.out.count + 1 >= st->window ||
                 st->held + 1 + st->low_free > st->pool;
    lci_rx_transmit_new(env, slots_of(st), s, &pr->tx, &pr->rx,
                        st->p.nnodes + pi, ackreq, pi, st->p.rto_ns);
    st->held++;
}

/* Every unacknowledged packet to pi again, oldest first. */
static void go_back(vm_state_t *st, lci_env_t *env, uint32_t pi)
{
    vm_peer_t *pr = peer_at(st, pi);
    lci_rx_resend_all(env, slots_of(st), &pr->tx, &pr->rx, st->p.nnodes + pi);
    if (pr->tx.out.count > 0) {
        rto_restart(st, env, pi);
    }
}

static void drain_blocked(vm_state_t *st, lci_env_t *env, uint32_t pi)
{
    vm_peer_t *pr = peer_at(st, pi);
    while (pr->route == ROUTE_OK && pr->tx.blocked.count > 0 &&
           pr->tx.out.count < st->window) {
        transmit_new(st, env, pi, lci_slotq_pop(slots_of(st), &pr->tx.blocked));
    }
}

/* A cumulative ack from pi.  While the route is being looked up the probe
 * owns the timer, and route_up() resumes sending. */
static void on_ack(vm_state_t *st, lci_env_t *env, uint32_t pi, lci_seq_t ack)
{
    vm_peer_t *pr = peer_at(st, pi);
    uint32_t n =
        lci_rx_take_acked(env, slots_of(st), &st->free_head, &pr->tx, ack);
    if (n == 0) {
        return;
    }
    st->held -= n;
    pr->tx.retries = 0;
    if (pr->route != ROUTE_OK) {
        return;
    }
    lci_rx_progress(env, pi, &pr->tx, st->p.rto_ns);
    drain_blocked(st, env, pi);
}

/* pi answered (a probe's answer, or any packet: the reverse of the route
 * it came by): the route is cached, and what waited for it goes. */
static void route_up(vm_state_t *st, lci_env_t *env, uint32_t pi)
{
    vm_peer_t *pr = peer_at(st, pi);
    uint8_t was = pr->route;
    pr->route = ROUTE_OK;
    if (was == ROUTE_PROBING) {
        rto_stop(st, env, pi);
        go_back(st, env, pi); /* a re-found route: resend what is unacked */
    }
    drain_blocked(st, env, pi);
}

/* pi is unreachable: its state and route are cleared and its packets go
 * back to their sender. */
static void peer_down(vm_state_t *st, lci_env_t *env, uint32_t pi)
{
    vm_peer_t *pr = peer_at(st, pi);
    rto_stop(st, env, pi);
    pr->route = ROUTE_NONE;
    st->held -= pr->tx.out.count;
    lci_rx_bounce_all(env, slots_of(st), &st->free_head, &pr->tx);
}

static void rto_expired(vm_state_t *st, lci_env_t *env, uint32_t pi)
{
    vm_peer_t *pr = peer_at(st, pi);
    pr->tx.rto_on = 0;
    if (pr->tx.down || (pr->route == ROUTE_OK && pr->tx.out.count == 0)) {
        return;
    }
    if (pr->tx.retries >= st->p.max_retries) {
        peer_down(st, env, pi);
        return;
    }
    pr->tx.retries++;
    if (pr->route != ROUTE_OK || pr->tx.retries >= VM_REMAP_AFTER) {
        probe(st, env, pi); /* no answer yet, or the route is suspect */
    } else {
        go_back(st, env, pi);
    }
}

static void ack_expired(vm_state_t *st, lci_env_t *env, uint32_t pi)
{
    lci_rx_receiver_t *rx = &peer_at(st, pi)->rx;
    rx->ack_on = 0;
    if (rx->unacked > 0) {
        send_control(st, env, pi, LCI_PKT_CREDIT, 0);
    }
}

/* ---- the ops ----------------------------------------------------------- */

static size_t vm_state_size(const lci_rx_params_t *p)
{
    return lci_rx_state_size(sizeof(vm_state_t), p->nnodes, sizeof(vm_peer_t),
                             lci_rx_nslots(p));
}

static uint32_t vm_timers(const lci_rx_params_t *p)
{
    return 2 * p->nnodes;
}

static void vm_init(void *state, const lci_rx_params_t *p)
{
    vm_state_t *st = state;
    memset(state, 0, vm_state_size(p));
    st->p = *p;
    st->window = lci_rx_window_of(p);
    st->pool = p->nsend > 0 && p->nsend <= p->nbufs ? p->nsend : p->nbufs;
    st->low_free = st->pool / 4;
    st->nslots = lci_rx_nslots(p);
    lci_rx_init_senders(slots_of(st), &st->free_head, st->nslots,
                        peer_at(st, 0), sizeof(vm_peer_t), p->nnodes);
}

static void vm_send(void *state, lci_env_t *env, uint32_t buf,
                    lci_wire_hdr_t *hdr)
{
    vm_state_t *st = state;
    uint32_t pi = hdr->dst;
    if (lci_rx_bad_dst(env, buf, pi, st->p.nnodes)) {
        return;
    }
    vm_peer_t *pr = peer_at(st, pi);
    uint32_t s = lci_rx_admit(env, slots_of(st), &st->free_head, st->nslots,
                              &pr->tx, &pr->rx, st->p.nnodes + pi, buf, hdr);
    if (s == LCI_SLOT_NIL) {
        return;
    }
    if (pr->route != ROUTE_OK || pr->tx.blocked.count > 0 ||
        pr->tx.out.count >= st->window) {
        if (pr->route == ROUTE_OK) {
            env->ops->counters(env)->window_stalls++;
        }
        lci_slotq_push(slots_of(st), &pr->tx.blocked, s);
        if (pr->route == ROUTE_NONE) {
            probe(st, env, pi); /* a route miss: the first packet to pi */
        }
        return;
    }
    transmit_new(st, env, pi, s);
}

static int vm_accept(void *state, lci_env_t *env, uint32_t buf,
                     const lci_wire_hdr_t *hdr, uint32_t hw_status)
{
    vm_state_t *st = state;
    lci_counters_t *c = env->ops->counters(env);
    /* VMMC-2 sends no NACKs: one on the wire is not ours. */
    if (!lci_rx_usable(env, hdr, hw_status, st->p.nnodes,
                       1u << LCI_PKT_NACK)) {
        return 0;
    }
    uint32_t pi = hdr->hop_src;
    vm_peer_t *pr = peer_at(st, pi);
    if (hdr->flags & LCI_HF_ACK) {
        env->ops->charge(env, LCI_COST_ACK);
        on_ack(st, env, pi, hdr->ack);
    }
    if (pr->route != ROUTE_OK && !pr->tx.down) {
        route_up(st, env, pi);
    }
    if (hdr->type == LCI_PKT_ROUTE) {
        env->ops->charge(env, LCI_COST_ACK);
        if (hdr->aux == LCI_ROUTE_PROBE) {
            send_control(st, env, pi, LCI_PKT_ROUTE, LCI_ROUTE_FOUND);
        }
        return 0;
    }
    if (hdr->type == LCI_PKT_CREDIT) {
        return 0;
    }
    if (buf == LCI_BUF_NONE) {
        c->drops_nobuf++; /* no NACK: the sender's timeout resends it */
        return 0;
    }
    env->ops->charge(env, LCI_COST_REL_RECV);
    int32_t d = lci_seq_diff(pr->rx.expected, hdr->seq);
    if (d == 0) {
        pr->rx.expected = lci_seq_add(pr->rx.expected, 1);
        note_arrival(st, env, pi, hdr->flags & LCI_HF_ACKREQ);
        return 1;
    }
    c->drops_seq++;
    /* A packet acknowledged before is acknowledged again; one after a gap
     * is dropped, answered only if its sender asks. */
    if (d < 0 || (hdr->flags & LCI_HF_ACKREQ)) {
        send_control(st, env, pi, LCI_PKT_CREDIT, 0);
    }
    return 0;
}

static uint32_t vm_pending(const void *state)
{
    vm_state_t *st = (vm_state_t *)state;
    return lci_rx_pending(peer_at(st, 0), sizeof(vm_peer_t), st->p.nnodes);
}

static void vm_timer(void *state, lci_env_t *env, uint32_t id)
{
    vm_state_t *st = state;
    uint32_t n = st->p.nnodes;
    env->ops->charge(env, LCI_COST_TIMER);
    if (id < n) {
        rto_expired(st, env, id);
    } else if (id < 2 * n) {
        ack_expired(st, env, id - n);
    }
}

const lci_rx_component_t lci_rx_vmmc2_component = {
    .name = "vmmc2",
    .description = "VMMC-2: NI retransmission buffers, an ack every 6 "
                   "packets or on request when buffers run low, no NACKs, "
                   "routes found on demand",
    .abi = LCI_POLICY_ABI,
    .ops =
        {
            .state_size = vm_state_size,
            .timers = vm_timers,
            .init = vm_init,
            .send = vm_send,
            .accept = vm_accept,
            .released = lci_rx_released_ignored,
            .handled = lci_rx_handled_ignored,
            .timer = vm_timer,
            .pending = vm_pending,
        },
};
