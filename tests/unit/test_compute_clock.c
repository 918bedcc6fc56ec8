/* test_compute_clock.c - --compute scaled's clock (lci/lci_compute_clock.c):
 * a stretch is charged the time the thread computed, not the time it slept
 * or was preempted, whether both clocks are read every stretch (a thread
 * that sleeps between stretches) or the CPU clock only now and then (one
 * thread that runs every node). */
#include "config.h"

#include <time.h>

#include "lci_compute_clock.h"
#include "lci_host.h"
#include "unit_run.h"

static lci_host_t host;
lci_host_t *lci_host = &host;

#define MS 1000000u

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Where the busy loop's work goes, so that it is not optimised away. */
static volatile uint64_t spin_sink;

static void spin_cpu(uint64_t ns)
{
    uint64_t until = cpu_ns() + ns;
    while (cpu_ns() < until) {
        for (int i = 0; i < 1000; i++) {
            spin_sink += (uint64_t)i;
        }
    }
}

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Sleeping is no computation: a stretch that only slept is charged (almost)
 * nothing, and a busy one about its CPU time. */
static void check_sleep_and_spin(int sleeps)
{
    lci_compute_clock_init(sleeps);
    sleep_ns(30 * MS);
    uint64_t slept = lci_compute_clock_stop();
    CU_ASSERT(slept < 10 * MS);

    lci_compute_clock_start();
    spin_cpu(20 * MS);
    uint64_t spun = lci_compute_clock_stop();
    CU_ASSERT(spun >= 10 * MS);
    CU_ASSERT(spun < 200 * MS);
}

static void sleeping_thread_is_charged_its_cpu_time(void)
{
    check_sleep_and_spin(1);
}

static void one_thread_for_all_nodes_is_charged_its_cpu_time(void)
{
    check_sleep_and_spin(0);
}

/* With the CPU clock read only now and then, time the thread did not run
 * before a stretch began must not be taken out of the stretch. */
static void time_away_before_a_stretch_is_not_taken_out_of_it(void)
{
    lci_compute_clock_init(0);
    (void)lci_compute_clock_stop();
    sleep_ns(30 * MS);
    lci_compute_clock_start();
    spin_cpu(20 * MS);
    CU_ASSERT(lci_compute_clock_stop() >= 10 * MS);
}

/* Short stretches are charged their wall time less the clock's own cost:
 * a thousand empty ones add up to far less than a millisecond. */
static void empty_stretches_cost_almost_nothing(void)
{
    lci_compute_clock_init(0);
    (void)lci_compute_clock_stop();
    uint64_t sum = 0;
    for (int i = 0; i < 1000; i++) {
        lci_compute_clock_start();
        sum += lci_compute_clock_stop();
    }
    CU_ASSERT(sum < 1 * MS);
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"a thread that sleeps between stretches: CPU time charged",
         sleeping_thread_is_charged_its_cpu_time},
        {"one thread for all nodes: CPU time charged",
         one_thread_for_all_nodes_is_charged_its_cpu_time},
        {"time away before a stretch is not taken out of it",
         time_away_before_a_stretch_is_not_taken_out_of_it},
        {"empty stretches cost almost nothing", empty_stretches_cost_almost_nothing},
    };
    return lci_unit_run("compute_clock", tests, LCI_UNIT_COUNT(tests));
}
