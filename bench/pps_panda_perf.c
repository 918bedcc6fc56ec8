/*
 * pps_panda_perf.c - Panda-level numbers for the paper's Table 5: one-way
 * message latency, unicast throughput, broadcast latency and broadcast
 * throughput, with Panda-ST (default) or Panda-MT (--mt).
 *
 * The method follows the LCI benchmarks, so the two levels compare:
 *   latency      half the round trip of a ping-pong of --size byte messages
 *                between ranks 0 and 1 (pan_send both ways);
 *   throughput   rank 0 sends messages of --tput-size bytes to rank 1,
 *                which acknowledges the last; bytes / (first send .. ack).
 *                Panda's reassembly is the receiver's one copy;
 *   bcast-lat    rank 0 broadcasts an empty message (pan_bcast); each
 *                receiver notes lci_wtime() in its handler and reports it;
 *                latest arrival - start (one clock: the sim platform);
 *   bcast-tput   rank 0 broadcasts --tput-size byte messages; every
 *                receiver acknowledges the last; bytes / (first .. last ack).
 * Rank 0 prints the results and, with --csv FILE, appends rows
 * (metrics lat, tput, bcast_lat, bcast_tput).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "panda.h"
#include "pps_panda_acks.h"
#include "pps_perf.h"

enum {
    PORT_DATA = 1,
    PORT_ACK = 2
};

static pps_perf_opts_t o = PPS_PERF_DEFAULTS;

static uint64_t data_got;
static double last_arrival;

static void on_data(int src, const void *data, size_t len, void *arg)
{
    (void)src;
    (void)data;
    (void)len;
    (void)arg;
    data_got++;
    last_arrival = lci_wtime();
}

static void wait_for(const uint64_t *counter, uint64_t target)
{
    while (*counter < target) {
        check_pan(pan_wait(), "pan_wait");
    }
}

static void send_bytes(int dest, int port, const void *buf, size_t len)
{
    pan_msg_t msg;
    pan_msg_init(&msg);
    check_pan(pan_msg_push(&msg, buf, len), "pan_msg_push");
    if (dest < 0) {
        check_pan(pan_bcast(port, &msg), "pan_bcast");
    } else {
        check_pan(pan_send(dest, port, &msg), "pan_send");
    }
}

static void report(const char *metric, double value_us, size_t size,
                   double mb_s)
{
    pps_perf_report(&o, o.mt ? "pps_panda_mt" : "pps_panda_st", metric,
                    value_us, size, mb_s);
}

static void latency(char *buf)
{
    long iters = o.iters > 0 ? o.iters : 1000;
    int me = pan_rank();
    double t0 = 0;
    data_got = 0;
    for (long i = 0; i < o.warmup + iters; i++) {
        if (i == o.warmup) {
            t0 = lci_wtime();
        }
        if (me == 0) {
            send_bytes(1, PORT_DATA, buf, (size_t)o.size);
            wait_for(&data_got, (uint64_t)i + 1);
        } else if (me == 1) {
            wait_for(&data_got, (uint64_t)i + 1);
            send_bytes(0, PORT_DATA, buf, (size_t)o.size);
        }
    }
    report("lat", (lci_wtime() - t0) * 1e6 / (double)iters / 2.0,
           (size_t)o.size, -1);
}

static void throughput(char *buf)
{
    size_t size = (size_t)o.tput_size;
    long iters = o.iters > 0 ? o.iters : (long)(2 * 1048576 / size) + 1;
    int me = pan_rank();
    data_got = acks_got = 0;
    if (me == 0) {
        for (long i = 0; i < o.warmup; i++) {
            send_bytes(1, PORT_DATA, buf, size);
        }
        wait_for(&acks_got, 1);
        double t0 = lci_wtime();
        for (long i = 0; i < iters; i++) {
            send_bytes(1, PORT_DATA, buf, size);
        }
        wait_for(&acks_got, 2);
        double secs = lci_wtime() - t0;
        report("tput", secs * 1e6 / (double)iters, size,
               (double)iters * (double)size / secs / 1e6);
    } else if (me == 1) {
        wait_for(&data_got, (uint64_t)o.warmup);
        send_bytes(0, PORT_ACK, NULL, 0);
        wait_for(&data_got, (uint64_t)(o.warmup + iters));
        send_bytes(0, PORT_ACK, NULL, 0);
    }
}

static void bcast_latency(void)
{
    long iters = o.iters > 0 ? o.iters : 50;
    int me = pan_rank(), n = pan_size();
    double sum = 0;
    data_got = acks_got = 0;
    for (long i = 0; i < o.warmup + iters; i++) {
        if (me == 0) {
            bench_compute(o.gap_us * 1e-6);
            max_reported = 0;
            acks_got = 0;
            double t0 = lci_wtime();
            send_bytes(-1, PORT_DATA, NULL, 0);
            wait_for(&acks_got, (uint64_t)n - 1);
            if (i >= o.warmup) {
                sum += max_reported - t0;
            }
        } else {
            wait_for(&data_got, (uint64_t)i + 1);
            send_bytes(0, PORT_ACK, &last_arrival, sizeof last_arrival);
        }
    }
    report("bcast_lat", sum * 1e6 / (double)iters, 0, -1);
}

static void bcast_throughput(char *buf)
{
    size_t size = (size_t)o.tput_size;
    long iters = o.iters > 0 ? o.iters : (long)(1048576 / size) + 1;
    int me = pan_rank(), n = pan_size();
    data_got = acks_got = 0;
    if (me == 0) {
        for (long i = 0; i < o.warmup; i++) {
            send_bytes(-1, PORT_DATA, buf, size);
        }
        wait_for(&acks_got, (uint64_t)n - 1);
        double t0 = lci_wtime();
        for (long i = 0; i < iters; i++) {
            send_bytes(-1, PORT_DATA, buf, size);
        }
        wait_for(&acks_got, 2 * ((uint64_t)n - 1));
        double secs = lci_wtime() - t0;
        report("bcast_tput", secs * 1e6 / (double)iters, size,
               (double)iters * (double)size / secs / 1e6);
    } else {
        wait_for(&data_got, (uint64_t)o.warmup);
        send_bytes(0, PORT_ACK, NULL, 0);
        wait_for(&data_got, (uint64_t)(o.warmup + iters));
        send_bytes(0, PORT_ACK, NULL, 0);
    }
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        "pps_panda_perf",
        "Panda one-way latency, throughput and broadcast (paper Table 5)",
        "lci-run -n 64 --decomp rxno-mni --profile myrinet-1999 --compute "
        "zero ./bench/pps_panda_perf [options]",
        "p2p tests use ranks 0 and 1; broadcast tests every rank."};
    pps_perf_parse(&info, &o, "Panda-MT instead of Panda-ST", argc, argv);
    if (pan_init(&argc, &argv, o.mt ? PAN_MT : PAN_ST) != PAN_OK) {
        fprintf(stderr, "pps_panda_perf: pan_init: %s\n", pan_last_error());
        return 1;
    }
    if ((o.lat || o.tput) && pan_size() < 2) {
        bench_fail("the p2p tests need at least 2 nodes");
    }
    check_pan(pan_port_set(PORT_DATA, on_data, NULL), "pan_port_set");
    check_pan(pan_port_set(PORT_ACK, on_ack, NULL), "pan_port_set");
    size_t cap = (size_t)(o.size > o.tput_size ? o.size : o.tput_size);
    char *buf = calloc(1, cap);
    if (buf == NULL) {
        bench_fail("out of memory");
    }
    if (pan_rank() == 0) {
        printf("# pps_panda_perf: Panda-%s, %s, %d nodes\n", o.mt ? "MT" : "ST",
               lci_decomp_name(), pan_size());
    }
    if (o.lat) {
        latency(buf);
    }
    check_pan(pan_barrier(), "pan_barrier");
    if (o.tput) {
        throughput(buf);
    }
    check_pan(pan_barrier(), "pan_barrier");
    if (o.bcast_lat) {
        bcast_latency();
    }
    check_pan(pan_barrier(), "pan_barrier");
    if (o.bcast_tput) {
        bcast_throughput(buf);
    }
    free(buf);
    check_pan(pan_end(), "pan_end");
    return 0;
}
