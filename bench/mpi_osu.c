/*
 * mpi_osu.c - MPI benchmarks in the patterns of the OSU micro-benchmarks,
 * one program for every test, written against mpi.h alone so that the same
 * source builds with lci-mpicc and with another MPI's mpicc (bench/
 * live-compare runs both side by side):
 *
 *   latency    ping-pong between ranks 0 and 1: half the round trip (us);
 *   bw         rank 0 sends --window messages with MPI_Isend, rank 1 has
 *              as many MPI_Irecv posted, then a 4-byte answer (MB/s);
 *   bibw       the same in both directions at once (MB/s, both together);
 *   mbw_mr     ranks 0..n/2-1 each stream to their partner n/2+i as in bw:
 *              the aggregate bandwidth (MB/s) and the message rate (/s);
 *   barrier, bcast, reduce, allreduce, gather, scatter, allgather,
 *              alltoall: the average time of one call over every rank (us)
 *              (barrier: one line, no size).
 *
 * Sizes run from --min to --max, doubling (--max: 1 MiB for latency, bw
 * and bibw, 64 KiB for the rest, whose buffers grow with the ranks).  As
 * in OSU, sizes over 8 KiB run a tenth of --iters and --warmup.  With --check every message
 * carries a pattern of (sender, iteration, byte) that the receiver checks,
 * and every collective's result is checked against what the ranks' inputs
 * give computed alone; a mismatch stops the run (MPI_Abort) with a message
 * naming the test, the size and the rank.  Rank 0 prints
 * "# mpi_osu TEST" and one "SIZE VALUE" line per size, as OSU does.
 *
 *   mpi_osu TEST [--min B] [--max B] [--iters N] [--warmup N]
 *           [--window W] [--check]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define TAG_DATA 100
#define TAG_ACK  101

typedef struct {
    const char *test;
    long min, max, iters, warmup, window;
    int check;
} osu_opts_t;

static osu_opts_t o;
static int rank, size;

/* The timed and the untimed iterations at a message size. */
static long iters_at(long bytes)
{
    long n = bytes > 8192 ? o.iters / 10 : o.iters;
    return n > 0 ? n : 1;
}

static long warmup_at(long bytes)
{
    return bytes > 8192 ? o.warmup / 10 : o.warmup;
}

static void die(const char *what, long bytes)
{
    fprintf(stderr, "mpi_osu: %s: rank %d: FAILED at %ld bytes\n", what,
            rank, bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void *alloc_or_die(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "mpi_osu: rank %d: no memory for %zu bytes\n", rank,
                bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* The byte a sender puts at offset i of its message number iter. */
static unsigned char pattern(int sender, long iter, size_t i)
{
    return (unsigned char)(sender * 31 + iter * 7 + (long)i * 13 + 1);
}

static void fill(unsigned char *buf, size_t n, int sender, long iter)
{
    if (o.check) {
        for (size_t i = 0; i < n; i++) {
            buf[i] = pattern(sender, iter, i);
        }
    }
}

static void verify(const unsigned char *buf, size_t n, int sender, long iter,
                   const char *what)
{
    if (!o.check) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != pattern(sender, iter, i)) {
            die(what, (long)n);
        }
    }
}

static void print_header(const char *unit)
{
    if (rank == 0) {
        printf("# mpi_osu %s, %d ranks\n# %-10s %s\n", o.test, size, "size",
               unit);
    }
}

static void print_row(long bytes, double value)
{
    if (rank == 0) {
        /* Sub-microsecond latencies differ in the third decimal. */
        printf(value < 10 ? "%-12ld %.3f\n" : "%-12ld %.2f\n", bytes, value);
        fflush(stdout);
    }
}

/* ---- point to point -------------------------------------------------------- */

static void run_latency(unsigned char *sbuf, unsigned char *rbuf)
{
    print_header("latency (us)");
    for (long n = o.min; n <= o.max; n = n ? n * 2 : 1) {
        long iters = iters_at(n), warmup = warmup_at(n);
        double t0 = 0;
        for (long it = 0; it < warmup + iters; it++) {
            if (it == warmup) {
                t0 = MPI_Wtime();
            }
            if (rank == 0) {
                fill(sbuf, (size_t)n, 0, it);
                MPI_Send(sbuf, (int)n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                verify(rbuf, (size_t)n, 1, it, "latency");
            } else if (rank == 1) {
                MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                verify(rbuf, (size_t)n, 0, it, "latency");
                fill(sbuf, (size_t)n, 1, it);
                MPI_Send(sbuf, (int)n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
            }
        }
        print_row(n, (MPI_Wtime() - t0) * 1e6 / (2.0 * (double)iters));
    }
}

/* One bandwidth round: `window` messages from me to peer (if sending) and
 * from peer to me (if receiving), then a short answer to the sender. */
static void stream(unsigned char *sbuf, unsigned char *rbuf, long n,
                   int peer, int sending, int receiving, long it,
                   MPI_Request *req)
{
    int k = 0;
    if (receiving) {
        for (long w = 0; w < o.window; w++) {
            MPI_Irecv(rbuf + (size_t)w * (size_t)n, (int)n, MPI_BYTE, peer,
                      TAG_DATA, MPI_COMM_WORLD, &req[k++]);
        }
    }
    if (sending) {
        for (long w = 0; w < o.window; w++) {
            unsigned char *b = sbuf + (size_t)w * (size_t)n;
            fill(b, (size_t)n, rank, it * o.window + w);
            MPI_Isend(b, (int)n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                      &req[k++]);
        }
    }
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    if (receiving) {
        for (long w = 0; w < o.window; w++) {
            verify(rbuf + (size_t)w * (size_t)n, (size_t)n, peer,
                   it * o.window + w, o.test);
        }
    }
    int ack = 0;
    if (receiving) {
        MPI_Send(&ack, 1, MPI_INT, peer, TAG_ACK, MPI_COMM_WORLD);
    }
    if (sending) {
        MPI_Recv(&ack, 1, MPI_INT, peer, TAG_ACK, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
}

/* bw (pairs 1, one way), bibw (pairs 1, both ways), mbw_mr (size/2 pairs,
 * one way): prints MB/s, and for mbw_mr also messages per second. */
static void run_bandwidth(unsigned char *sbuf, unsigned char *rbuf,
                          int pairs, int both)
{
    MPI_Request *req = alloc_or_die(2 * (size_t)o.window * sizeof *req);
    print_header(pairs > 1 ? "MB/s, messages/s" : "MB/s");
    /* bw, bibw: rank 0 to rank 1; mbw_mr: rank i to rank i + pairs */
    int sender = rank < pairs, receiver = rank >= pairs && rank < 2 * pairs;
    int peer = sender ? rank + pairs : rank - pairs;
    int active = sender || receiver;
    for (long n = o.min ? o.min : 1; n <= o.max; n *= 2) {
        long iters = iters_at(n), warmup = warmup_at(n);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = 0;
        for (long it = 0; it < warmup + iters && active; it++) {
            if (it == warmup) {
                t0 = MPI_Wtime();
            }
            stream(sbuf, rbuf, n, peer, sender || both, receiver || both, it,
                   req);
        }
        double t = active ? MPI_Wtime() - t0 : 0, slowest;
        MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        double msgs = (double)pairs * (double)iters * (double)o.window *
                      (both ? 2.0 : 1.0);
        if (rank == 0) {
            double mbs = msgs * (double)n / slowest / 1e6;
            if (pairs > 1) {
                printf("%-12ld %.2f %.0f\n", n, mbs, msgs / slowest);
                fflush(stdout);
            } else {
                print_row(n, mbs);
            }
        }
    }
    free(req);
}

/* ---- collectives ----------------------------------------------------------- */

/* What rank r contributes at element i of a collective's input. */
static int32_t input(int r, long i)
{
    /* unsigned: it wraps, as the sums of the reductions below do */
    return (int32_t)((uint32_t)r * 1000003u + (uint32_t)i * 7u + 1u);
}

static void check_ints(const int32_t *got, long count, int from_rank,
                       const char *what, long bytes)
{
    if (!o.check) {
        return;
    }
    for (long i = 0; i < count; i++) {
        if (got[i] != input(from_rank, i)) {
            die(what, bytes);
        }
    }
}

/* One call of a collective on `count` ints per rank (per pair of ranks
 * for alltoall), checked when asked. */
static void collective_once(const char *t, int32_t *in, int32_t *out,
                            long count, long bytes)
{
    int c = (int)count;
    if (strcmp(t, "barrier") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(t, "bcast") == 0) {
        int32_t *b = rank == 0 ? in : out;
        MPI_Bcast(b, c, MPI_INT32_T, 0, MPI_COMM_WORLD);
        check_ints(b, count, 0, t, bytes);
    } else if (strcmp(t, "reduce") == 0 || strcmp(t, "allreduce") == 0) {
        int all = t[0] == 'a';
        if (all) {
            MPI_Allreduce(in, out, c, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
        } else {
            MPI_Reduce(in, out, c, MPI_INT32_T, MPI_SUM, 0, MPI_COMM_WORLD);
        }
        if (o.check && (all || rank == 0)) {
            for (long i = 0; i < count; i++) {
                uint32_t sum = 0; /* wraps as the ints do */
                for (int r = 0; r < size; r++) {
                    sum += (uint32_t)input(r, i);
                }
                if ((uint32_t)out[i] != sum) {
                    die(t, bytes);
                }
            }
        }
    } else if (strcmp(t, "gather") == 0 || strcmp(t, "allgather") == 0) {
        int all = t[0] == 'a';
        if (all) {
            MPI_Allgather(in, c, MPI_INT32_T, out, c, MPI_INT32_T,
                          MPI_COMM_WORLD);
        } else {
            MPI_Gather(in, c, MPI_INT32_T, out, c, MPI_INT32_T, 0,
                       MPI_COMM_WORLD);
        }
        for (int r = 0; r < size && (all || rank == 0); r++) {
            check_ints(out + (size_t)r * (size_t)count, count, r, t, bytes);
        }
    } else if (strcmp(t, "scatter") == 0) {
        /* rank 0 holds every rank's block: block r is input(r, .) */
        MPI_Scatter(in, c, MPI_INT32_T, out, c, MPI_INT32_T, 0,
                    MPI_COMM_WORLD);
        check_ints(out, count, rank, t, bytes);
    } else { /* alltoall: block r of rank s is input(s * size + r, .) */
        MPI_Alltoall(in, c, MPI_INT32_T, out, c, MPI_INT32_T, MPI_COMM_WORLD);
        for (int s = 0; s < size; s++) {
            check_ints(out + (size_t)s * (size_t)count, count,
                       s * size + rank, t, bytes);
        }
    }
}

/* Sets up the inputs of test t for `count` ints per block. */
static void collective_inputs(const char *t, int32_t *in, long count)
{
    long blocks = 1;
    if (strcmp(t, "scatter") == 0 && rank == 0) {
        blocks = size;
    } else if (strcmp(t, "alltoall") == 0) {
        blocks = size;
    }
    for (long b = 0; b < blocks; b++) {
        int who = strcmp(t, "scatter") == 0 ? (int)b
                  : strcmp(t, "alltoall") == 0 ? rank * size + (int)b
                                               : rank;
        for (long i = 0; i < count; i++) {
            in[(size_t)b * (size_t)count + (size_t)i] = input(who, i);
        }
    }
}

static void run_collective(const char *t)
{
    int barrier = strcmp(t, "barrier") == 0;
    long first = barrier ? 0 : (o.min < 4 ? 4 : o.min);
    long last = barrier ? 0 : o.max;
    size_t block = (size_t)(last / 4 > 0 ? last / 4 : 1);
    int32_t *in = alloc_or_die(block * (size_t)size * sizeof *in);
    int32_t *out = alloc_or_die(block * (size_t)size * sizeof *out);
    print_header("average latency (us)");
    for (long n = first; n <= last; n = n ? n * 2 : 1) {
        long count = n / 4;
        collective_inputs(t, in, count);
        long iters = iters_at(n), warmup = warmup_at(n);
        double t0 = 0;
        for (long it = 0; it < warmup + iters; it++) {
            if (it == warmup) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            collective_once(t, in, out, count, n);
        }
        double mine = (MPI_Wtime() - t0) * 1e6 / (double)iters, sum;
        MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        print_row(n, sum / size);
        if (barrier) {
            break;
        }
    }
    free(in);
    free(out);
}

/* ---- options --------------------------------------------------------------- */

static const char *const tests[] = {
    "latency", "bw", "bibw", "mbw_mr", "barrier", "bcast", "reduce",
    "allreduce", "gather", "scatter", "allgather", "alltoall"};
#define NTESTS (sizeof tests / sizeof tests[0])

static int usage(const char *why)
{
    if (rank == 0) {
        fprintf(stderr,
                "mpi_osu: %s\nusage: mpi_osu TEST [--min BYTES] [--max BYTES] "
                "[--iters N] [--warmup N] [--window W] [--check]\nTEST: ",
                why);
        for (size_t i = 0; i < NTESTS; i++) {
            fprintf(stderr, "%s%s", tests[i], i + 1 < NTESTS ? ", " : "\n");
        }
    }
    return 2;
}

static int parse(int argc, char **argv)
{
    o = (osu_opts_t){.min = 0, .max = -1, .iters = 1000, .warmup = 100,
                     .window = 64};
    if (argc < 2) {
        return usage("which test?");
    }
    o.test = argv[1];
    size_t k = 0;
    while (k < NTESTS && strcmp(tests[k], o.test) != 0) {
        k++;
    }
    if (k == NTESTS) {
        return usage("unknown test");
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0) {
            o.check = 1;
            continue;
        }
        if (i + 1 >= argc) {
            return usage("an option lacks its value");
        }
        char *end;
        long v = strtol(argv[i + 1], &end, 10);
        if (*end != '\0' || v < 0) {
            return usage("an option's value is not a count");
        }
        if (strcmp(argv[i], "--min") == 0) {
            o.min = v;
        } else if (strcmp(argv[i], "--max") == 0) {
            o.max = v;
        } else if (strcmp(argv[i], "--iters") == 0 && v > 0) {
            o.iters = v;
        } else if (strcmp(argv[i], "--warmup") == 0) {
            o.warmup = v;
        } else if (strcmp(argv[i], "--window") == 0 && v > 0 && v <= 1024) {
            o.window = v;
        } else {
            return usage("unknown option or value out of range");
        }
        i++;
    }
    if (o.max < 0) { /* every rank's buffers fit one process, 64 nodes */
        o.max = k < 3 ? 1L << 20 : 1L << 16;
    }
    if (o.max < o.min || o.max > (1L << 26)) {
        return usage("--max must be at least --min and at most 64 MiB");
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad = parse(argc, argv);
    if (bad == 0 && size < 2) {
        bad = usage("needs at least 2 ranks");
    }
    if (bad == 0 && strcmp(o.test, "mbw_mr") == 0 && size % 2 != 0) {
        bad = usage("mbw_mr needs an even number of ranks");
    }
    if (bad != 0) {
        MPI_Finalize();
        return bad;
    }
    const char *t = o.test;
    if (strcmp(t, "latency") == 0 || strcmp(t, "bw") == 0 ||
        strcmp(t, "bibw") == 0 || strcmp(t, "mbw_mr") == 0) {
        size_t per = (size_t)(o.max > 0 ? o.max : 1);
        size_t n = strcmp(t, "latency") == 0 ? per : per * (size_t)o.window;
        unsigned char *sbuf = alloc_or_die(n), *rbuf = alloc_or_die(n);
        memset(sbuf, 0, n);
        memset(rbuf, 0, n);
        if (strcmp(t, "latency") == 0) {
            run_latency(sbuf, rbuf);
        } else {
            run_bandwidth(sbuf, rbuf, t[0] == 'm' ? size / 2 : 1,
                          strcmp(t, "bibw") == 0);
        }
        free(sbuf);
        free(rbuf);
    } else {
        run_collective(t);
    }
    MPI_Finalize();
    return 0;
}
