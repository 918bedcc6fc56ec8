/* lci_ni_layout.c - carves an NI's SRAM arena into its pools at start-up. */
#include <stdio.h>
#include <string.h>

#include "lci_decomp.h"
#include "lci_ni.h"
#include "lci_place.h"
#include "lci_timer_wheel.h"

typedef struct {
    uint64_t used, size;
    const char *failed; /* first part that did not fit */
} arena_t;

static uint32_t carve(arena_t *a, uint64_t bytes, const char *what)
{
    uint64_t off = (a->used + 63) & ~(uint64_t)63;
    if (a->failed == NULL && off + bytes > a->size) {
        a->failed = what;
    }
    a->used = off + bytes;
    return (uint32_t)off;
}

static void fifo_init(lci_ni_fifo_t *f, uint32_t off, uint32_t cap)
{
    f->off = off;
    f->cap = cap;
    f->head = 0;
    f->count = 0;
}

lci_status_t lci_ni_layout(lci_ni_t *ni, uint64_t arena_bytes, uint32_t node,
                           const lci_config_t *cfg, const lci_profile_t *prof,
                           char *err, size_t errlen)
{
    const lci_decomp_t *dc = lci_decomp_active;
    lci_rx_params_t params;
    lci_rx_params_from_config(cfg, prof, &params);
    arena_t a = {.used = sizeof(lci_ni_t), .size = arena_bytes};
    memset(ni, 0, sizeof *ni);
    ni->node = node;
    ni->nnodes = cfg->nnodes;
    ni->packet_size = cfg->packet_size;
    ni->payload_max = cfg->packet_size - (uint32_t)sizeof(lci_wire_hdr_t);
    ni->nsend = cfg->nsend;
    ni->nrecv = cfg->nrecv;
    ni->nbufs = cfg->nsend + cfg->nrecv;
    ni->window = cfg->window;
    ni->nring = cfg->nring;
    ni->nfa = cfg->nfa;
    ni->ngroups = cfg->ngroups;
    /* A command holds a share of a send buffer, and a buffer has at most
     * two commands (a host-forwarded packet, one per tree child), so a
     * ring of twice the send pool can never overflow. */
    ni->ncmd = 2 * cfg->nsend;
    /* The arrival queue: an entry for every receive buffer (an arrival
     * holds its buffer until the firmware takes it), one drop note per
     * sender, and room for header-only packets.  Those RX_no must never
     * lose are its explicit credits, each worth at least half a window, so
     * at most window / (window / 2) per sender are in flight; a
     * retransmitting module survives losing any beyond that share. */
    uint32_t half = cfg->window / 2 ? cfg->window / 2 : 1;
    ni->rxq_bare_cap = cfg->nnodes * (cfg->window / half);
    ni->rxq_cap = cfg->nrecv + cfg->nnodes + ni->rxq_bare_cap;
    /* Reliability on the host, or an NI module with timers, resends what
     * the NI drops; RX_no has neither. */
    ni->rx_recovers = dc->rx_place == LCI_PLACE_HOST ||
                      dc->rx->ops.timers(&params) > 0;
    /* A buffer goes to the host once per arrival, and once more for every
     * send queue it is returned from (return-to-sender): that many may wait
     * for a ring slot, or be on their way. */
    uint32_t to_host_cap = ni->nrecv + LCI_BUF_MAX_SENDS * ni->nbufs;

    ni->off_bufs = carve(&a, (uint64_t)ni->nbufs * ni->packet_size,
                         "packet buffers");
    ni->off_refcnt = carve(&a, ni->nbufs, "buffer reference counts");
    ni->off_cmd = carve(&a, (uint64_t)ni->ncmd * sizeof(lci_cmd_t),
                        "command ring");
    ni->off_free = carve(&a, (uint64_t)ni->nsend * sizeof(lci_free_entry_t),
                         "free-send ring");
    ni->off_peers = carve(&a, (uint64_t)cfg->nnodes * sizeof(lci_ni_peer_t),
                          "per-peer state");
    ni->rxq_off = carve(&a, (uint64_t)ni->rxq_cap * sizeof(lci_rxq_entry_t),
                        "arrival queue");
    uint32_t off_rfree = carve(&a, (uint64_t)ni->nrecv * 4, "receive free list");
    uint32_t off_wait = carve(&a, (uint64_t)to_host_cap * 4,
                              "host-DMA wait queue");
    ni->dma_off = carve(&a, (uint64_t)to_host_cap * sizeof(lci_ni_dma_t),
                        "host-DMA queue");
    ni->dma_cap = to_host_cap;
    ni->off_send_time = carve(&a, (uint64_t)ni->nsend * 8, "send-buffer times");
    uint32_t off_freed = carve(&a, (uint64_t)ni->nrecv * 4, "transmit-freed queue");
    ni->off_fa = carve(&a, (uint64_t)ni->nfa * sizeof(int64_t),
                       "fetch-and-add variables");
    ni->off_groups = carve(&a, (uint64_t)ni->ngroups * sizeof(lci_ni_group_t),
                           "multicast groups");
    ni->off_members = carve(&a, (uint64_t)cfg->group_members * 2,
                            "multicast group members");
    if (dc->rx_place == LCI_PLACE_NI) {
        ni->off_rx_state = carve(&a, dc->rx->ops.state_size(&params),
                                 "reliability state");
        ni->ntimers = dc->rx->ops.timers(&params);
    }
    if (ni->ntimers > 0) {
        ni->off_timers = carve(&a, lci_timer_wheel_size(ni->ntimers, 256),
                               "timer wheel");
    }
    if (a.failed) {
        snprintf(err, errlen,
                 "NI SRAM of %llu bytes is too small: the %s do not fit "
                 "(%llu bytes needed for %u send + %u receive buffers of %u "
                 "bytes, %u nodes); raise --sram or shrink the pools",
                 (unsigned long long)arena_bytes, a.failed,
                 (unsigned long long)a.used, cfg->nsend, cfg->nrecv,
                 cfg->packet_size, cfg->nnodes);
        return LCI_ERR_CONFIG;
    }
    ni->arena_bytes = (uint32_t)arena_bytes;
    ni->arena_used = (uint32_t)a.used;

    fifo_init(&ni->recv_free, off_rfree, ni->nrecv);
    fifo_init(&ni->dma_wait, off_wait, to_host_cap);
    fifo_init(&ni->tx_freed, off_freed, ni->nrecv);
    for (uint32_t i = ni->nrecv; i-- > 0;) {
        lci_ni_fifo_push(ni, &ni->recv_free, ni->nsend + i);
    }
    /* Every send buffer starts on the free-send ring, visible at time 0. */
    for (uint32_t i = 0; i < ni->nsend; i++) {
        lci_free_entry_t *e = lci_ni_free_entry(ni, i);
        e->buf = i;
        e->ni_time = 0;
    }
    /* With reliability on the host the host owns the send buffers (it
     * keeps them for retransmission) and the free ring stays empty. */
    ni->ni_free_prod = dc->rx_place == LCI_PLACE_HOST ? 0 : ni->nsend;
    if (dc->rx_place == LCI_PLACE_NI) {
        dc->rx->ops.init(LCI_NI_AT(ni, ni->off_rx_state, void), &params);
    }
    if (ni->ntimers > 0) {
        lci_timer_wheel_init(LCI_NI_AT(ni, ni->off_timers, lci_timer_wheel_t),
                             ni->ntimers, 256,
                             (uint64_t)(prof->ni_clock_ns > 1 ? prof->ni_clock_ns : 1));
    }
    ni->timer_sched_time = LCI_TIME_NONE;
    ni->ni_ring_limit = ni->nring; /* the whole ring is free */
    ni->fw_sched_time = LCI_TIME_NONE;
    /* Group 0 is every node; its member list is implicit. */
    lci_ni_group_t *g0 = lci_ni_group(ni, 0);
    g0->nmembers = cfg->nnodes;
    g0->members = LCI_NONE;
    g0->self = (int32_t)node;
    return LCI_OK;
}
