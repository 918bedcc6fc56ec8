/*
 * lci_compute_clock.c - the application's computation between LCI calls
 * (see lci_compute_clock.h).
 */
#include "lci_compute_clock.h"
#include "lci_host.h"

#include <time.h>

/* Beyond this much wall time a stretch may include a preemption; the
 * thread's CPU time is then the better measure. */
#define LCI_COMPUTE_WALL_MAX_NS 50000u

/* How old the anchor may be when a stretch starts: the window in which a
 * preemption outside the stretch could be taken for one inside it. */
#define LCI_COMPUTE_ANCHOR_MAX_NS 200000u

/* The clocks' own cost: the same for every node of the process. */
static uint64_t wall_overhead, cpu_overhead;

/* Whether the thread may sleep between stretches (a node waiting for its
 * turn in another process); then every stretch reads both clocks. */
static int thread_sleeps = 1;

/* The last moment both clocks were read on this thread.  Where the thread
 * never sleeps, wall time minus CPU time since then is time the thread
 * was preempted. */
static _Thread_local uint64_t anchor_wall, anchor_cpu;

static uint64_t read_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The least time two back-to-back readings of clock id see pass: the part
 * of every measured stretch that is the measurement itself. */
static uint64_t overhead_of(clockid_t id)
{
    uint64_t least = UINT64_MAX;
    for (int i = 0; i < 2000; i++) {
        uint64_t a = read_ns(id), b = read_ns(id);
        if (b - a < least) {
            least = b - a;
        }
    }
    return least;
}

void lci_compute_clock_init(int sleeps)
{
    if (wall_overhead == 0 && cpu_overhead == 0) {
        /* once per process, however many nodes it runs */
        wall_overhead = overhead_of(CLOCK_MONOTONIC);
        cpu_overhead = overhead_of(CLOCK_THREAD_CPUTIME_ID);
    }
    thread_sleeps = sleeps;
    anchor_wall = 0; /* too old: the first start reads both clocks */
    lci_compute_clock_start();
}

void lci_compute_clock_start(void)
{
    uint64_t wall = read_ns(CLOCK_MONOTONIC);
    if (thread_sleeps || wall - anchor_wall > LCI_COMPUTE_ANCHOR_MAX_NS) {
        anchor_cpu = read_ns(CLOCK_THREAD_CPUTIME_ID);
        anchor_wall = wall = read_ns(CLOCK_MONOTONIC); /* last: the cheap one */
    }
    lci_host->compute_wall_start = wall;
}

uint64_t lci_compute_clock_stop(void)
{
    uint64_t now = read_ns(CLOCK_MONOTONIC);
    uint64_t wall = now - lci_host->compute_wall_start;
    if (wall <= LCI_COMPUTE_WALL_MAX_NS) {
        return wall > wall_overhead ? wall - wall_overhead : 0;
    }
    /* A long stretch: take out the time the thread was not running since
     * the anchor (at this stretch's start where the thread may sleep, else
     * at most LCI_COMPUTE_ANCHOR_MAX_NS before it). */
    uint64_t cpu = read_ns(CLOCK_THREAD_CPUTIME_ID);
    uint64_t ran = cpu - anchor_cpu, passed = now - anchor_wall;
    uint64_t lost = passed > ran ? passed - ran : 0;
    anchor_cpu = cpu;
    anchor_wall = read_ns(CLOCK_MONOTONIC);
    /* The CPU reading at the anchor came before its wall reading: the wall
     * clock's overhead is inside the stretch too. */
    uint64_t ovh = wall_overhead + (thread_sleeps ? cpu_overhead : 0);
    wall = wall > lost ? wall - lost : 0;
    return wall > ovh ? wall - ovh : 0;
}
