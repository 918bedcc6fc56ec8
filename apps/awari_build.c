/*
 * awari_build.c - the parallel retrograde analysis of apps/awari on the
 * Orca layer (awari_build.h).
 *
 * Database n is built in passes t = n, n-1, ..., 1 (awari_db.h): a pass
 * seeds the boards whose exits decide them at t, then propagates.  A board
 * found worth +t or -t is queued; taking it from the queue, its node makes
 * its unmoves and sends each parent's owner an update, "a child is in W"
 * (one fewer open move: with none left and no exit above -t, the parent is
 * in L_t) or "a child is in L" (the parent is in W_t).  Updates for one
 * node collect in a buffer and go, up to --batch at a time, in one RPC on
 * that node's single-copy object; its operation applies them there and
 * queues what they decide.  A node whose queue and buffers are empty
 * joins a termination round (a write to a replicated object, then a
 * guarded read); boards that updates decide at a node after it joined are
 * "late" and answered as such to the RPC that decided them, whose sender
 * counts them in its own part of the round.  RPCs are synchronous, so when
 * a round sums to no late board, every update made has been applied and
 * every queue is empty: the pass is over.  Updates carry their threshold,
 * because a node may get the next pass's first updates while it still
 * waits for the round that ends this one.
 *
 * Boards are spread over the nodes by a multiplicative hash of their index
 * (h = index * mult mod size; node h mod N holds slot h / N), so every node
 * holds the same number of boards, scattered over the database.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awari_build.h"
#include "awari_db.h"
#include "orca.h"
#include "panda.h"

#define KIND_IN_L 0x80000000u /* the update's child is in L, else in W */
#define STORE_CHUNK 16384     /* values per replicating write */

static int me, nodes, batch_max;

void aw_orca_ok(int r, const char *what)
{
    if (r < 0) {
        fprintf(stderr, "awari: node %d: %s: %s (%s)\n", pan_rank(), what,
                orca_strerror(r), orca_last_error());
        exit(1);
    }
}

static void *alloc_or_die(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "awari: node %d: out of memory (%zu bytes)\n", me,
                bytes);
        exit(1);
    }
    return p;
}

/* ---- where a board lives -------------------------------------------------- */

typedef struct {
    uint32_t size;
    uint64_t mult, inverse; /* index * mult = h, h * inverse = index */
} spread_t;

static spread_t spreads[AW_MAX_STONES + 1];

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* x with a * x = 1 mod m (a and m coprime), by extended Euclid. */
static uint64_t inverse_mod(uint64_t a, uint64_t m)
{
    int64_t t = 0, nt = 1, r = (int64_t)m, nr = (int64_t)(a % m);
    while (nr != 0) {
        int64_t q = r / nr, x;
        x = t - q * nt;
        t = nt;
        nt = x;
        x = r - q * nr;
        r = nr;
        nr = x;
    }
    return (uint64_t)(t < 0 ? t + (int64_t)m : t);
}

static const spread_t *spread(int n)
{
    spread_t *s = &spreads[n];
    if (s->size == 0) {
        s->size = aw_db_size(n);
        if (s->size == 1) {
            s->mult = s->inverse = 1;
        } else {
            /* About the golden ratio of the size: neighbours land far
             * apart; any multiplier coprime to the size is a bijection. */
            uint64_t m = (uint64_t)(0.6180339887 * s->size) | 1u;
            while (gcd(m, s->size) != 1) {
                m += 2;
            }
            s->mult = m;
            s->inverse = inverse_mod(m, s->size);
        }
    }
    return s;
}

static uint64_t hash_of(int n, uint32_t index)
{
    const spread_t *s = spread(n);
    return (uint64_t)index * s->mult % s->size;
}

int aw_owner(int n, uint32_t index)
{
    return (int)(hash_of(n, index) % (uint64_t)nodes);
}

uint32_t aw_owned(int n, int node)
{
    uint32_t size = spread(n)->size;
    return (uint32_t)((size - (uint32_t)node + (uint32_t)nodes - 1) /
                      (uint32_t)nodes);
}

uint32_t aw_index_of(int n, int node, uint32_t k)
{
    const spread_t *s = spread(n);
    uint64_t h = (uint64_t)k * (uint64_t)nodes + (uint64_t)node;
    return (uint32_t)(h * s->inverse % s->size);
}

/* ---- this node's part of the database being built ------------------------ */

static struct {
    int n;
    uint32_t count;    /* boards held */
    int8_t *value;     /* per slot: +-t once decided, else AW_UNKNOWN */
    int8_t *best_exit; /* per slot: the best exit, AW_UNKNOWN for none */
    uint8_t *open;     /* per slot: moves into boards not known in W */
    uint32_t *queue;   /* decided slots whose parents are still to hear */
    uint32_t head, tail;
} part;

/* Whether this node has joined the current termination round, and the
 * boards decided here since it did. */
static int joined;
static int64_t decided_late;

static void decide(uint32_t slot, int v)
{
    part.value[slot] = (int8_t)v;
    part.queue[part.tail++] = slot;
    decided_late += joined;
}

/* One update for slot at threshold t. */
static void apply_update(uint32_t u, int t)
{
    uint32_t slot = u & ~KIND_IN_L;
    if (slot >= part.count) {
        fprintf(stderr,
                "awari: node %d: an update for board slot %u of %u in the "
                "%d-stone database\n",
                me, slot, part.count, part.n);
        exit(1);
    }
    if (part.value[slot] != AW_UNKNOWN) {
        return;
    }
    if (u & KIND_IN_L) {
        decide(slot, t);
    } else if (--part.open[slot] == 0 && part.best_exit[slot] <= -t) {
        decide(slot, -t);
    }
}

/* The single-copy object each node owns: its operation applies a batch of
 * updates to the owner's part (the object's state counts them) and
 * returns how many boards they decided late. */
static int32_t part_apply(int64_t *self, int32_t t, const void *data,
                          size_t len)
{
    const uint32_t *u = data;
    size_t k = len / sizeof *u;
    int64_t before = decided_late;
    for (size_t i = 0; i < k; i++) {
        apply_update(u[i], t);
    }
    *self += (int64_t)k;
    return (int32_t)(decided_late - before);
}

/* The replicated termination rounds: round r's late boards, summed. */
typedef struct {
    int64_t round[2], total[2];
    int32_t arrived[2], pad[2];
} rounds_t;

static int32_t rounds_add(rounds_t *self, int64_t r, int64_t made)
{
    int k = (int)(r % 2);
    if (self->round[k] != r) {
        self->round[k] = r;
        self->total[k] = 0;
        self->arrived[k] = 0;
    }
    self->total[k] += made;
    return ++self->arrived[k];
}

static int32_t rounds_complete(rounds_t *self, int64_t r)
{
    int k = (int)(r % 2);
    return self->round[k] == r && self->arrived[k] == nodes;
}

static int64_t rounds_total(rounds_t *self, int64_t r)
{
    return self->total[(int)(r % 2)];
}

/* A replicated database: values in index order, and how many arrived. */
typedef struct {
    int64_t arrived;
    int8_t v[];
} db_copy_t;

static int32_t db_store(db_copy_t *self, int32_t n, int32_t node,
                        int32_t first, const void *data, size_t len)
{
    const int8_t *v = data;
    for (size_t i = 0; i < len; i++) {
        self->v[aw_index_of(n, node, (uint32_t)first + (uint32_t)i)] = v[i];
    }
    self->arrived += (int64_t)len;
    return 0;
}

static int32_t db_complete(db_copy_t *self, int32_t n, int64_t dest)
{
    (void)dest;
    return self->arrived == (int64_t)aw_db_size(n);
}

/* A read operation runs on the local copy: copies it to dest (an address
 * in the invoking node). */
static int32_t db_fetch(db_copy_t *self, int32_t n, int64_t dest)
{
    memcpy((void *)(intptr_t)dest, self->v, aw_db_size(n));
    return 0;
}

enum { PART_APPLY };
enum { ROUNDS_ADD, ROUNDS_TOTAL };
enum { DB_STORE, DB_FETCH };

static orca_object_t **parts; /* per node: its single-copy object */
static orca_object_t *rounds;
static orca_type_t *db_types[AW_MAX_STONES + 1];
static int64_t round_no;

/* Outgoing updates, per node. */
static uint32_t **outbox;
static int *outlen;

/* The other nodes in the order this node flushes to them, shuffled anew
 * before every sweep over the outboxes.  RPCs are synchronous: with one
 * order for all (me+1, me+2, ...) the callers of a busy owner queue behind
 * it, leave it one by one and queue again at the next owner, and the whole
 * cluster walks the owners in step, 63 callers deep (doc/apps.md). */
static int *flush_order;
static uint64_t flush_rng;
static aw_build_stats_t *stats_p;

void aw_build_setup(int batch)
{
    me = pan_rank();
    nodes = pan_size();
    batch_max = batch;
    static const orca_vtype_t apply_args[] = {ORCA_INT32, ORCA_BYTES};
    static const orca_vtype_t add_args[] = {ORCA_INT64, ORCA_INT64};
    static const orca_vtype_t total_args[] = {ORCA_INT64};
    static const orca_vtype_t store_args[] = {ORCA_INT32, ORCA_INT32,
                                              ORCA_INT32, ORCA_BYTES};
    static const orca_vtype_t fetch_args[] = {ORCA_INT32, ORCA_INT64};
    orca_type_t *pt, *rt;
    aw_orca_ok(orca_type_create("awari_part", sizeof(int64_t), NULL, &pt),
            "orca_type_create");
    aw_orca_ok(orca_op_define(pt, "apply", ORCA_WRITE, ORCA_FUNC(part_apply),
                           ORCA_INT32, 2, apply_args),
            "orca_op_define");
    aw_orca_ok(orca_type_create("awari_rounds", sizeof(rounds_t), NULL, &rt),
            "orca_type_create");
    aw_orca_ok(orca_op_define(rt, "add", ORCA_WRITE, ORCA_FUNC(rounds_add),
                           ORCA_INT32, 2, add_args),
            "orca_op_define");
    aw_orca_ok(orca_op_define(rt, "total", ORCA_READ, ORCA_FUNC(rounds_total),
                           ORCA_INT64, 1, total_args),
            "orca_op_define");
    aw_orca_ok(orca_op_guard(rt, ROUNDS_TOTAL, ORCA_FUNC(rounds_complete)),
            "orca_op_guard");
    for (int n = 1; n <= AW_MAX_STONES; n++) {
        char name[32];
        snprintf(name, sizeof name, "awari_db%d", n);
        orca_type_t *dt;
        aw_orca_ok(orca_type_create(name, sizeof(db_copy_t) + aw_db_size(n),
                                 NULL, &dt),
                "orca_type_create");
        aw_orca_ok(orca_op_define(dt, "store", ORCA_WRITE, ORCA_FUNC(db_store),
                               ORCA_INT32, 4, store_args),
                "orca_op_define");
        aw_orca_ok(orca_op_define(dt, "fetch", ORCA_READ, ORCA_FUNC(db_fetch),
                               ORCA_INT32, 2, fetch_args),
                "orca_op_define");
        aw_orca_ok(orca_op_guard(dt, DB_FETCH, ORCA_FUNC(db_complete)),
                "orca_op_guard");
        db_types[n] = dt;
    }
    parts = alloc_or_die((size_t)nodes * sizeof *parts);
    for (int k = 0; k < nodes; k++) {
        aw_orca_ok(orca_object_create(pt, k, &parts[k]), "orca_object_create");
    }
    aw_orca_ok(orca_object_create(rt, ORCA_REPLICATED, &rounds),
            "orca_object_create");
    outbox = alloc_or_die((size_t)nodes * sizeof *outbox);
    outlen = alloc_or_die((size_t)nodes * sizeof *outlen);
    for (int k = 0; k < nodes; k++) {
        outbox[k] = alloc_or_die((size_t)batch_max * sizeof **outbox);
    }
    flush_order = alloc_or_die((size_t)nodes * sizeof *flush_order);
    for (int k = 1; k < nodes; k++) {
        flush_order[k - 1] = (me + k) % nodes;
    }
    flush_rng = 0x9e3779b97f4a7c15ull * (uint64_t)(me + 1);
}

int64_t aw_build_sum(int64_t x)
{
    int64_t r = ++round_no;
    orca_value_t add[2] = {orca_int64(r), orca_int64(x)}, res;
    aw_orca_ok(orca_invoke(rounds, ROUNDS_ADD, add, 2, NULL), "rounds add");
    orca_value_t which = orca_int64(r);
    aw_orca_ok(orca_invoke(rounds, ROUNDS_TOTAL, &which, 1, &res),
            "rounds total");
    return res.u.i64;
}

/* ---- one database -------------------------------------------------------- */

static void part_start(int n, int8_t *const *db)
{
    free(part.value);
    free(part.best_exit);
    free(part.open);
    free(part.queue);
    part.n = n;
    part.count = aw_owned(n, me);
    part.value = alloc_or_die(part.count);
    part.best_exit = alloc_or_die(part.count);
    part.open = alloc_or_die(part.count);
    part.queue = alloc_or_die((size_t)part.count * sizeof *part.queue);
    part.head = part.tail = 0;
    for (uint32_t k = 0; k < part.count; k++) {
        aw_board_t b;
        aw_unrank(n, aw_index_of(n, me, k), &b);
        int best, internal;
        aw_exits(&b, db, &best, &internal);
        part.value[k] = AW_UNKNOWN;
        part.best_exit[k] = (int8_t)best;
        part.open[k] = (uint8_t)internal;
    }
}

static void shuffle_order(void)
{
    for (int k = nodes - 2; k > 0; k--) {
        flush_rng ^= flush_rng << 13; /* xorshift64: fixed per node, so */
        flush_rng ^= flush_rng >> 7;  /* runs stay deterministic */
        flush_rng ^= flush_rng << 17;
        int j = (int)(flush_rng % (uint64_t)(k + 1));
        int tmp = flush_order[k];
        flush_order[k] = flush_order[j];
        flush_order[j] = tmp;
    }
}

/* Ships dest's updates; returns how many boards they decided late. */
static int64_t flush(int dest, int t)
{
    orca_value_t args[2] = {
        orca_int32(t),
        orca_bytes(outbox[dest], (size_t)outlen[dest] * sizeof **outbox)},
                 late;
    aw_orca_ok(orca_invoke(parts[dest], PART_APPLY, args, 2, &late),
            "update RPC");
    outlen[dest] = 0;
    stats_p->messages++;
    return late.u.i32;
}

/* Tells the parents of every queued board, until the queue and every
 * outgoing buffer are empty; returns the boards its updates decided at
 * nodes that had joined the termination round. */
static int64_t drain(int t)
{
    int64_t late = 0;
    aw_board_t parents[AW_MAX_UNMOVES];
    for (;;) {
        while (part.head != part.tail) {
            uint32_t slot = part.queue[part.head++];
            uint32_t kind = part.value[slot] < 0 ? KIND_IN_L : 0;
            aw_board_t b;
            aw_unrank(part.n, aw_index_of(part.n, me, slot), &b);
            int np = aw_unmoves(&b, parents);
            for (int i = 0; i < np; i++) {
                uint64_t h = hash_of(part.n, aw_rank(&parents[i]));
                int dest = (int)(h % (uint64_t)nodes);
                uint32_t u = (uint32_t)(h / (uint64_t)nodes) | kind;
                stats_p->updates++;
                if (dest == me) {
                    apply_update(u, t);
                    continue;
                }
                stats_p->remote++;
                outbox[dest][outlen[dest]++] = u;
                if (outlen[dest] == batch_max) {
                    late += flush(dest, t);
                }
            }
        }
        int sent = 0;
        shuffle_order();
        for (int k = 0; k < nodes - 1; k++) {
            int dest = flush_order[k];
            if (outlen[dest] > 0) {
                late += flush(dest, t);
                sent = 1;
            }
        }
        if (!sent && part.head == part.tail) {
            return late;
        }
    }
}

static void replicate(int n, int8_t **db)
{
    orca_object_t *copy;
    aw_orca_ok(orca_object_create(db_types[n], ORCA_REPLICATED, &copy),
            "orca_object_create");
    for (uint32_t first = 0; first < part.count; first += STORE_CHUNK) {
        uint32_t len = part.count - first;
        len = len > STORE_CHUNK ? STORE_CHUNK : len;
        orca_value_t args[4] = {orca_int32(n), orca_int32(me),
                                orca_int32((int32_t)first),
                                orca_bytes(part.value + first, len)};
        aw_orca_ok(orca_invoke(copy, DB_STORE, args, 4, NULL), "db store");
    }
    db[n] = alloc_or_die(aw_db_size(n));
    orca_value_t fetch[2] = {orca_int32(n), orca_int64((intptr_t)db[n])};
    aw_orca_ok(orca_invoke(copy, DB_FETCH, fetch, 2, NULL), "db fetch");
    aw_orca_ok(orca_object_free(copy), "orca_object_free");
}

void aw_build(int stones, int8_t **db, aw_build_stats_t *stats)
{
    memset(stats, 0, sizeof *stats);
    stats_p = stats;
    db[0] = alloc_or_die(1); /* the empty board: worth 0 */
    for (int n = 1; n <= stones; n++) {
        if (n > 1) {
            replicate(n - 1, db);
        }
        part_start(n, db);
        aw_build_sum(0); /* nobody updates a part not yet started */
        stats->rounds++;
        for (int t = n; t >= 1; t--) {
            for (uint32_t k = 0; k < part.count; k++) {
                if (part.value[k] != AW_UNKNOWN) {
                    continue;
                }
                if (part.best_exit[k] >= t) {
                    decide(k, t);
                } else if (part.open[k] == 0 && part.best_exit[k] <= -t) {
                    decide(k, -t);
                }
            }
            int64_t late;
            do {
                joined = 0;
                late = drain(t);
                joined = 1; /* no handler runs before the round's write */
                stats->rounds++;
            } while (aw_build_sum(late) > 0);
            joined = 0;
        }
        for (uint32_t k = 0; k < part.count; k++) {
            if (part.value[k] == AW_UNKNOWN) {
                part.value[k] = 0; /* in no W_t or L_t: a cycle */
            }
        }
    }
}

void aw_build_replicate(int stones, int8_t **db)
{
    replicate(stones, db);
}
