/* lci_world.c - lays out the shared segment and maps it into a process. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "lci_ready.h"
#include "lci_world.h"

lci_world_t lci_world;

/* The most lci_world_init allocates in advance (26 MiB for 64 nodes with
 * the default configuration). */
#define LCI_WORLD_PREFAULT_MAX (64ull << 20)

typedef struct {
    uint64_t ready, hosts, heap, sram, rings, pools, pool_free, wire, wire_free,
        tx_waiting, on_wire, total;
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
    l.on_wire = round_up(l.tx_waiting + n * LCI_TX_WAITING_PER_NODE(cfg) * 4,
                         4096);
    l.total = round_up(l.on_wire + n * cfg->nsend * 4, 4096);
    return l;
}

/* Maps [off, off + len) of the segment at base into this process with
 * advice (whole pages; the advice is only advice, so errors are ignored). */
static uint64_t populate(char *base, uint64_t off, uint64_t len, int advice)
{
    uintptr_t start = (uintptr_t)(base + off) & ~(uintptr_t)4095;
    uintptr_t end = ((uintptr_t)(base + off + len) + 4095) & ~(uintptr_t)4095;
    if (len == 0) {
        return 0;
    }
    if (advice >= 0) {
        (void)madvise((void *)start, end - start, advice);
    }
    return end - start;
}

/* Applies advice (-1: none, only count) to the parts of a simulated cluster's segment that every
 * node process touches, because whichever holds the turn runs every
 * NI's firmware and DMAs into every host's ring: each NI's own state, its
 * first receive buffers (a stack: the same few are reused) and the queues
 * and tables after the buffers, and every host receive ring (its slots are
 * used in turn, so a long run touches them all), with the top of each
 * host's buffer stack.  The rest -- send buffers
 * (written by their own host, read by a few), idle receive buffers, the
 * event queue beyond its first pages, host buffers below the top, wire
 * slots -- is
 * touched sparsely and left to fault in.  Returns their size in bytes. */
static uint64_t populate_hot(char *base, int advice)
{
    lci_seg_t *s = (lci_seg_t *)base;
    uint64_t bytes = 0;
    uint32_t n = s->cfg.nnodes;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t arena = s->off_sram + (uint64_t)k * s->sram_stride;
        const lci_ni_t *ni = (const lci_ni_t *)(base + arena);
        uint64_t recv = (uint64_t)ni->off_bufs +
                        (uint64_t)ni->nsend * ni->packet_size;
        uint64_t nrecv = ni->nrecv < 32 ? ni->nrecv : 32;
        bytes += populate(base, arena, ni->off_bufs, advice);
        bytes += populate(base, arena + recv, nrecv * ni->packet_size, advice);
        bytes += populate(base, arena + ni->off_refcnt,
                 ni->arena_used - ni->off_refcnt, advice);
    }
    bytes += populate(base, s->off_rings, (uint64_t)n * s->ring_stride, advice);
    for (uint32_t k = 0; k < n; k++) {
        /* The host buffers' free stack, and its top buffers (the NI takes
         * the most recently freed one). */
        uint64_t nbufs = s->cfg.nring < 32 ? s->cfg.nring : 32;
        bytes += populate(base,
                          s->off_pool_free + (uint64_t)k * s->pool_free_stride,
                          s->pool_free_stride, advice);
        bytes += populate(base, s->off_pools + (uint64_t)k * s->pool_stride,
                          nbufs * s->pool_buf_bytes, advice);
    }
    return bytes;
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
    s->wire_faults = (uint32_t)lci_fault_on_wire(&cfg->fault);
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
    s->off_on_wire = l.on_wire;
    s->sram_stride = round_up(cfg->sram_bytes, 4096);
    s->ring_stride = cfg->nring * l.ring_slot;
    s->ring_slot_bytes = l.ring_slot;
    s->wire_slot_bytes = l.wire_slot;
    s->nwire = (uint32_t)l.nwire;

    lci_world_view(base);
    lci_status_t st;
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
    uint32_t *on_wire = (uint32_t *)((char *)base + s->off_on_wire);
    for (uint64_t i = 0; i < cfg->nnodes * cfg->nsend; i++) {
        on_wire[i] = UINT32_MAX; /* no packet reads from a buffer yet */
    }
    uint32_t *waiting = (uint32_t *)((char *)base + s->off_tx_waiting);
    uint64_t nwaiting = cfg->nnodes * LCI_TX_WAITING_PER_NODE(cfg);
    for (uint64_t i = 0; i < nwaiting; i++) {
        waiting[i] = UINT32_MAX; /* nothing waits */
    }
#ifdef MADV_POPULATE_WRITE
    /* Allocates the pages every node process touches, once, here.  A node
     * process's first touch of a page then only maps it (1.2 us here, not
     * 2.5 to allocate and clear it too), and a first touch that reads maps
     * the allocated pages around it as well (lci_world_touch).  Mapping
     * them in every process at start instead costs more than it saves
     * when few processes run the events (broadcast latency).  Only up to
     * a bound: a cluster of thousands of nodes would allocate gigabytes
     * of rings that a run may barely use. */
    if (strcmp(cfg->platform, "sim") == 0 &&
        populate_hot(base, -1) <= LCI_WORLD_PREFAULT_MAX) {
        populate_hot(base, MADV_POPULATE_WRITE);
    }
#endif
    return LCI_OK;
}

lci_status_t lci_world_attach(void *base)
{
    lci_seg_t *s = base;
    if (s->magic != LCI_SEG_MAGIC || s->version != LCI_SEG_VERSION) {
        return LCI_ERR_PLATFORM;
    }
    lci_world_view(base);
    return LCI_OK;
}
