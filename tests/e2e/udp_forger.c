/*
 * udp_forger.c - an attacker outside a live UDP job: finds the job's node
 * sockets and sends them forged, truncated, random and (as root, with the
 * sender's address spoofed) replayed datagrams.
 *
 * Usage: udp_forger --launcher PID -n N --go FILE --done FILE [--replay R]
 *
 * PID is lci-run's; its N children are the nodes.  Phase 1: once every
 * node has its socket, forgeries to each (headers with a valid CRC that
 * name a real peer and a plausible sequence number, with and without a
 * made-up trailer), truncated and random datagrams.  Then it creates the
 * --go file (the nodes start their exchange).  Phase 2, as root with
 * --replay R: captures R of the nodes' authentic datagrams on lo and
 * sends each again from its sender's address.  Then it creates the --done
 * file (the nodes may end).  Prints "sent K": the datagrams the nodes
 * must have turned away.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "lci_contract.h"

#define MAX_NODES 64

static int nnodes;
static uint16_t node_port[MAX_NODES]; /* host order; 0: not found yet */

static void die(const char *what)
{
    fprintf(stderr, "udp_forger: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        die(path);
    }
    fclose(f);
}

/* The launcher's descendants (lci-run may run under timeout or a shell):
 * up to MAX_NODES * 4 pids into pids; returns how many. */
static int descendants(int launcher, int *pids, int max)
{
    int n = 0;
    pids[n++] = launcher;
    for (int i = 0; i < n; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", pids[i],
                 pids[i]);
        FILE *f = fopen(path, "r");
        int pid;
        while (f != NULL && n < max && fscanf(f, "%d", &pid) == 1) {
            pids[n++] = pid;
        }
        if (f != NULL) {
            fclose(f);
        }
    }
    return n;
}

/* The local port of the UDP socket with this inode, or 0. */
static uint16_t port_of_inode(unsigned long inode)
{
    FILE *f = fopen("/proc/net/udp", "r");
    char line[512];
    uint16_t port = 0;
    if (f == NULL) {
        return 0;
    }
    while (port == 0 && fgets(line, sizeof line, f) != NULL) {
        unsigned addr, p;
        unsigned long ino;
        if (sscanf(line, " %*d: %x:%x %*x:%*x %*x %*x:%*x %*x:%*x %*x %*d %*d "
                         "%lu",
                   &addr, &p, &ino) == 3 &&
            ino == inode) {
            port = (uint16_t)p;
        }
    }
    fclose(f);
    return port;
}

/* The port of process pid's UDP socket, or 0 if it has none. */
static uint16_t find_port(int pid)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
    DIR *d = opendir(dir);
    uint16_t port = 0;
    struct dirent *e;
    while (d != NULL && port == 0 && (e = readdir(d)) != NULL) {
        char link[320], target[64];
        snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
        ssize_t len = readlink(link, target, sizeof target - 1);
        unsigned long inode;
        if (len > 0) {
            target[len] = '\0';
            if (sscanf(target, "socket:[%lu]", &inode) == 1) {
                port = port_of_inode(inode);
            }
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    return port;
}

static int to_node(int fd, int k, const void *buf, size_t len)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons(node_port[k]),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    nap_ms(1); /* paced: a full socket buffer would drop, not count */
    return sendto(fd, buf, len, 0, (struct sockaddr *)&a, sizeof a) ==
           (ssize_t)len;
}

/* A data packet from node src to node dst, as the NI would frame it. */
static size_t forged_packet(unsigned char *p, int src, int dst, int seq)
{
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof h);
    h.len = 64;
    h.type = LCI_PKT_DATA;
    h.origin = h.hop_src = (uint16_t)src;
    h.dst = (uint16_t)dst;
    h.seq = (uint16_t)seq;
    h.link_seq = (uint16_t)seq;
    memcpy(p, &h, sizeof h);
    memset(p + sizeof h, 0xab, h.len);
    h.crc = (uint32_t)crc32(0, p + sizeof h.crc, sizeof h - sizeof h.crc + h.len);
    memcpy(p, &h, sizeof h);
    return sizeof h + h.len;
}

static long phase_forge(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        die("socket");
    }
    long sent = 0;
    unsigned char p[2048];
    srand(7);
    for (int k = 0; k < nnodes; k++) {
        int peer = (k + 1) % nnodes;
        for (int seq = 0; seq < 8; seq++) {
            size_t len = forged_packet(p, peer, k, seq);
            sent += to_node(fd, k, p, len);
            /* with a made-up trailer naming the peer */
            memset(p + len, 0, 28);
            p[len] = (unsigned char)peer;
            p[len + 4] = (unsigned char)(seq + 1);
            memset(p + len + 12, 0x5c, 16);
            sent += to_node(fd, k, p, len + 28);
        }
        for (int t = 1; t < 32; t += 5) {
            sent += to_node(fd, k, p, (size_t)t); /* truncated */
        }
        for (int r = 0; r < 8; r++) {
            size_t len = 1 + (size_t)rand() % 1200;
            for (size_t i = 0; i < len; i++) {
                p[i] = (unsigned char)rand();
            }
            sent += to_node(fd, k, p, len);
        }
    }
    close(fd);
    return sent;
}

static int node_of_port(uint16_t port)
{
    for (int k = 0; k < nnodes; k++) {
        if (node_port[k] == port) {
            return k;
        }
    }
    return -1;
}

/* Captures up to want of the nodes' datagrams to one another and sends
 * each again, from its sender's address.  Root only. */
static long phase_replay(int cap, int want)
{
    static unsigned char got[64][2048];
    static size_t got_len[64];
    int n = 0;
    time_t until = time(NULL) + 10;
    while (n < want && n < 64 && time(NULL) < until) {
        struct pollfd pf = {cap, POLLIN, 0};
        if (poll(&pf, 1, 100) <= 0) {
            continue;
        }
        struct sockaddr_ll from;
        socklen_t flen = sizeof from;
        ssize_t r = recvfrom(cap, got[n], sizeof got[n], 0,
                             (struct sockaddr *)&from, &flen);
        if (r < (ssize_t)(sizeof(struct iphdr) + sizeof(struct udphdr)) ||
            from.sll_pkttype != PACKET_HOST) {
            continue;
        }
        const struct iphdr *ip = (const void *)got[n];
        const struct udphdr *u = (const void *)(got[n] + ip->ihl * 4);
        if (ip->protocol == IPPROTO_UDP &&
            node_of_port(ntohs(u->source)) >= 0 &&
            node_of_port(ntohs(u->dest)) >= 0) {
            got_len[n++] = (size_t)r;
        }
    }
    int raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
    if (raw < 0) {
        die("raw socket");
    }
    long sent = 0;
    for (int i = 0; i < n; i++) {
        const struct iphdr *ip = (const void *)got[i];
        struct udphdr *u = (void *)(got[i] + ip->ihl * 4);
        /* On lo the captured checksum is only partial: send none (IPv4
         * allows it), or the kernel would drop the copy as damaged. */
        u->check = 0;
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_port = u->dest,
                                .sin_addr.s_addr = ip->daddr};
        nap_ms(1);
        sent += sendto(raw, got[i], got_len[i], 0, (struct sockaddr *)&a,
                       sizeof a) == (ssize_t)got_len[i];
    }
    close(raw);
    return sent;
}

int main(int argc, char **argv)
{
    int launcher = 0, replay = 0;
    const char *go = NULL, *done = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--launcher") == 0) {
            launcher = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "-n") == 0) {
            nnodes = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--go") == 0) {
            go = argv[i + 1];
        } else if (strcmp(argv[i], "--done") == 0) {
            done = argv[i + 1];
        } else if (strcmp(argv[i], "--replay") == 0) {
            replay = atoi(argv[i + 1]);
        } else {
            fprintf(stderr, "udp_forger: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (launcher <= 0 || nnodes < 2 || nnodes > MAX_NODES || go == NULL ||
        done == NULL) {
        fprintf(stderr, "usage: udp_forger --launcher PID -n N (2..%d) "
                        "--go FILE --done FILE [--replay R]\n",
                MAX_NODES);
        return 2;
    }
    int found = 0;
    for (int tries = 0; tries < 2000 && found < nnodes; tries++) {
        int pids[MAX_NODES * 4];
        int n = descendants(launcher, pids, MAX_NODES * 4);
        found = 0;
        for (int i = 1; i < n && found < nnodes; i++) {
            uint16_t port = find_port(pids[i]);
            if (port != 0) {
                node_port[found++] = port;
            }
        }
        nap_ms(5);
    }
    if (found < nnodes) {
        fprintf(stderr, "udp_forger: found %d of %d node sockets\n", found,
                nnodes);
        return 1;
    }
    long sent = phase_forge();
    int cap = -1;
    if (replay > 0 && geteuid() == 0) {
        cap = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
        struct sockaddr_ll ll = {.sll_family = AF_PACKET,
                                 .sll_protocol = htons(ETH_P_IP),
                                 .sll_ifindex = (int)if_nametoindex("lo")};
        if (cap < 0 || bind(cap, (struct sockaddr *)&ll, sizeof ll) != 0) {
            die("capture socket on lo");
        }
    }
    touch(go);
    long replayed = cap >= 0 ? phase_replay(cap, replay) : 0;
    nap_ms(300); /* the nodes take in the last of them */
    touch(done);
    printf("sent %ld forged %ld replayed %ld\n", sent + replayed, sent,
           replayed);
    return 0;
}
