/*
 * pps_mpi_perf.c - MPI-level numbers for the paper's Table 5, measured as
 * pps_panda_perf measures Panda and the LCI benchmarks measure LCI:
 *   latency      half the round trip of MPI_Send/MPI_Recv ping-pong of
 *                --size bytes between ranks 0 and 1;
 *   throughput   rank 0 sends --tput-size byte messages with MPI_Send;
 *                rank 1 keeps 8 MPI_Irecv posted ahead (so data lands in
 *                place: one copy) and acknowledges the last;
 *   bcast-lat    MPI_Bcast of an empty message from rank 0; receivers note
 *                MPI_Wtime() when it returns and send it to rank 0;
 *   bcast-tput   MPI_Bcast of --tput-size bytes, repeated; every receiver
 *                acknowledges the last.
 * Rank 0 prints the results and, with --csv FILE, appends rows (metrics
 * lat, tput, bcast_lat, bcast_tput).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench_common.h"
#include "pps_perf.h"

#define WINDOW   8
#define TAG_DATA 1
#define TAG_ACK  2

static pps_perf_opts_t o = PPS_PERF_DEFAULTS;
static int rank, size;

static void report(const char *metric, double value_us, size_t bytes,
                   double mb_s)
{
    pps_perf_report(&o, "pps_mpi", metric, value_us, bytes, mb_s);
}

static void latency(char *buf)
{
    long iters = o.iters > 0 ? o.iters : 1000;
    int n = (int)o.size;
    double t0 = 0;
    for (long i = 0; i < o.warmup + iters; i++) {
        if (i == o.warmup) {
            t0 = MPI_Wtime();
        }
        if (rank == 0) {
            MPI_Send(buf, n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(buf, n, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(buf, n, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        }
    }
    report("lat", (MPI_Wtime() - t0) * 1e6 / (double)iters / 2.0,
           (size_t)o.size, -1);
}

/* Rank 1's side: n messages, always WINDOW receives posted ahead. */
static void receive_stream(char *buf, long n)
{
    MPI_Request req[WINDOW];
    int bytes = (int)o.tput_size;
    for (long i = 0; i < n + WINDOW; i++) {
        int k = (int)(i % WINDOW);
        if (i >= WINDOW && i - WINDOW < n) {
            MPI_Wait(&req[k], MPI_STATUS_IGNORE);
        }
        if (i < n) {
            MPI_Irecv(buf + (size_t)k * (size_t)bytes, bytes, MPI_BYTE, 0,
                      TAG_DATA, MPI_COMM_WORLD, &req[k]);
        }
    }
}

static void throughput(char *buf)
{
    size_t bytes = (size_t)o.tput_size;
    long iters = o.iters > 0 ? o.iters : (long)(2 * 1048576 / bytes) + 1;
    char ack = 0;
    if (rank == 0) {
        for (long i = 0; i < o.warmup; i++) {
            MPI_Send(buf, (int)bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
        }
        MPI_Recv(&ack, 1, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters; i++) {
            MPI_Send(buf, (int)bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
        }
        MPI_Recv(&ack, 1, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        double secs = MPI_Wtime() - t0;
        report("tput", secs * 1e6 / (double)iters, bytes,
               (double)iters * (double)bytes / secs / 1e6);
    } else if (rank == 1) {
        receive_stream(buf, o.warmup);
        MPI_Send(&ack, 1, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
        receive_stream(buf, iters);
        MPI_Send(&ack, 1, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
    }
}

static void bcast_latency(void)
{
    long iters = o.iters > 0 ? o.iters : 50;
    double sum = 0;
    char dummy = 0;
    for (long i = 0; i < o.warmup + iters; i++) {
        if (rank == 0) {
            bench_compute(o.gap_us * 1e-6);
            double t0 = MPI_Wtime(), latest = t0;
            MPI_Bcast(&dummy, 0, MPI_BYTE, 0, MPI_COMM_WORLD);
            for (int r = 1; r < size; r++) {
                double t;
                MPI_Recv(&t, 1, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_ACK,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                latest = t > latest ? t : latest;
            }
            if (i >= o.warmup) {
                sum += latest - t0;
            }
        } else {
            MPI_Bcast(&dummy, 0, MPI_BYTE, 0, MPI_COMM_WORLD);
            double t = MPI_Wtime();
            MPI_Send(&t, 1, MPI_DOUBLE, 0, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    report("bcast_lat", sum * 1e6 / (double)iters, 0, -1);
}

static void acks_to_root(void)
{
    char ack = 0;
    if (rank != 0) {
        MPI_Send(&ack, 1, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
        return;
    }
    for (int r = 1; r < size; r++) {
        MPI_Recv(&ack, 1, MPI_BYTE, MPI_ANY_SOURCE, TAG_ACK, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
}

static void bcast_throughput(char *buf)
{
    size_t bytes = (size_t)o.tput_size;
    long iters = o.iters > 0 ? o.iters : (long)(1048576 / bytes) + 1;
    for (long i = 0; i < o.warmup; i++) {
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    acks_to_root();
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    acks_to_root();
    double secs = MPI_Wtime() - t0;
    report("bcast_tput", secs * 1e6 / (double)iters, bytes,
           (double)iters * (double)bytes / secs / 1e6);
}

int main(int argc, char **argv)
{
    static const bench_info_t info = {
        "pps_mpi_perf",
        "MPI one-way latency, throughput and broadcast (paper Table 5)",
        "lci-run -n 64 --decomp rxno-mni --profile myrinet-1999 --compute "
        "zero ./bench/pps_mpi_perf [options]",
        "p2p tests use ranks 0 and 1; broadcast tests every rank."};
    pps_perf_parse(&info, &o, NULL, argc, argv);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if ((o.lat || o.tput) && size < 2) {
        bench_fail("the p2p tests need at least 2 nodes");
    }
    size_t cap = (size_t)(o.size > o.tput_size ? o.size : o.tput_size);
    char *buf = calloc(WINDOW, cap);
    if (buf == NULL) {
        bench_fail("out of memory");
    }
    if (rank == 0) {
        printf("# pps_mpi_perf: MPI on Panda-ST, %s, %d nodes\n",
               lci_decomp_name(), size);
    }
    if (o.lat) {
        latency(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (o.tput) {
        throughput(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (o.bcast_lat) {
        bcast_latency();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (o.bcast_tput) {
        bcast_throughput(buf);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
