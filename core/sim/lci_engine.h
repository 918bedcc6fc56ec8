/*
 * lci_engine.h - how the nodes of a simulated run take turns.
 *
 * The scheduler (lci_sched.c) decides which node holds the turn; an engine
 * moves it there.  Two engines:
 *   processes  one OS process per node; the turn passes through a futex
 *              word per node in the shared segment (lci_engine_processes.c);
 *   fibers     every node a user-level context with its own copy of the
 *              program, all in one process (lci-fibers); the turn passes
 *              by a context switch.
 * The engine is chosen once, before the node's program starts, and the
 * scheduler only ever calls through this table.
 */
#ifndef LCI_ENGINE_H
#define LCI_ENGINE_H

#include <stdint.h>

#include "lci.h"

typedef struct lci_engine_ops {
    const char *name;
    /* 1 if a node waiting for its turn puts its OS thread to sleep (one
     * process per node); 0 if the thread goes on running another node, so
     * that its wall time is its CPU time but for preemption (fibers). */
    int thread_sleeps;
    /* Node self waits for its first turn (from lci_init). */
    void (*start)(uint32_t self);
    /* Gives the turn to node to; returns when self holds it again. */
    void (*handoff)(uint32_t self, uint32_t to);
    /* Node self has finalized: passes the turn on for good, through
     * lci_sched_pass_on(), now or when the node's program has ended. */
    void (*finished)(uint32_t self);
    /* Node self was killed by fault injection (die=N@T) after finishing:
     * its program ends here. */
    void (*die)(uint32_t self) __attribute__((noreturn));
    /* The run was stopped (lci_sched_fail): every node that waits for the
     * turn must wake and see it. */
    void (*wake_all)(void);
    /* The node running now where the engine runs several in one process;
     * -1 where a process is one node (its rank is in LCI_RANK). */
    int (*running)(void);
    /* Threads of the running node, one running at a time (lci_thread_*
     * in lci.h): threads of the process, or fibers of the node. */
    lci_status_t (*thread_create)(lci_thread_t **thread_p,
                                  void (*func)(void *), void *arg);
    lci_thread_t *(*thread_self)(void);
    void (*thread_switch)(lci_thread_t *to);
    void (*thread_exit_to)(lci_thread_t *to) __attribute__((noreturn));
    void (*thread_free)(lci_thread_t *thread);
} lci_engine_ops_t;

/* The processes engine's threads: POSIX threads handing the node on with a
 * lock and a condition each (core/sim/lci_engine_threads.c). */
lci_status_t lci_engine_pthread_create(lci_thread_t **thread_p,
                                       void (*func)(void *), void *arg);
lci_thread_t *lci_engine_pthread_self(void);
void lci_engine_pthread_switch(lci_thread_t *to);
void lci_engine_pthread_exit_to(lci_thread_t *to) __attribute__((noreturn));
void lci_engine_pthread_free(lci_thread_t *thread);

/* The engine of this process: lci_engine_processes unless another was
 * set before the node started. */
extern const lci_engine_ops_t *lci_engine;
extern const lci_engine_ops_t lci_engine_processes;

/* Sets the engine; only before any node of this process calls lci_init. */
void lci_engine_set(const lci_engine_ops_t *ops);

#endif
