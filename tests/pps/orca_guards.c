/*
 * orca_guards.c - node program: guarded operations that make threads on
 * every node wait for each other.
 *
 * Usage: lci-run -n N ./orca_guards --mt [-k ITEMS]
 *
 * A bounded queue of 4 items lives on node 0: put waits while it is full,
 * get while it is empty; on every node a producer thread puts ITEMS items
 * and a consumer thread gets ITEMS, so requests wait at the owner (and
 * node 0's own threads wait locally).  A replicated token goes round the
 * nodes: pass(me) waits until the token is at this node, so the writes of
 * a passer thread on every node are suspended at every copy until their
 * turn, and run in round-robin order.  The main thread waits, in a guarded
 * read, until every pass is done.  Checks: the sum of the items consumed
 * everywhere equals the sum produced, and every copy of the token saw the
 * nodes in round-robin order.
 */
#include "orca_types.h"

#define QUEUE_CAP 4

typedef struct {
    int64_t item[QUEUE_CAP];
    int32_t head, count;
} queue_t;

static int32_t queue_not_full(queue_t *self, int64_t v)
{
    (void)v;
    return self->count < QUEUE_CAP;
}

static int64_t queue_put(queue_t *self, int64_t v)
{
    self->item[(self->head + self->count) % QUEUE_CAP] = v;
    return ++self->count;
}

static int32_t queue_not_empty(queue_t *self)
{
    return self->count > 0;
}

static int64_t queue_get(queue_t *self)
{
    int64_t v = self->item[self->head];
    self->head = (self->head + 1) % QUEUE_CAP;
    self->count--;
    return v;
}

enum {
    QUEUE_PUT,
    QUEUE_GET
};

static int nodes;

typedef struct {
    int32_t holder;
    int64_t passes;
    uint64_t order; /* hash of the holders, in order */
} token_t;

static void token_init(void *state)
{
    ((token_t *)state)->order = 1469598103934665603ULL;
}

static int32_t token_is_at(token_t *self, int32_t from)
{
    return self->holder == from;
}

static int64_t token_pass(token_t *self, int32_t from)
{
    self->order = pps_hash_step(self->order, (uint64_t)from);
    self->holder = (from + 1) % nodes;
    return ++self->passes;
}

static int32_t token_reached(token_t *self, int64_t n)
{
    return self->passes >= n;
}

static int64_t token_passes(token_t *self, int64_t n)
{
    (void)n;
    return self->passes;
}

static int64_t token_order(token_t *self)
{
    return (int64_t)self->order;
}

enum {
    TOKEN_PASS,
    TOKEN_AWAIT,
    TOKEN_ORDER
};

static orca_object_t *queue, *token, *consumed;
static int nitems;

static void *producer(void *arg)
{
    (void)arg;
    for (int k = 0; k < nitems; k++) {
        orca_value_t v = orca_int64((int64_t)pan_rank() * 1000 + k + 1), res;
        orca_test_check(orca_invoke(queue, QUEUE_PUT, &v, 1, &res), "put");
        if (res.u.i64 < 1 || res.u.i64 > QUEUE_CAP) {
            e2e_fail("put left %lld items in a queue of %d",
                     (long long)res.u.i64, QUEUE_CAP);
        }
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    int64_t sum = 0;
    for (int k = 0; k < nitems; k++) {
        orca_value_t res;
        orca_test_check(orca_invoke(queue, QUEUE_GET, NULL, 0, &res), "get");
        if (res.u.i64 <= 0) {
            e2e_fail("got item %lld from the queue", (long long)res.u.i64);
        }
        sum += res.u.i64;
    }
    orca_value_t s = orca_int64(sum);
    orca_test_check(orca_invoke(consumed, COUNTER_ADD, &s, 1, NULL), "add");
    return NULL;
}

static void *passer(void *arg)
{
    (void)arg;
    int64_t last = 0;
    for (int k = 0; k < nitems; k++) {
        orca_value_t me = orca_int32(pan_rank()), res;
        orca_test_check(orca_invoke(token, TOKEN_PASS, &me, 1, &res), "pass");
        /* Round-robin: this node's k-th pass is pass k * N + rank + 1. */
        if (res.u.i64 != (int64_t)k * nodes + pan_rank() + 1 ||
            res.u.i64 <= last) {
            e2e_fail("pass %d was pass number %lld", k, (long long)res.u.i64);
        }
        last = res.u.i64;
    }
    return NULL;
}

static void *(*const roles[])(void *) = {producer, consumer, passer};

static void *worker(void *arg)
{
    return roles[(intptr_t)arg](NULL);
}

static void define_types(orca_type_t **qt_p, orca_type_t **tt_p)
{
    static const orca_vtype_t one_int64[] = {ORCA_INT64};
    static const orca_vtype_t one_int32[] = {ORCA_INT32};
    orca_type_t *qt, *tt;
    orca_test_check(orca_type_create("queue", sizeof(queue_t), NULL, &qt),
                    "orca_type_create");
    orca_test_op(qt, "put", ORCA_WRITE, ORCA_FUNC(queue_put), ORCA_INT64, 1,
                 one_int64);
    orca_test_op(qt, "get", ORCA_WRITE, ORCA_FUNC(queue_get), ORCA_INT64, 0,
                 NULL);
    orca_test_check(orca_op_guard(qt, QUEUE_PUT, ORCA_FUNC(queue_not_full)),
                    "orca_op_guard");
    orca_test_check(orca_op_guard(qt, QUEUE_GET, ORCA_FUNC(queue_not_empty)),
                    "orca_op_guard");
    orca_test_check(orca_type_create("token", sizeof(token_t), token_init, &tt),
                    "orca_type_create");
    orca_test_op(tt, "pass", ORCA_WRITE, ORCA_FUNC(token_pass), ORCA_INT64, 1,
                 one_int32);
    orca_test_op(tt, "await", ORCA_READ, ORCA_FUNC(token_passes), ORCA_INT64, 1,
                 one_int64);
    orca_test_op(tt, "order", ORCA_READ, ORCA_FUNC(token_order), ORCA_INT64, 0,
                 NULL);
    orca_test_check(orca_op_guard(tt, TOKEN_PASS, ORCA_FUNC(token_is_at)),
                    "orca_op_guard");
    orca_test_check(orca_op_guard(tt, TOKEN_AWAIT, ORCA_FUNC(token_reached)),
                    "orca_op_guard");
    *qt_p = qt;
    *tt_p = tt;
}

int main(int argc, char **argv)
{
    pps_init(&argc, &argv, "orca_guards");
    if (pan_mode() != PAN_MT) {
        e2e_fail("run with --mt");
    }
    nitems = (int)e2e_opt_long(argc, argv, "-k", 6);
    nodes = pan_size();
    orca_test_check(orca_init(), "orca_init");
    orca_type_t *qt, *tt;
    define_types(&qt, &tt);
    orca_test_check(orca_object_create(qt, 0, &queue), "orca_object_create");
    orca_test_check(orca_object_create(tt, ORCA_REPLICATED, &token),
                    "orca_object_create");
    orca_test_check(
        orca_object_create(counter_type(), ORCA_REPLICATED, &consumed),
        "orca_object_create");

    pan_thread_t *threads[3];
    for (int t = 0; t < 3; t++) {
        pps_check(pan_thread_create(&threads[t], worker, (void *)(intptr_t)t),
                  "pan_thread_create");
    }
    /* Blocks in a guarded read until the last pass anywhere. */
    int64_t all = (int64_t)nitems * nodes;
    orca_value_t n = orca_int64(all), res;
    orca_test_check(orca_invoke(token, TOKEN_AWAIT, &n, 1, &res), "await");
    if (res.u.i64 != all) {
        e2e_fail("await returned after %lld passes of %lld",
                 (long long)res.u.i64, (long long)all);
    }
    for (int t = 0; t < 3; t++) {
        pps_check(pan_thread_join(threads[t], NULL), "pan_thread_join");
    }
    pps_check(pan_barrier(), "pan_barrier");
    orca_test_check(orca_sync(consumed), "orca_sync");

    int64_t expect = 0;
    for (int node = 0; node < nodes; node++) {
        for (int k = 0; k < nitems; k++) {
            expect += (int64_t)node * 1000 + k + 1;
        }
    }
    orca_test_check(orca_invoke(consumed, COUNTER_VALUE, NULL, 0, &res),
                    "value");
    if (res.u.i64 != expect) {
        e2e_fail("consumers took items worth %lld, producers put %lld",
                 (long long)res.u.i64, (long long)expect);
    }
    uint64_t order = 1469598103934665603ULL;
    for (int64_t p = 0; p < all; p++) {
        order = pps_hash_step(order, (uint64_t)(p % nodes));
    }
    orca_test_check(orca_invoke(token, TOKEN_ORDER, NULL, 0, &res), "order");
    if ((uint64_t)res.u.i64 != order) {
        e2e_fail("the token did not go round in order");
    }
    orca_test_check(orca_end(), "orca_end");
    pps_check(pan_end(), "pan_end");
    return 0;
}
