/*
 * lci_throughput.c - one-way unicast throughput against message size, with
 * and without receiver-side copying (paper Figure 2).
 *
 * Rank 0 sends messages of each size to rank 1, cut into packets of
 * lci_packet_capacity() bytes (the first starts with a small header holding
 * the message length; see bench_msg.h).  Rank 1 reassembles them, copying
 * into a destination buffer or not, and acknowledges the last message of
 * each size.  Per size: a few untimed messages and an acknowledgement, then
 * the timed run from the first send to the final acknowledgement.
 * MB/s = 10^6 bytes per second of virtual time.
 *
 * The receiver copies with lci_copy(), which charges the host's copy
 * bandwidth from the cost profile (host_copy_mb_s).
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

enum { TP_MSG_DATA = 1, TP_MSG_ACK = 2 };

typedef struct {
    bench_sizes_t sizes;
    int copy; /* 1 copy, 0 no copy, -1 both */
    long iters;
    long warmup;
    long volume;
    const char *csv;
} tp_opts_t;

typedef struct {
    uint64_t data_msgs;
    uint64_t acks;
    size_t bad_len;
    size_t expect_len;
} tp_state_t;

static void tp_done(int src, int group, uint32_t kind, const void *data, size_t len, void *arg)
{
    tp_state_t *st = arg;

    (void)data;
    if (kind == TP_MSG_DATA) {
        st->bad_len += len != st->expect_len;
        st->data_msgs++;
    } else if (kind == TP_MSG_ACK) {
        st->acks++;
    } else {
        bench_fail("unexpected message kind %u from %d (group %d)", kind, src, group);
    }
}

static unsigned char tp_pattern(size_t i)
{
    return (unsigned char)(i * 131u + 7u);
}

/* Timed messages for one size: --iters, or enough for --volume bytes. */
static long tp_count(const tp_opts_t *o, size_t size)
{
    double n;

    if (o->iters > 0) {
        return o->iters;
    }
    n = (double)o->volume / (double)(size ? size : 1);
    n = n < 8.0 ? 8.0 : n > 2000.0 ? 2000.0 : n;
    return (long)n;
}

typedef struct {
    size_t size;
    int copy;
    long count;
    double seconds;
} tp_result_t;

int main(int argc, char **argv)
{
    tp_opts_t o = {.copy = -1, .iters = 0, .warmup = 4, .volume = 2L * 1048576L,
                   .csv = NULL};
    const bench_opt_t opts[] = {
        {"--sizes", BENCH_OPT_SIZES, &o.sizes, 0, 64.0 * 1048576.0, 0, "LIST",
         "message sizes in bytes"},
        {"--copy", BENCH_OPT_SET, &o.copy, 0, 0, 1, NULL, "only with receiver-side copy"},
        {"--no-copy", BENCH_OPT_SET, &o.copy, 0, 0, 0, NULL, "only without receiver-side copy"},
        {"--both", BENCH_OPT_SET, &o.copy, 0, 0, -1, NULL, "with and without copy"},
        {"--iters", BENCH_OPT_LONG, &o.iters, 0, 1e8, 0, "N",
         "timed messages per size (0: enough for --volume, 8..2000)"},
        {"--volume", BENCH_OPT_LONG, &o.volume, 1, 1e12, 0, "BYTES",
         "bytes per size when --iters is 0"},
        {"--warmup", BENCH_OPT_LONG, &o.warmup, 0, 1e6, 0, "N", "untimed messages per size"},
        {"--csv", BENCH_OPT_STRING, &o.csv, 0, 0, 0, "FILE",
         "append rows bench,decomp,packet_size,metric,value_us,msg_size,mb_s,nodes"},
    };
    const bench_info_t info = {
        .prog = "lci_throughput",
        .summary = "one-way unicast throughput against message size (paper Figure 2)",
        .usage = "lci-run -n 2 --platform sim --decomp rxno-mni --profile myrinet-1999 "
                 "--compute zero ./bench/lci_throughput [options]",
        .details = "Rank 0 sends, rank 1 receives; other ranks idle.  The paper reports a\n"
                   "peak of 76 MB/s without copy for RX_no and RX_ni with 2 KiB packets.\n"
                   "value_us in the CSV is the time per message; mb_s the throughput.",
    };
    tp_state_t st = {0};
    bench_msg_rx_t *rx;
    unsigned char *buf;
    size_t maxsize = 0;
    int modes[2], nmodes = 0;
    tp_result_t *res;
    size_t nres = 0;

    bench_sizes_pow2(&o.sizes, 64, 1048576);
    bench_opts_parse(&info, opts, sizeof opts / sizeof opts[0], argc, argv);
    if (o.copy != 1) {
        modes[nmodes++] = 0;
    }
    if (o.copy != 0) {
        modes[nmodes++] = 1;
    }
    for (size_t i = 0; i < o.sizes.n; i++) {
        maxsize = o.sizes.v[i] > maxsize ? o.sizes.v[i] : maxsize;
    }
    bench_init(info.prog, &argc, &argv);
    if (lci_size() < 2) {
        bench_usage_error("needs at least 2 nodes (lci-run -n 2), got %d", lci_size());
    }
    buf = malloc(maxsize + 1);
    res = calloc(o.sizes.n * 2, sizeof *res);
    if (buf == NULL || res == NULL) {
        bench_fail("out of memory");
    }
    rx = bench_msg_rx_create(buf, maxsize, tp_done, &st);
    BENCH_CHECK(lci_upcall_set(bench_msg_upcall, rx));
    if (lci_rank() == 0) {
        for (size_t i = 0; i < maxsize; i++) {
            buf[i] = tp_pattern(i);
        }
    } else {
        memset(buf, 0, maxsize);
        bench_msg_rx_set_copy(rx, modes[0]);
    }

    for (int m = 0; m < nmodes && lci_rank() <= 1; m++) {
        for (size_t k = 0; k < o.sizes.n; k++) {
            size_t size = o.sizes.v[k];
            long count = tp_count(&o, size);

            if (lci_rank() == 0) {
                double t0;

                for (long i = 0; i < o.warmup; i++) {
                    bench_msg_send(1, TP_MSG_DATA, buf, size);
                }
                bench_msg_wait_count(rx, &st.acks, st.acks + 1);
                t0 = lci_wtime();
                for (long i = 0; i < count; i++) {
                    bench_msg_send(1, TP_MSG_DATA, buf, size);
                }
                bench_msg_wait_count(rx, &st.acks, st.acks + 1);
                res[nres++] = (tp_result_t){size, modes[m], count, lci_wtime() - t0};
                continue;
            }
            /* rank 1 */
            st.expect_len = size;
            bench_msg_wait_count(rx, &st.data_msgs, st.data_msgs + (uint64_t)o.warmup);
            bench_msg_send(0, TP_MSG_ACK, NULL, 0);
            bench_msg_wait_count(rx, &st.data_msgs, st.data_msgs + (uint64_t)count);
            /* the next round's mode is set before the ack that lets it start */
            if (k + 1 < o.sizes.n) {
                bench_msg_rx_set_copy(rx, modes[m]);
            } else if (m + 1 < nmodes) {
                bench_msg_rx_set_copy(rx, modes[m + 1]);
            }
            bench_msg_send(0, TP_MSG_ACK, NULL, 0);
            if (st.bad_len != 0) {
                bench_fail("%zu messages arrived with a length other than %zu", st.bad_len,
                           size);
            }
            if (modes[m]) {
                for (size_t i = 0; i < size; i++) {
                    if (buf[i] != tp_pattern(i)) {
                        bench_fail("copied message of %zu bytes differs at byte %zu", size, i);
                    }
                }
                memset(buf, 0, size);
            }
        }
    }

    if (lci_rank() == 0) {
        static const char *const headers[] = {"msg_bytes", "packets", "messages",
                                              "no_copy_MB/s", "copy_MB/s"};
        bench_table_t *t = bench_table_create(
            "Unicast throughput (MB/s = 10^6 B/s), rank 0 -> rank 1", 5, headers);
        double peak[2] = {0, 0};
        size_t peak_at[2] = {0, 0};
        bench_scheme_t scheme = bench_scheme_of(bench_decomp());
        double ref = bench_paper_peak_throughput(scheme, bench_packet_size());

        bench_print_config(info.prog, stdout);
        for (size_t k = 0; k < o.sizes.n; k++) {
            const char *cell[2] = {"-", "-"};
            long count = tp_count(&o, o.sizes.v[k]);

            for (size_t r = 0; r < nres; r++) {
                double mbs, per_msg_us;

                if (res[r].size != o.sizes.v[k]) {
                    continue;
                }
                mbs = (double)res[r].size * (double)res[r].count / res[r].seconds / 1e6;
                per_msg_us = res[r].seconds / (double)res[r].count * 1e6;
                cell[res[r].copy] = bench_fmt("%.2f", mbs);
                if (mbs > peak[res[r].copy]) {
                    peak[res[r].copy] = mbs;
                    peak_at[res[r].copy] = res[r].size;
                }
                bench_csv_row(o.csv, "lci_throughput", res[r].copy ? "tput_copy" : "tput_nocopy",
                              per_msg_us, res[r].size, mbs);
            }
            const char *cells[5] = {bench_fmt("%zu", o.sizes.v[k]),
                                    bench_fmt("%zu", bench_msg_npackets(o.sizes.v[k])),
                                    bench_fmt("%ld", count), cell[0], cell[1]};
            bench_table_add_row(t, cells);
        }
        bench_table_print(t, stdout);
        bench_table_free(t);
        for (int c = 0; c < 2; c++) {
            if (peak_at[c] == 0) {
                continue;
            }
            printf("# peak %s: %.2f MB/s at %zu B", c ? "with copy" : "without copy", peak[c],
                   peak_at[c]);
            if (c == 0 && ref > 0.0) {
                printf("; paper %s, %zu B packets: %.0f MB/s (ratio %s)",
                       bench_scheme_name(scheme), bench_packet_size(), ref,
                       bench_ratio(peak[c], ref));
            }
            printf("\n");
        }
        if (o.copy != 0) {
            printf("# receiver copy charged at the profile's host copy bandwidth "
                   "(lci_copy)\n");
        }
    }
    bench_finalize();
    bench_msg_rx_free(rx);
    free(res);
    free(buf);
    return 0;
}
