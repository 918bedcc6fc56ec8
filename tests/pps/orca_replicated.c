/*
 * orca_replicated.c - node program: replicated objects under concurrent
 * writes from every thread of every node.
 *
 * Usage: lci-run -n N ./orca_replicated --mt [-t THREADS] [-k WRITES]
 *
 * Each thread adds to a replicated counter and appends records to a
 * replicated log, WRITES times each.  Each write's result comes from the
 * invoker's own copy: the counter's running values a thread sees rise, and
 * its log positions rise.  After a barrier and orca_sync every node must
 * hold the exact total, a log of every record with each thread's records
 * in the order appended, and the same log order as every other node.
 */
#include "orca_types.h"

static int nthreads, nwrites;
static orca_object_t *counter, *logobj;

static void *writer(void *arg)
{
    int t = (int)(intptr_t)arg;
    int me = pan_rank();
    int64_t last_value = 0;
    int32_t last_pos = -1;
    for (int k = 0; k < nwrites; k++) {
        orca_value_t delta = orca_int64(me + 1), res;
        orca_test_check(orca_invoke(counter, COUNTER_ADD, &delta, 1, &res),
                        "counter add");
        if (res.type != ORCA_INT64 || res.u.i64 <= last_value) {
            e2e_fail("thread %d: add %d returned %lld after %lld", t, k,
                     (long long)res.u.i64, (long long)last_value);
        }
        last_value = res.u.i64;

        log_record_t rec = {me, t, k};
        orca_value_t a = orca_bytes(&rec, sizeof rec);
        orca_test_check(orca_invoke(logobj, LOG_APPEND, &a, 1, &res),
                        "log append");
        if (res.type != ORCA_INT32 || res.u.i32 <= last_pos) {
            e2e_fail("thread %d: append %d at position %d after %d", t, k,
                     (int)res.u.i32, (int)last_pos);
        }
        last_pos = res.u.i32;
    }
    return NULL;
}

static int64_t read_int(orca_object_t *obj, int op, const orca_value_t *arg,
                        const char *what)
{
    orca_value_t res;
    orca_test_check(orca_invoke(obj, op, arg, arg != NULL, &res), what);
    return res.type == ORCA_INT32 ? res.u.i32 : res.u.i64;
}

/* Every thread's records must appear in the order it appended them. */
static void check_log_order(int n)
{
    int32_t len = (int32_t)read_int(logobj, LOG_LENGTH, NULL, "log length");
    if (len != n * nthreads * nwrites) {
        e2e_fail("the log has %d records, expected %d", (int)len,
                 n * nthreads * nwrites);
    }
    int *next = e2e_calloc((size_t)(n * nthreads), sizeof *next);
    for (int32_t i = 0; i < len; i++) {
        orca_value_t at = orca_int32(i);
        int64_t who = read_int(logobj, LOG_AT, &at, "log at");
        int node = (int)(who / 1000000), t = (int)(who / 1000 % 1000);
        int seq = (int)(who % 1000);
        if (node < 0 || node >= n || t < 0 || t >= nthreads ||
            seq != next[node * nthreads + t]) {
            e2e_fail("record %d is node %d thread %d write %d, out of order",
                     (int)i, node, t, seq);
        }
        next[node * nthreads + t]++;
    }
    free(next);
}

int main(int argc, char **argv)
{
    pps_init(&argc, &argv, "orca_replicated");
    if (pan_mode() != PAN_MT) {
        e2e_fail("run with --mt");
    }
    nthreads = (int)e2e_opt_long(argc, argv, "-t", 2);
    nwrites = (int)e2e_opt_long(argc, argv, "-k", 8);
    int n = pan_size();
    if ((long)n * nthreads * nwrites > LOG_CAP || nwrites > 999 ||
        nthreads > 999) {
        e2e_fail("-t %d -k %d on %d nodes: too many records", nthreads, nwrites,
                 n);
    }
    orca_test_check(orca_init(), "orca_init");
    pps_hash_port_open();
    orca_type_t *ct = counter_type(), *lt = log_type();
    orca_test_check(orca_object_create(ct, ORCA_REPLICATED, &counter),
                    "orca_object_create");
    orca_test_check(orca_object_create(lt, ORCA_REPLICATED, &logobj),
                    "orca_object_create");

    orca_test_threads(nthreads, writer);

    /* Every write anywhere is ordered before the syncs after the barrier. */
    pps_check(pan_barrier(), "pan_barrier");
    orca_test_check(orca_sync(counter), "orca_sync");
    orca_test_check(orca_sync(logobj), "orca_sync");
    int64_t expect = (int64_t)nthreads * nwrites * n * (n + 1) / 2;
    int64_t total = read_int(counter, COUNTER_VALUE, NULL, "counter value");
    if (total != expect) {
        e2e_fail("the counter is %lld, expected %lld", (long long)total,
                 (long long)expect);
    }
    check_log_order(n);
    pps_agree((uint64_t)read_int(logobj, LOG_DIGEST, NULL, "log digest"),
              "the log's records");
    orca_test_check(orca_object_free(logobj), "orca_object_free");
    orca_test_check(orca_end(), "orca_end");
    pps_check(pan_end(), "pan_end");
    return 0;
}
