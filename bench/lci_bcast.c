/*
 * lci_bcast.c - broadcast latency and throughput (paper Figures 3 and 4).
 *
 * Latency: rank 0 broadcasts a message of --size bytes (default empty, as
 * the paper's Figure 3 starts) with lci_broadcast(); every receiver notes
 * lci_wtime() when its last packet reaches the upcall and sends that time to
 * rank 0, which takes (latest arrival - start of the send).  This needs one
 * clock for all nodes, which the simulated platform has; elsewhere only the
 * time until every reply is back (an upper bound) is reported.  Repetitions
 * are spaced by --gap-us so one does not overlap the next.
 *
 * Throughput: rank 0 broadcasts messages of each size (fragmented, see
 * bench_msg.h); receivers reassemble, copying by default as in the paper,
 * and acknowledge the last message; throughput is the sender's outgoing
 * data rate, (messages x size) / (first send .. last acknowledgement).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bench_msg.h"
#include "bench_paper.h"

enum { BC_MSG_DATA = 1, BC_MSG_ACK = 2 };

typedef struct {
    const char *test; /* latency | throughput | all */
    long size;
    long iters;
    long warmup;
    double gap_us;
    bench_sizes_t sizes;
    int copy;
    long volume;
    const char *csv;
} bc_opts_t;

/* A receiver's report for one latency repetition. */
typedef struct {
    double arrival;
    double rep;
} bc_reply_t;

typedef struct {
    /* receivers */
    uint64_t probe_pkts;  /* multicast packets received */
    size_t probe_npkts;   /* packets per probe message */
    double arrival;       /* time the last packet of the latest probe arrived */
    uint64_t probes;      /* complete probes */
    /* rank 0 */
    uint64_t replies;
    double max_arrival;
    double expect_rep;
    size_t bad;
    /* throughput */
    uint64_t data_msgs;
    uint64_t acks;
    size_t expect_len;
} bc_state_t;

static lci_upcall_result_t bc_latency_upcall(lci_rpacket_t *packet, void *arg)
{
    bc_state_t *st = arg;

    if (packet->group >= 0) {
        /* a probe packet (rank 0 never receives its own broadcast) */
        if (packet->src != 0) {
            st->bad++;
        }
        st->probe_pkts++;
        if (st->probe_pkts % st->probe_npkts == 0) {
            st->arrival = lci_wtime();
            st->probes++;
        }
        return LCI_UPCALL_RELEASE;
    }
    if (packet->len == sizeof(bc_reply_t)) {
        bc_reply_t r;

        memcpy(&r, packet->data, sizeof r);
        if (r.rep != st->expect_rep) {
            st->bad++;
        }
        if (st->replies == 0 || r.arrival > st->max_arrival) {
            st->max_arrival = r.arrival;
        }
        st->replies++;
    } else {
        st->bad++;
    }
    return LCI_UPCALL_RELEASE;
}

static void bc_wait(const uint64_t *counter, uint64_t target)
{
    while (*counter < target) {
        BENCH_CHECK(lci_poll_wait());
    }
}

typedef struct {
    double sum, min, max, all_sum;
    long n;
} bc_lat_t;

static void bc_latency(const bc_opts_t *o, bc_state_t *st, bc_lat_t *lat)
{
    size_t cap = lci_packet_capacity();
    size_t npkts = o->size == 0 ? 1 : ((size_t)o->size + cap - 1) / cap;
    long reps = o->iters > 0 ? o->iters : 100;
    uint64_t nrecv = (uint64_t)lci_size() - 1;
    unsigned char *zeros = calloc(1, cap);

    if (zeros == NULL) {
        bench_fail("out of memory");
    }
    st->probe_npkts = npkts;
    BENCH_CHECK(lci_upcall_set(bc_latency_upcall, st));
    for (long rep = 0; rep < o->warmup + reps; rep++) {
        if (lci_rank() == 0) {
            double t0, l;

            bench_compute(o->gap_us * 1e-6);
            st->replies = 0;
            st->expect_rep = (double)rep;
            t0 = lci_wtime();
            for (size_t p = 0; p < npkts; p++) {
                size_t left = (size_t)o->size - p * cap;
                size_t len = o->size == 0 ? 0 : left < cap ? left : cap;
                lci_packet_t *pkt;

                BENCH_CHECK(lci_packet_alloc(&pkt));
                BENCH_CHECK(lci_packet_write(pkt, 0, zeros, len));
                BENCH_CHECK(lci_broadcast(pkt, len));
            }
            bc_wait(&st->replies, nrecv);
            if (rep < o->warmup) {
                continue;
            }
            l = st->max_arrival - t0;
            if (lat->n == 0 || l < lat->min) {
                lat->min = l;
            }
            if (lat->n == 0 || l > lat->max) {
                lat->max = l;
            }
            lat->sum += l;
            lat->all_sum += lci_wtime() - t0;
            lat->n++;
        } else {
            bc_reply_t r;

            bc_wait(&st->probes, (uint64_t)rep + 1);
            r.arrival = st->arrival;
            r.rep = (double)rep;
            bench_send_raw(0, &r, sizeof r);
        }
    }
    if (st->bad != 0) {
        bench_fail("%zu unexpected packets during the latency test", st->bad);
    }
    free(zeros);
}

static void bc_done(int src, int group, uint32_t kind, const void *data, size_t len, void *arg)
{
    bc_state_t *st = arg;

    (void)data;
    if (kind == BC_MSG_DATA && group >= 0 && src == 0) {
        st->bad += len != st->expect_len;
        st->data_msgs++;
    } else if (kind == BC_MSG_ACK && group < 0) {
        st->acks++;
    } else {
        bench_fail("unexpected message kind %u from %d (group %d)", kind, src, group);
    }
}

static unsigned char bc_pattern(size_t i)
{
    return (unsigned char)(i * 131u + 11u);
}

static long bc_count(const bc_opts_t *o, size_t size)
{
    double n;

    if (o->iters > 0) {
        return o->iters;
    }
    n = (double)o->volume / (double)(size ? size : 1);
    n = n < 4.0 ? 4.0 : n > 500.0 ? 500.0 : n;
    return (long)n;
}

/* Returns seconds per size in secs[] (rank 0). */
static void bc_throughput(const bc_opts_t *o, bc_state_t *st, double *secs)
{
    size_t maxsize = 0;
    unsigned char *buf;
    bench_msg_rx_t *rx;
    uint64_t nrecv = (uint64_t)lci_size() - 1;

    for (size_t k = 0; k < o->sizes.n; k++) {
        maxsize = o->sizes.v[k] > maxsize ? o->sizes.v[k] : maxsize;
    }
    buf = calloc(1, maxsize + 1);
    if (buf == NULL) {
        bench_fail("out of memory");
    }
    rx = bench_msg_rx_create(buf, maxsize, bc_done, st);
    if (lci_rank() == 0) {
        for (size_t i = 0; i < maxsize; i++) {
            buf[i] = bc_pattern(i);
        }
    } else {
        bench_msg_rx_set_copy(rx, o->copy);
    }
    BENCH_CHECK(lci_upcall_set(bench_msg_upcall, rx));
    for (size_t k = 0; k < o->sizes.n; k++) {
        size_t size = o->sizes.v[k];
        long count = bc_count(o, size);

        if (lci_rank() == 0) {
            double t0;

            for (long i = 0; i < o->warmup; i++) {
                bench_msg_send(BENCH_MSG_BCAST, BC_MSG_DATA, buf, size);
            }
            bench_msg_wait_count(rx, &st->acks, st->acks + nrecv);
            t0 = lci_wtime();
            for (long i = 0; i < count; i++) {
                bench_msg_send(BENCH_MSG_BCAST, BC_MSG_DATA, buf, size);
            }
            bench_msg_wait_count(rx, &st->acks, st->acks + nrecv);
            secs[k] = lci_wtime() - t0;
            continue;
        }
        st->expect_len = size;
        bench_msg_wait_count(rx, &st->data_msgs, st->data_msgs + (uint64_t)o->warmup);
        bench_msg_send(0, BC_MSG_ACK, NULL, 0);
        bench_msg_wait_count(rx, &st->data_msgs, st->data_msgs + (uint64_t)count);
        bench_msg_send(0, BC_MSG_ACK, NULL, 0);
        if (st->bad != 0) {
            bench_fail("%zu broadcast messages arrived with a length other than %zu", st->bad,
                       size);
        }
        if (o->copy) {
            for (size_t i = 0; i < size; i++) {
                if (buf[i] != bc_pattern(i)) {
                    bench_fail("copied broadcast message of %zu bytes differs at byte %zu", size,
                               i);
                }
            }
            memset(buf, 0, size);
        }
    }
    bench_msg_rx_free(rx);
    free(buf);
}

static void bc_report_latency(const bc_opts_t *o, const bc_lat_t *lat)
{
    static const char *const headers[] = {"msg_bytes", "latency_us", "min_us",     "max_us",
                                          "all_replies_us", "paper_us", "ratio"};
    const char *decomp = bench_decomp();
    double ref = (o->size == 0 && lci_size() == 64) ? bench_paper_bcast_latency(decomp) : -1.0;
    double mean = lat->sum / (double)lat->n;
    double all = lat->all_sum / (double)lat->n;
    int global = bench_global_clock();
    bench_table_t *t;
    char title[200];

    snprintf(title, sizeof title,
             "Broadcast latency to the last of %d receivers (us), %ld repetitions; paper: "
             "64 nodes, empty message",
             lci_size() - 1, lat->n);
    t = bench_table_create(title, 7, headers);
    const char *cells[7] = {
        bench_fmt("%ld", o->size),
        global ? bench_fmt("%.2f", mean * 1e6) : "n/a",
        global ? bench_fmt("%.2f", lat->min * 1e6) : "n/a",
        global ? bench_fmt("%.2f", lat->max * 1e6) : "n/a",
        bench_fmt("%.2f", all * 1e6),
        ref > 0.0 ? bench_fmt("%.0f", ref) : "-",
        global ? bench_ratio(mean * 1e6, ref) : "-",
    };
    bench_table_add_row(t, cells);
    bench_table_print(t, stdout);
    bench_table_free(t);
    if (!global) {
        printf("# latency needs one clock for all nodes (platform %s has none): "
               "all_replies_us is the time until every receiver's reply is back\n",
               bench_platform());
    } else {
        bench_csv_row(o->csv, "lci_bcast", "bcast_lat", mean * 1e6, (size_t)o->size, -1.0);
    }
    bench_csv_row(o->csv, "lci_bcast", "bcast_all_replies", all * 1e6, (size_t)o->size, -1.0);
}

static void bc_report_throughput(const bc_opts_t *o, const double *secs)
{
    static const char *const headers[] = {"msg_bytes", "packets", "messages", "MB/s"};
    bench_table_t *t;
    char title[200];
    double peak = 0.0, ref = bench_paper_bcast_throughput(bench_packet_size());
    size_t peak_at = 0;

    snprintf(title, sizeof title,
             "Broadcast throughput to %d receivers (sender's outgoing MB/s, %s)",
             lci_size() - 1, o->copy ? "receivers copy" : "no receiver copy");
    t = bench_table_create(title, 4, headers);
    for (size_t k = 0; k < o->sizes.n; k++) {
        size_t size = o->sizes.v[k];
        long count = bc_count(o, size);
        double mbs = (double)size * (double)count / secs[k] / 1e6;
        const char *cells[4] = {bench_fmt("%zu", size), bench_fmt("%zu", bench_msg_npackets(size)),
                                bench_fmt("%ld", count), bench_fmt("%.2f", mbs)};

        bench_table_add_row(t, cells);
        if (mbs > peak) {
            peak = mbs;
            peak_at = size;
        }
        bench_csv_row(o->csv, "lci_bcast", o->copy ? "bcast_tput_copy" : "bcast_tput_nocopy",
                      secs[k] / (double)count * 1e6, size, mbs);
    }
    bench_table_print(t, stdout);
    bench_table_free(t);
    printf("# peak %.2f MB/s at %zu B", peak, peak_at);
    /* "all implementations", the paper says: its five, not the ones beyond it */
    if (ref > 0.0 && lci_size() == 64 && o->copy && bench_in_paper(bench_decomp())) {
        printf("; paper (64 nodes, %zu B packets, with copy): up to %.0f MB/s", bench_packet_size(),
               ref);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    bc_opts_t o = {.test = "all", .size = 0, .iters = 0, .warmup = 5, .gap_us = 100.0,
                   .copy = 1, .volume = 1048576L, .csv = NULL};
    const bench_opt_t opts[] = {
        {"--test", BENCH_OPT_STRING, &o.test, 0, 0, 0, "WHICH",
         "latency, throughput or all"},
        {"--size", BENCH_OPT_LONG, &o.size, 0, 64.0 * 1048576.0, 0, "BYTES",
         "latency message size (0: one empty packet)"},
        {"--iters", BENCH_OPT_LONG, &o.iters, 0, 1e8, 0, "N",
         "latency repetitions (0: 100) and messages per throughput size (0: by --volume)"},
        {"--warmup", BENCH_OPT_LONG, &o.warmup, 0, 1e6, 0, "N",
         "untimed repetitions / messages per size"},
        {"--gap-us", BENCH_OPT_DOUBLE, &o.gap_us, 0, 1e7, 0, "US",
         "idle time before each latency repetition"},
        {"--sizes", BENCH_OPT_SIZES, &o.sizes, 0, 64.0 * 1048576.0, 0, "LIST",
         "throughput message sizes"},
        {"--copy", BENCH_OPT_SET, &o.copy, 0, 0, 1, NULL, "receivers copy (as in the paper)"},
        {"--no-copy", BENCH_OPT_SET, &o.copy, 0, 0, 0, NULL, "receivers do not copy"},
        {"--volume", BENCH_OPT_LONG, &o.volume, 1, 1e12, 0, "BYTES",
         "bytes per throughput size when --iters is 0 (4..500 messages)"},
        {"--csv", BENCH_OPT_STRING, &o.csv, 0, 0, 0, "FILE",
         "append rows bench,decomp,packet_size,metric,value_us,msg_size,mb_s,nodes"},
    };
    const bench_info_t info = {
        .prog = "lci_bcast",
        .summary = "broadcast latency and throughput (paper Figures 3 and 4)",
        .usage = "lci-run -n 64 --platform sim --decomp rxno-mni --profile myrinet-1999 "
                 "--compute zero ./bench/lci_bcast [options]",
        .details = "The paper measures 60 us (rxno-mni) to 112 us (rxni-mh) for an empty\n"
                   "message to the last of 63 receivers, and up to 31 MB/s broadcast\n"
                   "throughput with 2 KiB packets and receiver copy.",
    };
    bc_state_t st = {0};
    bc_lat_t lat = {0};
    double *secs;
    int do_lat, do_tp;

    bench_sizes_pow2(&o.sizes, 1024, 1048576);
    bench_opts_parse(&info, opts, sizeof opts / sizeof opts[0], argc, argv);
    do_lat = strcmp(o.test, "latency") == 0 || strcmp(o.test, "all") == 0;
    do_tp = strcmp(o.test, "throughput") == 0 || strcmp(o.test, "all") == 0;
    if (!do_lat && !do_tp) {
        fprintf(stderr, "%s: --test expects latency, throughput or all, got '%s'\n", info.prog,
                o.test);
        exit(2);
    }
    bench_init(info.prog, &argc, &argv);
    if (lci_size() < 2) {
        bench_usage_error("needs at least 2 nodes, got %d", lci_size());
    }
    secs = calloc(o.sizes.n + 1, sizeof *secs);
    if (secs == NULL) {
        bench_fail("out of memory");
    }
    if (do_lat) {
        bc_latency(&o, &st, &lat);
    }
    if (do_tp) {
        bc_throughput(&o, &st, secs);
    }
    if (lci_rank() == 0) {
        bench_print_config(info.prog, stdout);
        if (do_lat) {
            bc_report_latency(&o, &lat);
        }
        if (do_tp) {
            bc_report_throughput(&o, secs);
        }
    }
    bench_finalize();
    free(secs);
    return 0;
}
