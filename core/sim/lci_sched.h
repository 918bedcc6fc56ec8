/*
 * lci_sched.h - the deterministic discrete-event scheduler of the sim
 * platform.
 *
 * Exactly one node process holds the turn.  A host runs its own application
 * code while its clock is (within the lookahead) the smallest among runnable
 * hosts.  When it enters LCI it first executes every pending event that can
 * no longer be affected by another host -- other NIs' firmware and the wire
 * included -- and hands the turn on only when another host must run
 * application code first.  Events are plain data executed through one table,
 * so any process can execute any event.
 *
 * Lookahead: a host action reaches its NI no earlier than the doorbell
 * latency d after the host's clock, so events earlier than
 * (smallest runnable host clock + d) are final.  The scheduler uses
 * min(lookahead, d), which keeps the simulation exact.
 *
 * The entry points below are the sim platform's operations: everyone
 * outside core/sim calls them through lci_platform (lci_platform.h), which
 * on the live platform leads to core/live instead.  lci_sched_fail and
 * lci_sched_check_abort serve every platform.
 */
#ifndef LCI_SCHED_H
#define LCI_SCHED_H

#include <stdint.h>

#include "lci.h"
#include "lci_internal.h"
#include "lci_world.h"

typedef enum {
    LCI_EV_DOORBELL = 1,    /* host -> NI: commands up to a = producer */
    LCI_EV_RING_UPDATE = 2, /* host -> NI: ring slots released up to a */
    LCI_EV_FW_RUN = 3,      /* NI processor: run one firmware work item */
    LCI_EV_WIRE_ARRIVE = 4, /* link: packet in wire slot a reaches node */
    LCI_EV_TX_DONE = 5,     /* send DMA done: release buffer a */
    LCI_EV_HOST_WAKE = 6,   /* the NI clock interrupt wakes a waiting host */
    LCI_EV_WATCHDOG = 7,    /* polling watchdog expired */
    LCI_EV_INTR_ENABLE = 8, /* host -> NI: interrupts on (a = 1) / off */
    LCI_EV_MAX = 9
} lci_event_type_t;

typedef void (*lci_event_handler_func_t)(const lci_event_t *ev);

/* The one dispatch table (fw-host-split/lci_event_table.c). */
extern LCI_INTERNAL const lci_event_handler_func_t lci_event_table[LCI_EV_MAX];

/* The handler of event type, for programs outside the library (NULL for
 * a type out of range). */
lci_event_handler_func_t lci_event_handler(uint16_t type);

/* Schedules an event. */
void lci_sim_post(uint64_t time, uint16_t type, uint32_t node, uint32_t a,
                  uint64_t b);

/* From an event handler: whether work at time t may run right now instead
 * of through an event -- true when t precedes every pending event and
 * every host's next action. */
int lci_sim_can_run_now(uint64_t t);
/* An event in the place seq it took when written (lci_platform_ops_t). */
void lci_sim_post_written(uint64_t time, uint64_t seq, uint16_t type,
                          uint32_t node, uint32_t a);
/* The seq of the event running (lci_platform_ops_t.event_seq). */
uint64_t lci_sim_event_seq(void);

/* Adds work done without an event to the trace hash. */
void lci_sim_trace(uint64_t t, uint16_t type, uint32_t node);

/* The calling host (status READY) waits until it may run at its clock,
 * executing events and handing the turn on meanwhile. */
void lci_sched_sync(uint32_t self);

/* The calling host waits (WAITING, or IDLE for a spinning poll) until an
 * event wakes it; then as lci_sched_sync().  Returns 1 if it was woken only
 * because the whole cluster was idle (nothing arrived). */
int lci_sched_wait(uint32_t self, lci_host_status_t how);

/* Handler of LCI_EV_HOST_WAKE. */
void lci_sched_on_host_wake(const lci_event_t *ev);

/* From event handlers: the host of node may have something to see at time. */
void lci_sched_wake(uint32_t node, uint64_t time);

/* A packet the NI put in the host's receive ring wakes the host as
 * lci_sched_wake does: a simulated host that waits polls.  (On the live
 * platform a host that sleeps with interrupts on is not polling, and only
 * the NI's interrupt, after the polling watchdog, wakes it.) */

/* The calling host has finished: the engine passes the turn on, never to
 * take it again (lci_sched_pass_on), now or when the node's program ends. */
void lci_sched_exit(uint32_t self);

/* For the engine, once self has finished: runs the events that must run
 * and returns the node that now holds the turn, or -1 when every node has
 * finished and nothing is in flight. */
int lci_sched_pass_on(uint32_t self);

/* Waits for the first turn (from lci_init). */
void lci_sched_start(uint32_t self);

/* Stops the whole run: records the message for lci-run, wakes every node,
 * and exits this process. */
void lci_sched_fail(int node, lci_status_t status, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 3, 4)));

/* Exits this process if the run was stopped. */
void lci_sched_check_abort(void);

#endif
