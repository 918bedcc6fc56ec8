/*
 * pps_orca_bench.h - what the two Orca Table 5 benchmarks (pps_orca_perf
 * at the Orca level, pps_orca_lci in plain LCI) share: their options, the
 * choice of tests, and reporting.  Header-only; one includer per program.
 */
#ifndef PPS_ORCA_BENCH_H
#define PPS_ORCA_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

typedef struct {
    const char *test;
    long size, tput_size, iters, warmup;
    double gap_us;
    const char *csv;
    /* the tests chosen */
    int lat, tput, bcast_lat, bcast_tput;
} pps_orca_opts_t;

static pps_orca_opts_t o = {.test = "all",
                            .size = 16,
                            .tput_size = 65536,
                            .iters = 0,
                            .warmup = 10,
                            .gap_us = 100};

/* Parses the options; names are the four tests' names (latency,
 * throughput, broadcast latency, broadcast throughput), which --test takes
 * besides p2p (the first two), bcast (the last two) and all.  extra, if
 * not NULL, is one more option of the program's own. */
static void pps_orca_parse(const bench_info_t *info, const char *const names[4],
                           const bench_opt_t *extra, int argc, char **argv)
{
    char tests[160];
    snprintf(tests, sizeof tests, "%s, %s, %s, %s, p2p, bcast or all", names[0],
             names[1], names[2], names[3]);
    bench_opt_t opts[] = {
        {"--test", BENCH_OPT_STRING, &o.test, 0, 0, 0, "WHICH", tests},
        {"--size", BENCH_OPT_LONG, &o.size, 0, 1 << 20, 0, "BYTES",
         "latency argument size"},
        {"--tput-size", BENCH_OPT_LONG, &o.tput_size, 1, 1 << 24, 0, "BYTES",
         "throughput argument size"},
        {"--iters", BENCH_OPT_LONG, &o.iters, 0, 1e7, 0, "N",
         "timed repetitions (0: a default per test)"},
        {"--warmup", BENCH_OPT_LONG, &o.warmup, 0, 1e6, 0, "N",
         "untimed repetitions"},
        {"--gap-us", BENCH_OPT_DOUBLE, &o.gap_us, 0, 1e6, 0, "US",
         "idle time before each broadcast-latency repetition"},
        {"--csv", BENCH_OPT_STRING, &o.csv, 0, 0, 0, "FILE",
         "append rows bench,decomp,packet_size,metric,value_us,... to FILE"},
        {0},
    };
    size_t nopts = sizeof opts / sizeof opts[0];
    if (extra != NULL) {
        opts[nopts - 1] = *extra;
    } else {
        nopts--;
    }
    bench_opts_parse(info, opts, nopts, argc, argv);
    int all = strcmp(o.test, "all") == 0;
    int p2p = all || strcmp(o.test, "p2p") == 0;
    int bc = all || strcmp(o.test, "bcast") == 0;
    o.lat = p2p || strcmp(o.test, names[0]) == 0;
    o.tput = p2p || strcmp(o.test, names[1]) == 0;
    o.bcast_lat = bc || strcmp(o.test, names[2]) == 0;
    o.bcast_tput = bc || strcmp(o.test, names[3]) == 0;
    if (!o.lat && !o.tput && !o.bcast_lat && !o.bcast_tput) {
        fprintf(stderr, "%s: --test %s; expected %s\n", info->prog, o.test,
                tests);
        exit(2);
    }
}

/* Timed repetitions: --iters, or def. */
static long pps_orca_iters(long def)
{
    return o.iters > 0 ? o.iters : def;
}

/* On rank 0: prints a result and appends it to the CSV file. */
static void pps_orca_report(const char *bench, const char *metric,
                            double value_us, size_t size, double mb_s)
{
    if (lci_rank() != 0) {
        return;
    }
    if (mb_s >= 0) {
        printf("%-10s %8zu B  %10.2f MB/s\n", metric, size, mb_s);
    } else {
        printf("%-10s %8zu B  %10.2f us\n", metric, size, value_us);
    }
    if (o.csv != NULL) {
        bench_csv_row(o.csv, bench, metric, value_us, size, mb_s);
    }
}

#endif
