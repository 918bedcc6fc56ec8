/*
 * sor.c - red-black successive over-relaxation on a square grid, the
 * paper's SOR (an MPI program; it uses only mpi.h and the C library).
 *
 * Usage: lci-run -n N ./sor [--quick] [--size S] [--iters I] [--omega W]
 *                          [--no-check]
 *
 * The S x S interior of an (S+2) x (S+2) grid is cut into blocks of rows,
 * one per rank.  As in the paper's SOR, each iteration first exchanges
 * the border rows with the neighbouring ranks (once: one row each way),
 * then updates the red points (i + j even) and the black ones; a
 * single-element allreduce of the largest change ends the iteration, as a
 * convergence test would.  The black sweep therefore sees the neighbours'
 * border rows as they were before this iteration's red sweep: the result
 * depends on where the blocks meet, as it does in the paper's program.
 * Every rank checks its own rows against a sequential emulation of
 * exactly that, all ranks at once: it runs the same iterations alone on
 * a window of the grid that reaches 2I rows beyond its block, cut into
 * the same blocks (a colour sweep carries a change at most one row
 * further, so the window's cut-off edges cannot reach the block in I
 * iterations), with an update written apart from the parallel kernel,
 * and compares every row's sum (to 1e-9: the two round differently).
 * Rank 0 prints "sor: ... time_s T ... OK"; exit status 0 iff every
 * rank's check holds.  --quick runs 384 x 384 for 10 iterations; the
 * default is the paper's 1536 x 1536 (50 iterations).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

typedef struct {
    long size, iters;
    double omega;
    int check;
} sor_opts_t;

static void fail(const char *what)
{
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "sor: rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int usage(int rank, const char *bad)
{
    if (rank == 0) {
        fprintf(
            stderr,
            "sor: %s\nusage: sor [--quick] [--size S (2..65536)] [--iters I "
            "(1..1000000)] [--omega W (0..2)] [--no-check]\n",
            bad);
    }
    return 2;
}

static int parse(int argc, char **argv, int rank, sor_opts_t *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--no-check") == 0) {
            o->check = 0;
            continue;
        }
        if (strcmp(a, "--quick") == 0) {
            o->size = 384;
            o->iters = 10;
            continue;
        }
        if (i + 1 >= argc) {
            return usage(rank, "an option lacks its value");
        }
        char *end;
        const char *v = argv[++i];
        if (strcmp(a, "--size") == 0) {
            o->size = strtol(v, &end, 10);
            if (*end != '\0' || o->size < 2 || o->size > 65536) {
                return usage(rank, "--size expects 2..65536");
            }
        } else if (strcmp(a, "--iters") == 0) {
            o->iters = strtol(v, &end, 10);
            if (*end != '\0' || o->iters < 1 || o->iters > 1000000) {
                return usage(rank, "--iters expects 1..1000000");
            }
        } else if (strcmp(a, "--omega") == 0) {
            o->omega = strtod(v, &end);
            if (*end != '\0' || !(o->omega > 0 && o->omega < 2)) {
                return usage(rank, "--omega expects a number in (0, 2)");
            }
        } else {
            return usage(rank, "unknown option");
        }
    }
    return 0;
}

/* The starting grid: a fixed boundary hot along the top edge, with a
 * gradient, and an interior of uneven values, so that every point's
 * update depends on its neighbours from the first iteration on (also
 * across the blocks' edges). */
static double start_value(long i, long j, long n)
{
    if (i == 0) {
        return 1.0 + (double)j / (double)(n + 1);
    }
    if (i == n + 1 || j == 0 || j == n + 1) {
        return 0.0;
    }
    return (double)((i * 31 + j * 17) % 97) / 97.0;
}

/* Updates the points of one colour in rows lo..hi (grid rows, width n+2)
 * of g; returns the largest change.  Rows outside a block's own rows
 * blo..bhi are read from old: the copies the block received in this
 * iteration's exchange (for a rank's own grid, old is g itself, whose
 * ghost rows no sweep changes). */
static double sweep(double *g, const double *old, long n, long lo, long hi,
                    long blo, long bhi, int colour, double omega)
{
    long w = n + 2;
    double most = 0.0;
    for (long i = lo; i <= hi; i++) {
        const double *up = (i - 1 < blo ? old : g) + (i - 1) * w;
        const double *down = (i + 1 > bhi ? old : g) + (i + 1) * w;
        for (long j = 1 + (i + 1 + colour) % 2; j <= n; j += 2) {
            double *p = &g[i * w + j];
            double next = (1.0 - omega) * *p +
                          omega * 0.25 * (up[j] + down[j] + p[-1] + p[1]);
            double d = fabs(next - *p);
            most = d > most ? d : most;
            *p = next;
        }
    }
    return most;
}

/* The check's own update of one colour in rows lo..hi, written apart
 * from sweep() (and in another algebraic form) so that a fault in the
 * parallel kernel shows: the old value moved omega of the way to its
 * neighbours' mean.  Rows outside blo..bhi come from old, as in sweep(). */
static void check_sweep(double *g, const double *old, long n, long lo, long hi,
                        long blo, long bhi, int colour, double omega)
{
    long w = n + 2;
    for (long i = lo; i <= hi; i++) {
        for (long j = 1; j <= n; j++) {
            if ((i + j) % 2 != colour) {
                continue;
            }
            double north = (i - 1 < blo ? old : g)[(i - 1) * w + j];
            double south = (i + 1 > bhi ? old : g)[(i + 1) * w + j];
            double mean =
                (north + south + g[i * w + j - 1] + g[i * w + j + 1]) / 4.0;
            g[i * w + j] += omega * (mean - g[i * w + j]);
        }
    }
}

/* The block of rank r: its first grid row and its number of rows. */
static void block_of(long n, int size, int r, long *first, long *rows)
{
    *rows = n / size + (r < n % size ? 1 : 0);
    *first = 1 + r * (n / size) + (r < n % size ? r : n % size);
}

static double row_sum(const double *row, long n)
{
    double s = 0.0;
    for (long j = 1; j <= n; j++) {
        s += row[j];
    }
    return s;
}

/* Exchanges boundary rows with the neighbouring ranks: my first row goes
 * up, my last row down; the ghost rows around my block come in. */
static void exchange(double *g, long n, long rows, int rank, int size)
{
    long w = n + 2;
    MPI_Request req[4];
    int nreq = 0;
    if (rank > 0) {
        MPI_Irecv(&g[0], (int)w, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD,
                  &req[nreq++]);
        MPI_Isend(&g[w], (int)w, MPI_DOUBLE, rank - 1, 2, MPI_COMM_WORLD,
                  &req[nreq++]);
    }
    if (rank < size - 1) {
        MPI_Irecv(&g[(rows + 1) * w], (int)w, MPI_DOUBLE, rank + 1, 2,
                  MPI_COMM_WORLD, &req[nreq++]);
        MPI_Isend(&g[rows * w], (int)w, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD,
                  &req[nreq++]);
    }
    if (MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
        fail("the boundary exchange failed");
    }
}

/* Grid rows first..last as the parallel run computes them, emulated
 * alone from rows a..b (with their neighbours held at the start values),
 * cut into the same blocks; their sums in sums[last - first + 1]. */
static void sequential(const sor_opts_t *o, int size, long first, long last,
                       double *sums)
{
    long n = o->size, w = n + 2, reach = 2 * o->iters;
    long a = first - reach > 1 ? first - reach : 1;
    long b = last + reach < n ? last + reach : n;
    size_t cells = (size_t)((b - a + 3) * w);
    double *g = malloc(cells * sizeof *g), *old = malloc(cells * sizeof *old);
    if (g == NULL || old == NULL) {
        fail("out of memory for the sequential check");
    }
    for (long i = a - 1; i <= b + 1; i++) {
        for (long j = 0; j < w; j++) {
            g[(i - a + 1) * w + j] = start_value(i, j, n);
        }
    }
    /* Window row k is grid row a - 1 + k: colours shift with a. */
    for (long it = 0; it < o->iters; it++) {
        memcpy(old, g, cells * sizeof *g); /* the exchange */
        for (int r = 0; r < size; r++) {
            long bf, br;
            block_of(n, size, r, &bf, &br);
            long lo = bf > a ? bf : a, hi = bf + br - 1 < b ? bf + br - 1 : b;
            if (lo > hi) {
                continue;
            }
            for (int colour = 0; colour < 2; colour++) {
                check_sweep(g, old, n, lo - a + 1, hi - a + 1, bf - a + 1,
                            bf + br - a, (int)((colour + a + 1) % 2), o->omega);
            }
        }
    }
    for (long i = first; i <= last; i++) {
        sums[i - first] = row_sum(&g[(i - a + 1) * w], n);
    }
    free(old);
    free(g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sor_opts_t o = {.size = 1536, .iters = 50, .omega = 1.5, .check = 1};
    int bad = parse(argc, argv, rank, &o);
    if (bad != 0) {
        MPI_Finalize();
        return bad;
    }
    long n = o.size, w = n + 2;
    if (n < size) {
        if (rank == 0) {
            fprintf(stderr, "sor: %ld rows cannot go to %d ranks\n", n, size);
        }
        MPI_Finalize();
        return 2;
    }
    /* My block of rows: first .. first + rows - 1 (grid rows from 1). */
    long rows, first;
    block_of(n, size, rank, &first, &rows);
    double *g = malloc((size_t)((rows + 2) * w) * sizeof *g);
    if (g == NULL) {
        fail("out of memory for the grid");
    }
    for (long i = 0; i < rows + 2; i++) {
        for (long j = 0; j < w; j++) {
            g[i * w + j] = start_value(first - 1 + i, j, n);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), change = 0.0;
    for (long it = 0; it < o.iters; it++) {
        double most = 0.0;
        exchange(g, n, rows, rank, size);
        for (int colour = 0; colour < 2; colour++) {
            /* Colours follow the global row number: shift by my first row. */
            double d = sweep(g, g, n, 1, rows, 1, rows,
                             (int)((colour + first + 1) % 2), o.omega);
            most = d > most ? d : most;
        }
        MPI_Allreduce(&most, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    double mine = MPI_Wtime() - t0, slowest = 0.0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* Every rank checks its own rows; rank 0 reports for all. */
    int ok = 1, all_ok = 1;
    if (o.check) {
        double *want = malloc((size_t)rows * sizeof *want);
        if (want == NULL) {
            fail("out of memory for the check");
        }
        sequential(&o, size, first, first + rows - 1, want);
        for (long i = 0; i < rows && ok; i++) {
            double got = row_sum(&g[(i + 1) * w], n);
            /* The two kernels round differently: agree to 1e-9. */
            if (!(fabs(got - want[i]) <= 1e-9 * (fabs(want[i]) + 1.0))) {
                fprintf(stderr,
                        "sor: row %ld sums to %.17g, the sequential run to "
                        "%.17g\n",
                        first + i, got, want[i]);
                ok = 0;
            }
        }
        free(want);
    }
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("sor: %ld x %ld, %ld iterations, %d ranks: time_s %.6f, last "
               "change %.3g: %s\n",
               n, n, o.iters, size, slowest, change,
               !o.check ? "not checked"
               : all_ok ? "OK"
                        : "WRONG");
    }
    free(g);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
