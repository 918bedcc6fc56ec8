/*
 * live_pingpong.c - one-way latency and bandwidth between two LCI nodes,
 * measured the way MPI ping-pong benchmarks measure them, for comparing
 * the live platform with a bare shared-memory ping-pong, raw UDP and MPI
 * (bench/live-compare).
 *
 *   latency    rank 0 sends a packet of --bytes bytes, rank 1 sends it
 *              back; the median round trip over --iters, halved;
 *   bandwidth  rank 0 sends --msgs messages of --msg bytes, each cut into
 *              packets of the packet capacity; rank 1 copies every payload
 *              into its message buffer (as MPI delivers into the user's
 *              buffer) and answers after the last packet.
 *
 *   software   on one node (lci-run -n 1): the node sends to itself and
 *              polls until the packet is delivered, --iters times in 25
 *              batches; the median batch's time per packet, in ns, is
 *              "self_ns": the whole software path of a packet (host
 *              library, firmware, emulated hardware, the wire's ring) on
 *              one core, without the cross-core transfer (whose cost on
 *              a shared machine moves from day to day);
 *   interrupts (--intr-gap US) rank 1 turns network interrupts on and
 *              waits in lci_poll_wait(); rank 0 pauses US microseconds
 *              (sleeping) before each of --intr-iters round trips, so
 *              that rank 1 has stopped spinning and sleeps: the NI wakes
 *              it with an interrupt after the polling watchdog.  The
 *              median round trip is printed as "intr_rtt_us".
 *
 * Every packet is sent with one lci_sendv() call, as MPI_Send sends.
 * Otherwise polls with lci_poll() (busy polling, no interrupts).  Rank 0
 * prints "latency_us X", "max_rtt_us M", "long_rtts" (the round trips
 * over 1 ms, grouped: "95x5.0ms 2x10.0ms"), "bandwidth_MBps Y" and
 * "packets_per_msg Z".
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "live_clock.h"

typedef struct {
    long iters, warmup, bytes, msg, msgs, intr_gap, intr_iters;
} pp_opts_t;

typedef struct {
    long arrived;   /* packets delivered so far */
    char *sink;     /* rank 1: the message buffer payloads are copied to */
    long msg, offset;
} pp_state_t;

static lci_upcall_result_t pp_upcall(lci_rpacket_t *p, void *arg)
{
    pp_state_t *st = arg;
    if (st->sink != NULL && p->len > 0) {
        size_t n = p->len;
        if ((long)n > st->msg - st->offset) {
            n = (size_t)(st->msg - st->offset);
        }
        memcpy(st->sink + st->offset, p->data, n);
        st->offset = (st->offset + (long)n) % st->msg;
    }
    st->arrived++;
    return LCI_UPCALL_RELEASE;
}

/* Sends len bytes from src (NULL when len is 0) to dest in one call, as
 * an MPI ping-pong sends with MPI_Send: lci_sendv enters the library
 * once, where lci_packet_alloc, lci_packet_write and lci_send enter it
 * three times (about 20 ns more a packet on this machine). */
static void pp_send(int dest, const void *src, size_t len)
{
    struct iovec piece = {(void *)src, len};
    BENCH_CHECK(lci_sendv(dest, &piece, len > 0 ? 1 : 0));
}

static void wait_for(pp_state_t *st, long count)
{
    while (st->arrived < count) {
        BENCH_CHECK(lci_poll());
    }
}

/* Prints the round trips over 1 ms (stalls: a lost packet costs one of
 * about the retransmission timeout) as "long_rtts" and COUNTxMS groups,
 * to 0.5 ms, longest last; rtt[n] is sorted. */
static void print_stalls(const double *rtt, long n)
{
    printf("long_rtts");
    long i = 0;
    while (i < n && rtt[i] <= 1e-3) {
        i++;
    }
    while (i < n) {
        double ms = (double)(long)(rtt[i] * 2e3 + 0.5) / 2;
        long count = 0;
        for (; i < n && (double)(long)(rtt[i] * 2e3 + 0.5) / 2 == ms; i++) {
            count++;
        }
        printf(" %ldx%.1fms", count, ms);
    }
    printf("\n");
}

/* Half the median round trip in us; *max_p gets the longest round trip
 * (a lost packet shows up there, as a stall of about the timeout).  Rank
 * 0 prints the stalls. */
static double latency_us(pp_state_t *st, const pp_opts_t *o, int rank,
                         double *max_p)
{
    long total = o->warmup + o->iters;
    double *rtt = calloc((size_t)o->iters, sizeof *rtt);
    char payload[64] = {0};
    if (rtt == NULL) {
        bench_fail("out of memory");
    }
    for (long i = 0; i < total; i++) {
        if (rank == 0) {
            double t0 = lci_wtime();
            pp_send(1, payload, (size_t)o->bytes);
            wait_for(st, i + 1);
            if (i >= o->warmup) {
                rtt[i - o->warmup] = lci_wtime() - t0;
            }
        } else {
            wait_for(st, i + 1);
            pp_send(0, payload, (size_t)o->bytes);
        }
    }
    double median = live_median(rtt, o->iters);
    *max_p = rtt[o->iters - 1] * 1e6; /* sorted by live_median */
    if (rank == 0) {
        print_stalls(rtt, o->iters);
    }
    free(rtt);
    return median / 2 * 1e6;
}

/* Median round trip in us with rank 1 asleep in interrupt mode. */
static double intr_rtt_us(pp_state_t *st, const pp_opts_t *o, int rank)
{
    double *rtt = calloc((size_t)o->intr_iters, sizeof *rtt);
    char payload[8] = {0};
    if (rtt == NULL) {
        bench_fail("out of memory");
    }
    if (rank == 1) {
        BENCH_CHECK(lci_intr_enable());
    }
    for (long i = 0; i < o->intr_iters; i++) {
        long base = st->arrived;
        if (rank == 0) {
            struct timespec gap = {o->intr_gap / 1000000,
                                   o->intr_gap % 1000000 * 1000};
            nanosleep(&gap, NULL); /* the peer gives up spinning */
            double t0 = lci_wtime();
            pp_send(1, payload, sizeof payload);
            wait_for(st, base + 1);
            rtt[i] = lci_wtime() - t0;
        } else {
            while (st->arrived < base + 1) {
                BENCH_CHECK(lci_poll_wait());
            }
            pp_send(0, payload, sizeof payload);
        }
    }
    if (rank == 1) {
        BENCH_CHECK(lci_intr_disable());
    }
    double median = live_median(rtt, o->intr_iters);
    free(rtt);
    return median * 1e6;
}

/* The software path on one node: ns per packet sent to itself and
 * delivered, the median of 25 batches. */
static double self_ns(pp_state_t *st, const pp_opts_t *o)
{
    enum { BATCHES = 25 };
    long per = o->iters / BATCHES > 0 ? o->iters / BATCHES : 1;
    double ns[BATCHES];
    char payload[64] = {0};
    for (long i = 0; i < o->warmup; i++) {
        pp_send(0, payload, (size_t)o->bytes);
        wait_for(st, st->arrived + 1);
    }
    for (int b = 0; b < BATCHES; b++) {
        double t0 = lci_wtime();
        for (long i = 0; i < per; i++) {
            pp_send(0, payload, (size_t)o->bytes);
            wait_for(st, st->arrived + 1);
        }
        ns[b] = (lci_wtime() - t0) / (double)per * 1e9;
    }
    return live_median(ns, BATCHES);
}

static double bandwidth_mbps(pp_state_t *st, const pp_opts_t *o, int rank,
                             long per_msg, size_t cap)
{
    char *src = calloc((size_t)o->msg, 1);
    if (src == NULL) {
        bench_fail("out of memory");
    }
    double mbps = 0;
    /* A warm-up round, then the measured one. */
    for (int round = 0; round < 2; round++) {
        long base = st->arrived;
        double t0 = lci_wtime();
        if (rank == 0) {
            for (long m = 0; m < o->msgs; m++) {
                for (long off = 0; off < o->msg; off += (long)cap) {
                    size_t n = (size_t)(o->msg - off) < cap
                                   ? (size_t)(o->msg - off)
                                   : cap;
                    pp_send(1, src + off, n);
                }
            }
            wait_for(st, base + 1);
            mbps = (double)o->msg * (double)o->msgs / (lci_wtime() - t0) / 1e6;
        } else {
            wait_for(st, base + per_msg * o->msgs);
            pp_send(0, NULL, 0);
        }
    }
    free(src);
    return mbps;
}

int main(int argc, char **argv)
{
    pp_opts_t o = {.iters = 20000, .warmup = 2000, .bytes = 8,
                   .msg = 65536, .msgs = 2000, .intr_iters = 20};
    const bench_opt_t opts[] = {
        {"--iters", BENCH_OPT_LONG, &o.iters, 1, 1e8, 0, "N",
         "round trips measured (default 20000)"},
        {"--warmup", BENCH_OPT_LONG, &o.warmup, 0, 1e8, 0, "N",
         "round trips before measuring (default 2000)"},
        {"--bytes", BENCH_OPT_LONG, &o.bytes, 0, 64, 0, "B",
         "latency payload in bytes (default 8)"},
        {"--msg", BENCH_OPT_LONG, &o.msg, 1, 1 << 26, 0, "B",
         "bandwidth message size in bytes (default 64K)"},
        {"--msgs", BENCH_OPT_LONG, &o.msgs, 1, 1e8, 0, "N",
         "messages in the bandwidth run (default 2000)"},
        {"--intr-gap", BENCH_OPT_LONG, &o.intr_gap, 0, 1e7, 0, "US",
         "also measure interrupt mode, pausing US us before each round "
         "trip (default 0: not measured)"},
        {"--intr-iters", BENCH_OPT_LONG, &o.intr_iters, 1, 1e6, 0, "N",
         "round trips in interrupt mode (default 20)"},
    };
    const bench_info_t info = {
        "live_pingpong",
        "one-way latency and bandwidth between two nodes (on one node: "
        "the software path of a packet sent to itself)",
        "lci-run -n 2 --platform live ./live_pingpong", NULL};
    bench_opts_parse(&info, opts, sizeof opts / sizeof opts[0], argc, argv);
    bench_init("live_pingpong", &argc, &argv);
    int rank = lci_rank();
    pp_state_t st = {0};
    size_t cap = lci_packet_capacity();
    long per_msg = (o.msg + (long)cap - 1) / (long)cap;
    if (rank == 1) {
        st.sink = calloc((size_t)o.msg, 1);
        st.msg = o.msg;
    }
    BENCH_CHECK(lci_upcall_set(pp_upcall, &st));
    if (lci_size() == 1) {
        printf("self_ns %.1f\n", self_ns(&st, &o));
    } else if (rank < 2) {
        double max_rtt;
        double lat = latency_us(&st, &o, rank, &max_rtt);
        double bw = bandwidth_mbps(&st, &o, rank, per_msg, cap);
        double intr = o.intr_gap > 0 ? intr_rtt_us(&st, &o, rank) : 0;
        if (rank == 0) {
            printf("latency_us %.3f\nmax_rtt_us %.1f\nbandwidth_MBps %.1f\n"
                   "packets_per_msg %ld\n",
                   lat, max_rtt, bw, per_msg);
            if (o.intr_gap > 0) {
                printf("intr_rtt_us %.1f\n", intr);
            }
        }
    }
    free(st.sink);
    bench_finalize();
    return 0;
}
