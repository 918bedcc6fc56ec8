/* lci_world.c - lays out the shared segment and maps it into a process. */
#include <stdio.h>
#include <string.h>

#include "lci_ready.h"
#include "lci_world.h"

lci_world_t lci_world;

typedef struct {
    uint64_t ready, hosts, heap, sram, rings, pools, pool_free, wire, wire_free,
        tx_waiting, total;
    uint64_t ring_slot, wire_slot, nwire, pool_buf, pool_free_stride;
} seg_layout_t;

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

static seg_layout_t layout(const lci_config_t *cfg, uint64_t events)
{
    seg_layout_t l;
    uint64_t n = cfg->nnodes;
    l.ring_slot = round_up(sizeof(lci_ring_slot_t), 16);
    l.pool_buf = round_up(cfg->packet_size - sizeof(lci_wire_hdr_t), 64);
    l.pool_free_stride = round_up(sizeof(lci_hbuf_stack_t) + 4ull * cfg->nring, 64);
    l.wire_slot = round_up(LCI_WIRE_SLOT_HEAD + cfg->packet_size, 64);
    /* The fabric never drops for lack of space.  A packet holds a slot from
     * its transmission to its arrival.  An NI queues a buffer for the link
     * at most once per destination (a buffer has at most LCI_BUF_MAX_SENDS)
     * and an ack or a NACK at most once per peer: core/hw/lci_wire.c merges
     * the rest into the copy still waiting.  Fetch-and-add packets, of
     * which a node has few outstanding, and the packets already on the
     * link (back-pressure keeps those to a few per NI) fit in one more per
     * peer.  Pages of slots never used are never touched. */
    l.nwire = n * (cfg->nsend + cfg->nrecv) * LCI_BUF_MAX_SENDS +
              n * 3 * n + 64;
    l.hosts = round_up(sizeof(lci_seg_t), 4096);
    l.ready = l.hosts + n * sizeof(lci_host_shared_t);
    l.heap = round_up(l.ready + n * (16 + sizeof(uint32_t)), 4096);
    l.sram = round_up(l.heap + events * sizeof(lci_event_t), 4096);
    l.rings = round_up(l.sram + n * round_up(cfg->sram_bytes, 4096), 4096);
    l.pools = round_up(l.rings + n * cfg->nring * l.ring_slot, 4096);
    l.pool_free = round_up(l.pools + n * cfg->nring * l.pool_buf, 4096);
    l.wire = round_up(l.pool_free + n * l.pool_free_stride, 4096);
    l.wire_free = round_up(l.wire + l.nwire * l.wire_slot, 4096);
    l.tx_waiting = round_up(l.wire_free + l.nwire * 4, 4096);
    l.total = round_up(l.tx_waiting + n * LCI_TX_WAITING_PER_NODE(cfg) * 4,
                       4096);
    return l;
}

uint64_t lci_world_size(const lci_config_t *cfg, uint64_t events)
{
    return layout(cfg, events).total;
}

lci_status_t lci_world_init(void *base, uint64_t size, const lci_config_t *cfg,
                            const lci_profile_t *prof, uint64_t events,
                            char *err, size_t errlen)
{
    seg_layout_t l = layout(cfg, events);
    if (size < l.total) {
        snprintf(err, errlen, "segment of %llu bytes, %llu needed",
                 (unsigned long long)size, (unsigned long long)l.total);
        return LCI_ERR_CONFIG;
    }
    lci_seg_t *s = base;
    s->magic = LCI_SEG_MAGIC;
    s->version = LCI_SEG_VERSION;
    s->size = size;
    s->cfg = *cfg;
    s->prof = *prof;
    s->heap_cap = events;
    s->trace_hash = 0xcbf29ce484222325ULL; /* FNV-1a offset basis */
    s->events_at_idle = UINT64_MAX;
    s->abort_node = -1;
    /* Host actions reach the NI no sooner than the doorbell latency, which
     * is therefore the largest exact lookahead. */
    uint64_t d = (uint64_t)prof->host_doorbell_ns;
    s->lookahead_ns = cfg->lookahead_ns == UINT64_MAX ? d : cfg->lookahead_ns;
    if (s->lookahead_ns == 0) {
        s->lookahead_ns = 1;
    }
    s->off_hosts = l.hosts;
    s->off_ready = l.ready;
    s->off_heap = l.heap;
    s->off_sram = l.sram;
    s->off_rings = l.rings;
    s->off_wire = l.wire;
    s->off_pools = l.pools;
    s->off_pool_free = l.pool_free;
    s->pool_buf_bytes = l.pool_buf;
    s->pool_stride = cfg->nring * l.pool_buf;
    s->pool_free_stride = l.pool_free_stride;
    s->off_wire_free = l.wire_free;
    s->off_tx_waiting = l.tx_waiting;
    s->sram_stride = round_up(cfg->sram_bytes, 4096);
    s->ring_stride = cfg->nring * l.ring_slot;
    s->ring_slot_bytes = l.ring_slot;
    s->wire_slot_bytes = l.wire_slot;
    s->nwire = (uint32_t)l.nwire;

    lci_status_t st = lci_world_attach(base);
    if (st != LCI_OK) {
        return st;
    }
    for (uint32_t k = 0; k < cfg->nnodes; k++) {
        st = lci_ni_layout(lci_world_ni(k), cfg->sram_bytes, k, cfg, prof, err,
                           errlen);
        if (st != LCI_OK) {
            return st;
        }
        lci_hbuf_stack_t *stack = lci_world_hbuf_stack(k);
        uint32_t *slots = lci_world_hbuf_stack_slots(k);
        for (uint32_t b = 0; b < cfg->nring; b++) {
            slots[b] = cfg->nring - 1 - b; /* buffer 0 on top */
        }
        stack->h_count = cfg->nring;
        lci_host_shared_t *h = lci_world_host(k);
        h->status = LCI_HOST_READY;
        h->clock = 0;
    }
    lci_ready_init();
    /* Free wire slots as a stack: recently freed slots are reused first,
     * so the pages touched stay few. */
    uint32_t *stack = (uint32_t *)((char *)base + s->off_wire_free);
    for (uint32_t i = 0; i < s->nwire; i++) {
        stack[i] = s->nwire - 1 - i;
    }
    s->wire_free_count = s->nwire;
    uint32_t *waiting = (uint32_t *)((char *)base + s->off_tx_waiting);
    uint64_t nwaiting = cfg->nnodes * LCI_TX_WAITING_PER_NODE(cfg);
    for (uint64_t i = 0; i < nwaiting; i++) {
        waiting[i] = UINT32_MAX; /* nothing waits */
    }
    return LCI_OK;
}

lci_status_t lci_world_attach(void *base)
{
    lci_seg_t *s = base;
    if (s->magic != LCI_SEG_MAGIC || s->version != LCI_SEG_VERSION) {
        return LCI_ERR_PLATFORM;
    }
    lci_world.seg = s;
    lci_world.base = base;
    return LCI_OK;
}
