/*
 * pps_orca_lci.c - the LCI operations that Orca's two Table 5 operations
 * come down to, timed with plain LCI and the same method as pps_orca_perf:
 *   lat          rank 0 sends a --size byte message to rank 1, which
 *                answers with a 16-byte message (an Orca reply's size);
 *                half the round trip;
 *   tput         the same with --tput-size bytes, one request after the
 *                other; bytes / time;
 *   bcast-lat    rank 0 takes a number with lci_fetch_add on node 0 (the
 *                sequencer of totally-ordered broadcast), then broadcasts
 *                an empty message; latest arrival - start;
 *   bcast-tput   rank 0 repeats fetch-and-add + broadcast of --tput-size
 *                bytes; every receiver acknowledges the last; bytes /
 *                (first .. last acknowledgement).
 * Receivers copy messages out of the packets (lci_copy, charged), as Panda
 * does.  Rank 0 prints the results and, with --csv FILE, appends rows
 * (metrics lat, tput, bcast_lat, bcast_tput).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_msg.h"
#include "pps_perf.h"

static pps_perf_opts_t o = PPS_PERF_DEFAULTS;

/* Timed repetitions: --iters, or def. */
static long iters_or(long def)
{
    return o.iters > 0 ? o.iters : def;
}

enum {
    K_DATA = 1,
    K_REPLY = 2,
    K_ACK = 3
};

#define SEQ_NODE  0
#define SEQ_VAR   0
#define REPLY_LEN 16

static bench_msg_rx_t *rx;
static uint64_t got_data, got_reply, got_ack;
static double last_arrival, max_reported;

static void on_msg(int src, int group, uint32_t kind, const void *data,
                   size_t len, void *arg)
{
    (void)src;
    (void)group;
    (void)arg;
    switch (kind) {
    case K_DATA:
        got_data++;
        last_arrival = lci_wtime();
        break;
    case K_REPLY:
        got_reply++;
        break;
    case K_ACK:
        if (data != NULL && len == sizeof(double)) {
            double t;
            memcpy(&t, data, sizeof t);
            if (t > max_reported) {
                max_reported = t;
            }
        }
        got_ack++;
        break;
    default:
        bench_fail("a message of kind %u", (unsigned)kind);
    }
}

static void wait_for(const uint64_t *counter, uint64_t target)
{
    bench_msg_wait_count(rx, counter, target);
}

/* rank 0: iters requests of size bytes, each answered; the time taken. */
static double requests(long warmup, long iters, size_t size)
{
    static const char reply[REPLY_LEN];
    double t0 = 0;
    got_data = got_reply = 0;
    for (long i = 0; i < warmup + iters; i++) {
        if (i == warmup) {
            t0 = lci_wtime();
        }
        if (lci_rank() == 0) {
            bench_msg_send(1, K_DATA, NULL, size);
            wait_for(&got_reply, (uint64_t)i + 1);
        } else if (lci_rank() == 1) {
            wait_for(&got_data, (uint64_t)i + 1);
            bench_msg_send(0, K_REPLY, reply, sizeof reply);
        }
    }
    return lci_wtime() - t0;
}

static void rpc_latency(void)
{
    long iters = iters_or(1000);
    double secs = requests(o.warmup, iters, (size_t)o.size);
    pps_perf_report(&o, "pps_orca_lci", "lat", secs * 1e6 / (double)iters / 2.0,
                    (size_t)o.size, -1);
}

static void rpc_throughput(void)
{
    size_t size = (size_t)o.tput_size;
    long iters = iters_or((long)(2 * 1048576 / size) + 1);
    double secs = requests(o.warmup, iters, size);
    pps_perf_report(&o, "pps_orca_lci", "tput", secs * 1e6 / (double)iters,
                    size, (double)iters * (double)size / secs / 1e6);
}

static void fa_bcast(size_t size)
{
    int64_t seq;
    BENCH_CHECK(lci_fetch_add(SEQ_NODE, SEQ_VAR, 1, &seq));
    bench_msg_send(BENCH_MSG_BCAST, K_DATA, NULL, size);
}

static void fa_bcast_latency(void)
{
    long iters = iters_or(50);
    int me = lci_rank(), n = lci_size();
    double sum = 0;
    got_data = 0;
    for (long i = 0; i < o.warmup + iters; i++) {
        if (me == 0) {
            bench_compute(o.gap_us * 1e-6);
            max_reported = 0;
            got_ack = 0;
            double t0 = lci_wtime();
            fa_bcast(0);
            wait_for(&got_ack, (uint64_t)n - 1);
            if (i >= o.warmup) {
                sum += max_reported - t0;
            }
        } else {
            wait_for(&got_data, (uint64_t)i + 1);
            bench_msg_send(0, K_ACK, &last_arrival, sizeof last_arrival);
        }
    }
    pps_perf_report(&o, "pps_orca_lci", "bcast_lat", sum * 1e6 / (double)iters,
                    0, -1);
}

static void fa_bcast_throughput(void)
{
    size_t size = (size_t)o.tput_size;
    long iters = iters_or((long)(1048576 / size) + 1);
    int me = lci_rank(), n = lci_size();
    got_data = got_ack = 0;
    if (me == 0) {
        for (long i = 0; i < o.warmup; i++) {
            fa_bcast(size);
        }
        wait_for(&got_ack, (uint64_t)n - 1);
        double t0 = lci_wtime();
        for (long i = 0; i < iters; i++) {
            fa_bcast(size);
        }
        wait_for(&got_ack, 2 * ((uint64_t)n - 1));
        double secs = lci_wtime() - t0;
        pps_perf_report(&o, "pps_orca_lci", "bcast_tput",
                        secs * 1e6 / (double)iters, size,
                        (double)iters * (double)size / secs / 1e6);
    } else {
        wait_for(&got_data, (uint64_t)o.warmup);
        bench_msg_send(0, K_ACK, NULL, 0);
        wait_for(&got_data, (uint64_t)(o.warmup + iters));
        bench_msg_send(0, K_ACK, NULL, 0);
    }
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        "pps_orca_lci",
        "plain-LCI equivalents of an Orca RPC and a replicated-object write "
        "(fetch-and-add + broadcast), for Table 5",
        "lci-run -n 64 --decomp rxno-mni --profile myrinet-1999 --compute "
        "zero ./bench/pps_orca_lci [options]",
        "p2p tests use ranks 0 and 1; broadcast tests every rank."};
    pps_perf_parse(&info, &o, NULL, argc, argv);
    bench_init(info.prog, &argc, &argv);
    if ((o.lat || o.tput) && lci_size() < 2) {
        bench_fail("the p2p tests need at least 2 nodes");
    }
    size_t cap = (size_t)(o.size > o.tput_size ? o.size : o.tput_size);
    char *buf = malloc(cap);
    rx = bench_msg_rx_create(buf, cap, on_msg, NULL);
    if (buf == NULL || rx == NULL) {
        bench_fail("out of memory");
    }
    bench_msg_rx_set_copy(rx, 1);
    BENCH_CHECK(lci_upcall_set(bench_msg_upcall, rx));
    if (lci_rank() == 0) {
        printf("# pps_orca_lci: plain LCI, %s, %d nodes\n", lci_decomp_name(),
               lci_size());
    }
    if (o.lat) {
        rpc_latency();
    }
    BENCH_CHECK(lci_barrier());
    if (o.tput) {
        rpc_throughput();
    }
    BENCH_CHECK(lci_barrier());
    if (o.bcast_lat) {
        fa_bcast_latency();
    }
    BENCH_CHECK(lci_barrier());
    if (o.bcast_tput) {
        fa_bcast_throughput();
    }
    BENCH_CHECK(lci_barrier());
    bench_msg_rx_free(rx);
    free(buf);
    bench_finalize();
    return 0;
}
