/*
 * lci_fw.c - the NI firmware's main loop: queues work from the hardware and
 * runs one work item at a time on the NI processor, charging its cost.
 */
#include <string.h>

#include "lci_decomp.h"
#include "lci_fw.h"
#include "lci_hw.h"
#include "lci_place.h"
#include "lci_platform.h"
#include "lci_sched.h"
#include "lci_timeline.h"
#include "lci_timer_wheel.h"

/* ---- services -------------------------------------------------------- */

void lci_fw_charge_ns(lci_ni_t *ni, const char *what, uint64_t n)
{
    uint64_t start = ni->now;
    ni->now += n;
    lci_timeline_span(ni->node, LCI_TRACK_NI, what, start, ni->now);
}

void lci_fw_fail(lci_ni_t *ni, uint32_t fault, uint32_t a, uint32_t b,
                 uint32_t c)
{
    if (ni->fault == LCI_FW_OK) {
        ni->fault = fault;
        ni->fault_a = a;
        ni->fault_b = b;
        ni->fault_c = c;
    }
}

static uint32_t ring_space(const lci_ni_t *ni)
{
    return ni->ni_ring_limit - ni->ni_ring_prod;
}

/* The host's word grows: a release taken in late never lowers it. */
static void ring_limit_raise(lci_ni_t *ni, uint32_t limit)
{
    if ((int32_t)(limit - ni->ni_ring_limit) > 0) {
        ni->ni_ring_limit = limit;
    }
}

/* Takes in the ring releases the host wrote that an event would have
 * delivered by now: those before the firmware's place in the order of
 * events (time, then seq). */
static void ring_log_take(lci_ni_t *ni)
{
    while (ni->ring_log_count > 0) {
        const lci_ring_release_t *r = &ni->ring_log[ni->ring_log_head];
        if (r->time > ni->run_time ||
            (r->time == ni->run_time && r->seq > ni->run_seq)) {
            return;
        }
        ring_limit_raise(ni, r->limit);
        ni->ring_log_head = (ni->ring_log_head + 1) % LCI_NI_RING_LOG;
        ni->ring_log_count--;
    }
}

/* The NI starts waiting for ring space: from now on each release the host
 * writes matters when it lands, as the doorbell event it would have been,
 * so the pending ones become those events, in their places. */
static void ring_log_to_events(lci_ni_t *ni)
{
    for (; ni->ring_log_count > 0; ni->ring_log_count--) {
        const lci_ring_release_t *r = &ni->ring_log[ni->ring_log_head];
        lci_platform->post_written(r->time, r->seq, LCI_EV_RING_UPDATE,
                                   ni->node, r->limit);
        ni->ring_log_head = (ni->ring_log_head + 1) % LCI_NI_RING_LOG;
    }
}

void lci_fw_deliver(lci_ni_t *ni, uint32_t buf)
{
    (*lci_ni_refcnt(ni, buf))++;
    if (ni->dma_wait.count == 0 && ring_space(ni) > 0) {
        lci_hw_host_dma(ni, ni->now, buf, ni->ni_ring_prod++);
        return;
    }
    if (ni->dma_wait.count == 0) {
        ring_log_to_events(ni);
    }
    if (lci_ni_fifo_push(ni, &ni->dma_wait, buf) != 0) {
        lci_fw_fail(ni, LCI_FW_QUEUE_FULL, LCI_NI_Q_HOST_DMA, ni->dma_wait.cap,
                    0);
    }
}

void lci_fw_send_buf_release(lci_ni_t *ni, uint32_t buf, uint64_t when)
{
    uint64_t *t = LCI_NI_AT(ni, ni->off_send_time, uint64_t) + buf;
    if (*t < when) {
        *t = when;
    }
    if (--*lci_ni_refcnt(ni, buf) > 0) {
        return;
    }
    if (lci_decomp_active->rx_place == LCI_PLACE_HOST) {
        *t = 0; /* the host keeps its send buffers for retransmission */
        return;
    }
    /* Back to the host as soon as its last transmission is done (RX_no
     * reuses send buffers right after transmission).  The entry carries
     * that time, so no event is needed; entries stay in time order. */
    uint64_t free_at = *t > ni->ni_free_last ? *t : ni->ni_free_last;
    *t = 0;
    lci_free_entry_t *e = lci_ni_free_entry(ni, ni->ni_free_prod);
    e->buf = buf;
    e->ni_time = free_at;
    ni->ni_free_last = free_at;
    ni->ni_free_prod++;
    lci_platform->wake(ni->node, free_at);
}

void lci_fw_buf_put(lci_ni_t *ni, uint64_t now, uint32_t buf)
{
    if (buf < ni->nsend) {
        lci_fw_send_buf_release(ni, buf, now);
        return;
    }
    if (--*lci_ni_refcnt(ni, buf) > 0) {
        return;
    }
    uint32_t peer = lci_ni_buf_hdr(ni, buf)->hop_src;
    lci_ni_fifo_push(ni, &ni->recv_free, buf);
    const lci_decomp_t *dc = lci_decomp_active;
    if (dc->rx_place == LCI_PLACE_NI) {
        lci_env_t env = lci_place_ni_env(ni);
        dc->rx->ops.released(lci_place_ni_rx_state(ni), &env, peer);
    }
}

/* ---- the arrival queue ------------------------------------------------ */

/* An arrival without a buffer that is a data packet from a known sender:
 * the note that the NI dropped it for lack of a receive buffer. */
static int is_drop_note(const lci_ni_t *ni, const lci_wire_hdr_t *hdr,
                        uint32_t buf, uint32_t status)
{
    return buf == LCI_NONE && status != LCI_HW_CRC &&
           !lci_pkt_is_control(hdr->type) && hdr->hop_src < ni->nnodes;
}

/* Decides whether an arrival without a buffer gets an entry.  Entries
 * holding a buffer always fit (the queue has one per receive buffer);
 * the others must not crowd them out, however fast they come.  A sender
 * needs one drop note at a time: the rx module learns from it that a NACK
 * is owed, and go-back-N resends everything from the first packet lost,
 * so further drops from the same sender are only counted.  Header-only
 * and damaged packets have a share of their own; beyond it they are
 * dropped, which a retransmitting rx module recovers from (a later ack
 * covers a lost one).  RX_no cannot lose a credit, but its credits bound
 * these packets within the share, so there an overflow is a bug. */
static int rxq_admit_bare(lci_ni_t *ni, const lci_wire_hdr_t *hdr,
                          uint32_t status)
{
    if (is_drop_note(ni, hdr, LCI_NONE, status)) {
        lci_ni_peer_t *peer = lci_ni_peer(ni, hdr->hop_src);
        if (peer->drop_noted) {
            ni->counters.drops_nobuf++;
            return 0;
        }
        peer->drop_noted = 1;
        ni->rxq_notes++;
        return 1;
    }
    if (ni->rxq_bare < ni->rxq_bare_cap) {
        ni->rxq_bare++;
        return 1;
    }
    if (!ni->rx_recovers) {
        lci_fw_fail(ni, LCI_FW_QUEUE_FULL, LCI_NI_Q_ARRIVAL, ni->rxq_cap, 0);
    } else if (status == LCI_HW_CRC) {
        ni->counters.drops_crc++;
    } else {
        ni->counters.drops_nobuf++;
    }
    return 0;
}

static lci_rxq_entry_t rxq_pop(lci_ni_t *ni)
{
    lci_rxq_entry_t e =
        LCI_NI_AT(ni, ni->rxq_off, lci_rxq_entry_t)[ni->rxq_head];
    ni->rxq_head = lci_ring_add(ni->rxq_head, 1, ni->rxq_cap);
    ni->rxq_count--;
    if (is_drop_note(ni, &e.hdr, e.buf, e.status)) {
        lci_ni_peer(ni, e.hdr.hop_src)->drop_noted = 0;
        ni->rxq_notes--;
    } else if (e.buf == LCI_NONE) {
        ni->rxq_bare--;
    }
    return e;
}

/* ---- the processor --------------------------------------------------- */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* The earliest time at which some work item is ready (LCI_TIME_NONE if
 * none): arrivals and freed buffers now, host DMAs when they complete,
 * host commands when they reach the NI.  Anything due before now is due
 * now to every caller (the processor is free from now at the earliest). */
static uint64_t next_work_time(const lci_ni_t *ni, uint64_t now)
{
    uint64_t t = LCI_TIME_NONE;
    if (ni->rxq_count || ni->tx_freed.count ||
        (ni->dma_wait.count && ring_space(ni) > 0)) {
        return now;
    }
    if (ni->dma_count) {
        const lci_ni_dma_t *d =
            LCI_NI_AT(ni, ni->dma_off, lci_ni_dma_t) + ni->dma_head;
        t = min_u64(t, d->time);
    }
    if (ni->ni_cmd_cons != ni->h_cmd_prod) {
        t = min_u64(t, lci_ni_cmd((lci_ni_t *)ni, ni->ni_cmd_cons)->h_time);
    }
    if (ni->ntimers > 0) {
        t = min_u64(t, lci_timer_wheel_next_expiry(LCI_NI_AT(
                           (lci_ni_t *)ni, ni->off_timers, lci_timer_wheel_t)));
    }
    return t;
}

/* Makes sure a FW_RUN event is pending for the next work item, ready at
 * t (next_work_time's answer at now). */
static void fw_schedule_at(lci_ni_t *ni, uint64_t t, uint64_t now)
{
    if (t == LCI_TIME_NONE) {
        return;
    }
    if (t < now) {
        t = now;
    }
    if (t < ni->cpu_free) {
        t = ni->cpu_free;
    }
    if (t >= ni->fw_sched_time) {
        return; /* an earlier run is pending: it will reschedule */
    }
    ni->fw_sched_time = t;
    lci_platform->post(t, LCI_EV_FW_RUN, ni->node, 0, 0);
}

static void fw_schedule(lci_ni_t *ni, uint64_t now)
{
    fw_schedule_at(ni, next_work_time(ni, now), now);
}

static void drain_dma_wait(lci_ni_t *ni)
{
    while (ni->dma_wait.count && ring_space(ni) > 0) {
        uint32_t buf = lci_ni_fifo_pop(ni, &ni->dma_wait);
        lci_hw_host_dma(ni, ni->now, buf, ni->ni_ring_prod++);
    }
}

/* Hands a packet to the rx module for the wire, with a reference to buf
 * for it; *hdr, the caller's own copy, is the module's to fill in. */
static void send_own(lci_ni_t *ni, uint32_t buf, lci_wire_hdr_t *hdr)
{
    (*lci_ni_refcnt(ni, buf))++;
    lci_env_t env = lci_place_ni_env(ni);
    lci_decomp_active->rx->ops.send(lci_place_ni_rx_state(ni), &env, buf, hdr);
}

void lci_fw_send(lci_ni_t *ni, uint32_t buf, const lci_wire_hdr_t *hdr)
{
    lci_wire_hdr_t h = *hdr;
    send_own(ni, buf, &h);
}

/* ---- rxh-mni: early copies of multicast packets ----------------------- */

/* With reliability on the host the NI keeps no rx state and cannot send a
 * packet of the host's streams: it forwards an unsequenced early copy,
 * ahead of the host's reliable one (doc/beyond.md). */
static void early_send(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr)
{
    lci_wire_hdr_t h = *hdr;
    h.flags = (uint8_t)((h.flags | LCI_HF_EARLY) &
                        ~(LCI_HF_ACK | LCI_HF_ACKREQ));
    h.seq = 0;
    h.ack = 0;
    h.credits = 0;
    env->ops->transmit(env, buf, &h);
}

/* Early copies of multicast packet buf (header hdr) to this node's tree
 * children. */
static void forward_early(lci_ni_t *ni, uint32_t buf, const lci_wire_hdr_t *hdr)
{
    const lci_ni_group_t *g =
        hdr->group < ni->ngroups ? lci_ni_group(ni, hdr->group) : NULL;
    if (g == NULL || g->nmembers == 0 || g->self < 0 ||
        lci_mcast_member(hdr->aux) >= g->nmembers) {
        ni->counters.drops_malformed++;
        return;
    }
    lci_env_t env = lci_place_ni_env(ni);
    lci_env_ops_t ops = *env.ops;
    ops.send = early_send;
    env.ops = &ops;
    lci_decomp_active->mc->ops.forward(&env, g, lci_ni_group_view(ni, g), buf,
                                       hdr);
}

/* Reliability on the host (RX_h): the NI drops what is damaged or has no
 * buffer, and hands everything else, acknowledgements included, up; with
 * multicast on the NI (rxh-mni) an early copy goes on to the children
 * first. */
static void handle_arrival_for_host(lci_ni_t *ni, const lci_rxq_entry_t *e)
{
    lci_fw_charge(ni, "rx", lci_prof()->ni_rx_ns);
    if (e->status == LCI_HW_CRC) {
        ni->counters.drops_crc++;
    } else if (e->buf == LCI_NONE) {
        ni->counters.drops_nobuf++;
    } else {
        if (e->hdr.type == LCI_PKT_MCAST && (e->hdr.flags & LCI_HF_EARLY) &&
            lci_decomp_active->mc_place == LCI_PLACE_NI) {
            forward_early(ni, e->buf, &e->hdr);
        }
        lci_fw_deliver(ni, e->buf);
    }
    if (e->buf != LCI_NONE) {
        lci_fw_buf_put(ni, ni->now, e->buf);
    }
}

/* An unordered rx (LCI_RX_UNORDERED) leaves FIFO order to the host,
 * which puts each neighbour's packets back in order by sequence number and
 * so must see every number the rx passed: a packet the NI served or
 * dropped after the rx passed it goes up all the same, header only. */
static void pass_up_seq_only(lci_ni_t *ni, uint32_t buf)
{
    if (!(lci_decomp_active->rx->flags & LCI_RX_UNORDERED) ||
        buf == LCI_NONE) {
        return;
    }
    /* An F&A reply goes from this buffer with a header of its own: only
     * the payload is shared, and the host takes none of it. */
    lci_wire_hdr_t *h = lci_ni_buf_hdr(ni, buf);
    h->flags = (uint8_t)(h->flags | LCI_HF_SEQ_ONLY);
    h->len = 0;
    lci_fw_deliver(ni, buf);
}

static void handle_arrival(lci_ni_t *ni, const lci_rxq_entry_t *e)
{
    const lci_decomp_t *dc = lci_decomp_active;
    if (dc->rx_place == LCI_PLACE_HOST) {
        handle_arrival_for_host(ni, e);
        return;
    }
    lci_fw_charge(ni, "rx", lci_prof()->ni_rx_ns);
    lci_env_t env = lci_place_ni_env(ni);
    uint32_t buf = e->buf;
    if (!dc->rx->ops.accept(lci_place_ni_rx_state(ni), &env,
                            buf == LCI_NONE ? LCI_BUF_NONE : buf, &e->hdr,
                            e->status)) {
        if (ni->rx_recovers && is_drop_note(ni, &e->hdr, buf, e->status) &&
            ni->recv_free.count > 0) {
            /* Buffers freed up while the note waited in the queue: the
             * sender may resend now, not after its timeout. */
            dc->rx->ops.released(lci_place_ni_rx_state(ni), &env,
                                 e->hdr.hop_src);
        }
        goto done; /* consumed or dropped by the policy */
    }
    int passed_up = 1;
    switch (e->hdr.type) {
    case LCI_PKT_DATA:
    case LCI_PKT_FA_REP:
        lci_fw_deliver(ni, buf);
        break;
    case LCI_PKT_MCAST: {
        const lci_ni_group_t *g = e->hdr.group < ni->ngroups
                                      ? lci_ni_group(ni, e->hdr.group)
                                      : NULL;
        if (g == NULL || g->nmembers == 0 || g->self < 0 ||
            lci_mcast_member(e->hdr.aux) >= g->nmembers) {
            ni->counters.drops_malformed++;
            passed_up = 0;
            break;
        }
        if (dc->mc_place == LCI_PLACE_NI) {
            dc->mc->ops.forward(&env, g, lci_ni_group_view(ni, g), buf,
                                &e->hdr);
        }
        lci_fw_deliver(ni, buf);
        break;
    }
    case LCI_PKT_FA_REQ:
        if (dc->fa_place == LCI_PLACE_NI) {
            dc->fa->ops.serve(ni, buf);
            passed_up = 0;
        } else {
            lci_fw_deliver(ni, buf);
        }
        break;
    default:
        ni->counters.drops_malformed++;
        pass_up_seq_only(ni, buf);
        goto done;
    }
    if (!passed_up) {
        pass_up_seq_only(ni, buf);
    }
    dc->rx->ops.handled(lci_place_ni_rx_state(ni), &env, e->hdr.hop_src);
done:
    if (buf != LCI_NONE) {
        lci_fw_buf_put(ni, ni->now, buf); /* the arrival's own reference */
    }
}

/* A packet the host's reliability module built: on the wire as it is. */
static void handle_raw(lci_ni_t *ni, const lci_cmd_t *cmd)
{
    if (cmd->dst >= ni->nnodes ||
        (cmd->buf != LCI_NONE && cmd->buf >= ni->nsend)) {
        ni->counters.drops_malformed++;
        return;
    }
    lci_wire_hdr_t hdr;
    memset(&hdr, 0, sizeof hdr);
    lci_cmd_get_hdr(cmd, &hdr);
    if (cmd->buf == LCI_NONE) {
        hdr.len = 0; /* a header-only packet */
    }
    lci_env_t env = lci_place_ni_env(ni);
    env.ops->transmit(&env, cmd->buf == LCI_NONE ? LCI_BUF_NONE : cmd->buf,
                      &hdr);
}

/* rxh-mni: the root host's multicast packet, early copies first. */
static void handle_early(lci_ni_t *ni, const lci_cmd_t *cmd)
{
    if (cmd->buf >= ni->nsend || cmd->len > ni->payload_max ||
        lci_decomp_active->mc_place != LCI_PLACE_NI) {
        ni->counters.drops_malformed++;
        return;
    }
    lci_wire_hdr_t hdr;
    memset(&hdr, 0, sizeof hdr);
    lci_cmd_get_hdr(cmd, &hdr);
    hdr.type = LCI_PKT_MCAST;
    hdr.origin = (uint16_t)ni->node;
    forward_early(ni, cmd->buf, &hdr);
}

static void handle_command(lci_ni_t *ni)
{
    const lci_decomp_t *dc = lci_decomp_active;
    /* Read where the host wrote it, each field once, not copied whole
     * first: the host posts into later slots meanwhile, never this one. */
    const lci_cmd_t *cmd = lci_ni_cmd(ni, ni->ni_cmd_cons++);
    uint32_t buf = cmd->buf;
    lci_fw_charge(ni, "cmd", lci_prof()->ni_cmd_ns);
    if (cmd->op == LCI_CMD_RAW) {
        handle_raw(ni, cmd);
        return;
    }
    if (cmd->op == LCI_CMD_EARLY) {
        handle_early(ni, cmd);
        return;
    }
    if (buf >= ni->nsend || cmd->len > ni->payload_max) {
        ni->counters.drops_malformed++;
        return;
    }
    lci_wire_hdr_t hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.len = cmd->len;
    hdr.flags = cmd->flags;
    hdr.origin = (uint16_t)ni->node;
    hdr.aux = cmd->aux;
    hdr.ep = cmd->ep;
    hdr.src_ep = cmd->src_ep;
    /* One reference per command posted for this buffer, taken when the
     * first one arrives so the buffer outlives the last. */
    *lci_ni_refcnt(ni, buf) += (uint8_t)cmd->shares;
    switch (cmd->op) {
    case LCI_CMD_SEND:
    case LCI_CMD_FA:
        if (cmd->dst >= ni->nnodes) {
            ni->counters.drops_malformed++;
            break;
        }
        hdr.type = cmd->op == LCI_CMD_SEND ? LCI_PKT_DATA : LCI_PKT_FA_REQ;
        hdr.dst = cmd->dst;
        send_own(ni, buf, &hdr);
        break;
    case LCI_CMD_MCAST: {
        const lci_ni_group_t *g =
            cmd->dst < ni->ngroups ? lci_ni_group(ni, cmd->dst) : NULL;
        if (g == NULL || g->nmembers == 0 || g->self < 0) {
            ni->counters.drops_malformed++;
            break;
        }
        hdr.type = LCI_PKT_MCAST;
        hdr.group = cmd->dst;
        hdr.aux = (uint32_t)g->self; /* the root's member index */
        lci_env_t env = lci_place_ni_env(ni);
        dc->mc->ops.forward(&env, g, lci_ni_group_view(ni, g), buf, &hdr);
        break;
    }
    case LCI_CMD_FWD:
        /* The host forwards (M_h): one transmission to one child. */
        if (cmd->dst >= ni->nnodes) {
            ni->counters.drops_malformed++;
            break;
        }
        lci_cmd_get_hdr(cmd, &hdr);
        hdr.type = LCI_PKT_MCAST;
        send_own(ni, buf, &hdr);
        break;
    default:
        ni->counters.drops_malformed++;
        break;
    }
    lci_fw_buf_put(ni, ni->now, buf);
}

/* A host DMA of buf finished: the NI posts the buffer back. */
static void host_dma_done(lci_ni_t *ni, uint32_t buf)
{
    lci_fw_charge(ni, "rx_post", lci_prof()->ni_rx_post_ns);
    lci_fw_buf_put(ni, ni->now, buf);
}

static void fire_timer(void *arg, unsigned id)
{
    lci_ni_t *ni = arg;
    lci_env_t env = lci_place_ni_env(ni);
    lci_decomp_active->rx->ops.timer(lci_place_ni_rx_state(ni), &env, id);
}

/* Runs one work item ready at ni->now; returns 0 if there was none. */
static int fw_step(lci_ni_t *ni)
{
    const lci_profile_t *p = lci_prof();
    ring_log_take(ni);
    drain_dma_wait(ni);
    if (ni->dma_count) {
        lci_ni_dma_t *d = LCI_NI_AT(ni, ni->dma_off, lci_ni_dma_t) + ni->dma_head;
        if (d->time <= ni->now) {
            uint32_t buf = d->buf;
            ni->dma_head = lci_ring_add(ni->dma_head, 1, ni->dma_cap);
            ni->dma_count--;
            host_dma_done(ni, buf);
            return 1;
        }
    }
    uint32_t buf = lci_ni_fifo_pop(ni, &ni->tx_freed);
    if (buf != LCI_NONE) {
        lci_fw_charge(ni, "credit", p->ni_credit_ns);
        lci_fw_buf_put(ni, ni->now, buf);
        return 1;
    }
    if (ni->rxq_count) {
        lci_rxq_entry_t e = rxq_pop(ni);
        handle_arrival(ni, &e);
        return 1;
    }
    if (ni->ni_cmd_cons != ni->h_cmd_prod &&
        lci_ni_cmd(ni, ni->ni_cmd_cons)->h_time <= ni->now) {
        handle_command(ni);
        return 1;
    }
    if (ni->ntimers > 0) {
        lci_timer_wheel_t *w = LCI_NI_AT(ni, ni->off_timers, lci_timer_wheel_t);
        if (lci_timer_wheel_next_expiry(w) <= ni->now) {
            lci_timer_wheel_advance(w, ni->now, fire_timer, ni);
            return 1;
        }
    }
    return 0;
}

/* Runs work items from time t on.  While the next item is ready before
 * any other pending event (and before any host can act), it runs at once:
 * the same order as posting an event for it, without the event. */
static void fw_run(lci_ni_t *ni, uint64_t t, uint64_t seq)
{
    ni->now = t; /* the processor is free by then (callers see to it) */
    ni->run_time = t;
    ni->run_seq = seq;
    ni->fw_running = 1;
    uint64_t next;
    for (;;) {
        uint64_t item_start = ni->now;
        int did = fw_step(ni);
        ni->counters.ni_busy_ns += ni->now - item_start;
        ni->cpu_free = ni->now;
        next = next_work_time(ni, ni->now); /* scheduled from, if we stop */
        if (!did || next == LCI_TIME_NONE) {
            break;
        }
        if (next < ni->cpu_free) {
            next = ni->cpu_free;
        }
        if (next >= ni->fw_sched_time || !lci_platform->can_run_now(next)) {
            break;
        }
        lci_platform->trace(next, LCI_EV_FW_RUN, ni->node);
        ni->now = next;
        /* Where an event for it would run: after everything at next. */
        ni->run_time = next;
        ni->run_seq = UINT64_MAX;
    }
    ni->fw_running = 0;
    fw_schedule_at(ni, next, ni->cpu_free);
}

/* Starts the processor, busy until at, on its next work there, without
 * posting an event for it, if no event and no host can come first: an
 * event for it would run next anyway.  Returns 0 if one must be posted. */
static int run_when_free(lci_ni_t *ni, uint64_t at)
{
    if (!lci_platform->can_run_now(at)) {
        return 0;
    }
    lci_platform->trace(at, LCI_EV_FW_RUN, ni->node);
    fw_run(ni, at, UINT64_MAX);
    return 1;
}

/* New work for the NI processor at time t (from the hardware or the
 * host): an idle processor starts on it at once; a busy one when it is
 * free, at once if nothing comes between. */
static void kick(lci_ni_t *ni, uint64_t t)
{
    if (lci_hw_dead(ni->node, t)) {
        return; /* a dead NI does nothing, ever again */
    }
    if (ni->fw_running) {
        fw_schedule(ni, t);
        return;
    }
    if (t >= ni->cpu_free) {
        if (ni->fw_sched_time > t) {
            fw_run(ni, t, lci_platform->event_seq());
            return;
        }
    } else if (ni->fw_sched_time > ni->cpu_free &&
               run_when_free(ni, ni->cpu_free)) {
        return;
    }
    fw_schedule(ni, t);
}

void lci_fw_on_run(const lci_event_t *ev)
{
    lci_ni_t *ni = lci_world_ni(ev->node);
    if (ev->time != ni->fw_sched_time) {
        return; /* superseded by an earlier run */
    }
    ni->fw_sched_time = LCI_TIME_NONE;
    if (lci_hw_dead(ni->node, ev->time)) {
        return;
    }
    if (ev->time >= ni->cpu_free) {
        fw_run(ni, ev->time, lci_platform->event_seq());
        return;
    }
    /* The processor took other work since this run was posted and is busy
     * past it: the work waits for it, behind every event before then (an
     * arrival meanwhile comes first, by its priority). */
    if (!run_when_free(ni, ni->cpu_free)) {
        fw_schedule(ni, ni->cpu_free);
    }
}

/* ---- from the hardware and the host ----------------------------------- */

void lci_fw_arrived(lci_ni_t *ni, uint64_t now, const lci_wire_hdr_t *hdr,
                    uint32_t buf, uint32_t status, uint32_t link_src)
{
    if (buf == LCI_NONE && !rxq_admit_bare(ni, hdr, status)) {
        return;
    }
    if (ni->rxq_count == ni->rxq_cap) {
        /* Sized from the bounds above: reaching this is a layout bug. */
        lci_fw_fail(ni, LCI_FW_QUEUE_FULL, LCI_NI_Q_ARRIVAL, ni->rxq_cap, 0);
        return;
    }
    lci_rxq_entry_t *e = LCI_NI_AT(ni, ni->rxq_off, lci_rxq_entry_t) +
                         lci_ring_add(ni->rxq_head, ni->rxq_count, ni->rxq_cap);
    e->hdr = *hdr;
    e->buf = buf;
    e->status = status;
    e->link_src = link_src;
    ni->rxq_count++;
    kick(ni, now);
}

/* The polling watchdog: an interrupt for the packet that reached the host
 * at t, no sooner than the watchdog's delay after it. */
static void watchdog_arm(lci_ni_t *ni, uint64_t t)
{
    ni->watchdog_armed = 1;
    ni->watchdog_at = t;
    lci_platform->post(t + (uint64_t)lci_prof()->watchdog_ns, LCI_EV_WATCHDOG,
                 ni->node, 0, 0);
}

void lci_fw_host_dma_started(lci_ni_t *ni, uint64_t now, uint32_t buf,
                             uint64_t done)
{
    (void)now;
    if (ni->watchdog_next <= ni->h_last_poll) {
        ni->watchdog_next = done; /* the first the host has not polled for */
    }
    if (ni->h_intr_enabled && !ni->watchdog_armed) {
        watchdog_arm(ni, done);
    }
    if (done <= ni->now && ni->dma_count == 0) {
        /* Done as it starts (real time: the copy is made; never with a
         * simulated DMA engine, which takes time): it ends within this
         * work item, not as one of its own.  The loop of a run that takes
         * one more item cost the live platform's small packet 8 ns of its
         * one-way 280. */
        host_dma_done(ni, buf);
        return;
    }
    lci_ni_dma_t *d = LCI_NI_AT(ni, ni->dma_off, lci_ni_dma_t) +
                      lci_ring_add(ni->dma_head, ni->dma_count, ni->dma_cap);
    d->buf = buf;
    d->time = done;
    ni->dma_count++;
}

void lci_fw_tx_done(lci_ni_t *ni, uint64_t now, uint32_t buf)
{
    if (buf >= ni->nsend && *lci_ni_refcnt(ni, buf) == 1) {
        /* The last use of a receive buffer: freeing it returns credits,
         * which is firmware work. */
        lci_ni_fifo_push(ni, &ni->tx_freed, buf);
        kick(ni, now);
        return;
    }
    lci_fw_buf_put(ni, now, buf);
}

void lci_fw_on_doorbell(const lci_event_t *ev)
{
    kick(lci_world_ni(ev->node), ev->time);
}

void lci_fw_on_ring_update(const lci_event_t *ev)
{
    lci_ni_t *ni = lci_world_ni(ev->node);
    ring_limit_raise(ni, ev->a);
    if (ni->dma_wait.count) {
        kick(ni, ev->time);
    }
}

void lci_fw_on_intr_enable(const lci_event_t *ev)
{
    lci_world_ni(ev->node)->h_intr_enabled = ev->a;
}

void lci_fw_on_watchdog(const lci_event_t *ev)
{
    lci_ni_t *ni = lci_world_ni(ev->node);
    ni->watchdog_armed = 0;
    if (!ni->h_intr_enabled) {
        return;
    }
    if (ni->h_last_poll >= ni->watchdog_at) {
        /* The host polled meanwhile: no interrupt for that packet.  One
         * that came after the poll starts the watchdog over. */
        if (ni->watchdog_next > ni->h_last_poll) {
            watchdog_arm(ni, ni->watchdog_next);
        }
        return;
    }
    ni->counters.interrupts++;
    ni->ni_intr_pending = 1;
    ni->ni_intr_time = ev->time + (uint64_t)lci_prof()->ni_intr_ns;
    lci_platform->wake(ni->node, ni->ni_intr_time);
}
