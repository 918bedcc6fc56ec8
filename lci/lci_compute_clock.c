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

/* The clocks' own cost: the same for every node of the process. */
static uint64_t wall_overhead, cpu_overhead;

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

void lci_compute_clock_init(void)
{
    if (wall_overhead == 0 && cpu_overhead == 0) {
        /* once per process, however many nodes it runs */
        wall_overhead = overhead_of(CLOCK_MONOTONIC);
        cpu_overhead = overhead_of(CLOCK_THREAD_CPUTIME_ID);
    }
    lci_compute_clock_start();
}

void lci_compute_clock_start(void)
{
    lci_host->compute_cpu_start = read_ns(CLOCK_THREAD_CPUTIME_ID);
    lci_host->compute_wall_start = read_ns(CLOCK_MONOTONIC); /* last: the cheap one */
}

uint64_t lci_compute_clock_stop(void)
{
    uint64_t wall = read_ns(CLOCK_MONOTONIC) - lci_host->compute_wall_start;
    if (wall <= LCI_COMPUTE_WALL_MAX_NS) {
        return wall > wall_overhead ? wall - wall_overhead : 0;
    }
    /* The CPU reading at start came before the wall reading: the wall
     * clock's overhead is inside the CPU stretch too. */
    uint64_t cpu = read_ns(CLOCK_THREAD_CPUTIME_ID) - lci_host->compute_cpu_start;
    uint64_t ovh = cpu_overhead + wall_overhead;
    return cpu > ovh ? cpu - ovh : 0;
}
