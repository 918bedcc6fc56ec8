/*
 * awari.c - the paper's Awari (section 6.1), an Orca program: retrograde
 * analysis building Awari's endgame databases, every board with up to 13
 * stones.
 *
 * Usage: lci-run -n N ./awari [--quick] [--stones S] [--batch B]
 *                             [--check-sequential] [--no-check]
 *
 * The rules and the values are in awari_board.h and awari_db.h, the
 * parallel build in awari_build.c: boards spread over the nodes by a hash,
 * values found threshold by threshold and passed backwards by unmoves,
 * remote updates aggregated (at most B a message, default 256: 1 KiB) and
 * shipped by RPC to the owner's single-copy object; each finished database
 * replicated on every node, where the next ones look up their captures.
 *
 * Check (not timed): every node verifies that each board it holds, in
 * every database, is worth the best of its moves (the negamax equation,
 * which the database must satisfy; a board without a move -n); the copies
 * of all databases are identical on every node (hashes compared); and,
 * for up to 7 stones or with --check-sequential, node 0 builds every
 * database again alone, from the definition by forward sweeps, and
 * compares them board by board.  Rank 0 prints the counts of each value in
 * the largest database and "awari: ... time_s T ...: OK"; exit status 0
 * iff every check holds.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "awari_board.h"
#include "awari_build.h"
#include "awari_db.h"
#include "lci.h"
#include "orca.h"
#include "panda.h"

#define SEQUENTIAL_UP_TO 7 /* stones checked by a sequential build */

typedef struct {
    int stones, batch;
    int sequential; /* -1: up to SEQUENTIAL_UP_TO stones */
    int check;
} awari_opts_t;

static int rank_, nodes;

/* ---- the check's tally: a replicated object ------------------------------ */

typedef struct {
    int64_t wrong, differ, count, updates, remote, messages;
    double slowest;
    uint64_t hash;
    int32_t hashes_differ, pad;
} tally_t;

static int32_t tally_add(tally_t *self, int64_t wrong, int64_t differ,
                         double time_s, int64_t hash, int64_t updates,
                         int64_t remote, int64_t messages)
{
    if (self->count > 0 && self->hash != (uint64_t)hash) {
        self->hashes_differ = 1;
    }
    self->hash = (uint64_t)hash;
    self->wrong += wrong;
    self->differ += differ;
    self->updates += updates;
    self->remote += remote;
    self->messages += messages;
    self->slowest = time_s > self->slowest ? time_s : self->slowest;
    return (int32_t)++self->count;
}

static int32_t tally_all_in(tally_t *self, int64_t dest)
{
    (void)dest;
    return self->count == nodes;
}

/* Copies the tally to dest (an address in the invoking node). */
static int32_t tally_get(tally_t *self, int64_t dest)
{
    memcpy((void *)(intptr_t)dest, self, sizeof *self);
    return 0;
}

enum { TALLY_ADD, TALLY_GET };

static orca_object_t *tally_create(void)
{
    static const orca_vtype_t add_args[] = {
        ORCA_INT64, ORCA_INT64, ORCA_DOUBLE, ORCA_INT64,
        ORCA_INT64, ORCA_INT64, ORCA_INT64};
    static const orca_vtype_t get_args[] = {ORCA_INT64};
    orca_type_t *tt;
    aw_orca_ok(orca_type_create("awari_tally", sizeof(tally_t), NULL, &tt),
            "orca_type_create");
    aw_orca_ok(orca_op_define(tt, "add", ORCA_WRITE, ORCA_FUNC(tally_add),
                           ORCA_INT32, 7, add_args),
            "orca_op_define");
    aw_orca_ok(orca_op_define(tt, "get", ORCA_READ, ORCA_FUNC(tally_get),
                           ORCA_INT32, 1, get_args),
            "orca_op_define");
    aw_orca_ok(orca_op_guard(tt, TALLY_GET, ORCA_FUNC(tally_all_in)),
            "orca_op_guard");
    orca_object_t *obj;
    aw_orca_ok(orca_object_create(tt, ORCA_REPLICATED, &obj),
            "orca_object_create");
    return obj;
}

/* ---- the checks ------------------------------------------------------------ */

/* Boards this node holds that are not worth the best of their moves. */
static int64_t check_negamax(int stones, int8_t *const *db)
{
    int64_t wrong = 0;
    for (int n = 1; n <= stones; n++) {
        uint32_t held = aw_owned(n, rank_);
        for (uint32_t k = 0; k < held; k++) {
            uint32_t index = aw_index_of(n, rank_, k);
            aw_board_t b;
            aw_unrank(n, index, &b);
            int v = db[n][index];
            if (v < -n || v > n || v != aw_negamax(&b, db)) {
                if (wrong++ == 0) {
                    fprintf(stderr,
                            "awari: node %d: board %" PRIu32 " of %d "
                            "stones is worth %d, the best of its moves %d\n",
                            rank_, index, n, v, aw_negamax(&b, db));
                }
            }
        }
    }
    return wrong;
}

/* Boards on which a sequential build disagrees with db. */
static int64_t check_sequential(int stones, int8_t *const *db)
{
    int8_t *seq[AW_MAX_STONES + 1];
    int64_t differ = 0;
    for (int n = 0; n <= stones; n++) {
        seq[n] = malloc(aw_db_size(n));
        if (seq[n] == NULL) {
            fprintf(stderr, "awari: out of memory for the check\n");
            exit(1);
        }
    }
    aw_build_sequential(stones, seq);
    for (int n = 0; n <= stones; n++) {
        for (uint32_t i = 0; i < aw_db_size(n); i++) {
            if (seq[n][i] != db[n][i] && differ++ == 0) {
                fprintf(stderr,
                        "awari: board %" PRIu32 " of %d stones: %d in "
                        "parallel, %d sequentially\n",
                        i, n, db[n][i], seq[n][i]);
            }
        }
        free(seq[n]);
    }
    return differ;
}

static uint64_t hash_dbs(int stones, int8_t *const *db)
{
    uint64_t h = 1469598103934665603u;
    for (int n = 0; n <= stones; n++) {
        for (uint32_t i = 0; i < aw_db_size(n); i++) {
            h = (h ^ (uint8_t)db[n][i]) * 1099511628211u;
        }
    }
    return h;
}

static void print_values(int stones, const int8_t *dbn)
{
    uint64_t count[2 * AW_MAX_STONES + 1] = {0};
    for (uint32_t i = 0; i < aw_db_size(stones); i++) {
        count[dbn[i] + stones]++;
    }
    printf("awari: values of the %d-stone boards (value:boards):", stones);
    for (int v = -stones; v <= stones; v++) {
        printf(" %d:%" PRIu64, v, count[v + stones]);
    }
    printf("\n");
}

/* ---- options ------------------------------------------------------------- */

static int usage(const char *bad)
{
    if (rank_ == 0) {
        fprintf(stderr,
                "awari: %s\nusage: awari [--quick] [--stones S (1..%d)] "
                "[--batch B (updates a message, 1..65536)] "
                "[--check-sequential] [--no-check]\n",
                bad, AW_MAX_STONES);
    }
    return 2;
}

static int parse(int argc, char **argv, awari_opts_t *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) {
            o->stones = 7;
            continue;
        }
        if (strcmp(a, "--check-sequential") == 0) {
            o->sequential = 1;
            continue;
        }
        if (strcmp(a, "--no-check") == 0) {
            o->check = 0;
            continue;
        }
        if (i + 1 >= argc) {
            return usage("an option lacks its value");
        }
        const char *v = argv[++i];
        char *end;
        long x = strtol(v, &end, 10);
        if (strcmp(a, "--stones") == 0) {
            if (*end != '\0' || x < 1 || x > AW_MAX_STONES) {
                return usage("--stones expects 1..16");
            }
            o->stones = (int)x;
        } else if (strcmp(a, "--batch") == 0) {
            if (*end != '\0' || x < 1 || x > 65536) {
                return usage("--batch expects 1..65536");
            }
            o->batch = (int)x;
        } else {
            return usage("unknown option");
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (pan_init(&argc, &argv, PAN_MT) != PAN_OK) {
        fprintf(stderr, "awari: pan_init: %s\n", pan_last_error());
        return 1;
    }
    rank_ = pan_rank();
    nodes = pan_size();
    awari_opts_t o = {.stones = 13, .batch = 256, .sequential = -1,
                      .check = 1};
    int bad = parse(argc, argv, &o);
    if (bad != 0) {
        pan_end();
        return bad;
    }
    aw_orca_ok(orca_init(), "orca_init");
    aw_build_setup(o.batch);
    orca_object_t *tally = tally_create();
    int8_t *db[AW_MAX_STONES + 1] = {0};
    aw_build_stats_t st;

    aw_build_sum(0); /* a barrier: everything set up everywhere */
    double t0 = lci_wtime();
    aw_build(o.stones, db, &st);
    double mytime = lci_wtime() - t0;

    int64_t wrong = 0, differ = 0;
    aw_build_replicate(o.stones, db);
    int sequential = o.sequential == 1 ||
                     (o.sequential == -1 && o.stones <= SEQUENTIAL_UP_TO);
    if (o.check) {
        wrong = check_negamax(o.stones, db);
        if (sequential && rank_ == 0) {
            differ = check_sequential(o.stones, db);
        }
    }
    orca_value_t add[7] = {
        orca_int64(wrong),
        orca_int64(differ),
        orca_double(mytime),
        orca_int64((int64_t)hash_dbs(o.stones, db)),
        orca_int64((int64_t)st.updates),
        orca_int64((int64_t)st.remote),
        orca_int64((int64_t)st.messages)};
    aw_orca_ok(orca_invoke(tally, TALLY_ADD, add, 7, NULL), "tally add");
    tally_t all;
    orca_value_t get = orca_int64((intptr_t)&all);
    aw_orca_ok(orca_invoke(tally, TALLY_GET, &get, 1, NULL), "tally get");

    int ok = all.wrong == 0 && all.differ == 0 && !all.hashes_differ;
    if (rank_ == 0) {
        if (all.hashes_differ) {
            fprintf(stderr, "awari: the nodes' copies of the databases "
                            "differ\n");
        }
        if (all.wrong > 0) {
            fprintf(stderr,
                    "awari: %" PRId64 " boards are not worth the best of "
                    "their moves\n",
                    all.wrong);
        }
        if (all.differ > 0) {
            fprintf(stderr,
                    "awari: %" PRId64 " boards differ from the sequential "
                    "build\n",
                    all.differ);
        }
        uint64_t boards = 0;
        for (int n = 0; n <= o.stones; n++) {
            boards += aw_db_size(n);
        }
        print_values(o.stones, db[o.stones]);
        printf("awari: %d stones, %d nodes: %" PRIu64 " boards, %" PRId64
               " updates (%" PRId64 " remote in %" PRId64
               " RPCs), %" PRIu64 " rounds, time_s %.6f, databases %016" PRIx64
               "%s: %s\n",
               o.stones, nodes, boards, all.updates, all.remote,
               all.messages, st.rounds, all.slowest, all.hash,
               !o.check    ? ""
               : sequential ? ", checked against a sequential build"
                            : ", checked by the negamax equation",
               !o.check ? "not checked"
               : ok     ? "OK"
                        : "WRONG");
    }
    aw_orca_ok(orca_end(), "orca_end");
    for (int n = 0; n <= o.stones; n++) {
        free(db[n]);
    }
    pan_end();
    return ok || !o.check ? 0 : 1;
}
