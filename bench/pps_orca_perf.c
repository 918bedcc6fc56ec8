/*
 * pps_orca_perf.c - Orca-level numbers for the paper's Table 5: an
 * operation on a single-copy object on another node (an RPC) and a write
 * to a replicated object (a fetch-and-add for the sequence number, then a
 * broadcast), on Orca over Panda-MT; with --panda, the same operations
 * made directly with Panda-MT (pan_rpc_call with a reply of an Orca
 * reply's size; pan_obcast, waiting for the local delivery as Orca's
 * invoker does), for Table 5's Panda level.
 *
 * The method follows pps_panda_perf, so the levels compare:
 *   latency      half the round trip of an operation with a --size byte
 *                argument on an object held by rank 1, invoked by rank 0;
 *   throughput   rank 0 invokes that operation with --tput-size bytes, one
 *                after another; bytes / time (Panda's reassembly is the
 *                owner's one copy);
 *   bcast-lat    rank 0 invokes an operation without arguments on a
 *                replicated object; each node notes lci_wtime() when it
 *                applies it and reports it; latest application - start;
 *   bcast-tput   rank 0 invokes a write with --tput-size bytes on the
 *                replicated object, one after another (each returns once
 *                applied on rank 0); every other node acknowledges the
 *                last; bytes / (first invocation .. last ack).
 * Rank 0 prints the results and, with --csv FILE, appends rows (metrics
 * lat, tput, bcast_lat, bcast_tput).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "orca.h"
#include "panda.h"
#include "pps_panda_acks.h"
#include "pps_perf.h"

static pps_perf_opts_t o = PPS_PERF_DEFAULTS;

/* Timed repetitions: --iters, or def. */
static long iters_or(long def)
{
    return o.iters > 0 ? o.iters : def;
}

enum {
    PORT_ACK = 1,
    PORT_WRITE = 2,  /* --panda: the replicated writes */
    SERVICE_PUT = 1, /* --panda: the remote operation */
    REPLY_LEN = 16   /* an Orca reply: sizeof(orca_wire_result_t) */
};

static int panda_level; /* --panda */

/* ---- the object type: a sink for bytes, and a time stamp ------------- */

typedef struct {
    int64_t ops;
    int64_t bytes;
} sink_t;

/* Applications of writes on this node, and when the last one ran. */
static uint64_t applied;
static double last_applied;

static int64_t sink_put(sink_t *self, const void *data, size_t len)
{
    (void)data;
    self->ops++;
    self->bytes += (int64_t)len;
    applied++;
    return self->ops;
}

static int64_t sink_stamp(sink_t *self)
{
    last_applied = lci_wtime();
    applied++;
    return ++self->ops;
}

enum {
    SINK_PUT,
    SINK_STAMP
};

/* ---- helpers --------------------------------------------------------- */

static void check_orca(int r, const char *what)
{
    if (r < 0) {
        bench_fail("%s: %s", what, orca_last_error());
    }
}

static const char *bench_name(void)
{
    return panda_level ? "pps_orca_panda" : "pps_orca";
}

static orca_type_t *sink_type(void)
{
    orca_type_t *t;
    static const orca_vtype_t put_args[] = {ORCA_BYTES};
    check_orca(orca_type_create("sink", sizeof(sink_t), NULL, &t),
               "orca_type_create");
    check_orca(orca_op_define(t, "put", ORCA_WRITE, ORCA_FUNC(sink_put),
                              ORCA_INT64, 1, put_args),
               "orca_op_define");
    check_orca(orca_op_define(t, "stamp", ORCA_WRITE, ORCA_FUNC(sink_stamp),
                              ORCA_INT64, 0, NULL),
               "orca_op_define");
    return t;
}

static void wait_for(const uint64_t *counter, uint64_t target)
{
    while (*counter < target) {
        check_pan(pan_wait(), "pan_wait");
    }
}

static void ack(const void *data, size_t len)
{
    pan_msg_t msg;
    pan_msg_init(&msg);
    check_pan(pan_msg_push(&msg, data, len), "pan_msg_push");
    check_pan(pan_send(0, PORT_ACK, &msg), "pan_send");
}

/* ---- the same operations made with Panda ---------------------------- */

static uint64_t own_applied; /* this node's writes delivered here */

static void panda_write_arrived(int src, const void *data, size_t len,
                                void *arg)
{
    (void)data;
    (void)len;
    (void)arg;
    last_applied = lci_wtime();
    applied++;
    if (src == pan_rank()) {
        own_applied++;
    }
}

static void panda_put_request(int src, const void *req, size_t len,
                              pan_rpc_ticket_t *ticket, void *arg)
{
    static const char reply[REPLY_LEN];
    (void)src;
    (void)req;
    (void)len;
    (void)arg;
    pan_msg_t msg;
    pan_msg_init(&msg);
    check_pan(pan_msg_push(&msg, reply, sizeof reply), "pan_msg_push");
    check_pan(pan_rpc_reply(ticket, &msg), "pan_rpc_reply");
}

static void panda_rpc(const char *buf, size_t len)
{
    pan_msg_t msg;
    void *rep;
    size_t rep_len;
    pan_msg_init(&msg);
    check_pan(pan_msg_push(&msg, buf, len), "pan_msg_push");
    check_pan(pan_rpc_call(1, SERVICE_PUT, &msg, &rep, &rep_len),
              "pan_rpc_call");
    free(rep);
}

static void panda_ordered_write(const char *buf, size_t len)
{
    uint64_t target = own_applied + 1;
    pan_msg_t msg;
    pan_msg_init(&msg);
    check_pan(pan_msg_push(&msg, buf, len), "pan_msg_push");
    check_pan(pan_obcast(PORT_WRITE, &msg), "pan_obcast");
    wait_for(&own_applied, target);
}

/* ---- the two operations at the level chosen ----------------------------- */

static orca_object_t *remote, *replicated;

/* An operation with len bytes on the object rank 1 holds. */
static void remote_put(const char *buf, size_t len)
{
    if (panda_level) {
        panda_rpc(buf, len);
        return;
    }
    orca_value_t arg = orca_bytes(buf, len);
    check_orca(orca_invoke(remote, SINK_PUT, &arg, 1, NULL), "orca_invoke");
}

/* A write with len bytes (or, with buf NULL, a stamp) on the replicated
 * object; returns once applied here. */
static void replicated_write(const char *buf, size_t len)
{
    if (panda_level) {
        panda_ordered_write(buf, len);
        return;
    }
    orca_value_t arg = orca_bytes(buf, len);
    check_orca(orca_invoke(replicated, buf != NULL ? SINK_PUT : SINK_STAMP,
                           &arg, buf != NULL, NULL),
               "orca_invoke");
}

/* ---- the tests -------------------------------------------------------- */

static void latency(const char *buf)
{
    long iters = iters_or(1000);
    if (pan_rank() != 0) {
        return; /* rank 1 serves from its handlers */
    }
    double t0 = 0;
    for (long i = 0; i < o.warmup + iters; i++) {
        if (i == o.warmup) {
            t0 = lci_wtime();
        }
        remote_put(buf, (size_t)o.size);
    }
    pps_perf_report(&o, bench_name(), "lat",
                    (lci_wtime() - t0) * 1e6 / (double)iters / 2.0,
                    (size_t)o.size, -1);
}

static void throughput(const char *buf)
{
    size_t size = (size_t)o.tput_size;
    long iters = iters_or((long)(2 * 1048576 / size) + 1);
    if (pan_rank() != 0) {
        return;
    }
    for (long i = 0; i < o.warmup; i++) {
        remote_put(buf, size);
    }
    double t0 = lci_wtime();
    for (long i = 0; i < iters; i++) {
        remote_put(buf, size);
    }
    double secs = lci_wtime() - t0;
    pps_perf_report(&o, bench_name(), "tput", secs * 1e6 / (double)iters, size,
                    (double)iters * (double)size / secs / 1e6);
}

static void bcast_latency(void)
{
    long iters = iters_or(50);
    int me = pan_rank(), n = pan_size();
    double sum = 0;
    applied = 0;
    for (long i = 0; i < o.warmup + iters; i++) {
        if (me == 0) {
            bench_compute(o.gap_us * 1e-6);
            max_reported = 0;
            acks_got = 0;
            double t0 = lci_wtime();
            replicated_write(NULL, 0);
            wait_for(&acks_got, (uint64_t)n - 1);
            if (i >= o.warmup) {
                sum += max_reported - t0;
            }
        } else {
            wait_for(&applied, (uint64_t)i + 1);
            ack(&last_applied, sizeof last_applied);
        }
    }
    pps_perf_report(&o, bench_name(), "bcast_lat", sum * 1e6 / (double)iters, 0,
                    -1);
}

static void bcast_throughput(const char *buf)
{
    size_t size = (size_t)o.tput_size;
    long iters = iters_or((long)(1048576 / size) + 1);
    int me = pan_rank(), n = pan_size();
    applied = 0;
    acks_got = 0;
    if (me == 0) {
        for (long i = 0; i < o.warmup; i++) {
            replicated_write(buf, size);
        }
        wait_for(&acks_got, (uint64_t)n - 1);
        double t0 = lci_wtime();
        for (long i = 0; i < iters; i++) {
            replicated_write(buf, size);
        }
        wait_for(&acks_got, 2 * ((uint64_t)n - 1));
        double secs = lci_wtime() - t0;
        pps_perf_report(&o, bench_name(), "bcast_tput",
                        secs * 1e6 / (double)iters, size,
                        (double)iters * (double)size / secs / 1e6);
    } else {
        wait_for(&applied, (uint64_t)o.warmup);
        ack(NULL, 0);
        wait_for(&applied, (uint64_t)(o.warmup + iters));
        ack(NULL, 0);
    }
}

/* Removes flag from argv if there; whether it was.  --panda is this
 * program's own; the options all Table 5 benchmarks share take the rest. */
static int take_flag(int *argc, char **argv, const char *flag)
{
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], flag) == 0) {
            memmove(&argv[i], &argv[i + 1],
                    (size_t)(*argc - i) * sizeof *argv); /* with the NULL */
            (*argc)--;
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        "pps_orca_perf",
        "Orca single-copy (RPC) and replicated-object (F&A + broadcast) "
        "operations (paper Table 5)",
        "lci-run -n 64 --decomp rxno-mni --profile myrinet-1999 --compute "
        "zero ./bench/pps_orca_perf [options]",
        "p2p tests: rank 0 invokes an object held by rank 1; broadcast "
        "tests: rank 0 writes a replicated object.  Orca runs on Panda-MT.\n"
        "--panda makes the same operations directly with Panda-MT."};
    panda_level = take_flag(&argc, argv, "--panda");
    pps_perf_parse(&info, &o, NULL, argc, argv);
    if (pan_init(&argc, &argv, PAN_MT) != PAN_OK) {
        fprintf(stderr, "pps_orca_perf: pan_init: %s\n", pan_last_error());
        return 1;
    }
    if ((o.lat || o.tput) && pan_size() < 2) {
        bench_fail("the p2p tests need at least 2 nodes");
    }
    check_pan(pan_port_set(PORT_ACK, on_ack, NULL), "pan_port_set");
    if (panda_level) {
        check_pan(pan_port_set(PORT_WRITE, panda_write_arrived, NULL),
                  "pan_port_set");
        check_pan(pan_rpc_set(SERVICE_PUT, panda_put_request, NULL),
                  "pan_rpc_set");
        check_pan(pan_barrier(), "pan_barrier");
    } else {
        check_orca(orca_init(), "orca_init");
        orca_type_t *sink = sink_type();
        if (pan_size() >= 2) {
            check_orca(orca_object_create(sink, 1, &remote),
                       "orca_object_create");
        }
        check_orca(orca_object_create(sink, ORCA_REPLICATED, &replicated),
                   "orca_object_create");
    }
    size_t cap = (size_t)(o.size > o.tput_size ? o.size : o.tput_size);
    char *buf = calloc(1, cap);
    if (buf == NULL) {
        bench_fail("out of memory");
    }
    if (pan_rank() == 0) {
        printf("# pps_orca_perf: %s, %s, %d nodes\n",
               panda_level ? "Panda-MT" : "Orca on Panda-MT", lci_decomp_name(),
               pan_size());
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
    if (!panda_level) {
        check_orca(orca_end(), "orca_end");
    }
    check_pan(pan_end(), "pan_end");
    return 0;
}
