/*
 * lci_live_udp.c - the UDP wire: every LCI packet one datagram.
 *
 * A real network: a datagram may be lost (a full socket buffer at a slow
 * receiver is enough), duplicated, reordered or damaged.  Nothing here
 * hides that; the receiving hardware's CRC and link-sequence checks and
 * the decomposition's reliability deal with it, and RX_no fails loudly.
 *
 * Each node binds a socket to $LCI_UDP_ADDR, any port, and publishes the
 * address: in the fabric under lci-run (default 127.0.0.1; lci_init's start
 * barrier makes every address known before the first packet), or through
 * PMIx under mpirun or srun (default: the address of this host's name).
 * $LCI_UDP_RCVBUF sets the socket's receive buffer (bytes).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lci_contract.h"
#include "lci_live.h"
#include "lci_live_nic.h"

/* Datagrams taken in by one receive call. */
#define UDP_BATCH 16

typedef struct {
    int fd, efd;
    struct sockaddr_in *peers; /* filled from the fabric at first use */
    uint8_t *known;
    /* recvmmsg's vectors: one buffer of a packet's size per datagram (a
     * longer datagram is cut short, and the CRC check drops it) */
    struct mmsghdr msgs[UDP_BATCH];
    struct iovec iov[UDP_BATCH];
    unsigned char *bufs;
    size_t buf_bytes;
    int busy; /* the last poll found datagrams: more are likely */
} udp_state_t;

static udp_state_t udp;

/* Under a PMIx launcher on a cluster: the address of this host's name,
 * so that the other hosts can reach it. */
static const char *host_address(char *buf, size_t len)
{
    char name[256];
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_DGRAM;
    if (gethostname(name, sizeof name) != 0 ||
        getaddrinfo(name, NULL, &hints, &res) != 0 || res == NULL) {
        return "127.0.0.1";
    }
    inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, buf,
              (socklen_t)len);
    freeaddrinfo(res);
    return buf;
}

static lci_status_t udp_exchange(lci_live_t *L, const struct sockaddr_in *a,
                                 char *err, size_t errlen)
{
    if (L->fabric != NULL) {
        lci_fabric_node_t *me = lci_fabric_node(L->fabric, L->rank);
        me->addr = *a;
        /* Release: the address is complete before it is marked valid. */
        atomic_store_explicit(&me->addr_set, 1, memory_order_release);
        return LCI_OK;
    }
    lci_status_t st = lci_live_pmix_exchange(L->size, a, sizeof *a,
                                             udp.peers, err, errlen);
    if (st == LCI_OK) {
        memset(udp.known, 1, L->size);
    }
    return st;
}

static lci_status_t udp_open(lci_live_t *L, char *err, size_t errlen)
{
    char buf[INET_ADDRSTRLEN];
    const char *host = getenv("LCI_UDP_ADDR");
    if (host == NULL) {
        host = L->fabric ? "127.0.0.1" : host_address(buf, sizeof buf);
    }
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
        snprintf(err, errlen,
                 "LCI_UDP_ADDR: expected an IPv4 address such as 10.0.0.2, "
                 "got '%s'",
                 host);
        return LCI_ERR_CONFIG;
    }
    udp.fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    udp.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    socklen_t len = sizeof a;
    if (udp.fd < 0 || udp.efd < 0 ||
        bind(udp.fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(udp.fd, (struct sockaddr *)&a, &len) != 0) {
        snprintf(err, errlen, "UDP wire: cannot bind %s: %s", host,
                 strerror(errno));
        return LCI_ERR_PLATFORM;
    }
    const char *rcvbuf = getenv("LCI_UDP_RCVBUF");
    if (rcvbuf != NULL) {
        /* A small socket buffer: a slow receiver overflows it and the
         * kernel drops datagrams, as on a real network. */
        int bytes = atoi(rcvbuf);
        setsockopt(udp.fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
    }
    udp.peers = calloc(L->size, sizeof *udp.peers);
    udp.known = calloc(L->size, 1);
    udp.buf_bytes = lci_seg()->cfg.packet_size + 64;
    udp.bufs = malloc(UDP_BATCH * udp.buf_bytes);
    if (udp.peers == NULL || udp.known == NULL || udp.bufs == NULL) {
        snprintf(err, errlen, "out of memory");
        return LCI_ERR_NOMEM;
    }
    for (unsigned i = 0; i < UDP_BATCH; i++) {
        udp.iov[i] = (struct iovec){udp.bufs + i * udp.buf_bytes,
                                    udp.buf_bytes};
        udp.msgs[i].msg_hdr = (struct msghdr){.msg_iov = &udp.iov[i],
                                              .msg_iovlen = 1};
    }
    L->wire_state = &udp;
    return udp_exchange(L, &a, err, errlen);
}

static int udp_send(lci_live_t *L, uint32_t dst, const unsigned char *pkt,
                    uint32_t bytes)
{
    if (!udp.known[dst]) {
        lci_fabric_node_t *n = lci_fabric_node(L->fabric, dst);
        if (!atomic_load_explicit(&n->addr_set, memory_order_acquire)) {
            return -1; /* not there yet: the packet waits in the backlog */
        }
        udp.peers[dst] = n->addr;
        udp.known[dst] = 1;
    }
    ssize_t r = sendto(udp.fd, pkt, bytes, MSG_DONTWAIT,
                       (struct sockaddr *)&udp.peers[dst],
                       sizeof udp.peers[dst]);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
                  errno == ENOBUFS || errno == EINTR)) {
        return -1; /* the socket pushes back: try again later */
    }
    return 0; /* sent, or lost on the way (a real network) */
}

static unsigned udp_poll(lci_live_t *L, lci_live_rx_func_t rx)
{
    /* One system call per pass, so that a packet that is alone costs no
     * second call to learn that nothing follows it: an idle wire is
     * looked at with recv (the cheapest call), a busy one drained a batch
     * at a time with recvmmsg.  Bounded, so that arrivals cannot starve
     * the rest of the pass. */
    int got;
    if (udp.busy) {
        got = recvmmsg(udp.fd, udp.msgs, UDP_BATCH, MSG_DONTWAIT, NULL);
    } else {
        ssize_t r = recv(udp.fd, udp.bufs, udp.buf_bytes, MSG_DONTWAIT);
        got = r >= 0 ? 1 : -1;
        udp.msgs[0].msg_len = r >= 0 ? (unsigned)r : 0;
    }
    udp.busy = got > 0;
    for (int i = 0; i < got; i++) {
        const unsigned char *pkt = udp.iov[i].iov_base;
        uint32_t bytes = udp.msgs[i].msg_len;
        lci_wire_hdr_t hdr;
        uint32_t src = 0;
        if (bytes >= sizeof hdr) {
            memcpy(&hdr, pkt, sizeof hdr);
            src = hdr.hop_src < L->size ? hdr.hop_src : 0;
        }
        rx(L, pkt, bytes, src);
    }
    return got > 0 ? (unsigned)got : 0;
}

static void udp_block(lci_live_t *L, uint64_t timeout_ns)
{
    (void)L;
    struct pollfd p[2] = {{udp.fd, POLLIN, 0}, {udp.efd, POLLIN, 0}};
    int ms = (int)((timeout_ns + 999999) / 1000000);
    if (poll(p, 2, ms) > 0 && (p[1].revents & POLLIN)) {
        uint64_t v;
        ssize_t r = read(udp.efd, &v, sizeof v);
        (void)r;
    }
}

static void udp_kick(lci_live_t *L)
{
    (void)L;
    uint64_t one = 1;
    ssize_t r = write(udp.efd, &one, sizeof one);
    (void)r;
}

const lci_live_wire_ops_t lci_live_wire_udp = {
    .name = "udp",
    .may_damage = 1, /* a real network: the CRC catches what it damages */
    .open = udp_open,
    .send = udp_send,
    .poll = udp_poll,
    .block = udp_block,
    .kick = udp_kick,
};
