/*
 * lci_place_host.c - the environment of a policy placed in the host
 * library: the host clock and processor, and the NI reached through the
 * command ring.  It serves host-level multicast forwarding (M_h): the host
 * copies a packet to the NI once and posts one transmit request per child.
 */
#include <string.h>

#include "lci_decomp.h"
#include "lci_host.h"
#include "lci_tree.h"

static uint64_t host_now(lci_env_t *env)
{
    (void)env;
    return lci_host.hs->clock;
}

static void host_charge(lci_env_t *env, lci_cost_t what)
{
    (void)env;
    (void)what; /* forwarding is charged per command posted (host_send_ns) */
}

/* Commands still to post for the buffer being forwarded. */
static uint16_t forward_shares;

static void host_send(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr)
{
    (void)env;
    lci_cmd_t cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.op = LCI_CMD_FWD;
    cmd.buf = buf;
    cmd.len = hdr->len;
    cmd.dst = hdr->dst;
    cmd.flags = hdr->flags;
    cmd.origin = hdr->origin;
    cmd.group = hdr->group;
    cmd.aux = hdr->aux;
    cmd.shares = forward_shares;
    forward_shares = 0;
    lci_host_post(&cmd);
}

/* Operations the host placement does not offer in this version: calling
 * one is a broken decomposition table, stopped loudly. */
static void host_missing(const char *what)
{
    lci_sched_fail((int)lci_host.rank, LCI_ERR_UNSUPPORTED,
                   "%s: the host placement cannot %s in this version",
                   lci_decomp_active->name, what);
}

static void host_transmit(lci_env_t *env, uint32_t buf,
                          const lci_wire_hdr_t *hdr)
{
    (void)env, (void)buf, (void)hdr;
    host_missing("transmit raw packets");
}

static void host_hold(lci_env_t *env, uint32_t buf)
{
    (void)env, (void)buf;
    host_missing("hold buffers");
}

static void host_release(lci_env_t *env, uint32_t buf)
{
    (void)env, (void)buf;
    host_missing("release buffers");
}

static void host_deliver(lci_env_t *env, uint32_t buf)
{
    (void)env, (void)buf;
    host_missing("deliver");
}

static void host_bounce(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr,
                        lci_status_t reason)
{
    (void)env, (void)buf, (void)hdr, (void)reason;
    host_missing("return packets to their sender");
}

static void host_timer_start(lci_env_t *env, uint32_t id, uint64_t expiry)
{
    (void)env, (void)id, (void)expiry;
    host_missing("run timers");
}

static void host_timer_cancel(lci_env_t *env, uint32_t id)
{
    (void)env, (void)id;
    host_missing("run timers");
}

static void host_fail(lci_env_t *env, uint32_t fault, uint32_t a, uint32_t b)
{
    (void)env;
    lci_sched_fail((int)lci_host.rank, lci_fw_fault_status(fault),
                   "%s: protocol failure %u (%u, %u) on the host",
                   lci_decomp_active->name, fault, a, b);
}

static lci_counters_t *host_counters(lci_env_t *env)
{
    (void)env;
    return &lci_host.ni->counters;
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

void lci_host_forward(const lci_wire_hdr_t *hdr, const void *payload)
{
    lci_ni_t *ni = lci_host.ni;
    if (hdr->group >= ni->ngroups) {
        return;
    }
    const lci_ni_group_t *g = lci_ni_group(ni, hdr->group);
    int children[2];
    int nchildren = g->self < 0 || hdr->aux >= g->nmembers
                        ? 0
                        : lci_tree_children((int)g->nmembers, (int)hdr->aux,
                                            g->self, children);
    if (nchildren <= 0) {
        return; /* a leaf: nothing to forward, nothing to copy */
    }
    /* One copy into NI memory for all children.  No packet may be
     * delivered while the buffer is awaited: deliveries stay in order. */
    lci_packet_t *packet;
    lci_host.forwarding = 1;
    lci_status_t st = lci_host_packet_get(&packet, 1);
    lci_host.forwarding = 0;
    if (st != LCI_OK) {
        return;
    }
    memcpy(lci_ni_buf(ni, packet->buf) + sizeof(lci_wire_hdr_t), payload,
           hdr->len);
    lci_host_charge(lci_host.prof->host_pio_ns_per_byte * (double)hdr->len);
    lci_env_t env = {.ops = &host_env_ops, .ctx = NULL, .node = lci_host.rank,
                     .nnodes = lci_host.size};
    packet->in_use = 0; /* the NI owns it: each child's command holds it */
    forward_shares = (uint16_t)nchildren;
    lci_decomp_active->mc->ops.forward(&env, g, lci_ni_group_view(ni, g),
                                       packet->buf, hdr);
}
