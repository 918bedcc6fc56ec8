/*
 * lci_platform_sim.c - the sim platform's table: the scheduler
 * (lci_sched.c) for events and turns, the simulated links
 * (core/hw/lci_wire.c) for the wire, and the host's virtual clock for
 * time, computation and faults.
 */
#include "lci_engine.h"
#include "lci_hw.h"
#include "lci_platform.h"
#include "lci_sched.h"
#include "lci_timeline.h"

static lci_status_t sim_attach(uint32_t self, char *err, size_t errlen)
{
    (void)self;
    (void)err;
    (void)errlen;
    return LCI_OK; /* the segment is the whole simulated cluster */
}

/* A doorbell reaches the NI at time at (after the PCI latency).  A command
 * doorbell changes nothing if the NI's processor is due to run by the time
 * it could start on the command anyway (it is busy until then, or has work
 * scheduled earlier): that run finds the command.  Then no event. */
static void sim_doorbell(lci_ni_t *ni, uint64_t at, uint16_t type, uint32_t a)
{
    if (type == LCI_EV_DOORBELL) {
        uint64_t could_start = at > ni->cpu_free ? at : ni->cpu_free;
        if (ni->fw_sched_time <= could_start) {
            return;
        }
    }
    /* Released ring slots are a word in NI memory that the firmware reads
     * when it next needs space.  The write takes the seq an event would
     * have had, so ties at its time fall the same way. */
    lci_seg_t *s = lci_seg();
    if (type == LCI_EV_RING_UPDATE &&
        lci_ni_ring_release_write(ni, at, s->next_seq, a)) {
        s->next_seq++;
        s->ring_logged++;
        return;
    }
    lci_sim_post(at, type, ni->node, a, 0);
}

/* The host holds the turn inside the library: nothing to take or give. */
static void sim_enter(uint32_t self)
{
    (void)self;
}

static void sim_leave(uint32_t self)
{
    (void)self;
}

static uint64_t sim_now(uint32_t self)
{
    return lci_world_host(self)->clock;
}

/* The host computes for ns of virtual time.  Soft timers (RX_h) keep
 * running meanwhile: when one falls due, the NI's clock interrupt brings
 * the host in to run it (the paper's backup for soft timers), so a
 * delayed ack or a retransmission goes out on time, not when the
 * computation ends; the computation goes on after the handler. */
static void sim_compute(uint32_t self, uint64_t ns,
                        const lci_platform_timers_t *timers)
{
    lci_host_shared_t *hs = lci_world_host(self);
    uint64_t end = hs->clock + ns, at;
    while ((at = timers->due()) < end) {
        lci_timeline_span(self, LCI_TRACK_HOST, "compute", hs->clock, at);
        uint64_t left = end - at;
        hs->clock = at;
        lci_sched_sync(self);
        timers->fire();
        end = hs->clock + left;
    }
    lci_timeline_span(self, LCI_TRACK_HOST, "compute", hs->clock, end);
    hs->clock = end;
}

static void sim_stall(uint32_t self, uint64_t ns)
{
    lci_world_host(self)->clock += ns;
}

/* The node's process (or fiber) dies: it takes no further part, and its NI
 * is dead from the same moment (core/hw). */
static void sim_die(uint32_t self, void (*release)(void))
    __attribute__((noreturn));
static void sim_die(uint32_t self, void (*release)(void))
{
    lci_sched_exit(self);
    release(); /* what the operating system takes back from a dead
                  process; a fiber's must be given back */
    lci_engine->die(self);
}

/* lci-run reads the report from the segment: nobody else to tell. */
static void sim_failed(int node, const char *msg)
{
    (void)node;
    (void)msg;
}

const lci_platform_ops_t lci_platform_sim = {
    .name = "sim",
    .description = "deterministic simulation",
    .abi_version = LCI_PLATFORM_ABI_VERSION,
    .post = lci_sim_post,
    .post_written = lci_sim_post_written,
    .can_run_now = lci_sim_can_run_now,
    .event_seq = lci_sim_event_seq,
    .trace = lci_sim_trace,
    .wake = lci_sched_wake,
    .wake_arrival = lci_sched_wake, /* a polling host sees every arrival */
    .transmit = lci_hw_link_transmit,
    .attach = sim_attach,
    .start = lci_sched_start,
    .sync = lci_sched_sync,
    .wait = lci_sched_wait,
    .exit = lci_sched_exit,
    .doorbell = sim_doorbell,
    .send_buffer_reused = lci_hw_send_buffer_reused,
    .enter = sim_enter,
    .leave = sim_leave,
    .now = sim_now,
    .charge = sim_compute,
    .compute = sim_compute,
    .stall = sim_stall,
    .die = sim_die,
    .failed = sim_failed,
};
