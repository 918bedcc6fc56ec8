/*
 * lci_ni.h - the emulated network interface: its SRAM arena and the state
 * the hardware and the firmware keep in it.
 *
 * Everything of an NI lives in its SRAM arena (one contiguous region of the
 * shared segment) and refers to its parts by offsets from the arena's start,
 * so any process can run any NI's firmware.  The layout is fixed at start-up
 * by lci_ni_layout(); a configuration that does not fit is an error naming
 * the sizes.
 *
 * Buffers: indices 0..nsend-1 are send buffers, nsend..nsend+nrecv-1 receive
 * buffers.  Each holds one packet: a lci_wire_hdr_t then the payload.  A
 * buffer has a reference count: one for each pending use (transmission to a
 * child, DMA to the host, retransmission hold); it returns to its free list
 * when the count drops to zero.
 */
#ifndef LCI_NI_H
#define LCI_NI_H

#include <stdint.h>

#include "lci.h"
#include "lci_config.h"
#include "lci_contract.h"
#include "lci_profile.h"
#include "lci_ring_index.h"

#define LCI_NONE UINT32_MAX

/* A host DMA in flight: buffer buf reaches host memory at time. */
typedef struct {
    uint32_t buf;
    uint32_t reserved;
    uint64_t time;
} lci_ni_dma_t;

#define LCI_TIME_NONE UINT64_MAX

/* An arrived packet waiting for the firmware. */
typedef struct {
    lci_wire_hdr_t hdr;
    uint32_t buf;      /* receive buffer holding it, LCI_NONE if none */
    uint32_t status;   /* lci_hw_status_t */
    uint32_t link_src; /* the node whose link delivered it */
} lci_rxq_entry_t;

/* Per peer: the link hardware's sequence check (the protocols keep their
 * own per-peer state in their rx module's state). */
typedef struct {
    uint16_t link_tx; /* last sequence stamped on a packet to this peer */
    uint16_t link_rx; /* last sequence seen on a packet from this peer */
    uint16_t drop_noted; /* a drop note from this peer is queued */
    uint16_t reserved;
} lci_ni_peer_t;

/* The queues an LCI_FW_QUEUE_FULL failure names (its first detail; the
 * second is the queue's capacity). */
typedef enum {
    LCI_NI_Q_SEND = 1,     /* packets an rx module queues or keeps */
    LCI_NI_Q_HOST_DMA = 2, /* buffers waiting for a host ring slot */
    LCI_NI_Q_ARRIVAL = 3,  /* arrivals waiting for the firmware */
    LCI_NI_Q_COUNT
} lci_ni_queue_t;

/* A packet buffer waits on at most this many send queues at once: a
 * multicast packet goes to each of a binary tree's two children. */
#define LCI_BUF_MAX_SENDS 2

/* A multicast group as the NI stores it. */
typedef struct {
    uint32_t nmembers;
    uint32_t members; /* offset of uint16_t[nmembers] in the arena */
    int32_t self;     /* this node's index in members, -1 if absent */
    uint32_t reserved;
} lci_ni_group_t;

/* A simple FIFO of uint32_t indices stored in the arena. */
typedef struct {
    uint32_t off; /* offset of uint32_t[cap] */
    uint32_t cap;
    uint32_t head, count;
} lci_ni_fifo_t;

/* The host's word for ring slots it has released, written by PIO: it
 * lands in NI memory at time (the PCI write's latency), in the order of
 * the simulation's events at that time (seq).  The firmware takes it in
 * when it next looks at the ring's space, with no event. */
typedef struct {
    uint64_t time, seq;
    uint32_t limit, reserved;
} lci_ring_release_t;

/* Releases written but not yet taken in; a host that writes more while
 * they are pending rings the NI instead (an event). */
#define LCI_NI_RING_LOG 8

/* A transfer's duration at one rate, remembered for its size. */
typedef struct {
    uint64_t bytes, ns;
    double mb_per_s;
} lci_hw_rate_memo_t;

/* ns to move bytes at mb_per_s (1 MB/s is a byte a microsecond), rounded;
 * the same value the division gives, without it for a repeated size. */
static inline uint64_t lci_hw_transfer_ns(lci_hw_rate_memo_t *m, uint64_t bytes,
                                          double mb_per_s)
{
    if (m->bytes != bytes || m->mb_per_s != mb_per_s) {
        m->bytes = bytes;
        m->mb_per_s = mb_per_s;
        m->ns = (uint64_t)((double)bytes * 1000.0 / mb_per_s + 0.5);
    }
    return m->ns;
}

typedef struct lci_ni {
    /* ---- identity and layout (written at start-up) ---- */
    uint32_t node, nnodes;
    uint32_t packet_size, payload_max;
    uint32_t nsend, nrecv, nbufs, window, nring, nfa, ngroups;
    uint32_t arena_bytes, arena_used;
    uint32_t off_bufs, off_refcnt, off_cmd, off_free, off_peers, off_rxq,
        off_fa, off_groups, off_members;
    uint32_t off_rx_state; /* the rx module's state, when it runs here */
    uint32_t off_timers;   /* the timer wheel (NI clock) */
    uint32_t ntimers;
    uint32_t reserved_layout;
    uint64_t timer_sched_time; /* the pending TIMER event, or LCI_TIME_NONE */
    uint32_t members_used;

    /* ---- host -> NI ---- */
    uint32_t ncmd;           /* command ring slots */
    uint32_t h_cmd_prod;     /* written by the host (PIO) */
    uint32_t ni_cmd_cons;    /* commands the NI has taken */
    uint32_t ni_ring_limit;  /* host ring slots released, as taken in */
    uint32_t h_intr_enabled; /* host asked for interrupts */
    lci_ring_release_t ring_log[LCI_NI_RING_LOG]; /* written by the host */
    uint32_t ring_log_head, ring_log_count;
    uint64_t run_time, run_seq; /* the firmware's place among events */

    /* ---- NI -> host ---- */
    uint32_t ni_free_prod, h_free_cons; /* free-send ring indices */
    uint64_t ni_free_last;              /* time of the newest entry */
    uint32_t off_send_time;             /* uint64_t[nsend]: when each send
                                           buffer's last use ends */
    uint32_t ni_ring_prod;              /* next host ring slot to fill */

    /* ---- buffer and descriptor pools ---- */
    lci_ni_fifo_t recv_free; /* free receive buffers (a stack: the most
                                recently freed, still warm, is reused) */
    /* arrived packets waiting for the firmware: a ring of lci_rxq_entry_t */
    uint32_t rxq_off, rxq_cap, rxq_head, rxq_count;
    uint32_t rxq_notes;    /* entries that are drop notes */
    uint32_t rxq_bare;     /* other entries without a buffer */
    uint32_t rxq_bare_cap; /* room for those */
    uint32_t rx_recovers;  /* the rx module retransmits lost packets */
    lci_ni_fifo_t dma_wait;  /* buffers waiting for a host ring slot */
    /* host DMAs in flight, in completion order: lci_ni_dma_t[dma_cap] */
    uint32_t dma_off, dma_cap, dma_head, dma_count;
    lci_ni_fifo_t tx_freed;  /* receive buffers freed by a transmission */

    /* ---- engines and processor (virtual ns) ---- */
    uint64_t cpu_free;  /* NI processor busy until */
    uint64_t tx_free;   /* SRAM -> wire DMA busy until */
    uint64_t rx_free;   /* wire -> SRAM DMA busy until */
    uint64_t hdma_free; /* SRAM <-> host DMA busy until */
    uint64_t now;       /* time of the firmware handler running */
    uint64_t fw_sched_time; /* the pending FW_RUN event, or LCI_TIME_NONE */
    uint32_t fw_running;    /* a firmware handler is running (no re-entry) */
    uint32_t hdma_inflight;
    /* The last transfer time each engine computed: packets come in few
     * sizes, and the division is on every packet's path. */
    lci_hw_rate_memo_t link_memo, pci_memo;
    uint32_t reserved2;

    /* ---- interrupts ---- */
    uint32_t watchdog_armed;
    uint32_t reserved0;
    uint64_t watchdog_at; /* when the watchdog was armed */
    uint64_t watchdog_next; /* the first packet DMAed to the host since
                               the last poll the NI knew of then */
    uint64_t h_last_poll; /* host's last poll time (host writes) */
    uint64_t ni_intr_time; /* time of the last interrupt raised */
    uint32_t ni_intr_pending;
    uint32_t reserved1;

    /* ---- failure report (no stdio on the NI) ---- */
    uint32_t fault, fault_a, fault_b, fault_c;

    lci_counters_t counters;
} lci_ni_t;

/* The host writes a ring release into NI memory, landing at time in place
 * seq, for the firmware to read when it next needs ring space.  Returns 0
 * where the host must ring the NI instead: the NI already waits for space
 * (it must hear of the release when it lands), or the log is full. */
static inline int lci_ni_ring_release_write(struct lci_ni *ni, uint64_t time,
                                            uint64_t seq, uint32_t limit)
{
    if (ni->dma_wait.count > 0 || ni->ring_log_count == LCI_NI_RING_LOG) {
        return 0;
    }
    lci_ring_release_t *r = &ni->ring_log[(ni->ring_log_head +
                                           ni->ring_log_count) %
                                          LCI_NI_RING_LOG];
    r->time = time;
    r->seq = seq;
    r->limit = limit;
    ni->ring_log_count++;
    return 1;
}

/* Pointers into an NI's arena. */
#define LCI_NI_AT(ni, off, type) ((type *)((char *)(ni) + (off)))

static inline lci_ni_peer_t *lci_ni_peer(lci_ni_t *ni, uint32_t peer)
{
    return LCI_NI_AT(ni, ni->off_peers, lci_ni_peer_t) + peer;
}

static inline char *lci_ni_buf(lci_ni_t *ni, uint32_t buf)
{
    return LCI_NI_AT(ni, ni->off_bufs, char) + (uint64_t)buf * ni->packet_size;
}

static inline lci_wire_hdr_t *lci_ni_buf_hdr(lci_ni_t *ni, uint32_t buf)
{
    return (lci_wire_hdr_t *)lci_ni_buf(ni, buf);
}

static inline uint8_t *lci_ni_refcnt(lci_ni_t *ni, uint32_t buf)
{
    return LCI_NI_AT(ni, ni->off_refcnt, uint8_t) + buf;
}

static inline lci_cmd_t *lci_ni_cmd(lci_ni_t *ni, uint32_t idx)
{
    return LCI_NI_AT(ni, ni->off_cmd, lci_cmd_t) + lci_ring_pos(idx, ni->ncmd);
}

static inline lci_free_entry_t *lci_ni_free_entry(lci_ni_t *ni, uint32_t idx)
{
    return LCI_NI_AT(ni, ni->off_free, lci_free_entry_t) +
           lci_ring_pos(idx, ni->nsend);
}

static inline int64_t *lci_ni_fa(lci_ni_t *ni, uint32_t var)
{
    return LCI_NI_AT(ni, ni->off_fa, int64_t) + var;
}

static inline lci_ni_group_t *lci_ni_group(lci_ni_t *ni, uint32_t gid)
{
    return LCI_NI_AT(ni, ni->off_groups, lci_ni_group_t) + gid;
}

static inline const uint16_t *lci_ni_group_members(lci_ni_t *ni,
                                                   const lci_ni_group_t *g)
{
    return LCI_NI_AT(ni, g->members, const uint16_t);
}

/* A group's member list, or NULL for group 0 (every node, in rank order). */
static inline const uint16_t *lci_ni_group_view(lci_ni_t *ni,
                                                const lci_ni_group_t *g)
{
    return g->members == LCI_NONE ? NULL : lci_ni_group_members(ni, g);
}

/* ---- fifo of indices in the arena ---- */
static inline int lci_ni_fifo_push(lci_ni_t *ni, lci_ni_fifo_t *f, uint32_t v)
{
    if (f->count == f->cap) {
        return -1;
    }
    uint32_t at = lci_ring_add(f->head, f->count, f->cap);
    LCI_NI_AT(ni, f->off, uint32_t)[at] = v;
    f->count++;
    return 0;
}

static inline uint32_t lci_ni_fifo_pop(lci_ni_t *ni, lci_ni_fifo_t *f)
{
    if (f->count == 0) {
        return LCI_NONE;
    }
    uint32_t v = LCI_NI_AT(ni, f->off, uint32_t)[f->head];
    f->head = lci_ring_add(f->head, 1, f->cap);
    f->count--;
    return v;
}

/* The same storage used as a stack. */
static inline uint32_t lci_ni_stack_pop(lci_ni_t *ni, lci_ni_fifo_t *f)
{
    if (f->count == 0) {
        return LCI_NONE;
    }
    f->count--;
    uint32_t at = lci_ring_add(f->head, f->count, f->cap);
    return LCI_NI_AT(ni, f->off, uint32_t)[at];
}

static inline uint32_t lci_ni_fifo_peek(lci_ni_t *ni, const lci_ni_fifo_t *f)
{
    return f->count ? LCI_NI_AT(ni, f->off, uint32_t)[f->head] : LCI_NONE;
}

/* Lays out an NI in the arena at ni (arena_bytes long) for node `node`
 * under cfg.  Returns LCI_ERR_CONFIG with the numbers in err if it does not
 * fit. */
lci_status_t lci_ni_layout(lci_ni_t *ni, uint64_t arena_bytes, uint32_t node,
                           const lci_config_t *cfg, const lci_profile_t *prof,
                           char *err, size_t errlen);

#endif
