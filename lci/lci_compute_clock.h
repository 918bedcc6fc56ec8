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
 * preemption by another process could hide.
 */
#ifndef LCI_COMPUTE_CLOCK_H
#define LCI_COMPUTE_CLOCK_H

#include <stdint.h>

/* Measures the clocks' own overheads (once per process). */
void lci_compute_clock_init(void);

/* The application starts computing (leaving LCI). */
void lci_compute_clock_start(void);

/* The application stops computing (entering LCI): returns the nanoseconds
 * it computed since lci_compute_clock_start(). */
uint64_t lci_compute_clock_stop(void);

#endif
