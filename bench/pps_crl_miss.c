/*
 * pps_crl_miss.c - CRL's row of the paper's Table 5: latency and
 * throughput of a clean write miss, at the LCI level and at the CRL level.
 *
 * Usage: lci-run -n 2 [--decomp rxno-mni] ./pps_crl_miss [--size 64]
 *            [--tput-size 64K] [--iters 50] [--tput-iters 10] [--csv FILE]
 *            [--test p2p|bcast]
 *
 * A clean write miss: node 1 starts writing a region homed at node 0 that
 * nobody else caches; a small request goes to the home, which replies with
 * the region's data.
 *   LCI level  the same messages with plain LCI: a 24-byte request, and a
 *              reply of the region's size cut into packets that each carry
 *              a 24-byte header, sent from node 0's upcall; node 1 copies
 *              each fragment into place (lci_copy), as CRL does.
 *   CRL level  rgn_start_write on a fresh region of node 0 each time (so
 *              every one is a clean miss); the region is mapped beforehand.
 * Latency is the shortest miss of --size bytes (timed on node 1 from the
 * request to the last byte in place); throughput is bytes / time over
 * --tput-iters back-to-back misses of --tput-size bytes.  The paper's
 * numbers (rxno-mni, 1 KiB packets): latency 21 / 26 us (+25%),
 * throughput 59 / 54 MB/s (-9%).  CSV metrics: lci_lat and lci_tput (the
 * LCI level), lat and tput (CRL).  --test bcast measures nothing: CRL has
 * no natural broadcast benchmark (the paper's "-"), so a Table 5 script
 * can ask every program for both columns.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "crl.h"

/* The LCI-level messages, the size of CRL's header. */
typedef struct {
    uint32_t size;   /* reply bytes asked for; 0 ends the LCI phase */
    uint32_t offset; /* of this fragment */
    uint32_t reserved[2];
    uint64_t id;
} raw_hdr_t;

_Static_assert(sizeof(raw_hdr_t) == 24, "same header size as CRL");

typedef struct {
    long size, tput_size, iters, tput_iters, warmup;
    const char *csv, *test;
} opts_t;

static opts_t o = {.size = 64,
                   .tput_size = 65536,
                   .iters = 50,
                   .tput_iters = 10,
                   .warmup = 5,
                   .test = "p2p"};

/* ---- LCI level ------------------------------------------------------ */

static unsigned char *src_buf, *dst_buf;
static volatile uint32_t got, want;
static volatile int stop;

static void send_reply(int dest, uint32_t size)
{
    size_t room = lci_packet_capacity() - sizeof(raw_hdr_t);
    uint32_t off = 0;
    do {
        uint32_t n = (uint32_t)(size - off < room ? size - off : room);
        raw_hdr_t h = {.size = size, .offset = off};
        lci_packet_t *p;
        BENCH_CHECK(lci_packet_alloc(&p));
        BENCH_CHECK(lci_packet_write(p, 0, &h, sizeof h));
        BENCH_CHECK(lci_packet_write(p, sizeof h, src_buf + off, n));
        BENCH_CHECK(lci_send(p, dest, sizeof h + n));
        off += n;
    } while (off < size);
}

static lci_upcall_result_t raw_upcall(lci_rpacket_t *p, void *arg)
{
    (void)arg;
    raw_hdr_t h;
    memcpy(&h, p->data, sizeof h);
    if (lci_rank() == 0) { /* the home: a request */
        if (h.size == 0) {
            stop = 1;
        } else {
            send_reply(p->src, h.size);
        }
    } else { /* the requester: a fragment of the reply */
        uint32_t n = (uint32_t)(p->len - sizeof h);
        lci_copy(dst_buf + h.offset, (const unsigned char *)p->data + sizeof h,
                 n);
        got += n;
    }
    return LCI_UPCALL_RELEASE;
}

static double raw_miss(uint32_t size)
{
    raw_hdr_t h = {.size = size};
    double t0 = lci_wtime();
    got = 0;
    want = size;
    bench_send_raw(0, &h, sizeof h);
    while (got < want) {
        BENCH_CHECK(lci_poll_wait());
    }
    return lci_wtime() - t0;
}

/* Shortest latency and throughput (MB/s) of plain-LCI misses. */
static void lci_level(double *lat_p, double *tput_p)
{
    BENCH_CHECK(lci_upcall_set(raw_upcall, NULL));
    BENCH_CHECK(lci_barrier());
    if (lci_rank() == 0) {
        while (!stop) {
            BENCH_CHECK(lci_poll_wait());
        }
    } else if (lci_rank() == 1) {
        double best = INFINITY;
        for (long i = 0; i < o.warmup + o.iters; i++) {
            double t = raw_miss((uint32_t)o.size);
            if (i >= o.warmup && t < best) {
                best = t;
            }
        }
        raw_miss((uint32_t)o.tput_size);
        double t0 = lci_wtime();
        for (long i = 0; i < o.tput_iters; i++) {
            raw_miss((uint32_t)o.tput_size);
        }
        double secs = lci_wtime() - t0;
        raw_hdr_t end = {.size = 0};
        bench_send_raw(0, &end, sizeof end);
        *lat_p = best;
        *tput_p = (double)o.tput_size * (double)o.tput_iters / secs / 1e6;
    }
    BENCH_CHECK(lci_barrier());
}

/* ---- CRL level ------------------------------------------------------ */

static void crl_check(crl_status_t st, const char *what)
{
    if (st != CRL_OK) {
        bench_fail("%s: %s", what, crl_last_error());
    }
}

/* Node 0 creates n regions of size bytes and tells node 1 their ids. */
static rid_t *make_regions(long n, long size)
{
    rid_t *rids = calloc((size_t)n, sizeof *rids);
    if (rids == NULL) {
        bench_fail("out of memory");
    }
    if (lci_rank() == 0) {
        for (long i = 0; i < n; i++) {
            rids[i] = rgn_create((unsigned)size);
            unsigned char *p = rgn_map(rids[i]);
            if (p == NULL) {
                bench_fail("rgn_create/rgn_map: %s", crl_last_error());
            }
            crl_check(rgn_start_write(p), "rgn_start_write");
            memset(p, (int)(i & 0xff), (size_t)size);
            crl_check(rgn_end_write(p), "rgn_end_write");
            crl_check(rgn_unmap(p), "rgn_unmap");
        }
        crl_check(rgn_bcast_send((int)(n * (long)sizeof *rids), rids),
                  "rgn_bcast_send");
    } else {
        crl_check(rgn_bcast_recv((int)(n * (long)sizeof *rids), rids),
                  "rgn_bcast_recv");
    }
    return rids;
}

/* Maps every region, then times a write miss on each (node 1). */
static void crl_misses(const rid_t *rids, long n, double *times)
{
    void **p = calloc((size_t)n, sizeof *p);
    if (p == NULL) {
        bench_fail("out of memory");
    }
    for (long i = 0; i < n; i++) {
        if ((p[i] = rgn_map(rids[i])) == NULL) {
            bench_fail("rgn_map: %s", crl_last_error());
        }
    }
    for (long i = 0; i < n; i++) {
        double t0 = lci_wtime();
        crl_check(rgn_start_write(p[i]), "rgn_start_write (miss)");
        times[i] = lci_wtime() - t0;
        crl_check(rgn_end_write(p[i]), "rgn_end_write");
    }
    for (long i = 0; i < n; i++) {
        crl_check(rgn_unmap(p[i]), "rgn_unmap");
    }
    free(p);
}

/* Measures the CRL level into r[1] and r[3]; then node 1 hands all four
 * numbers (r: LCI latency, CRL latency, LCI throughput, CRL throughput)
 * to the other nodes by CRL broadcast. */
static void crl_level(int *argc, char ***argv, double r[4])
{
    crl_check(crl_init(argc, argv), "crl_init");
    long nlat = o.warmup + o.iters, ntput = 1 + o.tput_iters;
    rid_t *lat_rids = make_regions(nlat, o.size);
    rid_t *tput_rids = make_regions(ntput, o.tput_size);
    crl_check(rgn_barrier(), "rgn_barrier");
    if (lci_rank() == 1) {
        double *t = calloc((size_t)(nlat + ntput), sizeof *t);
        if (t == NULL) {
            bench_fail("out of memory");
        }
        crl_misses(lat_rids, nlat, t);
        crl_misses(tput_rids, ntput, t + nlat);
        double best = INFINITY, secs = 0;
        for (long i = o.warmup; i < nlat; i++) {
            best = t[i] < best ? t[i] : best;
        }
        for (long i = 1; i < ntput; i++) { /* the first one warms up */
            secs += t[nlat + i];
        }
        r[1] = best;
        r[3] = (double)o.tput_size * (double)o.tput_iters / secs / 1e6;
        free(t);
        crl_check(rgn_bcast_send(4 * (int)sizeof(double), r), "rgn_bcast_send");
    } else {
        crl_check(rgn_bcast_recv(4 * (int)sizeof(double), r), "rgn_bcast_recv");
    }
    crl_check(crl_finalize(), "crl_finalize");
    free(lat_rids);
    free(tput_rids);
}

/* ---- report --------------------------------------------------------- */

/* CRL's change against LCI in percent, rounded (no "-0%"). */
static double overhead(double lci, double crl)
{
    return round((crl - lci) / lci * 100.0) + 0.0;
}

static void report(const double r[4])
{
    double lat_over = overhead(r[0], r[1]);
    double tput_over = overhead(r[2], r[3]);
    static const char *const head[] = {"metric", "LCI", "CRL", "CRL vs LCI",
                                       "paper (LCI/CRL)"};
    /* The paper's row is for its decompositions, not the ones beyond it. */
    int paper = bench_in_paper(bench_decomp());
    bench_table_t *t =
        bench_table_create("CRL clean write miss (paper Table 5)", 5, head);
    const char *lat[] = {
        bench_fmt("latency, %ld-byte region (us)", o.size),
        bench_fmt("%.1f", r[0] * 1e6), bench_fmt("%.1f", r[1] * 1e6),
        bench_fmt("%+.0f%%", lat_over), paper ? "21 / 26 (+25%)" : "-"};
    const char *tput[] = {
        bench_fmt("throughput, %ld-byte region (MB/s)", o.tput_size),
        bench_fmt("%.1f", r[2]), bench_fmt("%.1f", r[3]),
        bench_fmt("%+.0f%%", tput_over), paper ? "59 / 54 (-9%)" : "-"};
    bench_table_add_row(t, lat);
    bench_table_add_row(t, tput);
    bench_print_config("pps_crl_miss", stdout);
    bench_table_print(t, stdout);
    bench_table_free(t);
    if (o.csv != NULL) {
        bench_csv_row(o.csv, "pps_crl_miss", "lci_lat", r[0] * 1e6,
                      (size_t)o.size, -1);
        bench_csv_row(o.csv, "pps_crl_miss", "lat", r[1] * 1e6, (size_t)o.size,
                      -1);
        bench_csv_row(o.csv, "pps_crl_miss", "lci_tput",
                      (double)o.tput_size / r[2], (size_t)o.tput_size, r[2]);
        bench_csv_row(o.csv, "pps_crl_miss", "tput", (double)o.tput_size / r[3],
                      (size_t)o.tput_size, r[3]);
    }
}

int main(int argc, char **argv)
{
    static const bench_opt_t opts[] = {
        {"--size", BENCH_OPT_LONG, &o.size, 1, 1 << 20, 0, "BYTES",
         "region size for the latency (default 64)"},
        {"--tput-size", BENCH_OPT_LONG, &o.tput_size, 1, 1 << 24, 0, "BYTES",
         "region size for the throughput (default 64K)"},
        {"--iters", BENCH_OPT_LONG, &o.iters, 1, 100000, 0, "N",
         "latency misses timed (default 50)"},
        {"--tput-iters", BENCH_OPT_LONG, &o.tput_iters, 1, 10000, 0, "N",
         "throughput misses timed (default 10)"},
        {"--warmup", BENCH_OPT_LONG, &o.warmup, 0, 1000, 0, "N",
         "latency misses not timed (default 5)"},
        {"--csv", BENCH_OPT_STRING, &o.csv, 0, 0, 0, "FILE",
         "append the four numbers as CSV rows"},
        {"--test", BENCH_OPT_STRING, &o.test, 0, 0, 0, "p2p|bcast",
         "p2p: the miss (default); bcast: nothing (CRL has no broadcast "
         "benchmark)"},
    };
    static const bench_info_t info = {
        "pps_crl_miss",
        "CRL clean write miss: latency and throughput, LCI level vs CRL",
        "lci-run -n 2 --decomp rxno-mni ./pps_crl_miss", NULL};
    bench_opts_parse(&info, opts, sizeof opts / sizeof opts[0], argc, argv);
    int bcast = strcmp(o.test, "bcast") == 0;
    if (!bcast && strcmp(o.test, "p2p") != 0) {
        fprintf(stderr, "pps_crl_miss: --test expects p2p or bcast, got '%s'\n",
                o.test);
        return 2;
    }
    bench_init("pps_crl_miss", &argc, &argv);
    if (bcast) {
        if (lci_rank() == 0) {
            printf("pps_crl_miss: no CRL broadcast benchmark (the paper's "
                   "Table 5 has none either)\n");
        }
        bench_finalize();
        return 0;
    }
    if (lci_size() < 2) {
        bench_usage_error("needs at least 2 nodes (node 1 misses on node 0)");
    }
    src_buf = calloc(1, (size_t)(o.tput_size > o.size ? o.tput_size : o.size));
    dst_buf = calloc(1, (size_t)(o.tput_size > o.size ? o.tput_size : o.size));
    if (src_buf == NULL || dst_buf == NULL) {
        bench_fail("out of memory");
    }
    double r[4] = {0, 0, 0, 0}; /* LCI lat, CRL lat, LCI tput, CRL tput */
    lci_level(&r[0], &r[2]);
    crl_level(&argc, &argv, r);
    if (lci_rank() == 0) {
        report(r);
    }
    free(src_buf);
    free(dst_buf);
    bench_finalize();
    return 0;
}
