/*
 * lci_compute_clock.h - measures the application's own computation between
 * LCI calls, for --compute scaled (the host's virtual clock advances by it
 * times the profile's host_speed).
 *
 * A thread CPU clock costs a system call (about 0.5 us here) and the
 * monotonic clock a few tens of ns; times 20 for a 1999 host, either
 * overhead would dwarf the code between two LCI calls.  So the clock
 * subtracts its own measured overhead, reads the cheap monotonic clock,
 * and falls back on the thread's CPU time for long stretches, where a
 * preemption by another process could hide.  Where one thread runs every
 * node (the fiber engine) and never sleeps, even that system call is
 * needed only once per long stretch.
 */
#ifndef LCI_COMPUTE_CLOCK_H
#define LCI_COMPUTE_CLOCK_H

#include <stdint.h>

/* Measures the clocks' own overheads (once per process).  sleeps: the
 * thread may sleep between stretches (then each stretch reads both clocks;
 * else the CPU clock is read only for long stretches and every
 * LCI_COMPUTE_ANCHOR_MAX_NS, and the difference of the two clocks since
 * then is the time the thread was preempted). */
void lci_compute_clock_init(int sleeps);

/* The application starts computing (leaving LCI). */
void lci_compute_clock_start(void);

/* The application stops computing (entering LCI): returns the nanoseconds
 * it computed since lci_compute_clock_start(). */
uint64_t lci_compute_clock_stop(void);

#endif
