/*
 * lci_platform_live.c - the live platform's table: real time, real
 * concurrency (lci_live.h).  Each node process runs its own NI, inline in
 * the host's calls or on a NIC thread, over a real wire.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lci_live.h"
#include "lci_platform.h"
#include "lci_sched.h"
#include "lci_timeline.h"

/* lci-run passes the fabric it created; a node started by mpirun or srun
 * has none. */
static lci_status_t live_attach(uint32_t self, char *err, size_t errlen)
{
    const char *fabric = getenv("LCI_LIVE_FD");
    return lci_live_init(self, fabric ? atoi(fabric) : -1, err, errlen);
}

/* Real concurrency has no reproducible trace. */
static void live_trace(uint64_t t, uint16_t type, uint32_t node)
{
    (void)t;
    (void)type;
    (void)node;
}

/* The firmware takes in every release the host wrote before it looks at
 * the ring (its time is 0): none is left to become an event, and if one
 * were, it would be due at once. */
static void live_post_written(uint64_t time, uint64_t seq, uint16_t type,
                              uint32_t node, uint32_t a)
{
    (void)seq;
    lci_live_post(time, type, node, a, 0);
}

/* A real wire has the bytes already (the link copied them out). */
static void live_send_buffer_reused(lci_ni_t *ni, uint32_t buf)
{
    (void)ni;
    (void)buf;
}

/* Real concurrency has no order of events at equal times: what the host
 * wrote is there when the firmware looks. */
static uint64_t live_event_seq(void)
{
    return UINT64_MAX;
}

/* In real time the NI takes every doorbell at once: inline, the
 * firmware's handler runs now; a NIC thread is woken.  Released ring
 * slots only need one when the NI waits for them: otherwise the host
 * writes the word, and the firmware reads it when it next needs space
 * (about 10 ns less between a delivery and the host's next send). */
static void live_doorbell(lci_ni_t *ni, uint64_t at, uint16_t type,
                          uint32_t a)
{
    (void)at;
    if (type == LCI_EV_RING_UPDATE && lci_ni_ring_release_write(ni, 0, 0, a)) {
        return;
    }
    lci_live_host_event(type, a);
}

/* The NIC thread stays out while the host is inside; soft timers and
 * command times follow the real clock (as of the last progress: reading
 * the clock costs more than a poll). */
static void live_enter(uint32_t self)
{
    lci_live_host_enter();
    lci_host_shared_t *hs = lci_world_host(self);
    uint64_t recent = lci_live_recent();
    if (hs->clock < recent) {
        hs->clock = recent;
    }
}

static void live_will_send(uint32_t self, uint32_t dst)
{
    (void)self;
    lci_live_will_send(dst);
}

static void live_leave(uint32_t self)
{
    (void)self;
    lci_live_host_leave();
}

/* The real clock, now (the host's clock follows it lazily). */
static uint64_t live_now(uint32_t self)
{
    (void)self;
    return lci_live_now();
}

/* The computation was real and took its time already: the host's clock
 * only moves past it; the NI ran its timers meanwhile. */
static void live_charge(uint32_t self, uint64_t ns,
                        const lci_platform_timers_t *timers)
{
    (void)timers;
    lci_host_shared_t *hs = lci_world_host(self);
    lci_timeline_span(self, LCI_TRACK_HOST, "compute", hs->clock,
                      hs->clock + ns);
    hs->clock += ns;
}

/* Real time passes; the NI goes on working (lci_live_compute_ns). */
static void live_compute(uint32_t self, uint64_t ns,
                         const lci_platform_timers_t *timers)
{
    (void)self;
    (void)timers;
    lci_live_compute_ns(ns);
}

static void live_stall(uint32_t self, uint64_t ns)
{
    (void)self;
    lci_live_compute_ns(ns);
}

/* A real process dies the hard way: no exit path runs. */
static void live_die(uint32_t self, void (*release)(void))
    __attribute__((noreturn));
static void live_die(uint32_t self, void (*release)(void))
{
    (void)self;
    (void)release;
    fflush(NULL);
    kill(getpid(), SIGKILL);
    for (;;) {
        pause(); /* SIGKILL is on its way */
    }
}

const lci_platform_ops_t lci_platform_live = {
    .name = "live",
    .description = "real time, real concurrency",
    .abi_version = LCI_PLATFORM_ABI_VERSION,
    .post = lci_live_post,
    .post_written = live_post_written,
    .can_run_now = lci_live_can_run_now,
    .event_seq = live_event_seq,
    .trace = live_trace,
    .wake = lci_live_wake,
    .wake_arrival = lci_live_wake_arrival,
    .transmit = lci_live_transmit,
    .attach = live_attach,
    .start = lci_live_start,
    .sync = lci_live_sync,
    .wait = lci_live_wait,
    .exit = lci_live_exit,
    .doorbell = live_doorbell,
    .send_buffer_reused = live_send_buffer_reused,
    .will_send = live_will_send,
    .enter = live_enter,
    .leave = live_leave,
    .now = live_now,
    .charge = live_charge,
    .compute = live_compute,
    .stall = live_stall,
    .die = live_die,
    .failed = lci_live_on_fail,
};
