/*
 * bandwidth.c - unidirectional bandwidth against message size, as OSU's
 * osu_bw measures it: rank 0 posts --window MPI_Isend of one size to rank
 * 1, which has as many MPI_Irecv posted; after MPI_Waitall rank 1 answers
 * with a 4-byte acknowledgement, and rank 0 starts the next window.  Sizes
 * are the powers of two from --min to --max.  Each size runs --warmup
 * windows untimed, then as many timed windows as carry --bytes bytes
 * (at least 2, at most --iters).  Prints "bw SIZE MB/s" per size, MB/s
 * being 10^6 bytes of payload per simulated second, and "wall SIZE S":
 * the real seconds the simulator spent on the size, from the barrier
 * that starts it to the one that starts the next (to the end of the
 * last), which shows where each simulator's time goes.
 *
 *   bandwidth [--min BYTES] [--max BYTES] [--window N] [--iters N]
 *             [--warmup N] [--bytes BYTES]
 *
 * As in osu_bw, the window's messages share one buffer on each side.
 * Part of bench/sim-compare; see simcmp.h for the output.
 */
#include "simcmp.h"

int main(int argc, char **argv)
{
    long min = 1, max = 4L << 20, window = 16, iters = 100, warmup = 2;
    long bytes = 16L << 20;
    int rank, nranks;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; i++) {
        if (!simcmp_opt(argc, argv, &i, "--min", &min) &&
            !simcmp_opt(argc, argv, &i, "--max", &max) &&
            !simcmp_opt(argc, argv, &i, "--window", &window) &&
            !simcmp_opt(argc, argv, &i, "--iters", &iters) &&
            !simcmp_opt(argc, argv, &i, "--warmup", &warmup) &&
            !simcmp_opt(argc, argv, &i, "--bytes", &bytes)) {
            simcmp_usage(rank, argv[i],
                         "--min BYTES, --max BYTES, --window N, --iters N, "
                         "--warmup N or --bytes BYTES");
        }
    }
    if (nranks < 2 || min < 1 || max < min || window < 1 || iters < 2) {
        if (rank == 0) {
            fprintf(stderr, "bandwidth: needs 2 ranks, 1 <= --min <= --max, "
                            "--window >= 1, --iters >= 2\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc((size_t)max, 1);
    MPI_Request *req = calloc((size_t)window, sizeof *req);
    if (buf == NULL || req == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int ack = 0;
    long messages = 0;
    double total = 0, real_start = 0;
    long real_size = 0;

    for (long size = min; size <= max; size *= 2) {
        long n = bytes / (window * size);
        n = n < 2 ? 2 : n > iters ? iters : n;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            double now = simcmp_real_s();
            if (real_size > 0) {
                printf("wall %ld %.6f\n", real_size, now - real_start);
            }
            real_start = now;
            real_size = size;
        }
        double t0 = MPI_Wtime();
        for (long it = 0; it < warmup + n; it++) {
            if (it == warmup) {
                t0 = MPI_Wtime();
            }
            if (rank == 0) {
                buf[0] = (char)it;
                for (long w = 0; w < window; w++) {
                    MPI_Isend(buf, (int)size, MPI_BYTE, 1, 3, MPI_COMM_WORLD,
                              &req[w]);
                }
                MPI_Waitall((int)window, req, MPI_STATUSES_IGNORE);
                MPI_Recv(&ack, 1, MPI_INT, 1, 4, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                for (long w = 0; w < window; w++) {
                    MPI_Irecv(buf, (int)size, MPI_BYTE, 0, 3, MPI_COMM_WORLD,
                              &req[w]);
                }
                MPI_Waitall((int)window, req, MPI_STATUSES_IGNORE);
                if (buf[0] != (char)it) {
                    fprintf(stderr, "bandwidth: size %ld, window %ld: wrong "
                            "data\n", size, it);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
                MPI_Send(&ack, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        total += t;
        messages += (warmup + n) * (window + 1);
        if (rank == 0) {
            printf("bw %ld %.3f\n", size,
                   (double)(n * window * size) / t / 1e6);
            fflush(stdout);
        }
        if (size > max / 2) {
            break; /* no overflow past the largest size */
        }
    }
    if (rank == 0) {
        printf("wall %ld %.6f\n", real_size, simcmp_real_s() - real_start);
        printf("messages %ld\n", messages);
        printf("sim_s %.9f\n", total);
        fflush(stdout);
    }
    simcmp_memory(rank);
    free(req);
    free(buf);
    MPI_Finalize();
    return 0;
}
