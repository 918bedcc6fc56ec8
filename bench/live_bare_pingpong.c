/*
 * live_bare_pingpong.c - the physical limits the live platform is compared
 * with, on this machine, without LCI: two processes ping-pong a counter
 * through one shared cache line (one-way latency, half the median round
 * trip), and pass 64 KiB messages through a shared buffer with one copy in
 * and one copy out (bandwidth).
 *
 *   live_bare_pingpong [--iters N] [--msg BYTES] [--msgs N]
 *
 * Prints "latency_us X" and "bandwidth_MBps Y".
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live_clock.h"

typedef struct {
    _Alignas(64) _Atomic long ping;
    _Alignas(64) _Atomic long pong;
} bare_lines_t;


static long arg_long(int argc, char **argv, const char *name, long def)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return atol(argv[i + 1]);
        }
    }
    return def;
}

int main(int argc, char **argv)
{
    long iters = arg_long(argc, argv, "--iters", 200000);
    long msg = arg_long(argc, argv, "--msg", 65536);
    long msgs = arg_long(argc, argv, "--msgs", 5000);
    if (iters < 1 || msg < 1 || msgs < 1) {
        fprintf(stderr, "usage: live_bare_pingpong [--iters N] [--msg BYTES] "
                        "[--msgs N] (positive numbers)\n");
        return 2;
    }
    size_t bytes = sizeof(bare_lines_t) + (size_t)msg;
    bare_lines_t *l = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    double *rtt = calloc((size_t)iters, sizeof *rtt);
    char *buf = malloc((size_t)msg);
    if (l == MAP_FAILED || rtt == NULL || buf == NULL) {
        perror("live_bare_pingpong");
        return 1;
    }
    char *shared = (char *)(l + 1);
    memset(buf, 1, (size_t)msg);
    pid_t child = fork();
    if (child == 0) {
        /* The echo side: answer every ping, copy every message out. */
        for (long i = 1; i <= iters + msgs; i++) {
            while (atomic_load_explicit(&l->ping, memory_order_acquire) != i) {
            }
            if (i > iters) {
                memcpy(buf, shared, (size_t)msg);
            }
            atomic_store_explicit(&l->pong, i, memory_order_release);
        }
        _exit(0);
    }
    for (long i = 1; i <= iters; i++) {
        double t0 = live_clock_s();
        atomic_store_explicit(&l->ping, i, memory_order_release);
        while (atomic_load_explicit(&l->pong, memory_order_acquire) != i) {
        }
        rtt[i - 1] = live_clock_s() - t0;
    }
    double t0 = live_clock_s();
    for (long i = iters + 1; i <= iters + msgs; i++) {
        memcpy(shared, buf, (size_t)msg);
        atomic_store_explicit(&l->ping, i, memory_order_release);
        while (atomic_load_explicit(&l->pong, memory_order_acquire) != i) {
        }
    }
    double t = live_clock_s() - t0;
    waitpid(child, NULL, 0);
    printf("latency_us %.3f\nbandwidth_MBps %.1f\n",
           live_median(rtt, iters) / 2 * 1e6,
           (double)msg * (double)msgs / t / 1e6);
    return 0;
}
