/*
 * lci_live_wire.h - the live platform's wires and the fabric segment that
 * lci-run shares between the node processes of one machine.
 *
 * A wire moves whole LCI packets (header, payload, CRC as the link
 * hardware framed them) from one node's NI to another's.  The shared-memory
 * wire never loses a packet: a full ring pushes back, and the sender keeps
 * the packet in its link backlog until there is room.  The UDP wire is a
 * real network: datagrams can be lost, duplicated, reordered or damaged,
 * and the receiving hardware's CRC and link-sequence checks see it.
 *
 * Who can reach them: the fabric and its rings are a memfd that lci-run
 * creates and only its node processes inherit (no name in the file
 * system, nothing to open from outside).  A UDP socket can be reached by
 * anyone who can send it a datagram, so every datagram is authenticated
 * as one of the job's own (lci_live_auth.h) before the NI sees it.
 */
#ifndef LCI_LIVE_WIRE_H
#define LCI_LIVE_WIRE_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lci.h"

#define LCI_FABRIC_MAGIC 0x4c4349464142ULL /* "LCIFAB" */

/* Per node, in the fabric: its wake-up word and what the others need to
 * know about it. */
typedef struct {
    _Atomic uint32_t word;     /* futex: bumped to wake a blocked node */
    _Atomic uint32_t sleepers; /* the node is (about to be) blocked */
    _Atomic uint32_t started;  /* reached lci_init */
    _Atomic uint32_t addr_set; /* addr is valid */
    _Atomic int32_t pid;
    _Atomic uint32_t dead;     /* lci-run saw the process die */
    struct sockaddr_in addr;   /* its UDP socket */
    char pad[64 - 24 - sizeof(struct sockaddr_in)];
} lci_fabric_node_t;

typedef struct {
    uint64_t magic;
    uint32_t nnodes, nslots;
    uint64_t slot_bytes, ring_bytes;
    uint64_t off_nodes, off_rings, size;
    _Atomic uint32_t started; /* nodes through lci_init */
    /* Set by a node that cannot have the kernel fence it (membarrier):
     * wakers then fence themselves (lci_live_fabric.c). */
    _Atomic uint32_t wakers_fence;
    uint64_t epoch; /* CLOCK_MONOTONIC ns when the run began: time 0 */
    /* The job's key for the UDP wire (lci_live_auth.h): lci-run draws it;
     * the fabric is a memfd only the job's processes inherit. */
    unsigned char key[32];
} lci_fabric_t;

/* Bytes of a fabric for nnodes nodes with packets up to packet_size bytes
 * (rings only if shm). */
uint64_t lci_fabric_size(uint32_t nnodes, uint32_t packet_size, int shm);
/* Lays a fabric out in zeroed memory of that size. */
void lci_fabric_init(void *base, uint32_t nnodes, uint32_t packet_size,
                     int shm);

static inline lci_fabric_node_t *lci_fabric_node(lci_fabric_t *f, uint32_t k)
{
    return (lci_fabric_node_t *)((char *)f + f->off_nodes) + k;
}

struct lci_live;

/* Called by a wire for each packet that arrived (src: the sending node as
 * the wire knows it). */
typedef void (*lci_live_rx_func_t)(struct lci_live *L,
                                   const unsigned char *pkt, uint32_t bytes,
                                   uint32_t src);

typedef struct {
    const char *name;
    /* Whether the wire itself can damage a packet: only then does the link
     * hardware compute and check the CRC (and when faults damage one). */
    int may_damage;
    lci_status_t (*open)(struct lci_live *L, char *err, size_t errlen);
    /* Sends one packet; 0, or -1 if the wire cannot take it now. */
    int (*send)(struct lci_live *L, uint32_t dst, const unsigned char *pkt,
                uint32_t bytes);
    /* Optional: room for a packet of up to bytes bytes on the wire to dst,
     * for the link hardware to frame it in place (NULL: no room now, or
     * nobody there; then it goes through send).  commit sends it.  On a
     * link that computes no CRC the packet's CRC field (its first word) is
     * the wire's: the link writes it zero, and a small packet's stamp may
     * take its place. */
    unsigned char *(*reserve)(struct lci_live *L, uint32_t dst,
                              uint32_t bytes);
    void (*commit)(struct lci_live *L, uint32_t dst, uint32_t bytes);
    /* Optional: a packet to dst will follow soon (a hint). */
    void (*will_send)(struct lci_live *L, uint32_t dst);
    /* Hands every packet that has arrived to rx; returns how many. */
    unsigned (*poll)(struct lci_live *L, lci_live_rx_func_t rx);
    /* Blocks until a packet may have arrived, a kick came (also one
     * before the call, since the last block), or timeout_ns passed. */
    void (*block)(struct lci_live *L, uint64_t timeout_ns);
    /* Wakes this node's own blocked thread (host or NIC). */
    void (*kick)(struct lci_live *L);
} lci_live_wire_ops_t;

extern const lci_live_wire_ops_t lci_live_wire_shm;
extern const lci_live_wire_ops_t lci_live_wire_udp;

/* A packet the wire could not take yet (shared-memory back-pressure or a
 * full socket buffer): kept, in order per destination, until it can.  Per
 * destination, so that a node that stopped receiving holds up nobody
 * else's traffic. */
typedef struct lci_live_backlog {
    struct lci_live_backlog *next;
    uint32_t dst, bytes;
    unsigned char pkt[];
} lci_live_backlog_t;

typedef struct {
    lci_live_backlog_t *head, *tail;
} lci_live_backlog_queue_t;

typedef struct lci_live {
    uint32_t rank, size;
    int nic_thread;
    int launched;       /* started by lci-run (it reports failures) */
    uint64_t now;       /* the clock as last read by a progress pass */
    unsigned stale_passes; /* passes since the clock was last read */
    uint64_t spin_ns;   /* how long a waiter spins before it blocks */
    const lci_live_wire_ops_t *wire;
    lci_fabric_t *fabric; /* NULL without lci-run */
    void *wire_state;

    /* this node's event queue, ordered by (time, seq) */
    lci_event_t *heap;
    uint64_t nheap, capheap, seq;
    int in_progress;

    /* the link: fault injection and back-pressure */
    uint64_t packets, burst_left;
    int faults;
    int crc_on;                   /* the link computes and checks CRCs */
    lci_live_backlog_queue_t *bl; /* per destination */
    uint64_t backlog;             /* packets in all of them */
    unsigned char *scratch;
    uint64_t last_rx;   /* when a packet last arrived */
} lci_live_t;

#endif
