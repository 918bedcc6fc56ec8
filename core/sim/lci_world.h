/*
 * lci_world.h - the shared segment: everything the cluster owns.
 *
 * lci-run creates one shared memory segment and every node process maps it.
 * It holds the configuration, the cost profile, the scheduler (event queue,
 * turn, each host's clock and status), every NI's SRAM arena, every host's
 * receive ring and the network's in-flight packet slots.  All of it is found
 * by offsets from the segment start, so the mapping address may differ
 * between processes.
 */
#ifndef LCI_WORLD_H
#define LCI_WORLD_H

#include <stdatomic.h>
#include <stdint.h>

#include "lci.h"
#include "lci_config.h"
#include "lci_contract.h"
#include "lci_internal.h"
#include "lci_ni.h"
#include "lci_profile.h"

#define LCI_SEG_MAGIC 0x4c4349534547ULL /* "LCISEG" */
#define LCI_SEG_VERSION 7

/* A wire slot's bytes before the packet (core/hw/lci_wire.c). */
#define LCI_WIRE_SLOT_HEAD 48
/* Entries of a node's tx-waiting index: LCI_BUF_MAX_SENDS per buffer, then
 * one ack and one NACK per peer. */
#define LCI_TX_WAITING_PER_NODE(cfg)                                          \
    ((uint64_t)((cfg)->nsend + (cfg)->nrecv) * LCI_BUF_MAX_SENDS +            \
     2ull * (cfg)->nnodes)
#define LCI_TIME_INF UINT64_MAX

/* Exit status of a node process that stops because the run was stopped. */
#define LCI_EXIT_ABORTED 70

typedef enum {
    LCI_HOST_READY = 0,    /* runnable at its clock */
    LCI_HOST_WAITING = 1,  /* waits for an arrival; woken by the NI */
    LCI_HOST_IDLE = 2,     /* spins on an empty poll: woken by an arrival or
                              when the whole cluster is idle */
    LCI_HOST_EXITED = 3,   /* finalized */
} lci_host_status_t;

/* One event: plain data, executed by whichever process holds the turn. */
/* The run's failure report: claimed, then written, then published. */
typedef enum {
    LCI_ABORT_NONE = 0,
    LCI_ABORT_PUBLISHED = 1, /* abort_node, abort_status, abort_msg are set */
    LCI_ABORT_WRITING = 2    /* a node is writing them */
} lci_abort_state_t;

typedef struct {
    uint64_t time;
    uint64_t seq;
    uint16_t type;
    uint16_t node;
    uint32_t a;
    uint64_t b;
} lci_event_t;

typedef struct {
    uint64_t clock;       /* virtual ns */
    uint32_t status;      /* lci_host_status_t */
    _Atomic uint32_t go;  /* futex word: 1 when this host holds the turn */
    int32_t pid;
    _Atomic uint32_t started; /* lci_init reached */
    _Atomic uint32_t gone;    /* exited without ever calling lci_init */
    uint32_t woken_idle;  /* left IDLE because the cluster was idle */
    uint64_t busy_ns;     /* time charged for LCI work */
    uint64_t delivered;   /* packets handed to the upcall */
    uint32_t died;        /* killed by fault injection (die=N@T) */
    uint32_t reserved_died;
    /* The fiber engine's account of the node's end, for lci-run: the
     * node's program ended (1) with exit_code. */
    uint32_t ended;
    int32_t exit_code;
    /* One cache line per host: on the live platform each node process
     * writes its own clock all the time, and a line shared with a
     * neighbour would bounce between their cores. */
} lci_host_shared_t;
_Static_assert(sizeof(lci_host_shared_t) == 64,
               "lci_host_shared_t fills one cache line");

typedef struct {
    uint64_t magic;
    uint32_t version;
    uint32_t reserved;
    uint64_t size;
    lci_config_t cfg;
    lci_profile_t prof;

    /* ---- scheduler ---- */
    uint32_t turn;
    _Atomic uint32_t abort;  /* nonzero: the run is over, exit (lci_abort_state_t) */
    int32_t abort_node;
    int32_t abort_status;    /* lci_status_t */
    char abort_msg[4096];
    uint64_t trace_hash;
    uint64_t events_run;
    uint64_t events_at_idle; /* progress when idle hosts were last woken */
    uint64_t ring_logged;    /* ring releases written without an event */
    uint64_t event_seq;      /* seq of the event running */
    uint64_t heap_count, heap_cap, next_seq;
    uint64_t heap_peak;
    uint64_t lookahead_ns;
    uint64_t horizon;        /* nothing may act before this (current event) */
    /* READY hosts in the heap at off_ready (core/sim/lci_ready.c) */
    uint32_t ready_count;
    /* Bumped by every change of the ready heap: lci_ready_min_other's
     * answer for ready_memo_self holds while it stays. */
    uint64_t ready_version, ready_memo_version, ready_memo_min;
    uint32_t ready_memo_self;
    int32_t ready_memo_who;
    uint32_t reserved_ready;
    uint64_t packets_on_wire;
    uint32_t wire_faults;    /* lci_fault_on_wire(&cfg.fault) */
    uint64_t burst_left;     /* packets still to lose in a fault burst */
    uint64_t faults_injected; /* packets lost, damaged, repeated or
                                 starved by fault injection */
    uint64_t handoffs;       /* turn hand-offs between processes */
    uint64_t events_by_type[16];

    /* ---- offsets ---- */
    uint64_t off_ready; /* nnodes heap entries (16 bytes), then nnodes
                           positions (uint32_t; core/sim/lci_ready.c) */
    uint64_t off_hosts, off_heap, off_sram, off_rings, off_wire, off_wire_free;
    uint64_t off_tx_waiting; /* per node: the wire slot of each buffer's,
                                and each ack's and NACK's per peer, last
                                transmission (uint32_t; core/hw/lci_wire.c) */
    uint64_t off_on_wire;    /* per node and send buffer: the first wire
                                slot whose payload is still read from that
                                buffer (uint32_t; core/hw/lci_wire.c) */
    uint64_t off_pools, off_pool_free;
    uint64_t sram_stride, ring_stride, ring_slot_bytes, wire_slot_bytes;
    uint64_t pool_stride, pool_buf_bytes, pool_free_stride;
    uint32_t nwire, wire_free_count;
} lci_seg_t;

struct lci_ni;

/* A program's view of the segment.  Which platform runs over it is
 * chosen apart (lci_platform.h). */
typedef struct {
    lci_seg_t *seg;
    char *base;
} lci_world_t;

/* The library's view, set by lci_world_init and lci_world_attach.  A
 * program outside the library that reads the segment too (lci-run,
 * lci-fibers) defines a view of its own and sets it with lci_world_view
 * once the library has checked the segment. */
extern LCI_INTERNAL lci_world_t lci_world;

static inline void lci_world_view(void *base)
{
    lci_world.seg = (lci_seg_t *)base;
    lci_world.base = (char *)base;
}

static inline lci_seg_t *lci_seg(void)
{
    return lci_world.seg;
}

static inline const lci_profile_t *lci_prof(void)
{
    return &lci_world.seg->prof;
}

static inline lci_host_shared_t *lci_world_host(uint32_t node)
{
    return (lci_host_shared_t *)(lci_world.base + lci_world.seg->off_hosts) +
           node;
}

static inline lci_ni_t *lci_world_ni(uint32_t node)
{
    return (lci_ni_t *)(lci_world.base + lci_world.seg->off_sram +
                        node * lci_world.seg->sram_stride);
}

static inline lci_ring_slot_t *lci_world_ring_slot(uint32_t node, uint32_t idx)
{
    lci_seg_t *s = lci_world.seg;
    return (lci_ring_slot_t *)(lci_world.base + s->off_rings +
                               node * s->ring_stride +
                               lci_ring_pos(idx, s->cfg.nring) *
                                   s->ring_slot_bytes);
}

/* Payload of host receive buffer hbuf of node. */
static inline char *lci_world_hbuf(uint32_t node, uint32_t hbuf)
{
    lci_seg_t *s = lci_world.seg;
    return lci_world.base + s->off_pools + node * s->pool_stride +
           (uint64_t)hbuf * s->pool_buf_bytes;
}

static inline lci_hbuf_stack_t *lci_world_hbuf_stack(uint32_t node)
{
    lci_seg_t *s = lci_world.seg;
    return (lci_hbuf_stack_t *)(lci_world.base + s->off_pool_free +
                                node * s->pool_free_stride);
}

static inline uint32_t *lci_world_hbuf_stack_slots(uint32_t node)
{
    return (uint32_t *)(lci_world_hbuf_stack(node) + 1);
}

static inline lci_event_t *lci_world_heap(void)
{
    return (lci_event_t *)(lci_world.base + lci_world.seg->off_heap);
}

/* Reads a byte at p before the caller writes there.  The segment is a
 * shared mapping of pages that exist (lci_world_init allocates the ones
 * every process uses): a read fault maps the pages around p as well,
 * where a write fault maps one, so a process that first reads a page takes
 * one fault instead of up to sixteen. */
static inline void lci_world_touch(const void *p)
{
    (void)*(const volatile char *)p;
}

/* Size of the segment for cfg (events: event-queue capacity). */
uint64_t lci_world_size(const lci_config_t *cfg, uint64_t events);

/* Lays out and initialises a fresh segment at base (zeroed, size bytes):
 * every NI, ring and the scheduler.  On error writes a message. */
lci_status_t lci_world_init(void *base, uint64_t size, const lci_config_t *cfg,
                            const lci_profile_t *prof, uint64_t events,
                            char *err, size_t errlen);

/* Makes base (a mapping of an initialised segment) this process's world. */
lci_status_t lci_world_attach(void *base);

#endif
