/*
 * qr.c - QR factorisation with column pivoting by Householder reflections,
 * the paper's QR (an MPI program; it uses only mpi.h and the C library).
 *
 * Usage: lci-run -n N ./qr [--quick] [--size S] [--no-check]
 *
 * The default size is the paper's 1024 x 1024; --quick is 128 x 128.
 *
 * The columns of an S x S matrix are dealt out round-robin.  Step k picks
 * the remaining column of largest norm (two allreduces: the largest norm,
 * then the smallest column index that has it), swaps it into place, and
 * the rank that owns column k computes its Householder reflection and
 * broadcasts it; every rank applies it to its own columns.  So the root
 * of the broadcast changes almost every step, and the allreduce makes
 * every step a synchronisation, as the paper describes.
 *
 * The check: the columns go to rank 0, which tests Q^T (A P) x = R x for a
 * pseudo-random vector x (A regenerated, Q applied as its reflections),
 * relative to |A| |x|.  Rank 0 prints "qr: ... time_s T ... OK"; exit
 * status 0 iff the check holds.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static void fail(const char *what)
{
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "qr: rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void *alloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (p == NULL) {
        fail("out of memory");
    }
    return p;
}

/* The matrix: uneven, full rank, the same on every rank. */
static double start_value(long i, long j)
{
    unsigned long h = (unsigned long)(i * 7919 + j * 104729 + 13);
    h = (h ^ (h >> 7)) * 2654435761ul;
    return (double)(h % 20011) / 20011.0 - 0.5 + (i == j ? 2.0 : 0.0);
}

static double dot(const double *a, const double *b, long n)
{
    double s = 0.0;
    for (long i = 0; i < n; i++) {
        s += a[i] * b[i];
    }
    return s;
}

/* Applies I - tau v v^T (v over rows k..n-1) to column c. */
static void reflect(double *c, const double *v, double tau, long k, long n)
{
    double w = tau * dot(&v[k], &c[k], n - k);
    for (long i = k; i < n; i++) {
        c[i] -= w * v[i];
    }
}

typedef struct {
    long n;
    int rank, size;
    long local;   /* my columns: j = rank + size * lj */
    double *cols; /* [lj][n], column-major */
    long *perm;   /* original column at each position (same everywhere) */
} qr_t;

static double *col(qr_t *q, long j)
{
    return &q->cols[(j / q->size) * q->n];
}

static int owner(const qr_t *q, long j)
{
    return (int)(j % q->size);
}

/* Step k, part 1: the column of largest remaining norm among k..n-1. */
static long pivot(qr_t *q, long k)
{
    double best = -1.0, gbest = 0.0;
    long pick = LONG_MAX;
    for (long j = k + (q->size + q->rank - k % q->size) % q->size; j < q->n;
         j += q->size) {
        double *c = col(q, j);
        double norm = dot(&c[k], &c[k], q->n - k);
        if (norm > best) {
            best = norm;
            pick = j;
        }
    }
    MPI_Allreduce(&best, &gbest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int mine = best == gbest && pick < INT_MAX ? (int)pick : INT_MAX, piv = 0;
    MPI_Allreduce(&mine, &piv, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return piv;
}

/* Step k, part 2: columns k and p trade places. */
static void swap_columns(qr_t *q, long k, long p)
{
    long t = q->perm[k];
    q->perm[k] = q->perm[p];
    q->perm[p] = t;
    if (p == k) {
        return;
    }
    int ok = owner(q, k), op = owner(q, p), n = (int)q->n;
    if (ok == q->rank && op == q->rank) {
        double *a = col(q, k), *b = col(q, p);
        for (long i = 0; i < q->n; i++) {
            double x = a[i];
            a[i] = b[i];
            b[i] = x;
        }
    } else if (ok == q->rank || op == q->rank) {
        long mine = ok == q->rank ? k : p;
        int other = ok == q->rank ? op : ok;
        double *tmp = alloc((size_t)q->n, sizeof *tmp);
        MPI_Request req[2];
        MPI_Irecv(tmp, n, MPI_DOUBLE, other, 5, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(col(q, mine), n, MPI_DOUBLE, other, 5, MPI_COMM_WORLD,
                  &req[1]);
        if (MPI_Waitall(2, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
            fail("the column swap failed");
        }
        memcpy(col(q, mine), tmp, (size_t)q->n * sizeof *tmp);
        free(tmp);
    }
}

/* Step k, part 3: column k's reflection, from its owner to everyone.  The
 * owner keeps R's diagonal in place and v below it; v[k..n-1] and tau
 * travel in buf[n + 1]. */
static void reflection(qr_t *q, long k, double *buf)
{
    long n = q->n;
    if (owner(q, k) == q->rank) {
        double *c = col(q, k);
        double norm = sqrt(dot(&c[k], &c[k], n - k));
        double alpha = c[k] > 0 ? -norm : norm;
        memcpy(&buf[k], &c[k], (size_t)(n - k) * sizeof *buf);
        buf[k] -= alpha;
        double vv = dot(&buf[k], &buf[k], n - k);
        buf[n] = vv > 0 ? 2.0 / vv : 0.0;
        c[k] = alpha; /* below it, c[i] = v[i] already; v[k] is in buf */
    }
    MPI_Bcast(&buf[k], (int)(n - k + 1), MPI_DOUBLE, owner(q, k),
              MPI_COMM_WORLD);
}

/* Rank 0: every column in place (cols[n][n]) and the reflections' v[k]
 * and tau; tests Q^T (A P) x = R x.  Returns the relative error. */
static double residual(const qr_t *q, const double *all, const double *vk,
                       const double *tau)
{
    long n = q->n;
    double *x = alloc((size_t)n, sizeof *x), *b = alloc((size_t)n, sizeof *b);
    double *v = alloc((size_t)n, sizeof *v), anorm = 0.0, xnorm = 0.0;
    unsigned long seed = 12345;
    for (long j = 0; j < n; j++) {
        seed = seed * 6364136223846793005ul + 1442695040888963407ul;
        x[j] = (double)(seed >> 40) / (double)(1ul << 24) - 0.5;
        xnorm += x[j] * x[j];
    }
    for (long j = 0; j < n; j++) { /* b = A P x */
        for (long i = 0; i < n; i++) {
            double a = start_value(i, q->perm[j]);
            b[i] += a * x[j];
            anorm += a * a;
        }
    }
    for (long k = 0; k < n; k++) { /* b = Q^T b */
        const double *c = &all[k * n];
        v[k] = vk[k];
        for (long i = k + 1; i < n; i++) {
            v[i] = c[i];
        }
        reflect(b, v, tau[k], k, n);
    }
    double err = 0.0;
    for (long i = 0; i < n; i++) { /* R x, row i */
        double r = 0.0;
        for (long j = i; j < n; j++) {
            r += all[j * n + i] * x[j];
        }
        err = fmax(err, fabs(r - b[i]));
    }
    free(x);
    free(b);
    free(v);
    return err / (sqrt(anorm) * sqrt(xnorm));
}

static int usage(int rank, const char *bad)
{
    if (rank == 0) {
        fprintf(
            stderr,
            "qr: %s\nusage: qr [--quick] [--size S (2..8192)] [--no-check]\n",
            bad);
    }
    return 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    qr_t q = {.n = 1024}; /* the paper's size */
    int check = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &q.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &q.size);
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--no-check") == 0) {
            check = 0;
        } else if (strcmp(argv[i], "--quick") == 0) {
            q.n = 128;
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            q.n = strtol(argv[++i], &end, 10);
            if (*end != '\0' || q.n < 2 || q.n > 8192) {
                MPI_Finalize();
                return usage(q.rank, "--size expects 2..8192");
            }
        } else {
            MPI_Finalize();
            return usage(q.rank, "unknown option");
        }
    }
    long n = q.n;
    q.local = n / q.size + (q.rank < n % q.size ? 1 : 0);
    q.cols =
        alloc((size_t)(q.local > 0 ? q.local : 1) * (size_t)n, sizeof *q.cols);
    q.perm = alloc((size_t)n, sizeof *q.perm);
    for (long j = 0; j < n; j++) {
        q.perm[j] = j;
        if (owner(&q, j) == q.rank) {
            for (long i = 0; i < n; i++) {
                col(&q, j)[i] = start_value(i, j);
            }
        }
    }
    double *buf = alloc((size_t)n + 1, sizeof *buf);
    double *vk = alloc((size_t)n, sizeof *vk),
           *tau = alloc((size_t)n, sizeof *tau);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long k = 0; k < n; k++) {
        swap_columns(&q, k, pivot(&q, k));
        reflection(&q, k, buf);
        vk[k] = buf[k];
        tau[k] = buf[n];
        for (long j = k + 1 + (q.size + q.rank - (k + 1) % q.size) % q.size;
             j < n; j += q.size) {
            reflect(col(&q, j), buf, buf[n], k, n);
        }
    }
    double mine = MPI_Wtime() - t0, slowest = 0.0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    int ok = 1;
    if (check) {
        /* My columns to rank 0, one message per rank. */
        if (q.rank != 0) {
            MPI_Send(q.cols, (int)(q.local * n), MPI_DOUBLE, 0, 6,
                     MPI_COMM_WORLD);
        } else {
            double *all = alloc((size_t)(n * n), sizeof *all);
            for (int r = 0; r < q.size; r++) {
                long cnt = n / q.size + (r < n % q.size ? 1 : 0);
                double *from = q.cols, *got = NULL;
                if (r != 0) {
                    got =
                        alloc((size_t)(cnt * n > 0 ? cnt * n : 1), sizeof *got);
                    MPI_Recv(got, (int)(cnt * n), MPI_DOUBLE, r, 6,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    from = got;
                }
                for (long lj = 0; lj < cnt; lj++) {
                    memcpy(&all[(r + lj * q.size) * n], &from[lj * n],
                           (size_t)n * sizeof *all);
                }
                free(got);
            }
            double err = residual(&q, all, vk, tau);
            ok = err < 1e-12 * (double)n;
            if (!ok) {
                fprintf(stderr, "qr: |Q^T A P x - R x| / |A| |x| = %.3g\n",
                        err);
            }
            free(all);
        }
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (q.rank == 0) {
        printf("qr: %ld x %ld, %d ranks: time_s %.6f: %s\n", n, n, q.size,
               slowest,
               !check ? "not checked"
               : ok   ? "OK"
                      : "WRONG");
    }
    free(buf);
    free(vk);
    free(tau);
    free(q.cols);
    free(q.perm);
    MPI_Finalize();
    return ok ? 0 : 1;
}
