/*
 * bcast.c - MPI_Bcast of --size bytes from rank 0 to every rank, --iters
 * times back to back (no barrier in between, as an application's
 * broadcasts come).  Every broadcast carries its number, checked by every
 * receiver.  Prints the mean simulated time per broadcast.
 *
 *   bcast [--iters N] [--size BYTES]
 *
 * Part of bench/sim-compare; see simcmp.h for the output.
 */
#include "simcmp.h"

int main(int argc, char **argv)
{
    long iters = 500, size = 1024;
    int rank, n;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int i = 1; i < argc; i++) {
        if (!simcmp_opt(argc, argv, &i, "--iters", &iters) &&
            !simcmp_opt(argc, argv, &i, "--size", &size)) {
            simcmp_usage(rank, argv[i], "--iters N or --size BYTES");
        }
    }
    char *buf = calloc((size_t)size + 1, 1);
    if (buf == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (rank == 0 && size >= 2) {
            buf[0] = (char)i;
            buf[size - 1] = (char)(i + 7);
        }
        MPI_Bcast(buf, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (size >= 2 &&
            (buf[0] != (char)i || buf[size - 1] != (char)(i + 7))) {
            fprintf(stderr, "bcast: rank %d, broadcast %ld: wrong data\n",
                    rank, i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    /* The root's broadcasts may return before the last receiver has the
     * data: wait for everyone before reading the clock. */
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (rank == 0) {
        printf("messages %ld\n", iters * (long)(n - 1));
        printf("sim_s %.9f\n", t);
        printf("bcast_us %.3f\n", iters > 0 ? t * 1e6 / (double)iters : 0.0);
        fflush(stdout);
    }
    simcmp_memory(rank);
    free(buf);
    MPI_Finalize();
    return 0;
}
