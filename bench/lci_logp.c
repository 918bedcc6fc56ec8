/*
 * lci_logp.c - LogP parameters of one decomposition (paper Table 4), by the
 * method of Culler et al., on two nodes: rank 0 sends, rank 1 receives.
 *
 *   RTT  ping-pong of small packets, after a warm-up;
 *   o_s  time in lci_packet_alloc + lci_packet_write + lci_send, with sends
 *        spaced by more than a round trip so flow control never interferes;
 *   o_r  time of the lci_poll() that delivers one packet which has already
 *        arrived (the receiver asks for it, then computes for longer than a
 *        round trip before polling); the upcall does nothing;
 *   g    the sender sends a long back-to-back burst while the receiver only
 *        polls; the receiver replies after the last packet, so
 *        g = (reply arrival - end of warm-up) / burst includes draining;
 *   L    RTT/2 - o_s - o_r;  end-to-end = RTT/2 = o_s + L + o_r.
 *
 * All times come from lci_wtime() (virtual time on the simulated platform).
 * Nodes beyond the first two take no part.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_paper.h"

typedef struct {
    long size;
    long iters;
    long warmup;
    long burst;
    double gap_us;
    const char *csv;
} logp_opts_t;

typedef struct {
    uint64_t received; /* packets delivered to the upcall so far */
    uint64_t consumed; /* packets the protocol has waited for so far */
    size_t bad_len;    /* packets of an unexpected length */
    size_t expect_len;
    unsigned char last[64]; /* payload of the last packet (its first bytes) */
    size_t last_len;
} logp_rx_t;

/* What rank 1 measured (o_r), sent to rank 0 at the end. */
typedef struct {
    double mean, min, max;
    double samples, late;
} logp_orecv_msg_t;

typedef struct {
    double sum, min, max;
    long n;
} logp_stat_t;

static lci_upcall_result_t logp_upcall(lci_rpacket_t *packet, void *arg)
{
    logp_rx_t *rx = arg;

    rx->received++;
    if (packet->len != rx->expect_len) {
        rx->bad_len++;
    }
    rx->last_len = packet->len < sizeof rx->last ? packet->len : sizeof rx->last;
    memcpy(rx->last, packet->data, rx->last_len);
    return LCI_UPCALL_RELEASE;
}

/* Waits for the next n packets.  Targets are cumulative: one poll may
 * deliver packets that belong to the next step, which then count there. */
static void logp_wait(logp_rx_t *rx, uint64_t n)
{
    rx->consumed += n;
    while (rx->received < rx->consumed) {
        BENCH_CHECK(lci_poll_wait());
    }
}

static void stat_add(logp_stat_t *s, double v)
{
    if (s->n == 0 || v < s->min) {
        s->min = v;
    }
    if (s->n == 0 || v > s->max) {
        s->max = v;
    }
    s->sum += v;
    s->n++;
}

static double stat_mean(const logp_stat_t *s)
{
    return s->n ? s->sum / (double)s->n : 0.0;
}

/* Ping-pong; returns the mean round-trip time as seen by this node (rank 1
 * sees the time between consecutive pings, which is the same RTT). */
static double logp_rtt(const logp_opts_t *o, logp_rx_t *rx, const void *buf)
{
    int rank = lci_rank();
    double t0 = 0.0;

    for (long i = 0; i < o->warmup + o->iters; i++) {
        if (i == o->warmup) {
            t0 = lci_wtime();
        }
        if (rank == 0) {
            bench_send_raw(1, buf, (size_t)o->size);
            logp_wait(rx, 1);
        } else {
            logp_wait(rx, 1);
            if (i == o->warmup) {
                t0 = lci_wtime(); /* rank 1: from the first timed ping */
            }
            bench_send_raw(0, buf, (size_t)o->size);
        }
    }
    if (rank == 0) {
        return (lci_wtime() - t0) / (double)o->iters;
    }
    /* rank 1 timed iters-1 intervals between pings */
    return o->iters > 1 ? (lci_wtime() - t0) / (double)(o->iters - 1) : 0.0;
}

/* o_s: sends spaced by gap; rank 1 confirms it received them all. */
static void logp_send_overhead(const logp_opts_t *o, logp_rx_t *rx, const void *buf, double gap,
                               logp_stat_t *os)
{
    long n = o->warmup + o->iters;

    if (lci_rank() == 0) {
        for (long i = 0; i < n; i++) {
            double d = bench_send_raw(1, buf, (size_t)o->size);

            if (i >= o->warmup) {
                stat_add(os, d);
            }
            if (i + 1 < n) {
                bench_compute(gap);
                /* Between sends the sender polls, as an application does:
                 * acknowledgements a host-level protocol must process are
                 * then not charged to the next send. */
                BENCH_CHECK(lci_poll());
            }
        }
        logp_wait(rx, 1);
    } else {
        logp_wait(rx, (uint64_t)n);
        bench_send_raw(0, buf, (size_t)o->size);
    }
}

/* o_r: rank 1 asks for a packet, computes gap, then times the lci_poll()
 * that delivers it.  Returns how many polls found nothing (gap too short). */
static long logp_recv_overhead(const logp_opts_t *o, logp_rx_t *rx, const void *buf, double gap,
                               logp_stat_t *orecv)
{
    long n = o->warmup + o->iters;
    long late = 0;

    for (long i = 0; i < n; i++) {
        if (lci_rank() == 0) {
            logp_wait(rx, 1);
            bench_send_raw(1, buf, (size_t)o->size);
            continue;
        }
        double t0, t1;
        int got;

        if (rx->received != rx->consumed) {
            bench_fail("o_r: %llu unexpected packets before the timed poll",
                       (unsigned long long)(rx->received - rx->consumed));
        }
        bench_send_raw(0, buf, (size_t)o->size);
        bench_compute(gap);
        t0 = lci_wtime();
        got = BENCH_CHECK(lci_poll());
        t1 = lci_wtime();
        if (got > 1 || rx->received > rx->consumed + 1) {
            bench_fail("o_r: one lci_poll() delivered %d packets, expected 1", got);
        }
        if (rx->received == rx->consumed) {
            late++; /* not arrived yet: not a sample */
            logp_wait(rx, 1);
            continue;
        }
        rx->consumed++;
        if (i >= o->warmup) {
            stat_add(orecv, t1 - t0);
        }
    }
    /* rank 1 says it is done, so the g burst cannot reach its last timed poll */
    if (lci_rank() == 1) {
        bench_send_raw(0, buf, (size_t)o->size);
    } else {
        logp_wait(rx, 1);
    }
    return late;
}

/* g: rank 0 sends warmup + burst packets back to back; rank 1 replies after
 * the last.  Returns g; *g_send_p gets the interval between send completions
 * alone (without draining). */
static double logp_gap(const logp_opts_t *o, logp_rx_t *rx, const void *buf, double *g_send_p)
{
    long n = o->warmup + o->burst;

    if (lci_rank() == 0) {
        double t0 = 0.0, t_sent, t_reply;

        for (long i = 0; i < n; i++) {
            if (i == o->warmup) {
                t0 = lci_wtime();
            }
            bench_send_raw(1, buf, (size_t)o->size);
        }
        t_sent = lci_wtime();
        logp_wait(rx, 1);
        t_reply = lci_wtime();
        *g_send_p = (t_sent - t0) / (double)o->burst;
        return (t_reply - t0) / (double)o->burst;
    }
    logp_wait(rx, (uint64_t)n);
    bench_send_raw(0, buf, (size_t)o->size);
    *g_send_p = 0.0;
    return 0.0;
}

static void logp_report(const logp_opts_t *o, double rtt, const logp_stat_t *os,
                        const logp_stat_t *orecv, double g, double g_send, long late, double gap)
{
    static const char *const headers[] = {"metric",       "measured_us", "paper_RX_no",
                                          "paper_RX_ni",  "paper_RX_h",  "ratio"};
    bench_scheme_t scheme = bench_scheme_of(bench_decomp());
    double e2e = rtt / 2.0;
    struct {
        const char *name;
        double value;
    } rows[] = {
        {"o_s", stat_mean(os)},
        {"o_r", stat_mean(orecv)},
        {"g", g},
        {"L", e2e - stat_mean(os) - stat_mean(orecv)},
        {"end-to-end", e2e},
    };
    bench_table_t *t;
    char title[200];

    if (scheme == BENCH_RX_UNKNOWN) { /* beyond the paper: nothing published to divide by */
        snprintf(title, sizeof title,
                 "LogP (us), payload %ld B; no ratio: %s is beyond the paper", o->size,
                 bench_decomp());
    } else {
        snprintf(title, sizeof title, "LogP (us), payload %ld B; ratio = measured / paper %s",
                 o->size, bench_scheme_name(scheme));
    }
    t = bench_table_create(title, 6, headers);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double ref = bench_paper_logp(scheme, rows[i].name);
        const char *cells[6] = {
            rows[i].name,
            bench_fmt("%.2f", rows[i].value * 1e6),
            bench_fmt("%.1f", bench_paper_logp(BENCH_RX_NO, rows[i].name)),
            bench_fmt("%.1f", bench_paper_logp(BENCH_RX_NI, rows[i].name)),
            bench_fmt("%.1f", bench_paper_logp(BENCH_RX_H, rows[i].name)),
            bench_ratio(rows[i].value * 1e6, ref),
        };

        bench_table_add_row(t, cells);
        bench_csv_row(o->csv, "lci_logp", rows[i].name, rows[i].value * 1e6, (size_t)o->size,
                      -1.0);
    }
    bench_csv_row(o->csv, "lci_logp", "rtt", rtt * 1e6, (size_t)o->size, -1.0);
    bench_table_print(t, stdout);
    bench_table_free(t);
    printf("# RTT %.2f us (%ld iterations after %ld warm-up); o_s min/max %.2f/%.2f us; "
           "o_r min/max %.2f/%.2f us\n",
           rtt * 1e6, o->iters, o->warmup, os->min * 1e6, os->max * 1e6, orecv->min * 1e6,
           orecv->max * 1e6);
    printf("# g over %ld back-to-back packets; sender alone (no draining) %.2f us/packet; "
           "spacing for o_s/o_r %.1f us; late polls %ld\n",
           o->burst, g_send * 1e6, gap * 1e6, late);
}

int main(int argc, char **argv)
{
    logp_opts_t o = {
        .size = 16, .iters = 1000, .warmup = 100, .burst = 2000, .gap_us = 0.0, .csv = NULL};
    const bench_opt_t opts[] = {
        {"--size", BENCH_OPT_LONG, &o.size, 0, 1 << 20, 0, "BYTES",
         "payload bytes per packet (at most the packet capacity)"},
        {"--iters", BENCH_OPT_LONG, &o.iters, 2, 1e8, 0, "N",
         "timed iterations for RTT, o_s and o_r"},
        {"--warmup", BENCH_OPT_LONG, &o.warmup, 0, 1e8, 0, "N",
         "untimed iterations (and packets before the g burst)"},
        {"--burst", BENCH_OPT_LONG, &o.burst, 1, 1e8, 0, "N", "packets in the timed g burst"},
        {"--gap-us", BENCH_OPT_DOUBLE, &o.gap_us, 0, 1e7, 0, "US",
         "spacing for o_s and o_r (0: 5 x RTT, at least 50 us)"},
        {"--csv", BENCH_OPT_STRING, &o.csv, 0, 0, 0, "FILE",
         "append rows bench,decomp,packet_size,metric,value_us,... to FILE"},
    };
    const bench_info_t info = {
        .prog = "lci_logp",
        .summary = "LogP parameters o_s, o_r, g, L and end-to-end latency (paper Table 4)",
        .usage = "lci-run -n 2 --platform sim --decomp rxno-mni --profile myrinet-1999 "
                 "--compute zero ./bench/lci_logp [options]",
        .details = "Rank 0 sends, rank 1 receives; other ranks idle.  The paper's Table 4\n"
                   "values are shown as reference columns; ratio = measured / the column of\n"
                   "this decomposition's reliability scheme (rxno-* RX_no, rxni-* RX_ni,\n"
                   "rxh-* RX_h); a decomposition beyond the paper's five gets none.",
    };
    logp_rx_t rx = {0};
    logp_stat_t os = {0}, orecv = {0};
    double rtt, gap, g, g_send = 0.0;
    long late;
    unsigned char *buf;

    bench_opts_parse(&info, opts, sizeof opts / sizeof opts[0], argc, argv);
    bench_init(info.prog, &argc, &argv);
    if (lci_size() < 2) {
        bench_usage_error("needs at least 2 nodes (lci-run -n 2), got %d", lci_size());
    }
    if ((size_t)o.size > lci_packet_capacity()) {
        bench_usage_error("--size %ld exceeds the packet capacity %zu", o.size,
                          lci_packet_capacity());
    }
    buf = calloc(1, (size_t)o.size + 1);
    if (buf == NULL) {
        bench_fail("out of memory");
    }
    for (long i = 0; i < o.size; i++) {
        buf[i] = (unsigned char)(i * 31 + 7);
    }
    rx.expect_len = (size_t)o.size;
    BENCH_CHECK(lci_upcall_set(logp_upcall, &rx));

    if (lci_rank() <= 1) {
        rtt = logp_rtt(&o, &rx, buf);
        gap = o.gap_us > 0.0 ? o.gap_us * 1e-6 : 5.0 * rtt;
        if (o.gap_us <= 0.0 && gap < 50e-6) {
            gap = 50e-6;
        }
        logp_send_overhead(&o, &rx, buf, gap, &os);
        late = logp_recv_overhead(&o, &rx, buf, gap, &orecv);
        g = logp_gap(&o, &rx, buf, &g_send);
        if (rx.bad_len != 0) {
            bench_fail("%zu packets arrived with a length other than %ld", rx.bad_len, o.size);
        }
        /* o_r was measured on rank 1: rank 0 asks for its numbers */
        if (lci_rank() == 1) {
            logp_orecv_msg_t m = {stat_mean(&orecv), orecv.min, orecv.max, (double)orecv.n,
                                  (double)late};

            logp_wait(&rx, 1);
            bench_send_raw(0, &m, sizeof m);
        } else {
            logp_orecv_msg_t m;

            rx.expect_len = sizeof m;
            bench_send_raw(1, buf, (size_t)o.size);
            logp_wait(&rx, 1);
            if (rx.last_len != sizeof m || rx.bad_len != 0) {
                bench_fail("rank 1's o_r report has %zu bytes, expected %zu", rx.last_len,
                           sizeof m);
            }
            memcpy(&m, rx.last, sizeof m);
            if (m.samples < 1.0) {
                bench_fail("o_r: no poll found its packet already arrived (raise --gap-us)");
            }
            orecv.sum = m.mean * m.samples;
            orecv.n = (long)m.samples;
            orecv.min = m.min;
            orecv.max = m.max;
            bench_print_config(info.prog, stdout);
            logp_report(&o, rtt, &os, &orecv, g, g_send, (long)m.late, gap);
        }
    }
    bench_finalize();
    free(buf);
    return 0;
}
