/*
 * mpi_coll.c - MPI node program: collectives checked against serial
 * results.
 *
 * Usage: lci-run -n N ./mpi_coll
 *
 * Every rank's contribution is a known function of (rank, index), so each
 * rank computes the serial result itself (a loop over ranks 0..N-1 in the
 * same type) and compares: MPI_Bcast from several roots, MPI_Reduce and
 * MPI_Allreduce (with and without MPI_IN_PLACE) for MPI_SUM, MPI_MIN and
 * MPI_MAX over MPI_CHAR, MPI_INT, MPI_LONG, MPI_FLOAT and MPI_DOUBLE.
 */
#include <string.h>

#include "mpi_node.h"

#define COUNT 37

static int rank, size;

/* Contribution of rank r at index i: small for char, fractional for
 * floating point so the order of a sum matters. */
#define VALUE(T, r, i) ((T)(((r)*7 + (i)*3) % 11) + (T)((r) % 3) / (T)4)

static void serial_sum_min_max(void);

#define CHECK_TYPE(T, MPIT, NAME)                                              \
    static void check_##NAME(void)                                             \
    {                                                                          \
        T mine[COUNT], out[COUNT], ref[3][COUNT];                              \
        MPI_Op ops[3] = {MPI_SUM, MPI_MIN, MPI_MAX};                           \
        for (int i = 0; i < COUNT; i++) {                                      \
            mine[i] = VALUE(T, rank, i);                                       \
            for (int o = 0; o < 3; o++) {                                      \
                ref[o][i] = VALUE(T, 0, i);                                    \
            }                                                                  \
            for (int r = 1; r < size; r++) {                                   \
                T v = VALUE(T, r, i);                                          \
                ref[0][i] = (T)(ref[0][i] + v);                                \
                ref[1][i] = v < ref[1][i] ? v : ref[1][i];                     \
                ref[2][i] = v > ref[2][i] ? v : ref[2][i];                     \
            }                                                                  \
        }                                                                      \
        for (int o = 0; o < 3; o++) {                                          \
            int root = (o + 1) % size;                                         \
            memset(out, 0, sizeof out);                                        \
            MPI_Reduce(mine, out, COUNT, MPIT, ops[o], root, MPI_COMM_WORLD);  \
            MPI_NODE_CHECK(rank != root ||                                     \
                               memcmp(out, ref[o], sizeof out) == 0,           \
                           "MPI_Reduce " #NAME " op %d differs", o);           \
            memset(out, 0, sizeof out);                                        \
            MPI_Allreduce(mine, out, COUNT, MPIT, ops[o], MPI_COMM_WORLD);     \
            MPI_NODE_CHECK(memcmp(out, ref[o], sizeof out) == 0,               \
                           "MPI_Allreduce " #NAME " op %d differs", o);        \
            memcpy(out, mine, sizeof out);                                     \
            MPI_Allreduce(MPI_IN_PLACE, out, COUNT, MPIT, ops[o],              \
                          MPI_COMM_WORLD);                                     \
            MPI_NODE_CHECK(memcmp(out, ref[o], sizeof out) == 0,               \
                           "MPI_Allreduce in place " #NAME " op %d differs",   \
                           o);                                                 \
            memcpy(out, mine, sizeof out);                                     \
            MPI_Reduce(rank == root ? MPI_IN_PLACE : mine, out, COUNT, MPIT,   \
                       ops[o], root, MPI_COMM_WORLD);                          \
            MPI_NODE_CHECK(rank != root ||                                     \
                               memcmp(out, ref[o], sizeof out) == 0,           \
                           "MPI_Reduce in place " #NAME " op %d differs", o);  \
        }                                                                      \
    }

CHECK_TYPE(char, MPI_CHAR, char)
CHECK_TYPE(int, MPI_INT, int)
CHECK_TYPE(long, MPI_LONG, long)
CHECK_TYPE(float, MPI_FLOAT, float)
CHECK_TYPE(double, MPI_DOUBLE, double)

static void serial_sum_min_max(void)
{
    check_char();
    check_int();
    check_long();
    check_float();
    check_double();
}

static void bcasts(void)
{
    enum {
        N = 5000
    };
    int *buf = malloc(N * sizeof(int));
    for (int root = 0; root < size && root < 3; root++) {
        for (int i = 0; i < N; i++) {
            buf[i] = rank == root ? root * 100000 + i : -1;
        }
        MPI_Bcast(buf, N, MPI_INT, root, MPI_COMM_WORLD);
        for (int i = 0; i < N; i++) {
            MPI_NODE_CHECK(buf[i] == root * 100000 + i,
                           "MPI_Bcast from %d: element %d is %d", root, i,
                           buf[i]);
        }
        double d = rank == root ? 0.25 * root : 0;
        MPI_Bcast(&d, 1, MPI_DOUBLE, root, MPI_COMM_WORLD);
        MPI_NODE_CHECK(d == 0.25 * root, "MPI_Bcast of a double gave %g", d);
    }
    free(buf);

    /* Back-to-back large broadcasts: the next one's packets arrive before
     * its call and wait for it, or, past Panda's limit, are queued. */
    enum { BIG = 512 * 1024 / sizeof(int), NBIG = 3 };
    int *big = malloc(BIG * sizeof(int));
    for (int k = 0; k < NBIG; k++) {
        for (int i = 0; i < (int)BIG; i++) {
            big[i] = rank == 0 ? k * 7 + i : -1;
        }
        MPI_Bcast(big, BIG, MPI_INT, 0, MPI_COMM_WORLD);
        for (int i = 0; i < (int)BIG; i++) {
            MPI_NODE_CHECK(big[i] == k * 7 + i,
                           "large MPI_Bcast %d: element %d is %d", k, i,
                           big[i]);
        }
    }
    free(big);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bcasts();
    MPI_Barrier(MPI_COMM_WORLD);
    serial_sum_min_max();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
