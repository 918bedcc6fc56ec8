/*
 * lci_live_fabric.c - the segment lci-run shares between the live nodes of
 * one machine: per node a wake-up word, its pid and its UDP address, and
 * (for the shared-memory wire) one ring per ordered pair of nodes.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lci_live.h"
#include "lci_live_nic.h"

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* Bytes of packet slots a ring holds at most.  Every packet is copied into
 * a slot by one core and out by another: a deeper ring only takes the
 * slots out of both caches (MPI bandwidth, 64 KiB messages in 16 KiB
 * packets: 6.4 GB/s with 256 slots, 4 MiB; 7.1 GB/s with 31, 512 KiB). */
#define RING_BYTES (512u << 10)

static uint32_t ring_slots(uint32_t nnodes, uint64_t slot_bytes)
{
    /* Deep enough for a window of packets and their acknowledgements;
     * shallower on large clusters, which have n * (n - 1) rings. */
    uint32_t s = 8192 / (nnodes ? nnodes : 1);
    s = s < 32 ? 32 : s > 256 ? 256 : s;
    /* Large packets: fewer slots, though never fewer than a window. */
    uint64_t fit = RING_BYTES / slot_bytes;
    fit = fit < 16 ? 16 : fit;
    return s > fit ? (uint32_t)fit : s;
}

uint64_t lci_fabric_size(uint32_t nnodes, uint32_t packet_size, int shm)
{
    uint64_t nodes = round_up(sizeof(lci_fabric_t), 64);
    uint64_t rings = round_up(nodes + nnodes * sizeof(lci_fabric_node_t), 4096);
    if (!shm) {
        return rings;
    }
    uint64_t slot = round_up(8 + packet_size, 64);
    uint64_t ring = round_up(128 + ring_slots(nnodes, slot) * slot, 4096);
    return rings + (uint64_t)nnodes * nnodes * ring;
}

void lci_fabric_init(void *base, uint32_t nnodes, uint32_t packet_size,
                     int shm)
{
    lci_fabric_t *f = base;
    f->magic = LCI_FABRIC_MAGIC;
    f->nnodes = nnodes;
    f->slot_bytes = round_up(8 + packet_size, 64);
    f->nslots = ring_slots(nnodes, f->slot_bytes);
    f->ring_bytes = round_up(128 + f->nslots * f->slot_bytes, 4096);
    f->off_nodes = round_up(sizeof(lci_fabric_t), 64);
    f->off_rings =
        round_up(f->off_nodes + nnodes * sizeof(lci_fabric_node_t), 4096);
    f->size = lci_fabric_size(nnodes, packet_size, shm);
}

/* ---- waking a blocked node -------------------------------------------
 *
 * A node about to block stores that it sleeps, then looks for work once
 * more; a node with news for it stores the news, then looks whether it
 * sleeps.  Each needs a full fence between its store and its look, or
 * both may miss the other (and the sleeper waits for its timeout).  The
 * waker's fence is on the path of every packet: it waits for the packet's
 * stores to leave the core, which stops a stream of small packets (8-byte
 * packets: 8.9 million a second with it, 10.6 without).  So the sleeper,
 * which is about to make a system call anyway, has the kernel fence every
 * core that runs a node (membarrier), and the wakers do without.  Not
 * where the nodes oversubscribe the cores: they block all the time, and
 * a fence on every core each time made a ping-pong with NIC threads on
 * two cores slower (98 us to 104-169).  A node process whose kernel
 * refuses it, or that oversubscribes, says so in the fabric, and the
 * wakers fence themselves. */

/* This process asked the kernel to fence it when a sleeper asks. */
static int fenced_by_sleepers;

void lci_live_fabric_fences(lci_live_t *L, int by_sleepers)
{
    if (L->fabric == NULL) {
        return;
    }
    if (by_sleepers && !fenced_by_sleepers) {
        fenced_by_sleepers =
            syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED,
                    0, 0) == 0;
    }
    if (!by_sleepers || !fenced_by_sleepers) {
        atomic_store(&L->fabric->wakers_fence, 1);
    }
}

/* A fence on every core running a process that joined. */
static void fence_the_wakers(lci_fabric_t *f)
{
    if (atomic_load_explicit(&f->wakers_fence, memory_order_relaxed)) {
        return;
    }
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) != 0) {
        atomic_store(&f->wakers_fence, 1);
    }
}

lci_status_t lci_live_fabric_map(lci_live_t *L, int fd, char *err,
                                 size_t errlen)
{
    if (fd < 0) {
        return LCI_OK;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        snprintf(err, errlen, "live fabric: %s", strerror(errno));
        return LCI_ERR_PLATFORM;
    }
    void *base = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE,
                      MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        snprintf(err, errlen, "live fabric: cannot map: %s", strerror(errno));
        return LCI_ERR_PLATFORM;
    }
    lci_fabric_t *f = base;
    if (f->magic != LCI_FABRIC_MAGIC || f->nnodes != L->size) {
        snprintf(err, errlen, "live fabric: not a fabric for %u nodes",
                 L->size);
        return LCI_ERR_PLATFORM;
    }
    L->fabric = f;
    atomic_store(&lci_fabric_node(f, L->rank)->pid, (int32_t)getpid());
    return LCI_OK;
}

void lci_live_fabric_wake(lci_live_t *L, uint32_t k)
{
    lci_fabric_node_t *n = lci_fabric_node(L->fabric, k);
    /* Between the waker's news (a packet, a command) and its look at
     * sleepers, a full fence, paired with the sleeper's between its store
     * of sleepers and its last look for work; or the sleeper's kernel
     * fence stands in for it. */
    if (fenced_by_sleepers && !atomic_load_explicit(&L->fabric->wakers_fence,
                                                    memory_order_relaxed)) {
        atomic_signal_fence(memory_order_seq_cst);
    } else {
        atomic_thread_fence(memory_order_seq_cst);
    }
    if (atomic_load_explicit(&n->sleepers, memory_order_relaxed)) {
        atomic_fetch_add(&n->word, 1);
        syscall(SYS_futex, (uint32_t *)&n->word, FUTEX_WAKE, INT_MAX, NULL,
                NULL, 0);
    }
}

void lci_live_fabric_block(lci_live_t *L, uint64_t timeout_ns,
                           int (*ready)(lci_live_t *L))
{
    lci_fabric_node_t *n = lci_fabric_node(L->fabric, L->rank);
    uint32_t w = atomic_load(&n->word);
    atomic_fetch_add(&n->sleepers, 1);
    atomic_thread_fence(memory_order_seq_cst);
    fence_the_wakers(L->fabric);
    if (!ready(L)) {
        struct timespec ts = {(time_t)(timeout_ns / 1000000000ull),
                              (long)(timeout_ns % 1000000000ull)};
        /* Not FUTEX_PRIVATE: the other node processes wake it. */
        syscall(SYS_futex, (uint32_t *)&n->word, FUTEX_WAIT, w, &ts, NULL, 0);
    }
    atomic_fetch_sub(&n->sleepers, 1);
}
