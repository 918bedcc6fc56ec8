/*
 * lci_place_host.c - the environment of a policy placed in the host
 * library: the host clock and processor, soft timers polled on the host,
 * and the NI reached through the command ring.
 *
 * It serves host-level multicast forwarding (M_h: the host copies a packet
 * to the NI once and posts one transmit request per child) and host-level
 * reliability (RX_h: the same go-back-N module the NI runs for RX_ni, here
 * on the host; the NI just puts packets on the wire and hands every
 * arrival up, and retransmissions come from the packet still held in NI
 * memory, with no extra copy).
 */
#include <stdlib.h>
#include <string.h>

#include "lci_decomp.h"
#include "lci_host.h"
#include "lci_place.h"
#include "lci_timer_wheel.h"
#include "lci_tree.h"

static int rx_on_host(void)
{
    return lci_decomp_active->rx_place == LCI_PLACE_HOST;
}

static uint64_t host_now(lci_env_t *env)
{
    (void)env;
    return lci_host->hs->clock;
}

static void host_charge(lci_env_t *env, lci_cost_t what)
{
    (void)env;
    const lci_profile_t *p = lci_host->prof;
    switch (what) {
    case LCI_COST_ACK:
        lci_host_charge("ack", p->host_ack_ns);
        break;
    case LCI_COST_REL_SEND:
        lci_host_charge("rel_tx", p->host_rel_tx_ns);
        break;
    case LCI_COST_REL_RECV:
        lci_host_charge("rel_rx", p->host_rel_rx_ns);
        break;
    case LCI_COST_TIMER:
        lci_host_charge("timer", p->host_timer_ns);
        break;
    case LCI_COST_FORWARD:
        lci_host_charge("mcast_fwd", p->host_mcast_fwd_ns);
        break;
    case LCI_COST_COUNT:
        break;
    }
}

/* The packet exactly as the host's reliability module built it. */
static void host_transmit(lci_env_t *env, uint32_t buf,
                          const lci_wire_hdr_t *hdr)
{
    (void)env;
    lci_cmd_t *cmd = lci_host_cmd_slot();
    lci_cmd_set_hdr(cmd, hdr);
    cmd->op = LCI_CMD_RAW;
    cmd->buf = buf == LCI_BUF_NONE ? LCI_NONE : buf;
    lci_host_post(cmd);
}

static void host_hold(lci_env_t *env, uint32_t buf)
{
    (void)env;
    lci_host->send_refs[buf]++;
}

static void host_release(lci_env_t *env, uint32_t buf)
{
    (void)env;
    if (--lci_host->send_refs[buf] == 0) {
        lci_host->spare[lci_host->nspare++] = buf;
        lci_host->packets[buf].in_use = 0;
    }
}

/* The host environment's context while it forwards one packet over the
 * NI's reliability (M_h over RX_no or RX_ni): the NI counts references,
 * so the first command for the buffer says how many commands share it. */
typedef struct {
    uint8_t shares; /* for the next command posted, then 0 */
} forward_ctx_t;

static void host_send(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr)
{
    if (rx_on_host()) {
        host_hold(env, buf); /* the reference passes to the rx module */
        lci_wire_hdr_t h = *hdr; /* the module's to fill in */
        lci_decomp_active->rx->ops.send(lci_host->rx_state, env, buf, &h);
        return;
    }
    forward_ctx_t *fwd = env->ctx;
    lci_cmd_t *cmd = lci_host_cmd_slot();
    lci_cmd_set_hdr(cmd, hdr);
    cmd->op = LCI_CMD_FWD;
    cmd->buf = buf;
    cmd->shares = fwd ? fwd->shares : 1;
    if (fwd) {
        fwd->shares = 0;
    }
    lci_host_post(cmd);
}

static void host_deliver(lci_env_t *env, uint32_t buf)
{
    (void)env, (void)buf; /* accept()'s result decides delivery here */
}

static void host_bounce(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr,
                        lci_status_t reason)
{
    (void)env;
    lci_host->ni->counters.pkts_returned++;
    if (lci_host->finalizing) {
        /* Past the final barrier every packet the client sent has been
         * delivered; what is left is a retransmission whose ack got lost
         * to a node that has already gone.  Nothing to report. */
        return;
    }
    lci_wire_hdr_t h = *hdr;
    h.type = LCI_PKT_RETURNED;
    h.aux = (uint32_t)-reason;
    lci_host_returned(&h, lci_ni_buf(lci_host->ni, buf) + sizeof h);
}

static void host_timer_start(lci_env_t *env, uint32_t id, uint64_t expiry)
{
    (void)env;
    lci_timer_wheel_start(lci_host->timers, id, expiry);
}

static void host_timer_cancel(lci_env_t *env, uint32_t id)
{
    (void)env;
    lci_timer_wheel_cancel(lci_host->timers, id);
}

static void host_fail(lci_env_t *env, uint32_t fault, uint32_t a, uint32_t b)
{
    (void)env;
    lci_sched_fail((int)lci_host->rank, lci_fw_fault_status(fault),
                   "%s: protocol failure %u (%u, %u) on the host",
                   lci_decomp_active->name, fault, a, b);
}

static lci_counters_t *host_counters(lci_env_t *env)
{
    (void)env;
    return &lci_host->ni->counters;
}

static const lci_env_ops_t host_env_ops = {
    .now = host_now,
    .charge = host_charge,
    .transmit = host_transmit,
    .send = host_send,
    .hold = host_hold,
    .release = host_release,
    .deliver = host_deliver,
    .bounce = host_bounce,
    .timer_start = host_timer_start,
    .timer_cancel = host_timer_cancel,
    .fail = host_fail,
    .counters = host_counters,
};

static lci_env_t host_env(void)
{
    lci_env_t env = {.ops = &host_env_ops,
                     .ctx = NULL,
                     .node = lci_host->rank,
                     .nnodes = lci_host->size};
    return env;
}

lci_status_t lci_host_place_init(void)
{
    if (!rx_on_host()) {
        return LCI_OK;
    }
    const lci_config_t *cfg = &lci_seg()->cfg;
    if (lci_decomp_active->mc_place == LCI_PLACE_NI) {
        lci_status_t st = lci_mcast_once_init(cfg->nnodes, cfg->ngroups);
        if (st != LCI_OK) {
            return st;
        }
    }
    const lci_rx_component_t *rx = lci_decomp_active->rx;
    lci_rx_params_t params;
    lci_rx_params_from_config(cfg, lci_host->prof, &params);
    uint32_t ntimers = rx->ops.timers(&params);
    lci_host->rx_state = calloc(1, rx->ops.state_size(&params));
    lci_host->send_refs = calloc(cfg->nsend, sizeof *lci_host->send_refs);
    lci_host->fa_vars = calloc(cfg->nfa, sizeof *lci_host->fa_vars);
    if (ntimers > 0) {
        lci_host->timers = calloc(1, lci_timer_wheel_size(ntimers, 256));
    }
    if (!lci_host->rx_state || !lci_host->send_refs || !lci_host->fa_vars ||
        (ntimers > 0 && !lci_host->timers)) {
        return lci_error(LCI_ERR_NOMEM, "lci_init: out of memory");
    }
    rx->ops.init(lci_host->rx_state, &params);
    if (ntimers > 0) {
        /* Soft timers: the host polls its clock, at the NI clock's
         * resolution. */
        double tick = lci_host->prof->ni_clock_ns;
        lci_timer_wheel_init(lci_host->timers, ntimers, 256,
                             (uint64_t)(tick > 1 ? tick : 1));
    }
    /* The host owns every send buffer: none comes back through the NI. */
    for (uint32_t b = cfg->nsend; b-- > 0;) {
        lci_host->spare[lci_host->nspare++] = b;
    }
    return LCI_OK;
}

void lci_host_place_drain(void)
{
    if (!rx_on_host()) {
        return; /* the NIs keep running the protocol after the host exits */
    }
    /* The host runs the protocol: it must stay until its own packets are
     * acknowledged, and then a while longer (two retransmission timeouts)
     * to answer peers whose last acknowledgement from it was lost. */
    const lci_rx_component_t *rx = lci_decomp_active->rx;
    uint64_t deadline = 0;
    lci_host->finalizing = 1;
    for (;;) {
        uint64_t next;
        lci_host_deliver(&next);
        if (rx->ops.pending(lci_host->rx_state) == 0 &&
            !lci_host_forward_pending()) {
            if (deadline == 0) {
                deadline = lci_host->hs->clock + 2 * lci_seg()->cfg.rto_ns;
                lci_platform->post(deadline, LCI_EV_HOST_WAKE, lci_host->rank, 0, 0);
            }
            if (lci_host->hs->clock >= deadline) {
                return;
            }
        }
        lci_host_idle_step(next, LCI_HOST_WAITING);
    }
}

/* With reliability on the host, a send buffer comes back only when the
 * host processes an acknowledgement, which it cannot do while it waits
 * for a buffer: so a forward that finds none waits here, in order, and
 * goes out when buffers return (lci_host_forward_drain). */
typedef struct lci_pending_forward {
    struct lci_pending_forward *next;
    lci_wire_hdr_t hdr;
    char payload[];
} pending_forward_t;

void lci_host_place_fini(void)
{
    lci_mcast_once_fini();
    while (lci_host->pending_head != NULL) { /* a node that died */
        pending_forward_t *p = lci_host->pending_head;
        lci_host->pending_head = p->next;
        free(p);
    }
    lci_host->pending_tail = NULL;
    free(lci_host->rx_state);
    free(lci_host->send_refs);
    free(lci_host->fa_vars);
    free(lci_host->timers);
    lci_host->rx_state = NULL;
    lci_host->send_refs = NULL;
    lci_host->fa_vars = NULL;
    lci_host->timers = NULL;
}

void lci_host_submit(lci_packet_t *packet, uint8_t type, uint16_t dst,
                     size_t len, uint8_t flags)
{
    lci_host->computed_since_poll = 1; /* a sender is not spinning idle */
    if (!rx_on_host()) {
        static const uint8_t op_of[LCI_PKT_TYPE_MAX] = {
            [LCI_PKT_DATA] = LCI_CMD_SEND,
            [LCI_PKT_FA_REQ] = LCI_CMD_FA,
            [LCI_PKT_MCAST] = LCI_CMD_MCAST};
        lci_host_post_command(packet, op_of[type], dst, len, flags);
        return;
    }
    lci_wire_hdr_t hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.type = type;
    hdr.flags = flags;
    hdr.len = (uint16_t)len;
    hdr.origin = (uint16_t)lci_host->rank;
    hdr.dst = dst;
    hdr.ep = packet->ep;
    hdr.src_ep = packet->src_ep;
    lci_env_t env = host_env();
    packet->in_use = 0; /* the rx module holds it until acknowledged */
    if (type == LCI_PKT_MCAST) {
        /* The root sends to its children; dst is the group. */
        lci_ni_t *ni = lci_host->ni;
        const lci_ni_group_t *g = lci_ni_group(ni, dst);
        hdr.group = dst;
        hdr.aux = (uint32_t)g->self;
        if (lci_decomp_active->mc_place == LCI_PLACE_NI) {
            /* rxh-mni: numbered, and early copies ahead of the reliable
             * ones (the host holds the buffer until those are acked). */
            hdr.aux = lci_mcast_aux((uint32_t)g->self,
                                    lci_mcast_once_number(dst));
            lci_cmd_t *cmd = lci_host_cmd_slot();
            lci_cmd_set_hdr(cmd, &hdr);
            cmd->op = LCI_CMD_EARLY;
            cmd->buf = packet->buf;
            lci_host_post(cmd);
        }
        host_hold(&env, packet->buf);
        lci_decomp_active->mc->ops.forward(&env, g, lci_ni_group_view(ni, g),
                                           packet->buf, &hdr);
        host_release(&env, packet->buf);
        return;
    }
    host_hold(&env, packet->buf);
    lci_decomp_active->rx->ops.send(lci_host->rx_state, &env, packet->buf, &hdr);
}

int lci_host_rx_waiting(void)
{
    return rx_on_host() &&
           lci_decomp_active->rx->ops.pending(lci_host->rx_state) > 0;
}

int lci_host_rx_accept(const lci_wire_hdr_t *hdr, uint32_t hbuf)
{
    if (!rx_on_host() || (hdr->flags & LCI_HF_EARLY)) {
        return 1; /* an early copy is no packet of any stream */
    }
    lci_env_t env = host_env();
    return lci_decomp_active->rx->ops.accept(lci_host->rx_state, &env, hbuf, hdr,
                                             LCI_HW_OK);
}

void lci_host_rx_handled(const lci_wire_hdr_t *hdr)
{
    if (rx_on_host() && !(hdr->flags & LCI_HF_EARLY)) {
        lci_env_t env = host_env();
        lci_decomp_active->rx->ops.handled(lci_host->rx_state, &env,
                                           hdr->hop_src);
    }
}

static void fire(void *arg, unsigned id)
{
    (void)arg;
    lci_env_t env = host_env();
    lci_decomp_active->rx->ops.timer(lci_host->rx_state, &env, id);
}

uint64_t lci_host_timers_next(void)
{
    return lci_host->timers ? lci_timer_wheel_next_expiry(lci_host->timers)
                           : LCI_TIME_INF;
}

void lci_host_timers_run(void)
{
    if (lci_host->timers == NULL) {
        return;
    }
    uint64_t due = lci_timer_wheel_next_expiry(lci_host->timers);
    if (due != LCI_TIME_INF && due > lci_host->watchdog_from &&
        due > lci_host->left_at &&
        due + (uint64_t)lci_host->prof->watchdog_ns < lci_host->entered_at) {
        /* A soft timer fell due while the host computed and did not poll:
         * the NI's clock interrupt (after the polling watchdog's delay)
         * is the backup that brings the host in. */
        lci_host->ni->counters.interrupts++;
        lci_host_charge("clock_intr", lci_host->prof->host_intr_ns);
        lci_host->watchdog_from = lci_host->hs->clock;
    }
    if (due <= lci_host->hs->clock) {
        lci_timer_wheel_advance(lci_host->timers, lci_host->hs->clock, fire,
                                NULL);
    }
}

uint64_t lci_host_clock_interrupt_at(void)
{
    uint64_t due = lci_host_timers_next();
    if (due == LCI_TIME_INF) {
        return LCI_TIME_INF;
    }
    /* As at an entry (lci_host_timers_run): after the polling watchdog. */
    uint64_t at = due + (uint64_t)lci_host->prof->watchdog_ns;
    return at > lci_host->hs->clock ? at : lci_host->hs->clock;
}

void lci_host_clock_interrupt(void)
{
    int was_in_lci = lci_host->in_lci;
    lci_host->in_lci = 1; /* what the handler sends is the library's work */
    lci_host->ni->counters.interrupts++;
    lci_host_charge("clock_intr", lci_host->prof->host_intr_ns);
    lci_host->watchdog_from = lci_host->hs->clock;
    /* The handler first takes in what has arrived (acknowledgements most
     * of all: without them a due retransmission would be a spurious one);
     * the client gets the packets at its next poll. */
    uint64_t next;
    lci_host_take_ahead(&next);
    lci_timer_wheel_advance(lci_host->timers, lci_host->hs->clock, fire, NULL);
    lci_host->in_lci = was_in_lci;
}

/* Forwards now from a send buffer already taken. */
static void forward_from(lci_packet_t *packet, const lci_ni_group_t *g,
                         const lci_wire_hdr_t *hdr, const void *payload,
                         int nchildren)
{
    lci_ni_t *ni = lci_host->ni;
    memcpy(lci_ni_buf(ni, packet->buf) + sizeof(lci_wire_hdr_t), payload,
           hdr->len);
    lci_host_charge("pio",
                    lci_host->prof->host_pio_ns_per_byte * (double)hdr->len);
    lci_env_t env = host_env();
    lci_wire_hdr_t h = *hdr;
    h.flags = (uint8_t)(h.flags & ~LCI_HF_EARLY); /* a reliable copy */
    if (rx_on_host()) {
        /* The host's rx module holds it per child; our reference goes. */
        host_hold(&env, packet->buf);
        lci_decomp_active->mc->ops.forward(&env, g, lci_ni_group_view(ni, g),
                                           packet->buf, &h);
        host_release(&env, packet->buf);
        return;
    }
    packet->in_use = 0; /* the NI owns it: each child's command holds it */
    forward_ctx_t fwd = {.shares = (uint8_t)nchildren};
    env.ctx = &fwd;
    lci_decomp_active->mc->ops.forward(&env, g, lci_ni_group_view(ni, g),
                                       packet->buf, &h);
}


static const lci_ni_group_t *forward_group(const lci_wire_hdr_t *hdr,
                                           int *nchildren_p)
{
    lci_ni_t *ni = lci_host->ni;
    if (hdr->group >= ni->ngroups) {
        return NULL;
    }
    const lci_ni_group_t *g = lci_ni_group(ni, hdr->group);
    int children[2];
    uint32_t root = lci_mcast_member(hdr->aux);
    int n = g->self < 0 || root >= g->nmembers
                ? 0
                : lci_tree_children((int)g->nmembers, (int)root, g->self,
                                    children);
    *nchildren_p = n;
    return n > 0 ? g : NULL; /* a leaf: nothing to forward, nothing to copy */
}

int lci_host_forward_pending(void)
{
    return lci_host->pending_head != NULL;
}

void lci_host_forward_drain(void)
{
    while (lci_host->pending_head != NULL) {
        lci_packet_t *packet;
        if (lci_host_packet_get(&packet, 0) != LCI_OK) {
            return; /* still no buffer */
        }
        pending_forward_t *p = lci_host->pending_head;
        int n;
        const lci_ni_group_t *g = forward_group(&p->hdr, &n);
        forward_from(packet, g, &p->hdr, p->payload, n);
        lci_host->pending_head = p->next;
        if (lci_host->pending_head == NULL) {
            lci_host->pending_tail = NULL;
        }
        free(p);
    }
}

void lci_host_forward(const lci_wire_hdr_t *hdr, const void *payload)
{
    int nchildren;
    const lci_ni_group_t *g = forward_group(hdr, &nchildren);
    if (g == NULL) {
        return;
    }
    lci_packet_t *packet;
    if (rx_on_host()) {
        if (lci_host->pending_head == NULL && lci_host_packet_get(&packet, 0) == LCI_OK) {
            forward_from(packet, g, hdr, payload, nchildren);
            return;
        }
        pending_forward_t *p = malloc(sizeof *p + hdr->len);
        if (p == NULL) {
            lci_sched_fail((int)lci_host->rank, LCI_ERR_NOMEM,
                           "out of memory queueing a multicast forward");
        }
        p->next = NULL;
        p->hdr = *hdr;
        memcpy(p->payload, payload, hdr->len);
        if (lci_host->pending_tail) {
            lci_host->pending_tail->next = p;
        } else {
            lci_host->pending_head = p;
        }
        lci_host->pending_tail = p;
        return;
    }
    /* One copy into NI memory for all children.  No packet may be
     * delivered while the buffer is awaited: deliveries stay in order.
     * The NI returns buffers by itself, so the wait ends. */
    lci_host->forwarding = 1;
    lci_status_t st = lci_host_packet_get(&packet, 1);
    lci_host->forwarding = 0;
    if (st == LCI_OK) {
        forward_from(packet, g, hdr, payload, nchildren);
    }
}

void lci_host_serve_fa(const lci_wire_hdr_t *hdr, const void *payload)
{
    lci_fa_msg_t msg;
    memset(&msg, 0, sizeof msg);
    memcpy(&msg, payload, hdr->len < sizeof msg ? hdr->len : sizeof msg);
    /* The same operation the NI placement runs, on host memory. */
    if (!lci_decomp_active->fa->ops.apply(lci_host->fa_vars, lci_seg()->cfg.nfa,
                                          &msg, hdr->len)) {
        lci_host->ni->counters.drops_malformed++;
        return;
    }
    lci_host_charge("fa", lci_host->prof->host_fa_ns);
    lci_packet_t *packet;
    lci_host->forwarding = 1; /* wait for a buffer without delivering */
    lci_status_t st = lci_host_packet_get(&packet, 1);
    lci_host->forwarding = 0;
    if (st != LCI_OK) {
        return;
    }
    memcpy(lci_ni_buf(lci_host->ni, packet->buf) + sizeof(lci_wire_hdr_t), &msg,
           sizeof msg);
    lci_host_charge("pio",
                    lci_host->prof->host_pio_ns_per_byte * (double)sizeof msg);
    lci_host_submit(packet, LCI_PKT_FA_REP, hdr->origin, sizeof msg, 0);
}
