/*
 * lci_simspeed.c - how fast the simulator runs: an all-to-all of P packets
 * in total over every node, zero-cost compute, timed on the wall clock.
 *
 *   lci-run -n 64 --compute zero ./bench/lci_simspeed [--packets 1000000]
 *           [--burst 16] [--size 16]
 *
 * Every node sends its share of the packets round-robin to every other node
 * (skipping itself), polling after each burst, then polls until it has
 * received its share.  Node 0 prints the wall time, the simulated time and
 * simulated packets per wall-clock second.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lci.h"

static uint64_t received;

static lci_upcall_result_t count_upcall(lci_rpacket_t *packet, void *arg)
{
    (void)packet;
    (void)arg;
    received++;
    return LCI_UPCALL_RELEASE;
}

static void check(lci_status_t st, const char *what)
{
    if (st < 0) {
        fprintf(stderr, "lci_simspeed: %s: %s (%s)\n", what, lci_strerror(st),
                lci_last_error());
        exit(1);
    }
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long parse_option(int argc, char **argv, const char *name, long def,
                         long lo, long hi)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            char *end;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end != '\0' || v < lo || v > hi) {
                fprintf(stderr,
                        "lci_simspeed: %s expects an integer from %ld to "
                        "%ld\n",
                        name, lo, hi);
                exit(2);
            }
            return v;
        }
    }
    return def;
}

int main(int argc, char **argv)
{
    /* Options come in pairs: a name, then its value. */
    for (int i = 1; i < argc; i += 2) {
        if (strcmp(argv[i], "--help") == 0) {
            printf("usage: lci-run -n N ./lci_simspeed [--packets P] "
                   "[--burst B] [--size BYTES]\n");
            return 0;
        }
        if (strcmp(argv[i], "--packets") != 0 &&
            strcmp(argv[i], "--burst") != 0 && strcmp(argv[i], "--size") != 0) {
            fprintf(stderr,
                    "lci_simspeed: unknown option '%s' (expected --packets, "
                    "--burst or --size)\n",
                    argv[i]);
            return 2;
        }
    }
    long packets = parse_option(argc, argv, "--packets", 1000000, 1, 1L << 34);
    long burst = parse_option(argc, argv, "--burst", 16, 1, 1 << 20);
    long size = parse_option(argc, argv, "--size", 16, 0, 65536);
    check(lci_init(&argc, &argv), "lci_init");
    int me = lci_rank(), n = lci_size();
    if (n < 2) {
        fprintf(stderr, "lci_simspeed: needs at least 2 nodes\n");
        return 2;
    }
    if ((size_t)size > lci_packet_capacity()) {
        fprintf(stderr, "lci_simspeed: --size %ld exceeds the capacity %zu\n",
                size, lci_packet_capacity());
        return 2;
    }
    check(lci_upcall_set(count_upcall, NULL), "lci_upcall_set");
    /* Node k sends packets k, k+n, k+2n, ... of the P in total. */
    uint64_t mine = (uint64_t)packets / (uint64_t)n +
                    ((uint64_t)me < (uint64_t)packets % (uint64_t)n);
    /* Packets whose destination is me: sender s's j-th packet goes to
     * (s + 1 + j mod (n-1)) mod n, so I get the ones with j = (me - s - 1)
     * mod n, counted modulo n - 1. */
    uint64_t expect = 0;
    for (int s = 0; s < n; s++) {
        if (s == me) {
            continue;
        }
        uint64_t theirs = (uint64_t)packets / (uint64_t)n +
                          ((uint64_t)s < (uint64_t)packets % (uint64_t)n);
        uint64_t r = (uint64_t)((me - s - 1 + n) % n); /* in 0..n-2 */
        expect += theirs / (uint64_t)(n - 1) + (r < theirs % (uint64_t)(n - 1));
    }
    char payload[65536];
    memset(payload, me, (size_t)size);
    check(lci_barrier(), "lci_barrier");
    double w0 = wall_seconds(), v0 = lci_wtime();
    for (uint64_t j = 0; j < mine; j++) {
        lci_packet_t *p;
        check(lci_packet_alloc(&p), "lci_packet_alloc");
        check(lci_packet_write(p, 0, payload, (size_t)size),
              "lci_packet_write");
        int dst = (me + 1 + (int)(j % (uint64_t)(n - 1))) % n;
        check(lci_send(p, dst, (size_t)size), "lci_send");
        if ((j + 1) % (uint64_t)burst == 0) {
            check(lci_poll(), "lci_poll");
        }
    }
    while (received < expect) {
        check(lci_poll_wait(), "lci_poll_wait");
    }
    check(lci_barrier(), "lci_barrier");
    double w1 = wall_seconds(), v1 = lci_wtime();
    if (received != expect) {
        fprintf(stderr, "lci_simspeed: node %d received %llu, expected %llu\n",
                me, (unsigned long long)received, (unsigned long long)expect);
        return 1;
    }
    if (me == 0) {
        printf("lci_simspeed: %d nodes, %ld packets of %ld bytes, %s: wall "
               "%.3f s, simulated %.3f ms, %.0f simulated packets per "
               "second\n",
               n, packets, size, lci_decomp_name(), w1 - w0, (v1 - v0) * 1e3,
               (double)packets / (w1 - w0));
    }
    check(lci_finalize(), "lci_finalize");
    return 0;
}
