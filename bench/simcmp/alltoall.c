/*
 * alltoall.c - an all-to-all exchange on every rank, --rounds times: each
 * rank posts an MPI_Irecv from every other rank, then an MPI_Isend of
 * --size bytes to every other rank (to rank+1 first, rank+2 next, ...,
 * so that no rank is everyone's first destination), and waits for all.
 * (LCI's MPI subset has no MPI_Alltoall; this is the pairwise exchange an
 * MPI library does for it.)  Every message carries its sender and round,
 * checked on arrival.  Prints the mean simulated time of a round.
 *
 *   alltoall [--rounds N] [--size BYTES]
 *
 * Part of bench/sim-compare; see simcmp.h for the output.
 */
#include "simcmp.h"

static void stamp(char *p, long size, int src, long round)
{
    if (size >= 2) {
        p[0] = (char)src;
        p[1] = (char)round;
    }
}

int main(int argc, char **argv)
{
    long rounds = 20, size = 256;
    int rank, n;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int i = 1; i < argc; i++) {
        if (!simcmp_opt(argc, argv, &i, "--rounds", &rounds) &&
            !simcmp_opt(argc, argv, &i, "--size", &size)) {
            simcmp_usage(rank, argv[i], "--rounds N or --size BYTES");
        }
    }
    size_t sz = (size_t)size;
    char *sendbuf = calloc((size_t)n, sz + 1);
    char *recvbuf = calloc((size_t)n, sz + 1);
    MPI_Request *req = calloc(2 * (size_t)n, sizeof *req);
    if (sendbuf == NULL || recvbuf == NULL || req == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long r = 0; r < rounds; r++) {
        int nreq = 0;
        for (int k = 1; k < n; k++) {
            int src = (rank - k + n) % n;
            MPI_Irecv(recvbuf + (size_t)src * sz, (int)size, MPI_BYTE, src, 2,
                      MPI_COMM_WORLD, &req[nreq++]);
        }
        for (int k = 1; k < n; k++) {
            int dst = (rank + k) % n;
            stamp(sendbuf + (size_t)dst * sz, size, rank, r);
            MPI_Isend(sendbuf + (size_t)dst * sz, (int)size, MPI_BYTE, dst, 2,
                      MPI_COMM_WORLD, &req[nreq++]);
        }
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        for (int src = 0; src < n && size >= 2; src++) {
            const char *p = recvbuf + (size_t)src * sz;
            if (src != rank && (p[0] != (char)src || p[1] != (char)r)) {
                fprintf(stderr, "alltoall: rank %d, round %ld: wrong data "
                        "from rank %d\n", rank, r, src);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0) {
        printf("messages %ld\n", rounds * (long)n * (long)(n - 1));
        printf("sim_s %.9f\n", t);
        printf("round_us %.3f\n", rounds > 0 ? t * 1e6 / (double)rounds : 0.0);
        fflush(stdout);
    }
    simcmp_memory(rank);
    free(req);
    free(recvbuf);
    free(sendbuf);
    MPI_Finalize();
    return 0;
}
