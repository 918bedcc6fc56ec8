/*
 * lci_engine_processes.c - the processes engine: one OS process per node,
 * the turn handed on through a futex word per host in the shared segment.
 * A hand-off costs two system calls and a process switch (microseconds);
 * the fiber engine (lci-fibers) avoids both.
 */
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lci_engine.h"
#include "lci_sched.h"

static void futex_wait_word(_Atomic uint32_t *word, uint32_t val)
{
    /* Not FUTEX_PRIVATE: the word is shared between processes. */
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake_word(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void give_turn(uint32_t to)
{
    lci_host_shared_t *h = lci_world_host(to);
    /* Release: everything this process wrote to the segment is visible to
     * the next holder of the turn. */
    atomic_store_explicit(&h->go, 1, memory_order_release);
    futex_wake_word(&h->go);
}

static void take_turn(uint32_t self)
{
    lci_host_shared_t *h = lci_world_host(self);
    /* Acquire: pairs with give_turn's release. */
    while (atomic_load_explicit(&h->go, memory_order_acquire) == 0) {
        futex_wait_word(&h->go, 0);
        lci_sched_check_abort();
    }
    atomic_store_explicit(&h->go, 0, memory_order_relaxed);
    lci_sched_check_abort();
}

static void processes_handoff(uint32_t self, uint32_t to)
{
    give_turn(to);
    take_turn(self);
}

static void processes_finished(uint32_t self)
{
    int who = lci_sched_pass_on(self);
    if (who >= 0) {
        give_turn((uint32_t)who);
    }
}

__attribute__((noreturn)) static void processes_die(uint32_t self)
{
    (void)self;
    fflush(NULL);
    _exit(0); /* a real process ends: no exit path of the program runs */
}

/* The run was stopped: every node process sleeping on its word wakes and
 * sees the abort. */
static void processes_wake_all(void)
{
    uint32_t n = lci_seg()->cfg.nnodes;
    for (uint32_t j = 0; j < n; j++) {
        lci_host_shared_t *h = lci_world_host(j);
        atomic_store_explicit(&h->go, 1, memory_order_release);
        futex_wake_word(&h->go);
    }
}

static int processes_running(void)
{
    return -1;
}

const lci_engine_ops_t lci_engine_processes = {
    .name = "processes",
    .thread_sleeps = 1,
    .start = take_turn,
    .handoff = processes_handoff,
    .finished = processes_finished,
    .die = processes_die,
    .wake_all = processes_wake_all,
    .running = processes_running,
    .thread_create = lci_engine_pthread_create,
    .thread_self = lci_engine_pthread_self,
    .thread_switch = lci_engine_pthread_switch,
    .thread_exit_to = lci_engine_pthread_exit_to,
    .thread_free = lci_engine_pthread_free,
};

const lci_engine_ops_t *lci_engine = &lci_engine_processes;

void lci_engine_set(const lci_engine_ops_t *ops)
{
    /* Every slot filled: a missing one would fail deep in a run. */
    if (!ops->name || !ops->start || !ops->handoff || !ops->finished ||
        !ops->die || !ops->wake_all || !ops->running || !ops->thread_create ||
        !ops->thread_self || !ops->thread_switch || !ops->thread_exit_to ||
        !ops->thread_free) {
        fprintf(stderr, "lci: engine '%s' leaves an operation empty\n",
                ops->name ? ops->name : "?");
        abort();
    }
    lci_engine = ops;
}
