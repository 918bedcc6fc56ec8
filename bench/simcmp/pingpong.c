/*
 * pingpong.c - MPI_Send/MPI_Recv ping-pong of --size bytes between ranks 0
 * and 1 (other ranks only join the barriers).  Prints the one-way latency
 * (half the mean simulated round trip) after --warmup round trips.
 *
 *   pingpong [--iters N] [--warmup N] [--size BYTES]
 *
 * Part of bench/sim-compare; see simcmp.h for the output.
 */
#include "simcmp.h"

int main(int argc, char **argv)
{
    long iters = 20000, warmup = 100, size = 8;
    int rank, nranks;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; i++) {
        if (!simcmp_opt(argc, argv, &i, "--iters", &iters) &&
            !simcmp_opt(argc, argv, &i, "--warmup", &warmup) &&
            !simcmp_opt(argc, argv, &i, "--size", &size)) {
            simcmp_usage(rank, argv[i], "--iters N, --warmup N or --size BYTES");
        }
    }
    if (nranks < 2) {
        if (rank == 0) {
            fprintf(stderr, "pingpong: needs 2 ranks\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc((size_t)size + 1, 1);
    if (buf == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < warmup + iters; i++) {
        if (i == warmup) {
            t0 = MPI_Wtime();
        }
        if (rank == 0) {
            buf[0] = (char)i;
            MPI_Send(buf, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (size > 0 && buf[0] != (char)(i + 1)) {
                fprintf(stderr, "pingpong: round trip %ld: wrong data\n", i);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else if (rank == 1) {
            MPI_Recv(buf, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            buf[0]++;
            MPI_Send(buf, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0) {
        printf("messages %ld\n", 2 * (warmup + iters));
        printf("sim_s %.9f\n", t);
        printf("latency_us %.3f\n", iters > 0 ? t * 1e6 / (2.0 * (double)iters) : 0.0);
        fflush(stdout);
    }
    simcmp_memory(rank);
    free(buf);
    MPI_Finalize();
    return 0;
}
