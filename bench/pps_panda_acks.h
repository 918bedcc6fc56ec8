/*
 * pps_panda_acks.h - what the Panda-level Table 5 benchmarks share: the
 * receivers' acknowledgements (each may carry the time it saw the last
 * message; the sender keeps the latest) and failing on a Panda error.
 * Header-only, like pps_perf.h: each benchmark is one program.
 */
#ifndef PPS_PANDA_ACKS_H
#define PPS_PANDA_ACKS_H

#include <stdint.h>
#include <string.h>

#include "bench_common.h"
#include "panda.h"

static uint64_t acks_got;     /* acknowledgements received */
static double max_reported;   /* the latest time an acknowledgement carried */

/* Port handler of the acknowledgements. */
static void on_ack(int src, const void *data, size_t len, void *arg)
{
    (void)src;
    (void)arg;
    double t;
    if (len == sizeof t) {
        memcpy(&t, data, sizeof t);
        if (t > max_reported) {
            max_reported = t;
        }
    }
    acks_got++;
}

/* Fails the benchmark unless the Panda call succeeded. */
static void check_pan(int r, const char *what)
{
    if (r < 0) {
        bench_fail("%s: %s", what, pan_last_error());
    }
}

#endif
