/*
 * lci_platform.h - where the nodes run: the platform, one const ops table
 * chosen once by name.
 *
 *   sim   a deterministic discrete-event simulation in virtual time: the
 *         scheduler (core/sim/lci_sched.c) holds the turn, the event queue
 *         and the hosts' clocks; core/sim/lci_platform_sim.c;
 *   live  real time and real concurrency: each node process runs its own
 *         NI over a real wire (shared memory or UDP); core/live/.
 *
 * Lifecycle.  lci_init selects the table from the segment's configuration
 * (lci_platform_select), then attaches the node (attach), waits for its
 * first turn (start), and at lci_finalize leaves for good (exit).  Until a
 * table is selected, lci_platform points to the sim platform: lci-run and
 * the unit tests, which run no node, see the simulator's behaviour.
 *
 * Afterwards nothing asks which platform runs: the host library, the
 * firmware and the emulated hardware call through lci_platform.  Two
 * groups of operations:
 *   - the NI's environment, called from event handlers (firmware and
 *     hardware): post, post_written, can_run_now, event_seq, trace, wake,
 *     wake_arrival, transmit;
 *   - the host's side, called by the host library around its own work:
 *     start, sync, wait, exit, doorbell, send_buffer_reused, enter, leave,
 *     now, charge, compute, stall, die, failed.
 * Every slot is filled in both tables (an operation that has nothing to do
 * on a platform is an empty function, never NULL); lci_platform_select
 * checks it.
 *
 * The table is per process (function addresses differ between processes)
 * and never lives in the shared segment.
 */
#ifndef LCI_PLATFORM_H
#define LCI_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "lci.h"
#include "lci_internal.h"
#include "lci_world.h"

#define LCI_PLATFORM_ABI_VERSION 1

/* The host library's soft timers, as a computation must see them: the
 * time the next one falls due (LCI_TIME_INF if none), and running the due
 * ones (the NI's clock interrupt brings the host in for them). */
typedef struct lci_platform_timers {
    uint64_t (*due)(void);
    void (*fire)(void);
} lci_platform_timers_t;

typedef struct lci_platform_ops {
    const char *name;
    const char *description;
    unsigned abi_version;

    /* ---- the NI's environment (from event handlers) ---- */

    /* Schedules an event for node's NI (or host, LCI_EV_HOST_WAKE). */
    void (*post)(uint64_t time, uint16_t type, uint32_t node, uint32_t a,
                 uint64_t b);
    /* Schedules, at time and in its place seq among the events at that
     * time, the doorbell event the host wrote without one (see the ring
     * releases in lci_ni.h) once it turns out to matter. */
    void (*post_written)(uint64_t time, uint64_t seq, uint16_t type,
                         uint32_t node, uint32_t a);
    /* Whether work at time t may run right now instead of through an
     * event. */
    int (*can_run_now)(uint64_t t);
    /* The running event's place among the events at its time (its seq):
     * what the host wrote into NI memory without an event is seen in the
     * order an event would have had.  UINT64_MAX where no such order
     * exists (real time: what was written is there). */
    uint64_t (*event_seq)(void);
    /* Adds work done without an event to the trace hash. */
    void (*trace)(uint64_t t, uint16_t type, uint32_t node);
    /* The host of node may have something to see at time. */
    void (*wake)(uint32_t node, uint64_t time);
    /* The same for a packet put in the host's receive ring: it wakes a host
     * that waits by polling (lci_sched.h). */
    void (*wake_arrival)(uint32_t node, uint64_t time);
    /* The send DMA puts a framed packet on the wire; buf is the NI buffer
     * it came from (LCI_NONE for none), released when the wire is done. */
    void (*transmit)(struct lci_ni *ni, uint64_t now, const lci_wire_hdr_t *hdr,
                     const void *payload, uint32_t buf);

    /* ---- the host's side ---- */

    /* Makes this process node self of the world already attached; on
     * error writes a message. */
    lci_status_t (*attach)(uint32_t self, char *err, size_t errlen);
    /* Waits for the first turn (from lci_init). */
    void (*start)(uint32_t self);
    /* The calling host waits until it may run at its clock. */
    void (*sync)(uint32_t self);
    /* The calling host waits (WAITING, or IDLE for a spinning poll) until
     * something wakes it; returns 1 if nothing arrived (lci_sched.h). */
    int (*wait)(uint32_t self, lci_host_status_t how);
    /* The calling host has finalized: it takes no further turn. */
    void (*exit)(uint32_t self);
    /* The host rang its NI (type: LCI_EV_DOORBELL, _RING_UPDATE,
     * _INTR_ENABLE, argument a); the PCI write lands at time at. */
    void (*doorbell)(struct lci_ni *ni, uint64_t at, uint16_t type,
                     uint32_t a);
    /* The host takes send buffer buf to write it again (the simulated
     * wire may still read a payload from it: it takes its copy first). */
    void (*send_buffer_reused)(struct lci_ni *ni, uint32_t buf);
    /* Optional: the host is about to send a packet to node dst.  A hint
     * that nothing depends on (the live wire readies its slot). */
    void (*will_send)(uint32_t self, uint32_t dst);
    /* The host enters and leaves the library (the outermost call). */
    void (*enter)(uint32_t self);
    void (*leave)(uint32_t self);
    /* The host's time now, in ns since the run began. */
    uint64_t (*now)(uint32_t self);
    /* Charges ns of application computation already done (measured CPU
     * time, --compute scaled); a soft timer due meanwhile interrupts it. */
    void (*charge)(uint32_t self, uint64_t ns,
                   const lci_platform_timers_t *timers);
    /* The host computes for ns (lci_compute); its NI works on. */
    void (*compute)(uint32_t self, uint64_t ns,
                    const lci_platform_timers_t *timers);
    /* The host stops polling for ns, timers included (fault nopoll=). */
    void (*stall)(uint32_t self, uint64_t ns);
    /* The node dies (fault die=): its program ends here.  release gives
     * back the host library's memory where the process lives on. */
    void (*die)(uint32_t self, void (*release)(void))
        __attribute__((noreturn));
    /* The run was stopped with msg (lci_sched_fail, after publishing the
     * report): tell whoever must know. */
    void (*failed)(int node, const char *msg);
} lci_platform_ops_t;

/* The platform of this process. */
extern LCI_INTERNAL const lci_platform_ops_t *lci_platform;

/* The same, for programs outside the library. */
const lci_platform_ops_t *lci_platform_current(void);

extern const lci_platform_ops_t lci_platform_sim;
extern const lci_platform_ops_t lci_platform_live;

/* The built-in platform called name, or NULL. */
const lci_platform_ops_t *lci_platform_find(const char *name);

/* Writes "'sim' (deterministic simulation) or 'live' (...)" into buf. */
void lci_platform_names(char *buf, size_t len);

/* Makes the platform called name this process's; an unknown name is
 * refused with the list of valid ones. */
lci_status_t lci_platform_select(const char *name, char *err, size_t errlen);

#endif
