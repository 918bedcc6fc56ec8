/*
 * lci_live_shm.c - the shared-memory wire: one single-producer,
 * single-consumer ring per ordered pair of nodes in the fabric.
 *
 * No syscalls on the fast path, and one cache line per small packet: a
 * slot carries its own stamp (the packet's number in the ring, plus one),
 * which the sender stores last with release and the receiver polls with
 * acquire, so the receiver finds the stamp and the packet in the line it
 * had to fetch anyway (no shared tail to read first).  A packet of up to
 * a line on a link that computes no CRC (memory, unless damage is
 * injected) goes compact: the stamp word carries its length and takes the
 * CRC field's place, so a header and 32 bytes of payload (an MPI message
 * of 8 bytes behind Panda's and MPI's headers) fit the one line, where a
 * second line would cost the receiver a second transfer from the sender's
 * core.  The link frames such a packet right in its slot, not elsewhere
 * for a copy: a copy of bytes just written by stores of other widths
 * waits for them to reach the cache (store forwarding fails), which cost
 * a small packet 8 ns of its one way.  The receiver publishes how far it
 * has read (the head) for the sender's flow control; the sender reads it
 * only when the ring looks full.  A full ring refuses the packet
 * (back-pressure), never drops it.  Only a receiver that is blocked costs
 * its sender a futex wake.  A receiver that polls in vain sends the slot
 * it looked at down to the shared cache, so that the sender does not have
 * to take the line from the receiver's core to write it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "lci_live.h"
#include "lci_live_nic.h"

typedef struct {
    _Atomic uint64_t head; /* written by the receiver: slots it is done with */
    char pad[120];
    /* slots follow, each 64-byte aligned: the stamp word, then either
     * uint32_t bytes and the packet, or (compact) the packet after its
     * CRC field */
} shm_ring_t;

/* The stamp word: VALID and the low 15 bits of the packet's number plus
 * one (a slot's previous packet, nslots <= 256 numbers earlier, differs),
 * and for a compact packet COMPACT and its length.  VALID keeps what the
 * link writes there while it frames a compact packet in the slot (the
 * CRC field, zero on this wire) from ever passing for a stamp. */
#define STAMP_SHIFT 16
#define VALID 0x8000u /* in the number's 16 bits */
#define COMPACT 0x8000u
#define COMPACT_MAX 64u /* bytes: the packet with its stamp in one line */

/* This node's ends of its rings, in this process only. */
typedef struct {
    uint64_t tail; /* sending: the next packet's number */
    uint64_t seen; /* sending: the ring's head as last read (never ahead) */
    uint64_t next; /* receiving: the number of the next packet to take */
    uint32_t pos;  /* the slot of tail (sending) or next (receiving): no
                      division per packet, nor per empty poll */
    uint32_t answer; /* sending: a packet came from dst since our last one
                        to it, which our next one may answer */
} shm_end_t;

/* L->wire_state: the source of the last packet taken (NO_SOURCE before
 * the first), then the sending ends, one per destination, and the
 * receiving ends, one per source. */
typedef struct {
    uint32_t last_src;
    uint32_t has_prefetchw; /* the processor has PREFETCHW */
    /* A kick came (the host posted work for its NIC thread) that no block
     * has taken yet: kept until one does, as the UDP wire's eventfd keeps
     * its count, so that a kick just before the block is not lost. */
    _Atomic uint32_t kicked;
    shm_end_t end[];
} shm_state_t;

#define NO_SOURCE UINT32_MAX

static shm_ring_t *ring(lci_fabric_t *f, uint32_t src, uint32_t dst)
{
    return (shm_ring_t *)((char *)f + f->off_rings +
                          ((uint64_t)src * f->nnodes + dst) * f->ring_bytes);
}

static unsigned char *slot(lci_fabric_t *f, shm_ring_t *r, uint32_t pos)
{
    return (unsigned char *)(r + 1) + (uint64_t)pos * f->slot_bytes;
}

/* Moves an end on by one packet. */
static void advance(lci_fabric_t *f, shm_end_t *e, uint64_t *number)
{
    ++*number;
    e->pos = e->pos + 1 == f->nslots ? 0 : e->pos + 1;
}

static _Atomic uint32_t *stamp_of(unsigned char *s)
{
    return (_Atomic uint32_t *)(void *)s;
}

/* Slot s holds packet i once its stamp says so: the stamp of a slot
 * still holding an older packet (or never written) differs. */
static uint32_t stamp_for(uint64_t i)
{
    return (VALID | ((uint32_t)(i + 1) & 0x7fffu)) << STAMP_SHIFT;
}

/* Whether a packet of bytes the link frames goes compact: small, on a
 * link that computes no CRC (its CRC field, zero, gives way to the stamp,
 * and the receiver ignores it). */
static int framed_compact(const lci_live_t *L, uint32_t bytes)
{
    return !L->crc_on && bytes <= COMPACT_MAX;
}

/* The same for packet pkt, framed elsewhere: its CRC field must be zero.
 * A CRC that happens to be zero does not qualify: that receiver checks
 * the field. */
static int compact_fits(const lci_live_t *L, const unsigned char *pkt,
                        uint32_t bytes)
{
    uint32_t crc;
    if (!framed_compact(L, bytes) || bytes < sizeof crc) {
        return 0;
    }
    memcpy(&crc, pkt, sizeof crc);
    return crc == 0;
}

static shm_end_t *sending_end(lci_live_t *L, uint32_t dst)
{
    return &((shm_state_t *)L->wire_state)->end[dst];
}

static shm_end_t *receiving_end(lci_live_t *L, uint32_t src)
{
    return &((shm_state_t *)L->wire_state)->end[L->size + src];
}

static int ring_full(lci_live_t *L, shm_ring_t *r, shm_end_t *e)
{
    if (e->tail - e->seen < L->fabric->nslots) {
        return 0;
    }
    /* Acquire: the receiver is done with the slots before we reuse them. */
    e->seen = atomic_load_explicit(&r->head, memory_order_acquire);
    return e->tail - e->seen >= L->fabric->nslots;
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
    shm_state_t *st =
        calloc(1, sizeof *st + 2 * (size_t)L->size * sizeof(shm_end_t));
    if (st == NULL) {
        snprintf(err, errlen, "out of memory");
        return LCI_ERR_NOMEM;
    }
    st->last_src = NO_SOURCE;
#if defined(__x86_64__)
    unsigned a, b, c, d;
    st->has_prefetchw = __get_cpuid(0x80000001u, &a, &b, &c, &d) &&
                        (c & (1u << 8)) != 0;
#endif
    L->wire_state = st;
    return LCI_OK;
}

/* Moves the cache line at p from this core's caches to the cache all
 * cores share (CLDEMOTE), where another core finds it without asking this
 * one.  A hint: a processor without the instruction executes it as a
 * no-op.  Encoded by hand (0f 1c /0, the address in rax), so that no
 * assembler needs to know its name. */
static void demote_line(const void *p)
{
#if defined(__x86_64__)
    __asm__ volatile(".byte 0x0f, 0x1c, 0x00" : : "a"(p) : "memory");
#else
    (void)p;
#endif
}

/* Fetches the cache line at p into this core's cache, ready to be
 * written (PREFETCHW), where the processor has the instruction. */
static void prefetch_for_write(const shm_state_t *st, const void *p)
{
#if defined(__x86_64__)
    if (st->has_prefetchw) {
        __asm__ volatile("prefetchw (%0)" : : "r"(p));
    }
#else
    (void)st;
    (void)p;
#endif
}

/* The host is about to send to dst: the line of the next slot there is
 * fetched for writing now, while the host library, the firmware and the
 * link do their part, not when the link writes the packet (8 B one way:
 * 0.234 to 0.216 us; MPI's 0.336 to 0.301).  Only for an answer: a
 * stream's every packet fetched so took its line from the receiver's
 * polls again and again (8-byte packets streamed 4% slower).  Fetched
 * when the packet it answers arrived, the line was taken back by the
 * peer's polls before an MPI answer came (MPI 8 B 10% slower). */
static void shm_will_send(lci_live_t *L, uint32_t dst)
{
    if (dst >= L->size) {
        return;
    }
    shm_end_t *e = sending_end(L, dst); /* never an answer to itself */
    if (e->answer) {
        prefetch_for_write(L->wire_state,
                           slot(L->fabric, ring(L->fabric, L->rank, dst),
                                e->pos));
    }
}

static int dead(lci_fabric_t *f, uint32_t dst)
{
    return (int)atomic_load_explicit(&lci_fabric_node(f, dst)->dead,
                                     memory_order_relaxed);
}

/* Publishes packet e->tail, whose bytes are in slot s: the stamp last.
 * extra: COMPACT and the length for a compact packet, else 0. */
static void publish(lci_live_t *L, uint32_t dst, shm_end_t *e,
                    unsigned char *s, uint32_t extra)
{
    /* Release: the slot's bytes are visible before its stamp. */
    atomic_store_explicit(stamp_of(s), stamp_for(e->tail) | extra,
                          memory_order_release);
    advance(L->fabric, e, &e->tail);
    e->answer = 0;
    lci_live_fabric_wake(L, dst);
}

/* Copies packet pkt into slot s, compact if it fits, and publishes it. */
static void put(lci_live_t *L, uint32_t dst, shm_end_t *e, unsigned char *s,
                const unsigned char *pkt, uint32_t bytes)
{
    if (compact_fits(L, pkt, bytes)) {
        memcpy(s + 4, pkt + 4, bytes - 4);
        publish(L, dst, e, s, COMPACT | bytes);
    } else {
        memcpy(s + 4, &bytes, 4);
        memcpy(s + 8, pkt, bytes);
        publish(L, dst, e, s, 0);
    }
}

static int shm_send(lci_live_t *L, uint32_t dst, const unsigned char *pkt,
                    uint32_t bytes)
{
    lci_fabric_t *f = L->fabric;
    shm_ring_t *r = ring(f, L->rank, dst);
    shm_end_t *e = sending_end(L, dst);
    if (dead(f, dst)) {
        return 0; /* nobody there: the packet is lost, as on a network */
    }
    if (ring_full(L, r, e) || bytes + 8 > f->slot_bytes) {
        return -1;
    }
    put(L, dst, e, slot(f, r, e->pos), pkt, bytes);
    return 0;
}

static unsigned char *shm_reserve(lci_live_t *L, uint32_t dst, uint32_t bytes)
{
    lci_fabric_t *f = L->fabric;
    shm_ring_t *r = ring(f, L->rank, dst);
    shm_end_t *e = sending_end(L, dst);
    if (ring_full(L, r, e) || bytes + 8 > f->slot_bytes || dead(f, dst)) {
        return NULL; /* shm_send decides */
    }
    unsigned char *s = slot(f, r, e->pos);
    return framed_compact(L, bytes) ? s : s + 8;
}

static void shm_commit(lci_live_t *L, uint32_t dst, uint32_t bytes)
{
    lci_fabric_t *f = L->fabric;
    shm_end_t *e = sending_end(L, dst);
    unsigned char *s = slot(f, ring(f, L->rank, dst), e->pos);
    if (framed_compact(L, bytes)) {
        publish(L, dst, e, s, COMPACT | bytes);
    } else {
        memcpy(s + 4, &bytes, 4);
        publish(L, dst, e, s, 0);
    }
}

/* The slot of the next packet from src, if it has arrived, with its stamp
 * word in *word_p. */
static unsigned char *arrived(lci_live_t *L, uint32_t src, shm_ring_t **r_p,
                              uint32_t *word_p)
{
    lci_fabric_t *f = L->fabric;
    shm_ring_t *r = ring(f, src, L->rank);
    shm_end_t *e = receiving_end(L, src);
    unsigned char *s = slot(f, r, e->pos);
    /* Acquire: pairs with the sender's release of the stamp. */
    uint32_t word = atomic_load_explicit(stamp_of(s), memory_order_acquire);
    if ((word & ~((1u << STAMP_SHIFT) - 1)) != stamp_for(e->next)) {
        return NULL;
    }
    *r_p = r;
    *word_p = word;
    return s;
}

/* Hands the packet in slot s (stamp word word) to rx. */
static void take(lci_live_t *L, lci_live_rx_func_t rx, unsigned char *s,
                 uint32_t word, uint32_t src)
{
    if (word & COMPACT) {
        /* Read in the slot, stamp and all: with no CRC on this wire the
         * receiver ignores the CRC field the stamp stands in for, so the
         * packet needs no copy with that field zeroed. */
        rx(L, s, word & (COMPACT - 1), src);
        return;
    }
    uint32_t bytes;
    memcpy(&bytes, s + 4, 4);
    rx(L, s + 8, bytes, src);
}

/* Packets a poll takes from one source at most.  A sender that streams
 * keeps its ring filling while the receiver takes from it: a poll that
 * took everything would keep the NI taking packets in while the host
 * delivers none and frees no buffer, until the host ring and the NI's
 * buffers are full and the stream stalls (16 KiB packets: 4.3 GB/s
 * unbounded, 11.3 GB/s with 8). */
#define SHM_POLL_BATCH 8

static unsigned shm_poll(lci_live_t *L, lci_live_rx_func_t rx)
{
    shm_state_t *st = L->wire_state;
    unsigned n = 0;
    for (uint32_t src = 0; src < L->size; src++) {
        shm_ring_t *r;
        unsigned char *s;
        uint32_t word;
        shm_end_t *e = receiving_end(L, src);
        for (unsigned k = 0; k < SHM_POLL_BATCH &&
                             (s = arrived(L, src, &r, &word)) != NULL;
             k++) {
            take(L, rx, s, word, src);
            if (src != L->rank) {
                st->last_src = src; /* a packet to itself stays here */
                sending_end(L, src)->answer = 1;
            }
            advance(L->fabric, e, &e->next);
            n++;
            /* Release: we are done reading the slot. */
            atomic_store_explicit(&r->head, e->next, memory_order_release);
        }
    }
    uint32_t src = st->last_src;
    if (n == 0 && src != NO_SOURCE) {
        /* The caller polls again soon.  A slot this core has just looked
         * at sits in its cache, so the sender writing it must first take
         * the line from this core, and the look after the next steals it
         * back while the sender writes.  Sent down to the shared cache
         * after every empty look, the line of the likeliest next packet
         * (the next from the last source) is where the sender takes it
         * without asking this core (8 B one way: 0.250 to 0.226 us, where
         * a pause between passes had taken 0.263 to 0.250).  One line a
         * pass: the next look at it costs a trip to the shared cache,
         * 8-byte packets streamed 4% slower. */
        demote_line(slot(L->fabric, ring(L->fabric, src, L->rank),
                         receiving_end(L, src)->pos));
    }
    return n;
}

static int shm_ready(lci_live_t *L)
{
    shm_state_t *st = L->wire_state;
    if (atomic_exchange(&st->kicked, 0)) {
        return 1;
    }
    for (uint32_t src = 0; src < L->size; src++) {
        shm_ring_t *r;
        uint32_t word;
        if (arrived(L, src, &r, &word) != NULL) {
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
    shm_state_t *st = L->wire_state;
    atomic_store_explicit(&st->kicked, 1, memory_order_release);
    lci_live_fabric_wake(L, L->rank); /* fences before it looks */
}

const lci_live_wire_ops_t lci_live_wire_shm = {
    .name = "shm",
    .may_damage = 0, /* memory does not flip bits on the way */
    .open = shm_open,
    .send = shm_send,
    .reserve = shm_reserve,
    .commit = shm_commit,
    .will_send = shm_will_send,
    .poll = shm_poll,
    .block = shm_block,
    .kick = shm_kick,
};
