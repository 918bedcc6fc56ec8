/*
 * orca_types.h - the shared-object types the Orca node programs use: a
 * counter and a log (replicated in the tests) and an account (single-copy),
 * each an ordinary C struct with ordinary C functions as operations.
 */
#ifndef ORCA_TYPES_H
#define ORCA_TYPES_H

#include "orca.h"
#include "pps_node.h"

/* Fails unless r is ORCA_OK (or a non-negative number), naming the call. */
static inline int orca_test_check(int r, const char *what)
{
    if (r < 0) {
        e2e_fail("%s returned %d (%s): %s", what, r, orca_strerror(r),
                 orca_last_error());
    }
    return r;
}

/* Defines an operation the tests rely on; fails if that is refused. */
static inline void orca_test_op(orca_type_t *t, const char *name,
                                orca_access_t access, orca_func_t func,
                                orca_vtype_t result, int nargs,
                                const orca_vtype_t *args)
{
    orca_test_check(orca_op_define(t, name, access, func, result, nargs, args),
                    "orca_op_define");
}

/* Runs func(0) .. func(n-1) in n Panda-MT threads and joins them. */
static inline void orca_test_threads(int n, void *(*func)(void *))
{
    pan_thread_t **threads = e2e_calloc((size_t)n, sizeof *threads);
    for (int t = 0; t < n; t++) {
        pps_check(pan_thread_create(&threads[t], func, (void *)(intptr_t)t),
                  "pan_thread_create");
    }
    for (int t = 0; t < n; t++) {
        pps_check(pan_thread_join(threads[t], NULL), "pan_thread_join");
    }
    free(threads);
}

/* ---- counter -------------------------------------------------------- */

typedef struct {
    int64_t value;
} counter_t;

static int64_t counter_add(counter_t *self, int64_t delta)
{
    self->value += delta;
    return self->value;
}

static int64_t counter_value(counter_t *self)
{
    return self->value;
}

enum {
    COUNTER_ADD,
    COUNTER_VALUE
};

static inline orca_type_t *counter_type(void)
{
    orca_type_t *t;
    static const orca_vtype_t add_args[] = {ORCA_INT64};
    orca_test_check(orca_type_create("counter", sizeof(counter_t), NULL, &t),
                    "orca_type_create");
    orca_test_op(t, "add", ORCA_WRITE, ORCA_FUNC(counter_add), ORCA_INT64, 1,
                 add_args);
    orca_test_op(t, "value", ORCA_READ, ORCA_FUNC(counter_value), ORCA_INT64, 0,
                 NULL);
    return t;
}

/* ---- log: records appended in one order everywhere ------------------ */

#define LOG_CAP 4096

/* A record names who appended it. */
typedef struct {
    int32_t node, thread, seq;
} log_record_t;

typedef struct {
    int32_t n;
    uint64_t digest; /* of every record, in log order */
    log_record_t rec[LOG_CAP];
} log_t;

static void log_init(void *state)
{
    ((log_t *)state)->digest = 1469598103934665603ULL;
}

/* Returns the record's position, or -1 when it is not a record or the log
 * is full. */
static int32_t log_append(log_t *self, const void *data, size_t len)
{
    if (len != sizeof(log_record_t) || self->n == LOG_CAP) {
        return -1;
    }
    log_record_t *r = &self->rec[self->n];
    memcpy(r, data, sizeof *r);
    self->digest = pps_hash_step(self->digest, (uint64_t)r->node << 40 ^
                                                   (uint64_t)r->thread << 20 ^
                                                   (uint64_t)r->seq);
    return self->n++;
}

static int32_t log_length(log_t *self)
{
    return self->n;
}

static int64_t log_digest(log_t *self)
{
    return (int64_t)self->digest;
}

/* Who appended record i, as node * 1000000 + thread * 1000 + seq. */
static int64_t log_at(log_t *self, int32_t i)
{
    if (i < 0 || i >= self->n) {
        return -1;
    }
    const log_record_t *r = &self->rec[i];
    return (int64_t)r->node * 1000000 + r->thread * 1000 + r->seq;
}

enum {
    LOG_APPEND,
    LOG_LENGTH,
    LOG_DIGEST,
    LOG_AT
};

static inline orca_type_t *log_type(void)
{
    orca_type_t *t;
    static const orca_vtype_t append_args[] = {ORCA_BYTES};
    static const orca_vtype_t at_args[] = {ORCA_INT32};
    orca_test_check(orca_type_create("log", sizeof(log_t), log_init, &t),
                    "orca_type_create");
    orca_test_op(t, "append", ORCA_WRITE, ORCA_FUNC(log_append), ORCA_INT32, 1,
                 append_args);
    orca_test_op(t, "length", ORCA_READ, ORCA_FUNC(log_length), ORCA_INT32, 0,
                 NULL);
    orca_test_op(t, "digest", ORCA_READ, ORCA_FUNC(log_digest), ORCA_INT64, 0,
                 NULL);
    orca_test_op(t, "at", ORCA_READ, ORCA_FUNC(log_at), ORCA_INT64, 1, at_args);
    return t;
}

/* ---- account: mixed argument types, bytes of any length ------------- */

#define ACCOUNT_SLOTS 16

typedef struct {
    int64_t balance[ACCOUNT_SLOTS];
    uint64_t noted; /* bytes received by note */
} account_t;

static int64_t account_deposit(account_t *self, int32_t slot, int64_t amount)
{
    if (slot < 0 || slot >= ACCOUNT_SLOTS) {
        return -1;
    }
    self->balance[slot] += amount;
    return self->balance[slot];
}

static int64_t account_total(account_t *self)
{
    int64_t sum = 0;
    for (int i = 0; i < ACCOUNT_SLOTS; i++) {
        sum += self->balance[i];
    }
    return sum;
}

static double account_mean(account_t *self, double scale)
{
    return scale * (double)account_total(self) / ACCOUNT_SLOTS;
}

/* A bytes argument between scalars: answers the bytes' checksum mixed
 * with tag, so the caller sees that all three arrived intact. */
static int32_t account_note(account_t *self, int64_t before, const void *data,
                            size_t len, int32_t tag)
{
    self->noted += len;
    return (int32_t)(e2e_checksum(data, len) ^ (uint32_t)tag ^
                     (uint32_t)before);
}

static int64_t account_noted(account_t *self)
{
    return (int64_t)self->noted;
}

enum {
    ACCOUNT_DEPOSIT,
    ACCOUNT_TOTAL,
    ACCOUNT_MEAN,
    ACCOUNT_NOTE,
    ACCOUNT_NOTED
};

static inline orca_type_t *account_type(void)
{
    orca_type_t *t;
    static const orca_vtype_t deposit_args[] = {ORCA_INT32, ORCA_INT64};
    static const orca_vtype_t mean_args[] = {ORCA_DOUBLE};
    static const orca_vtype_t note_args[] = {ORCA_INT64, ORCA_BYTES,
                                             ORCA_INT32};
    orca_test_check(orca_type_create("account", sizeof(account_t), NULL, &t),
                    "orca_type_create");
    orca_test_op(t, "deposit", ORCA_WRITE, ORCA_FUNC(account_deposit),
                 ORCA_INT64, 2, deposit_args);
    orca_test_op(t, "total", ORCA_READ, ORCA_FUNC(account_total), ORCA_INT64, 0,
                 NULL);
    orca_test_op(t, "mean", ORCA_READ, ORCA_FUNC(account_mean), ORCA_DOUBLE, 1,
                 mean_args);
    orca_test_op(t, "note", ORCA_WRITE, ORCA_FUNC(account_note), ORCA_INT32, 3,
                 note_args);
    orca_test_op(t, "noted", ORCA_READ, ORCA_FUNC(account_noted), ORCA_INT64, 0,
                 NULL);
    return t;
}

#endif
