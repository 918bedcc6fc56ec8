/*
 * lci_fa.c - fetch-and-add latency (paper Table 4, last row).
 *
 * Ranks 1..N-1 each perform repeated lci_fetch_add(0, var, 1) on a variable
 * of node 0 and time every call with lci_wtime().  Node 0 only polls (in
 * rxh-mh its host serves the requests; elsewhere its NI does).  Checks:
 * the old values each client sees are strictly increasing (consecutive when
 * there is one client), and at the end the variable has grown by exactly
 * the number of adds made.
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

enum { FA_MSG_SUMMARY = 1, FA_MSG_READ_FINAL = 2, FA_MSG_FINAL = 3 };

typedef struct {
    long iters;
    long warmup;
    long var;
    const char *csv;
} fa_opts_t;

/* What a client measured, sent to node 0. */
typedef struct {
    double sum, min, max; /* latency of the timed calls, seconds */
    int64_t timed;        /* timed calls */
    int64_t adds;         /* all calls, warm-up included */
    int64_t first_old, last_old;
    int64_t violations;   /* old values out of order */
} fa_summary_t;

typedef struct {
    fa_summary_t total;
    int64_t initial; /* smallest first old value: the variable's start */
    uint64_t summaries;
    int read_final;  /* rank 1: asked to read the final value */
    int have_final;  /* rank 0: final value arrived */
    int64_t final;
} fa_state_t;

static void fa_done(int src, int group, uint32_t kind, const void *data, size_t len, void *arg)
{
    fa_state_t *st = arg;

    switch (kind) {
    case FA_MSG_SUMMARY: {
        fa_summary_t s;

        if (len != sizeof s) {
            bench_fail("summary from %d has %zu bytes", src, len);
        }
        memcpy(&s, data, sizeof s);
        if (st->summaries == 0 || s.first_old < st->initial) {
            st->initial = s.first_old;
        }
        if (st->summaries == 0 || s.min < st->total.min) {
            st->total.min = s.min;
        }
        if (st->summaries == 0 || s.max > st->total.max) {
            st->total.max = s.max;
        }
        st->total.sum += s.sum;
        st->total.timed += s.timed;
        st->total.adds += s.adds;
        st->total.violations += s.violations;
        st->summaries++;
        break;
    }
    case FA_MSG_READ_FINAL:
        st->read_final = 1;
        break;
    case FA_MSG_FINAL:
        if (len != sizeof st->final) {
            bench_fail("final value message from %d has %zu bytes", src, len);
        }
        memcpy(&st->final, data, sizeof st->final);
        st->have_final = 1;
        break;
    default:
        bench_fail("unexpected message kind %u from %d (group %d)", kind, src, group);
    }
}

static void fa_client(const fa_opts_t *o, fa_summary_t *s)
{
    int exact = lci_size() == 2; /* one client: old values are consecutive */

    for (long i = 0; i < o->warmup + o->iters; i++) {
        int64_t old = 0;
        double t0 = lci_wtime(), dt;

        BENCH_CHECK(lci_fetch_add(0, (unsigned)o->var, 1, &old));
        dt = lci_wtime() - t0;
        if (i == 0) {
            s->first_old = old;
        } else if (old <= s->last_old || (exact && old != s->last_old + 1)) {
            if (s->violations++ < 5) {
                fprintf(stderr, "lci_fa: rank %d: call %ld returned old value %lld after %lld\n",
                        lci_rank(), i, (long long)old, (long long)s->last_old);
            }
        }
        s->last_old = old;
        s->adds++;
        if (i >= o->warmup) {
            if (s->timed == 0 || dt < s->min) {
                s->min = dt;
            }
            if (s->timed == 0 || dt > s->max) {
                s->max = dt;
            }
            s->sum += dt;
            s->timed++;
        }
    }
}

static void fa_report(const fa_opts_t *o, const fa_state_t *st)
{
    static const char *const headers[] = {"metric",      "measured_us", "paper_RX_no",
                                          "paper_RX_ni", "paper_RX_h",  "ratio"};
    bench_scheme_t scheme = bench_scheme_of(bench_decomp());
    double mean = st->total.sum / (double)st->total.timed;
    struct {
        const char *name;
        double value;
        int with_ref;
    } rows[] = {{"fa", mean, 1}, {"fa_min", st->total.min, 0}, {"fa_max", st->total.max, 0}};
    char title[200];
    bench_table_t *t;

    if (scheme == BENCH_RX_UNKNOWN) { /* beyond the paper: nothing published to divide by */
        snprintf(title, sizeof title,
                 "F&A latency (us), %d client(s) x %ld calls on node 0 var %ld; no ratio: %s "
                 "is beyond the paper",
                 lci_size() - 1, o->iters, o->var, bench_decomp());
    } else {
        snprintf(title, sizeof title,
                 "F&A latency (us), %d client(s) x %ld calls on node 0 var %ld; ratio = "
                 "measured / paper %s",
                 lci_size() - 1, o->iters, o->var, bench_scheme_name(scheme));
    }
    t = bench_table_create(title, 6, headers);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int ref = rows[i].with_ref;
        const char *cells[6] = {
            rows[i].name,
            bench_fmt("%.2f", rows[i].value * 1e6),
            ref ? bench_fmt("%.1f", bench_paper_logp(BENCH_RX_NO, "fa")) : "-",
            ref ? bench_fmt("%.1f", bench_paper_logp(BENCH_RX_NI, "fa")) : "-",
            ref ? bench_fmt("%.1f", bench_paper_logp(BENCH_RX_H, "fa")) : "-",
            rows[i].with_ref ? bench_ratio(rows[i].value * 1e6, bench_paper_logp(scheme, "fa"))
                             : "-",
        };

        bench_table_add_row(t, cells);
        bench_csv_row(o->csv, "lci_fa", rows[i].name, rows[i].value * 1e6, 8, -1.0);
    }
    bench_table_print(t, stdout);
    bench_table_free(t);
    printf("# values consistent: %lld adds, variable %lld -> %lld; out-of-order old values: "
           "%lld\n",
           (long long)st->total.adds, (long long)st->initial, (long long)st->final,
           (long long)st->total.violations);
}

int main(int argc, char **argv)
{
    fa_opts_t o = {.iters = 1000, .warmup = 100, .var = 0, .csv = NULL};
    const bench_opt_t opts[] = {
        {"--iters", BENCH_OPT_LONG, &o.iters, 1, 1e8, 0, "N", "timed calls per client"},
        {"--warmup", BENCH_OPT_LONG, &o.warmup, 0, 1e8, 0, "N", "untimed calls per client first"},
        {"--var", BENCH_OPT_LONG, &o.var, 0, 1e6, 0, "V", "F&A variable on node 0"},
        {"--csv", BENCH_OPT_STRING, &o.csv, 0, 0, 0, "FILE",
         "append rows bench,decomp,packet_size,metric,value_us,... to FILE"},
    };
    const bench_info_t info = {
        .prog = "lci_fa",
        .summary = "fetch-and-add latency (paper Table 4: 20/24/34 us for RX_no/RX_ni/RX_h)",
        .usage = "lci-run -n 2 --platform sim --decomp rxno-mni --profile myrinet-1999 "
                 "--compute zero ./bench/lci_fa [options]",
        .details = "Ranks 1..N-1 are clients of the variable on node 0 (default: one client\n"
                   "with -n 2).  The run fails if the returned old values are inconsistent.",
    };
    fa_state_t st = {0};
    bench_msg_rx_t *rx;

    bench_opts_parse(&info, opts, sizeof opts / sizeof opts[0], argc, argv);
    bench_init(info.prog, &argc, &argv);
    if (lci_size() < 2) {
        bench_usage_error("needs at least 2 nodes (lci-run -n 2), got %d", lci_size());
    }
    if ((unsigned long)o.var >= lci_fa_count()) {
        bench_usage_error("--var %ld: node 0 offers %u F&A variables", o.var, lci_fa_count());
    }
    rx = bench_msg_rx_create(NULL, 0, fa_done, &st);
    BENCH_CHECK(lci_upcall_set(bench_msg_upcall, rx));

    if (lci_rank() == 0) {
        /* serve (by polling) until every client has reported */
        bench_msg_wait_count(rx, &st.summaries, (uint64_t)lci_size() - 1);
        bench_msg_send(1, FA_MSG_READ_FINAL, NULL, 0);
        bench_msg_wait_flag(rx, &st.have_final);
        bench_print_config(info.prog, stdout);
        if (st.total.violations != 0 || st.final != st.initial + st.total.adds) {
            bench_fail("inconsistent F&A values: %lld out of order; variable went %lld -> "
                       "%lld after %lld adds",
                       (long long)st.total.violations, (long long)st.initial,
                       (long long)st.final, (long long)st.total.adds);
        }
        fa_report(&o, &st);
    } else {
        fa_summary_t s = {0};

        fa_client(&o, &s);
        bench_msg_send(0, FA_MSG_SUMMARY, &s, sizeof s);
        if (lci_rank() == 1) {
            int64_t final = 0;

            bench_msg_wait_flag(rx, &st.read_final);
            BENCH_CHECK(lci_fetch_add(0, (unsigned)o.var, 0, &final));
            bench_msg_send(0, FA_MSG_FINAL, &final, sizeof final);
        }
    }
    bench_finalize();
    bench_msg_rx_free(rx);
    return 0;
}
