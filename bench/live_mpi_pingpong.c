/*
 * live_mpi_pingpong.c - the same ping-pong as live_pingpong.c over MPI, for
 * comparing the live platform with the machine's MPI (Open MPI's shared
 * memory transport on one node).  Not part of the build: bench/live-compare
 * compiles it with mpicc when there is one.
 *
 * Prints "latency_us X" (half the median round trip of --bytes bytes) and
 * "bandwidth_MBps Y" (--msgs messages of --msg bytes, one answer at the
 * end).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long iters = 20000, warmup = 2000, bytes = 8, msg = 65536, msgs = 2000;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        long v = atol(argv[i + 1]);
        if (strcmp(argv[i], "--iters") == 0) {
            iters = v;
        } else if (strcmp(argv[i], "--bytes") == 0) {
            bytes = v;
        } else if (strcmp(argv[i], "--msg") == 0) {
            msg = v;
        } else if (strcmp(argv[i], "--msgs") == 0) {
            msgs = v;
        }
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = calloc((size_t)(msg > bytes ? msg : bytes), 1);
    double *rtt = calloc((size_t)iters, sizeof *rtt);
    for (long i = 0; i < warmup + iters; i++) {
        double t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, (int)bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, (int)bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
        if (i >= warmup) {
            rtt[i - warmup] = MPI_Wtime() - t0;
        }
    }
    double mbps = 0;
    for (int round = 0; round < 2; round++) {
        double t0 = MPI_Wtime();
        for (long m = 0; m < msgs; m++) {
            if (rank == 0) {
                MPI_Send(buf, (int)msg, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            } else if (rank == 1) {
                MPI_Recv(buf, (int)msg, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            }
        }
        if (rank == 0) {
            MPI_Recv(buf, 0, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Send(buf, 0, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
        }
        mbps = (double)msg * (double)msgs / (MPI_Wtime() - t0) / 1e6;
    }
    if (rank == 0) {
        qsort(rtt, (size_t)iters, sizeof *rtt, cmp_double);
        printf("latency_us %.3f\nbandwidth_MBps %.1f\n",
               rtt[iters / 2] / 2 * 1e6, mbps);
    }
    free(buf);
    free(rtt);
    MPI_Finalize();
    return 0;
}
