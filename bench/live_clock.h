/*
 * live_clock.h - what the live platform's comparison benchmarks share
 * (bench/live_*.c): a monotonic clock in seconds and the median of a set of
 * round trips.  Header-only.
 */
#ifndef LIVE_CLOCK_H
#define LIVE_CLOCK_H

#include <stdlib.h>
#include <time.h>

static inline double live_clock_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int live_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v[n] and returns its median. */
static inline double live_median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, live_cmp_double);
    return v[n / 2];
}

#endif
