/*
 * leq.c - the paper's linear equation solver (LEQ), an Orca program: Jacobi
 * iterations on a dense, diagonally dominant system A x = b.
 *
 * Usage: lci-run -n N ./leq [--quick] [--equations E] [--tolerance T]
 *                           [--max-iters I] [--seed S]
 *
 * Every node owns a block of rows (E / N of them, the first E % N nodes one
 * more) and generates only those rows of A and b, from the seed.  The
 * candidate solution x lives in one replicated Orca object.  Each
 * iteration every node computes its part of x_{i+1} from the whole of x_i
 * and writes it into the object with one write operation: Orca sends it to
 * every copy with Panda's totally-ordered broadcast (a sequence number by
 * LCI fetch-and-add on node 0, then an LCI multicast), so with 1000
 * equations on 64 nodes every node broadcasts its 128-byte part, all at
 * the same time, as in the paper (section 6.3).  The write also carries the
 * node's largest change; a guarded read then waits until every part of
 * x_{i+1} has arrived and returns the largest change of all, so every node
 * decides on convergence identically from the same replicated state.
 * The object keeps two vectors, x_i and x_{i+1}: a node cannot write a
 * part of x_{i+2} before every node has written x_{i+1}, which each does
 * only after reading x_i.
 *
 * Check: every row's residual |(A x - b)_i| within what convergence
 * guarantees (A's rows are built so that Jacobi contracts the error by 0.9
 * in the max norm: 9 x tolerance x the row's sum of |A[i][j]|), each node
 * its own rows, gathered in a second replicated object; every node's copy
 * of x bit-identical (a hash of it, compared there); and convergence
 * before --max-iters.
 * Rank 0 prints "leq: ... time_s T ...: OK"; exit status 0 iff all holds.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "orca.h"
#include "panda.h"

typedef struct {
    long equations, max_iters;
    double tolerance;
    uint64_t seed;
    int check;
} leq_opts_t;

static int rank, nodes;

static void fail(const char *fmt, const char *what)
{
    fprintf(stderr, "leq: node %d: ", rank);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    exit(1);
}

static void orca_ok(int r, const char *what)
{
    if (r < 0) {
        fprintf(stderr, "leq: node %d: %s: %s (%s)\n", rank, what,
                orca_strerror(r), orca_last_error());
        exit(1);
    }
}

/* ---- the replicated solution vector ------------------------------------ */

static long neq; /* equations: the object's vectors have neq entries */

/* x_j lives in vec[j % 2]; parts[j % 2] of it have arrived for round[]. */
typedef struct {
    int64_t round[2];
    int32_t parts[2];
    int32_t pad;
    double change[2]; /* the largest change any part reported */
    double vec[];     /* 2 * neq */
} xvec_t;

static int32_t xvec_put(xvec_t *self, int64_t j, int32_t first, double change,
                        const void *data, size_t len)
{
    int k = (int)(j % 2);
    if (self->round[k] != j) {
        self->round[k] = j;
        self->parts[k] = 0;
        self->change[k] = 0.0;
    }
    memcpy(&self->vec[k * neq + first], data, len);
    self->change[k] = change > self->change[k] ? change : self->change[k];
    return ++self->parts[k];
}

/* Guard of fetch: every part of x_j has arrived. */
static int32_t xvec_complete(xvec_t *self, int64_t j, int64_t dest)
{
    (void)dest;
    int k = (int)(j % 2);
    return self->round[k] == j && self->parts[k] == nodes;
}

/* Copies x_j to dest (an address in the invoking node: a read operation
 * runs on the local copy) and returns the largest change. */
static double xvec_fetch(xvec_t *self, int64_t j, int64_t dest)
{
    int k = (int)(j % 2);
    memcpy((void *)(intptr_t)dest, &self->vec[k * neq],
           (size_t)neq * sizeof(double));
    return self->change[k];
}

enum {
    XVEC_PUT,
    XVEC_FETCH
};

/* ---- the check's sums --------------------------------------------------- */

typedef struct {
    double worst, resid2, b2, slowest;
    uint64_t xhash;
    int32_t count, differ;
} sums_t;

static int32_t sums_add(sums_t *self, double worst, double resid2, double b2,
                        double time_s, int64_t xhash)
{
    self->worst = worst > self->worst ? worst : self->worst;
    if (self->count > 0 && self->xhash != (uint64_t)xhash) {
        self->differ = 1;
    }
    self->xhash = (uint64_t)xhash;
    self->resid2 += resid2;
    self->b2 += b2;
    self->slowest = time_s > self->slowest ? time_s : self->slowest;
    return ++self->count;
}

static int32_t sums_all_in(sums_t *self, int32_t what)
{
    (void)what;
    return self->count == nodes;
}

/* what: 0 the relative residual |Ax - b| / |b|, 1 the slowest node's
 * time, 2 whether the copies of x differed, 3 the worst row's residual
 * over its bound. */
static double sums_get(sums_t *self, int32_t what)
{
    switch (what) {
    case 0:
        return sqrt(self->resid2) / sqrt(self->b2);
    case 1:
        return self->slowest;
    case 2:
        return (double)self->differ;
    default:
        return self->worst;
    }
}

enum {
    SUMS_ADD,
    SUMS_GET
};

static void define_types(orca_type_t **xt_p, orca_type_t **st_p)
{
    static const orca_vtype_t put_args[] = {ORCA_INT64, ORCA_INT32, ORCA_DOUBLE,
                                            ORCA_BYTES};
    static const orca_vtype_t fetch_args[] = {ORCA_INT64, ORCA_INT64};
    static const orca_vtype_t add_args[] = {
        ORCA_DOUBLE, ORCA_DOUBLE, ORCA_DOUBLE, ORCA_DOUBLE, ORCA_INT64};
    static const orca_vtype_t get_args[] = {ORCA_INT32};
    orca_type_t *xt, *st;
    orca_ok(orca_type_create("xvec",
                             sizeof(xvec_t) + 2 * (size_t)neq * sizeof(double),
                             NULL, &xt),
            "orca_type_create");
    orca_ok(orca_op_define(xt, "put", ORCA_WRITE, ORCA_FUNC(xvec_put),
                           ORCA_INT32, 4, put_args),
            "orca_op_define");
    orca_ok(orca_op_define(xt, "fetch", ORCA_READ, ORCA_FUNC(xvec_fetch),
                           ORCA_DOUBLE, 2, fetch_args),
            "orca_op_define");
    orca_ok(orca_op_guard(xt, XVEC_FETCH, ORCA_FUNC(xvec_complete)),
            "orca_op_guard");
    orca_ok(orca_type_create("sums", sizeof(sums_t), NULL, &st),
            "orca_type_create");
    orca_ok(orca_op_define(st, "add", ORCA_WRITE, ORCA_FUNC(sums_add),
                           ORCA_INT32, 5, add_args),
            "orca_op_define");
    orca_ok(orca_op_define(st, "get", ORCA_READ, ORCA_FUNC(sums_get),
                           ORCA_DOUBLE, 1, get_args),
            "orca_op_define");
    orca_ok(orca_op_guard(st, SUMS_GET, ORCA_FUNC(sums_all_in)),
            "orca_op_guard");
    *xt_p = xt;
    *st_p = st;
}

/* ---- the system ------------------------------------------------------------
 */

/* A deterministic pseudo-random number in [0, 1) for entry (i, j). */
static double entry(uint64_t seed, long i, long j)
{
    uint64_t z = seed ^ ((uint64_t)i * 0x9e3779b97f4a7c15u) ^
                 ((uint64_t)j * 0xc2b2ae3d27d4eb4fu);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

/* Row i of A (off the diagonal: entries in [0, 1); on it: their sum over
 * 0.9, so that Jacobi's iteration matrix has spectral radius near 0.9) and
 * b[i] in [-1, 1). */
static void make_row(const leq_opts_t *o, long i, double *row, double *bi)
{
    double off = 0.0;
    for (long j = 0; j < o->equations; j++) {
        row[j] = j == i ? 0.0 : entry(o->seed, i, j);
        off += row[j];
    }
    row[i] = off / 0.9;
    *bi = 2.0 * entry(o->seed ^ 0x5bd1e995u, i, -1) - 1.0;
}

static uint64_t hash_of(const double *x, long n)
{
    uint64_t h = 1469598103934665603u;
    const unsigned char *p = (const unsigned char *)x;
    for (size_t k = 0; k < (size_t)n * sizeof *x; k++) {
        h = (h ^ p[k]) * 1099511628211u;
    }
    return h;
}

/* ---- options ----------------------------------------------------------------
 */

static int usage(const char *bad)
{
    if (rank == 0) {
        fprintf(stderr,
                "leq: %s\nusage: leq [--quick] [--equations E (1..100000, at "
                "least the nodes)] [--tolerance T (0..1)] [--max-iters I "
                "(1..1000000)] [--seed S] [--no-check]\n",
                bad);
    }
    return 2;
}

static int parse(int argc, char **argv, leq_opts_t *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) {
            o->equations = 128;
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
        if (strcmp(a, "--equations") == 0) {
            o->equations = strtol(v, &end, 10);
            if (*end != '\0' || o->equations < 1 || o->equations > 100000) {
                return usage("--equations expects 1..100000");
            }
        } else if (strcmp(a, "--max-iters") == 0) {
            o->max_iters = strtol(v, &end, 10);
            if (*end != '\0' || o->max_iters < 1 || o->max_iters > 1000000) {
                return usage("--max-iters expects 1..1000000");
            }
        } else if (strcmp(a, "--tolerance") == 0) {
            o->tolerance = strtod(v, &end);
            if (*end != '\0' || !(o->tolerance > 0 && o->tolerance < 1)) {
                return usage("--tolerance expects a number in (0, 1)");
            }
        } else if (strcmp(a, "--seed") == 0) {
            o->seed = strtoull(v, &end, 10);
            if (*end != '\0' || *v == '-') {
                return usage("--seed expects a non-negative integer");
            }
        } else {
            return usage("unknown option");
        }
    }
    if (o->equations < nodes) {
        return usage("--equations must be at least the number of nodes");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (pan_init(&argc, &argv, PAN_MT) != PAN_OK) {
        fprintf(stderr, "leq: pan_init: %s\n", pan_last_error());
        return 1;
    }
    rank = pan_rank();
    nodes = pan_size();
    leq_opts_t o = {.equations = 1000,
                    .max_iters = 100000,
                    .tolerance = 1e-8,
                    .seed = 1,
                    .check = 1};
    int bad = parse(argc, argv, &o);
    if (bad != 0) {
        pan_end();
        return bad;
    }
    neq = o.equations;
    long rows = neq / nodes + (rank < neq % nodes ? 1 : 0);
    long first =
        rank * (neq / nodes) + (rank < neq % nodes ? rank : neq % nodes);
    double *a = malloc((size_t)(rows * neq) * sizeof *a);
    double *b = malloc((size_t)rows * sizeof *b);
    double *x = calloc((size_t)neq, sizeof *x); /* x_0 = 0 */
    double *mine = malloc((size_t)rows * sizeof *mine + 1);
    if (a == NULL || b == NULL || x == NULL || mine == NULL) {
        fail("%s", "out of memory");
    }
    for (long r = 0; r < rows; r++) {
        make_row(&o, first + r, &a[r * neq], &b[r]);
    }
    orca_ok(orca_init(), "orca_init");
    orca_type_t *xt, *st;
    define_types(&xt, &st);
    orca_object_t *xobj, *sobj;
    orca_ok(orca_object_create(xt, ORCA_REPLICATED, &xobj),
            "orca_object_create");
    orca_ok(orca_object_create(st, ORCA_REPLICATED, &sobj),
            "orca_object_create");

    if (pan_barrier() != PAN_OK) {
        fail("pan_barrier: %s", pan_last_error());
    }
    double t0 = lci_wtime(), change = 1.0;
    long j = 0;
    while (change >= o.tolerance && j < o.max_iters) {
        /* x_{j+1} for my rows: (b - (A - D) x_j) / D. */
        double most = 0.0;
        for (long r = 0; r < rows; r++) {
            const double *row = &a[r * neq];
            double s = b[r];
            for (long c = 0; c < neq; c++) {
                s -= c == first + r ? 0.0 : row[c] * x[c];
            }
            mine[r] = s / row[first + r];
            double d = fabs(mine[r] - x[first + r]);
            most = d > most ? d : most;
        }
        j++;
        orca_value_t put[4] = {orca_int64(j), orca_int32((int32_t)first),
                               orca_double(most),
                               orca_bytes(mine, (size_t)rows * sizeof *mine)};
        orca_ok(orca_invoke(xobj, XVEC_PUT, put, 4, NULL), "put");
        orca_value_t fetch[2] = {orca_int64(j), orca_int64((intptr_t)x)}, res;
        orca_ok(orca_invoke(xobj, XVEC_FETCH, fetch, 2, &res), "fetch");
        change = res.u.f64;
    }
    double mytime = lci_wtime() - t0;

    /* The check: my rows' residuals, and a hash of my copy of x.  Every
     * row's off-diagonal sum is 0.9 of its diagonal, so Jacobi contracts
     * the error by 0.9 in the max norm and, once a step changes x by less
     * than tol, x is within 9 tol of the solution: row i's residual is
     * then at most 9 tol times the sum of |A[i][j]|.  worst: the largest
     * residual over that bound (at most 1, up to rounding). */
    double resid2 = 0.0, b2 = 0.0, worst = 0.0;
    for (long r = 0; r < rows; r++) {
        double s = -b[r], norm = 0.0;
        for (long c = 0; c < neq; c++) {
            s += a[r * neq + c] * x[c];
            norm += fabs(a[r * neq + c]);
        }
        resid2 += s * s;
        b2 += b[r] * b[r];
        double q = fabs(s) / (9.0 * o.tolerance * norm);
        worst = q > worst ? q : worst;
    }
    orca_value_t add[5] = {orca_double(worst), orca_double(resid2),
                           orca_double(b2), orca_double(mytime),
                           orca_int64((int64_t)hash_of(x, neq))},
                 res;
    orca_ok(orca_invoke(sobj, SUMS_ADD, add, 5, NULL), "add");
    orca_value_t what = orca_int32(0);
    orca_ok(orca_invoke(sobj, SUMS_GET, &what, 1, &res), "get");
    double rel = res.u.f64;
    what = orca_int32(1);
    orca_ok(orca_invoke(sobj, SUMS_GET, &what, 1, &res), "get");
    double slowest = res.u.f64;
    what = orca_int32(2);
    orca_ok(orca_invoke(sobj, SUMS_GET, &what, 1, &res), "get");
    int differ = res.u.f64 != 0.0;
    what = orca_int32(3);
    orca_ok(orca_invoke(sobj, SUMS_GET, &what, 1, &res), "get");
    double worst_all = res.u.f64;

    int converged = change < o.tolerance;
    int ok = converged && !differ && worst_all <= 1.0 + 1e-9;
    if (rank == 0) {
        if (!converged) {
            fprintf(stderr,
                    "leq: no convergence in %ld iterations (last "
                    "change %.3g)\n",
                    j, change);
        }
        if (differ) {
            fprintf(stderr, "leq: the nodes' copies of x differ\n");
        }
        if (worst_all > 1.0 + 1e-9) {
            fprintf(stderr,
                    "leq: a row's residual is %.3g times its bound "
                    "(9 x tolerance x the row's sum of |A[i][j]|)\n",
                    worst_all);
        }
        printf("leq: %ld equations, %d nodes: %ld iterations, time_s %.6f, "
               "residual %.3g: %s\n",
               neq, nodes, j, slowest, rel,
               !o.check ? "not checked"
               : ok     ? "OK"
                        : "WRONG");
    }
    orca_ok(orca_end(), "orca_end");
    free(mine);
    free(x);
    free(b);
    free(a);
    pan_end();
    return ok || !o.check ? 0 : 1;
}
