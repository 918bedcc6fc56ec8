/*
 * pps_perf.h - what the PPS-level Table 5 benchmarks share: their options
 * (--test, --size, --tput-size, --iters, --warmup, --gap-us, --csv, and
 * --mt where a layer has a multi-threaded variant), the choice of tests,
 * and the report line and CSV row rank 0 writes.  Header-only.
 */
#ifndef PPS_PERF_H
#define PPS_PERF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

typedef struct {
    const char *test;
    long size, tput_size, iters, warmup;
    double gap_us;
    int mt;
    const char *csv;
    /* which tests --test chose */
    int lat, tput, bcast_lat, bcast_tput;
} pps_perf_opts_t;

#define PPS_PERF_DEFAULTS                                                      \
    {                                                                          \
        .test = "all", .size = 16, .tput_size = 65536, .warmup = 10,           \
        .gap_us = 100                                                          \
    }

/* Parses argv into *o (before the layer starts LCI); offers --mt when
 * mt_help is not NULL.  A bad --test prints what was expected and exits 2. */
static inline void pps_perf_parse(const bench_info_t *info, pps_perf_opts_t *o,
                                  const char *mt_help, int argc, char **argv)
{
    const bench_opt_t opts[] = {
        {"--test", BENCH_OPT_STRING, &o->test, 0, 0, 0, "WHICH",
         "lat, tput, bcast-lat, bcast-tput, p2p, bcast or all"},
        {"--size", BENCH_OPT_LONG, &o->size, 0, 1 << 20, 0, "BYTES",
         "latency message size"},
        {"--tput-size", BENCH_OPT_LONG, &o->tput_size, 1, 1 << 24, 0, "BYTES",
         "throughput message size"},
        {"--iters", BENCH_OPT_LONG, &o->iters, 0, 1e7, 0, "N",
         "timed repetitions (0: a default per test)"},
        {"--warmup", BENCH_OPT_LONG, &o->warmup, 0, 1e6, 0, "N",
         "untimed repetitions"},
        {"--gap-us", BENCH_OPT_DOUBLE, &o->gap_us, 0, 1e6, 0, "US",
         "idle time before each broadcast-latency repetition"},
        {"--csv", BENCH_OPT_STRING, &o->csv, 0, 0, 0, "FILE",
         "append rows bench,decomp,packet_size,metric,value_us,... to FILE"},
        {"--mt", BENCH_OPT_SET, &o->mt, 0, 0, 1, NULL, mt_help},
    };
    size_t n = sizeof opts / sizeof opts[0] - (mt_help == NULL);
    bench_opts_parse(info, opts, n, argc, argv);
    const char *t = o->test;
    int all = strcmp(t, "all") == 0;
    int p2p = all || strcmp(t, "p2p") == 0;
    int bc = all || strcmp(t, "bcast") == 0;
    o->lat = p2p || strcmp(t, "lat") == 0;
    o->tput = p2p || strcmp(t, "tput") == 0;
    o->bcast_lat = bc || strcmp(t, "bcast-lat") == 0;
    o->bcast_tput = bc || strcmp(t, "bcast-tput") == 0;
    if (!o->lat && !o->tput && !o->bcast_lat && !o->bcast_tput) {
        fprintf(stderr,
                "%s: --test %s; expected lat, tput, bcast-lat, bcast-tput, "
                "p2p, bcast or all\n",
                info->prog, t);
        exit(2);
    }
}

/* On rank 0: prints a result and appends its CSV row (mb_s < 0: a time). */
static inline void pps_perf_report(const pps_perf_opts_t *o, const char *bench,
                                   const char *metric, double value_us,
                                   size_t size, double mb_s)
{
    if (lci_rank() != 0) {
        return;
    }
    if (mb_s >= 0) {
        printf("%-10s %8zu B  %10.2f MB/s\n", metric, size, mb_s);
    } else {
        printf("%-10s %8zu B  %10.2f us\n", metric, size, value_us);
    }
    if (o->csv != NULL) {
        bench_csv_row(o->csv, bench, metric, value_us, size, mb_s);
    }
}

#endif
