/*
 * live_udp_pingpong.c - raw UDP without LCI, the reference for the live
 * platform's UDP wire: two processes ping-pong one datagram of --bytes
 * bytes; one-way latency is half the median round trip, with the receiver
 * busy-polling (MSG_DONTWAIT) and blocking in recv().  On loopback, or
 * between two network namespaces (--netns A,B --addrs ADDR_A,ADDR_B: each
 * end's socket is made in its namespace, bound to its address).
 *
 *   live_udp_pingpong [--iters N] [--bytes B] [--netns A,B --addrs X,Y]
 *
 * Prints "latency_busy_us X" and "latency_blocking_us Y".
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live_clock.h"


/* Where the two ends live: a namespace (NULL: this one) and an address. */
typedef struct {
    const char *netns[2];
    const char *addr[2];
} ends_t;

static void enter_netns(const char *name)
{
    char path[300];
    snprintf(path, sizeof path, "/var/run/netns/%s", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
        fprintf(stderr, "live_udp_pingpong: cannot enter network namespace "
                        "%s\n",
                name);
        exit(1);
    }
    close(fd);
}

/* A socket of end k, made in its namespace: it stays there. */
static int bound_socket(const ends_t *e, int k, struct sockaddr_in *a)
{
    socklen_t len = sizeof *a;
    memset(a, 0, sizeof *a);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (e->addr[k] != NULL && inet_pton(AF_INET, e->addr[k], &a->sin_addr) != 1) {
        fprintf(stderr, "live_udp_pingpong: --addrs: '%s' is not an IPv4 "
                        "address\n",
                e->addr[k]);
        exit(2);
    }
    if (e->netns[k] != NULL) {
        enter_netns(e->netns[k]);
    }
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
static double pingpong(const ends_t *e, int busy, long iters, size_t bytes)
{
    struct sockaddr_in a, b;
    int fa = bound_socket(e, 0, &a), fb = bound_socket(e, 1, &b);
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

static int usage(void)
{
    fprintf(stderr, "usage: live_udp_pingpong [--iters N] [--bytes B (0 to "
                    "2048)] [--netns A,B --addrs ADDR_A,ADDR_B]\n");
    return 2;
}

/* Splits "x,y" in place into its two items; 0 if it is not two items. */
static int split_pair(char *s, const char *out[2])
{
    char *comma = strchr(s, ',');
    if (comma == NULL || comma == s || comma[1] == '\0' ||
        strchr(comma + 1, ',') != NULL) {
        return 0;
    }
    *comma = '\0';
    out[0] = s;
    out[1] = comma + 1;
    return 1;
}

int main(int argc, char **argv)
{
    long iters = 20000, bytes = 8;
    ends_t ends = {{NULL, NULL}, {NULL, NULL}};
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            return usage();
        }
        if (strcmp(argv[i], "--iters") == 0) {
            iters = atol(argv[i + 1]);
        } else if (strcmp(argv[i], "--bytes") == 0) {
            bytes = atol(argv[i + 1]);
        } else if (strcmp(argv[i], "--netns") == 0) {
            if (!split_pair(argv[i + 1], ends.netns)) {
                return usage();
            }
        } else if (strcmp(argv[i], "--addrs") == 0) {
            if (!split_pair(argv[i + 1], ends.addr)) {
                return usage();
            }
        } else {
            fprintf(stderr, "live_udp_pingpong: unknown option '%s'\n",
                    argv[i]);
            return usage();
        }
    }
    if (iters < 1 || bytes < 0 || bytes > 2048) {
        return usage();
    }
    printf("latency_busy_us %.3f\n",
           pingpong(&ends, 1, iters, (size_t)bytes));
    printf("latency_blocking_us %.3f\n",
           pingpong(&ends, 0, iters, (size_t)bytes));
    return 0;
}
