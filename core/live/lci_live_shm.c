/*
 * lci_live_shm.c - the shared-memory wire: one single-producer,
 * single-consumer ring per ordered pair of nodes in the fabric.
 *
 * No syscalls on the fast path: the sender writes a slot and publishes it
 * with a release store of the tail; the receiver reads the tail with
 * acquire.  A full ring refuses the packet (back-pressure), never drops
 * it.  Only a receiver that is blocked costs its sender a futex wake.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lci_live.h"
#include "lci_live_nic.h"

typedef struct {
    _Atomic uint64_t tail; /* written by the sender */
    char pad0[56];
    _Atomic uint64_t head; /* written by the receiver */
    char pad1[56];
    /* slots follow: uint32_t bytes, uint32_t reserved, the packet */
} shm_ring_t;

static shm_ring_t *ring(lci_fabric_t *f, uint32_t src, uint32_t dst)
{
    return (shm_ring_t *)((char *)f + f->off_rings +
                          ((uint64_t)src * f->nnodes + dst) * f->ring_bytes);
}

static unsigned char *slot(lci_fabric_t *f, shm_ring_t *r, uint64_t i)
{
    return (unsigned char *)(r + 1) + (i % f->nslots) * f->slot_bytes;
}

/* The sender's copy of each ring's head (in L->wire_state), read from
 * the ring only when the ring looks full: the receiver writes the head
 * after every packet, and reading it on every send costs the sender a
 * cache-line transfer per packet.  A stale copy is never ahead of the
 * real head, so it can only make a free slot look taken. */
static int ring_full(lci_live_t *L, shm_ring_t *r, uint32_t dst, uint64_t t)
{
    uint64_t *seen = L->wire_state;
    if (t - seen[dst] < L->fabric->nslots) {
        return 0;
    }
    /* Acquire: the receiver is done with the slots before we reuse them. */
    seen[dst] = atomic_load_explicit(&r->head, memory_order_acquire);
    return t - seen[dst] >= L->fabric->nslots;
}

static lci_status_t shm_open(lci_live_t *L, char *err, size_t errlen)
{
    if (L->fabric == NULL ||
        L->fabric->off_rings + (uint64_t)L->size * L->size *
                                   L->fabric->ring_bytes >
            L->fabric->size) {
        snprintf(err, errlen,
                 "the shared-memory wire needs the fabric lci-run creates; "
                 "start the program with lci-run --platform live");
        return LCI_ERR_PLATFORM;
    }
    L->wire_state = calloc(L->size, sizeof(uint64_t));
    if (L->wire_state == NULL) {
        snprintf(err, errlen, "out of memory");
        return LCI_ERR_NOMEM;
    }
    return LCI_OK;
}

static int shm_send(lci_live_t *L, uint32_t dst, const unsigned char *pkt,
                    uint32_t bytes)
{
    lci_fabric_t *f = L->fabric;
    shm_ring_t *r = ring(f, L->rank, dst);
    if (atomic_load_explicit(&lci_fabric_node(f, dst)->dead,
                             memory_order_relaxed)) {
        return 0; /* nobody there: the packet is lost, as on a network */
    }
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (ring_full(L, r, dst, t) || bytes + 8 > f->slot_bytes) {
        return -1;
    }
    unsigned char *s = slot(f, r, t);
    memcpy(s, &bytes, 4);
    memcpy(s + 8, pkt, bytes);
    /* Release: the slot's bytes are visible before the new tail. */
    atomic_store_explicit(&r->tail, t + 1, memory_order_release);
    lci_live_fabric_wake(L, dst);
    return 0;
}

static unsigned char *shm_reserve(lci_live_t *L, uint32_t dst, uint32_t bytes)
{
    lci_fabric_t *f = L->fabric;
    shm_ring_t *r = ring(f, L->rank, dst);
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (ring_full(L, r, dst, t) || bytes + 8 > f->slot_bytes ||
        atomic_load_explicit(&lci_fabric_node(f, dst)->dead,
                             memory_order_relaxed)) {
        return NULL; /* shm_send decides */
    }
    return slot(f, r, t) + 8;
}

static void shm_commit(lci_live_t *L, uint32_t dst, uint32_t bytes)
{
    lci_fabric_t *f = L->fabric;
    shm_ring_t *r = ring(f, L->rank, dst);
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    memcpy(slot(f, r, t), &bytes, 4);
    atomic_store_explicit(&r->tail, t + 1, memory_order_release);
    lci_live_fabric_wake(L, dst);
}

static unsigned shm_poll(lci_live_t *L, lci_live_rx_func_t rx)
{
    lci_fabric_t *f = L->fabric;
    unsigned n = 0;
    for (uint32_t src = 0; src < L->size; src++) {
        shm_ring_t *r = ring(f, src, L->rank);
        uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
        /* Acquire: pairs with the sender's release of the tail. */
        uint64_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
        for (; h != t; h++, n++) {
            unsigned char *s = slot(f, r, h);
            uint32_t bytes;
            memcpy(&bytes, s, 4);
            rx(L, s + 8, bytes, src);
            /* Release: we are done reading the slot. */
            atomic_store_explicit(&r->head, h + 1, memory_order_release);
        }
    }
    return n;
}

static int shm_ready(lci_live_t *L)
{
    lci_fabric_t *f = L->fabric;
    for (uint32_t src = 0; src < L->size; src++) {
        shm_ring_t *r = ring(f, src, L->rank);
        if (atomic_load(&r->tail) != atomic_load(&r->head)) {
            return 1;
        }
    }
    return 0;
}

static void shm_block(lci_live_t *L, uint64_t timeout_ns)
{
    lci_live_fabric_block(L, timeout_ns, shm_ready);
}

static void shm_kick(lci_live_t *L)
{
    lci_live_fabric_wake(L, L->rank);
}

const lci_live_wire_ops_t lci_live_wire_shm = {
    .name = "shm",
    .may_damage = 0, /* memory does not flip bits on the way */
    .open = shm_open,
    .send = shm_send,
    .reserve = shm_reserve,
    .commit = shm_commit,
    .poll = shm_poll,
    .block = shm_block,
    .kick = shm_kick,
};
