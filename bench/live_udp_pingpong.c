/*
 * live_udp_pingpong.c - raw UDP on loopback without LCI, the reference for
 * the live platform's UDP wire: two processes ping-pong one datagram of
 * --bytes bytes; one-way latency is half the median round trip, with the
 * receiver busy-polling (MSG_DONTWAIT) and blocking in recv().
 *
 *   live_udp_pingpong [--iters N] [--bytes B]
 *
 * Prints "latency_busy_us X" and "latency_blocking_us Y".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live_clock.h"


static int bound_socket(struct sockaddr_in *a)
{
    socklen_t len = sizeof *a;
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof *a) != 0 ||
        getsockname(fd, (struct sockaddr *)a, &len) != 0) {
        perror("live_udp_pingpong: socket");
        exit(1);
    }
    return fd;
}

static void get(int fd, char *buf, size_t len, int busy)
{
    while (recv(fd, buf, len, busy ? MSG_DONTWAIT : 0) < 0) {
    }
}

/* Half the median round trip in microseconds. */
static double pingpong(int busy, long iters, size_t bytes)
{
    struct sockaddr_in a, b;
    int fa = bound_socket(&a), fb = bound_socket(&b);
    char buf[2048] = {0};
    pid_t child = fork();
    if (child == 0) {
        for (long i = 0; i < iters; i++) {
            get(fb, buf, sizeof buf, busy);
            sendto(fb, buf, bytes, 0, (struct sockaddr *)&a, sizeof a);
        }
        _exit(0);
    }
    double *rtt = calloc((size_t)iters, sizeof *rtt);
    for (long i = 0; i < iters; i++) {
        double t0 = live_clock_s();
        sendto(fa, buf, bytes, 0, (struct sockaddr *)&b, sizeof b);
        get(fa, buf, sizeof buf, busy);
        rtt[i] = live_clock_s() - t0;
    }
    waitpid(child, NULL, 0);
    close(fa);
    close(fb);
    double half = live_median(rtt, iters) / 2 * 1e6;
    free(rtt);
    return half;
}

int main(int argc, char **argv)
{
    long iters = 20000, bytes = 8;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--iters") == 0) {
            iters = atol(argv[i + 1]);
        } else if (strcmp(argv[i], "--bytes") == 0) {
            bytes = atol(argv[i + 1]);
        }
    }
    if (iters < 1 || bytes < 0 || bytes > 2048) {
        fprintf(stderr, "usage: live_udp_pingpong [--iters N] [--bytes B "
                        "(0 to 2048)]\n");
        return 2;
    }
    printf("latency_busy_us %.3f\n", pingpong(1, iters, (size_t)bytes));
    printf("latency_blocking_us %.3f\n", pingpong(0, iters, (size_t)bytes));
    return 0;
}
