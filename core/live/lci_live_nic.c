/*
 * lci_live_nic.c - where a live node's NI runs, and how its host waits.
 *
 * Inline: the firmware runs inside the host's LCI calls; a waiting host
 * spins on progress for a while and then blocks on its wire until a packet
 * may have arrived or its next timer is due.
 *
 * Thread: the firmware runs on a NIC thread.  Host and NIC share the NI's
 * memory the way the sim platform's single turn does: the host holds the
 * node lock while it is inside LCI, the NIC thread while it runs firmware.
 * A waiting host releases it and sleeps on its own word until the firmware
 * wakes it.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lci_live.h"
#include "lci_live_nic.h"
#include "lci_sched.h"

static pthread_t nic_thread;
static _Atomic int nic_stop;
/* The node lock, held by the host in LCI or by the NIC running firmware:
 * a ticket lock, so that a host that polls in a loop cannot starve its
 * NIC (nor the NIC its host). */
static _Atomic uint32_t lock_next, lock_owner;
static int host_holds;             /* the host thread holds node_lock */
static _Atomic uint32_t host_word; /* futex: the firmware woke the host */
static _Atomic uint32_t host_sleeping;
/* The host has stopped spinning and sleeps with interrupts on: it polls
 * no more, so a packet's arrival does not wake it; the NI's interrupt,
 * after the polling watchdog's delay, does. */
static _Atomic int host_intr_sleep;

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void lock_node(void)
{
    uint32_t ticket = atomic_fetch_add_explicit(&lock_next, 1,
                                                memory_order_relaxed);
    unsigned spins = 0;
    /* Acquire: the other side's writes to the NI are visible. */
    while (atomic_load_explicit(&lock_owner, memory_order_acquire) != ticket) {
        if (++spins % 64 == 0) {
            sched_yield(); /* the holder may need this core */
        } else {
            cpu_relax();
        }
    }
}

static void unlock_node(void)
{
    /* Release: this side's writes to the NI are visible to the next. */
    atomic_store_explicit(&lock_owner,
                          atomic_load_explicit(&lock_owner,
                                               memory_order_relaxed) +
                              1,
                          memory_order_release);
}

static void futex_wait_private(_Atomic uint32_t *w, uint32_t val,
                               uint64_t timeout_ns)
{
    struct timespec ts = {(time_t)(timeout_ns / 1000000000ull),
                          (long)(timeout_ns % 1000000000ull)};
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

static void futex_wake_private(_Atomic uint32_t *w)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL,
            0);
}

/* How long to block at most: until the next event (at next), and never so
 * long that a stop of the run goes unnoticed. */
static uint64_t block_ns(uint64_t now, uint64_t next)
{
    uint64_t t = 10000000; /* 10 ms */
    if (next != LCI_TIME_INF) {
        t = next > now ? next - now : 0;
        t = t < 10000000 ? t : 10000000;
    }
    return t;
}

/* ---- the NIC thread --------------------------------------------------- */

static void *nic_main(void *arg)
{
    lci_live_t *L = arg;
    uint64_t idle_since = 0, next = 0;
    while (!atomic_load_explicit(&nic_stop, memory_order_relaxed)) {
        lock_node();
        int did = lci_live_progress();
        next = lci_live_next_event(); /* the queue is ours only now */
        unlock_node();
        uint64_t now = lci_live_now();
        if (did) {
            idle_since = now;
            continue;
        }
        if (now - idle_since < L->spin_ns) {
            cpu_relax();
            continue;
        }
        L->wire->block(L, block_ns(now, next));
        idle_since = lci_live_now();
    }
    return NULL;
}

static void pin_self(int core)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    sched_setaffinity(0, sizeof set, &set);
}

lci_status_t lci_live_nic_init(lci_live_t *L, char *err, size_t errlen)
{
    lci_seg_t *s = lci_seg();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int mode = (int)s->cfg.nic;
    /* Threads only when every node gets a core for its host and one for
     * its NIC: oversubscribed spinning threads pay whole time slices. */
    int room = cores >= 2 * (long)L->size;
    if (mode == LCI_NIC_AUTO) {
        mode = room ? LCI_NIC_THREAD : LCI_NIC_INLINE;
    }
    int oversubscribed = (long)L->size * (mode == LCI_NIC_THREAD ? 2 : 1) >
                         cores;
    /* Spinning helps only when nobody else needs the core. */
    L->spin_ns = oversubscribed ? 2000 : 200000;
    lci_live_fabric_fences(L, !oversubscribed);
    /* The NI's timers (the polling watchdog, retransmissions) fire on
     * time: a sleeping node wakes within a microsecond of its timeout, not
     * the kernel's default 50 us later. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    if (mode != LCI_NIC_THREAD) {
        return LCI_OK;
    }
    L->nic_thread = 1;
    int rc = pthread_create(&nic_thread, NULL, nic_main, L);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the NIC thread: %s",
                 strerror(rc));
        return LCI_ERR_PLATFORM;
    }
    if (room) {
        uint32_t local = L->rank % (uint32_t)(cores / 2);
        pin_self((int)(2 * local));
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(2 * local + 1, &set);
        pthread_setaffinity_np(nic_thread, sizeof set, &set);
    }
    return LCI_OK;
}

/* ---- the host's side -------------------------------------------------- */

void lci_live_host_enter(void)
{
    if (lci_live_state()->nic_thread && !host_holds) {
        lock_node();
        host_holds = 1;
    }
}

void lci_live_host_leave(void)
{
    if (host_holds) {
        host_holds = 0;
        unlock_node();
    }
}

void lci_live_kick(void)
{
    lci_live_t *L = lci_live_state();
    if (L->nic_thread) {
        L->wire->kick(L);
    } else {
        lci_live_progress();
    }
}

void lci_live_sync(uint32_t self)
{
    lci_live_t *L = lci_live_state();
    lci_live_host_enter();
    uint64_t now;
    if (!L->nic_thread) {
        lci_live_progress();
        now = L->now; /* read by the pass just made */
    } else {
        lci_sched_check_abort();
        now = lci_live_now();
    }
    lci_host_shared_t *me = lci_world_host(self);
    if (me->clock < now) {
        me->clock = now;
    }
}

static uint32_t host_status(lci_host_shared_t *h)
{
    return __atomic_load_n(&h->status, __ATOMIC_ACQUIRE);
}

/* Whether this node's host has network interrupts on. */
static int intr_enabled(void)
{
    lci_ni_t *ni = lci_world_ni(lci_live_state()->rank);
    return (int)__atomic_load_n(&ni->h_intr_enabled, __ATOMIC_RELAXED);
}

/* Thread mode: the host lets the NIC run and sleeps until woken. */
static void wait_for_nic(lci_live_t *L, lci_host_shared_t *me)
{
    uint64_t start = lci_live_now();
    lci_live_host_leave();
    while (host_status(me) != LCI_HOST_READY) {
        lci_sched_check_abort();
        uint64_t now = lci_live_now();
        if (now - start < L->spin_ns) {
            cpu_relax();
            continue;
        }
        uint32_t w = atomic_load(&host_word);
        atomic_store(&host_intr_sleep, intr_enabled());
        atomic_store(&host_sleeping, 1);
        if (host_status(me) != LCI_HOST_READY) {
            futex_wait_private(&host_word, w, 10000000);
        }
        atomic_store(&host_sleeping, 0);
    }
    atomic_store(&host_intr_sleep, 0);
    lci_live_host_enter();
}

int lci_live_wait(uint32_t self, lci_host_status_t how)
{
    lci_live_t *L = lci_live_state();
    lci_host_shared_t *me = lci_world_host(self);
    lci_live_host_enter();
    if (how == LCI_HOST_IDLE) {
        /* A poll that found nothing returns: real time went on anyway.  Its
         * own progress pass (lci_live_sync, on entry) has just run; another
         * one here would find what arrives meanwhile only to leave it for
         * the next poll to deliver. */
        uint64_t now = L->nic_thread ? lci_live_now() : L->now;
        me->clock = me->clock < now ? now : me->clock;
        return 1;
    }
    __atomic_store_n(&me->status, (uint32_t)how, __ATOMIC_RELEASE);
    if (L->nic_thread) {
        L->wire->kick(L); /* whatever the host posted, the NIC takes now */
        wait_for_nic(L, me);
    } else {
        uint64_t start = L->now; /* the clock the passes read */
        for (;;) {
            int did = lci_live_progress();
            if (host_status(me) == LCI_HOST_READY) {
                break;
            }
            uint64_t now = L->now; /* read every few passes */
            int asleep = atomic_load(&host_intr_sleep);
            if (did && !asleep) {
                start = now;
            } else if (asleep && lci_live_next_event() < now + L->spin_ns) {
                /* The interrupt is due within a spin: waking from a sleep
                 * would take longer than the wait. */
                cpu_relax();
            } else if (asleep || now - start >= L->spin_ns) {
                atomic_store(&host_intr_sleep, intr_enabled());
                L->wire->block(L, block_ns(now, lci_live_next_event()));
                lci_live_progress_fresh();
                start = L->now;
            } else {
                cpu_relax();
            }
        }
        if (atomic_load_explicit(&host_intr_sleep, memory_order_relaxed)) {
            /* Only a host that slept set it: no locked store on the way
             * from an arrival to its delivery otherwise. */
            atomic_store(&host_intr_sleep, 0);
        }
    }
    uint64_t now = L->nic_thread ? lci_live_now() : L->now;
    me->clock = me->clock < now ? now : me->clock;
    return 0;
}

void lci_live_wake(uint32_t node, uint64_t time)
{
    (void)time;
    lci_host_shared_t *h = lci_world_host(node);
    uint32_t st = host_status(h);
    if (st == LCI_HOST_WAITING || st == LCI_HOST_IDLE) {
        __atomic_store_n(&h->status, LCI_HOST_READY, __ATOMIC_RELEASE);
        if (lci_live_state()->nic_thread) {
            atomic_fetch_add(&host_word, 1);
            if (atomic_load(&host_sleeping)) {
                futex_wake_private(&host_word);
            }
        }
    }
}

void lci_live_wake_arrival(uint32_t node, uint64_t time)
{
    if (!atomic_load(&host_intr_sleep)) {
        lci_live_wake(node, time);
    }
}

void lci_live_start(uint32_t self)
{
    lci_live_t *L = lci_live_state();
    lci_seg_t *s = lci_seg();
    atomic_store(&lci_world_host(self)->started, 1);
    if (L->fabric != NULL) {
        /* Everyone is reachable before anyone sends: a datagram to a node
         * that has no socket yet would be lost. */
        atomic_fetch_add(&L->fabric->started, 1);
        uint64_t deadline = lci_live_now() + 60ull * 1000000000ull;
        while (atomic_load(&L->fabric->started) < L->size) {
            lci_sched_check_abort();
            for (uint32_t j = 0; j < s->cfg.nnodes; j++) {
                if (atomic_load(&lci_world_host(j)->gone)) {
                    lci_sched_fail((int)j, LCI_ERR_PLATFORM,
                                   "exited without calling lci_init while "
                                   "other nodes use LCI");
                }
            }
            if (lci_live_now() > deadline) {
                lci_sched_fail((int)self, LCI_ERR_PLATFORM,
                               "live platform: the other nodes did not "
                               "reach lci_init within 60 s");
            }
            usleep(100);
        }
    }
    lci_live_sync(self);
}

/* Finalized: the link backlog must still reach the wire, and on a lossy
 * wire the NI keeps answering retransmissions for a while, since the
 * peers' reliability may still need this node's acknowledgements. */
void lci_live_exit(uint32_t self)
{
    lci_live_t *L = lci_live_state();
    lci_seg_t *s = lci_seg();
    int lossy = L->faults || s->cfg.wire == LCI_WIRE_UDP;
    uint64_t quiet = lossy ? 3 * s->cfg.rto_ns : 0;
    uint64_t limit = lci_live_now() + 10ull * 1000000000ull;
    lci_live_host_leave();
    if (L->nic_thread) {
        atomic_store(&nic_stop, 1);
        L->wire->kick(L);
        pthread_join(nic_thread, NULL);
        L->nic_thread = 0;
    }
    /* Done when nothing has moved for a while: a backlog towards a node
     * that stopped receiving never drains. */
    uint64_t last = lci_live_now();
    quiet = quiet > 2000000 ? quiet : 2000000;
    for (;;) {
        if (lci_live_progress_fresh() > 0) {
            last = L->now;
        }
        uint64_t now = L->now;
        if (now - last >= quiet || now > limit) {
            break;
        }
        if (L->backlog == 0) {
            L->wire->block(L, 1000000);
        }
    }
    __atomic_store_n(&lci_world_host(self)->status, LCI_HOST_EXITED,
                     __ATOMIC_RELEASE);
    lci_live_pmix_fini();
}

void lci_live_compute_ns(uint64_t ns)
{
    /* The host computes and does not poll.  Its NI goes on working (the
     * NIC thread does; inline, the firmware runs in the cycles this
     * stand-in for computation spends anyway), so the node's protocols
     * keep answering, as a real NI's would. */
    uint64_t end = lci_live_now() + ns;
    int inline_nic = !lci_live_state()->nic_thread;
    lci_live_host_leave();
    while (lci_live_now() < end) {
        if (inline_nic) {
            lci_live_progress();
        } else {
            cpu_relax();
        }
    }
}
