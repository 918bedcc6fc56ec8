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
 *
 * Anyone who can reach the socket can send it a datagram: every datagram
 * is authenticated as the job's own (lci_live_auth.h) and must come from
 * its sender's published address; what fails is dropped and counted
 * (drops_auth) before the NI sees a byte of it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lci_contract.h"
#include "lci_live.h"
#include "lci_live_auth.h"
#include "lci_live_nic.h"

/* Datagrams taken in by one receive call. */
#define UDP_BATCH 16

typedef struct {
    int fd, efd;
    struct sockaddr_in *peers; /* filled from the fabric at first use */
    uint8_t *known;
    lci_live_auth_t auth;
    /* recvmmsg's vectors: one buffer of a datagram's size per datagram (a
     * longer datagram is cut short, and fails its authentication), and
     * where each came from */
    struct mmsghdr msgs[UDP_BATCH];
    struct iovec iov[UDP_BATCH];
    struct sockaddr_in from[UDP_BATCH];
    unsigned char *bufs;
    size_t buf_bytes;
    int busy; /* the last poll found datagrams: more are likely */
} udp_state_t;

/* What a node publishes: its address, and (rank 0's, under PMIx) the
 * job's key. */
typedef struct {
    struct sockaddr_in addr;
    unsigned char key[LCI_AUTH_KEY_BYTES];
    uint8_t aes; /* this node has AES instructions */
} udp_card_t;

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
    unsigned char key[LCI_AUTH_KEY_BYTES];
    lci_status_t st = LCI_OK;
    /* One machine under lci-run; under PMIx, AES only if every node has
     * it (the choice must be the job's, not each node's). */
    int aes = lci_live_auth_aes_here();
    if (L->fabric != NULL) {
        lci_fabric_node_t *me = lci_fabric_node(L->fabric, L->rank);
        me->addr = *a;
        /* Release: the address is complete before it is marked valid. */
        atomic_store_explicit(&me->addr_set, 1, memory_order_release);
        memcpy(key, L->fabric->key, sizeof key);
    } else {
        /* Under PMIx, rank 0 draws the key and publishes it with its
         * address, to the job's processes only. */
        udp_card_t mine, *all = calloc(L->size, sizeof *all);
        memset(&mine, 0, sizeof mine);
        mine.addr = *a;
        mine.aes = (uint8_t)aes;
        if (all == NULL) {
            snprintf(err, errlen, "out of memory");
            return LCI_ERR_NOMEM;
        }
        if (L->rank == 0 && lci_live_auth_new_key(mine.key) != LCI_OK) {
            st = LCI_ERR_PLATFORM;
            snprintf(err, errlen, "UDP wire: no random key (libsodium)");
        }
        if (st == LCI_OK) {
            st = lci_live_pmix_exchange(L->size, &mine, sizeof mine, all,
                                        err, errlen);
        }
        for (uint32_t r = 0; st == LCI_OK && r < L->size; r++) {
            udp.peers[r] = all[r].addr;
            udp.known[r] = 1;
            aes &= all[r].aes;
        }
        memcpy(key, all[0].key, sizeof key);
        sodium_memzero(all, L->size * sizeof *all);
        sodium_memzero(&mine, sizeof mine);
        free(all);
    }
    if (st == LCI_OK) {
        st = lci_live_auth_init(&udp.auth, key, L->rank, L->size, aes);
        if (st != LCI_OK) {
            snprintf(err, errlen, "UDP wire: cannot set up authentication");
        }
    }
    sodium_memzero(key, sizeof key);
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
    udp.buf_bytes = lci_seg()->cfg.packet_size + 64 + LCI_AUTH_TRAILER_BYTES;
    udp.bufs = malloc(UDP_BATCH * udp.buf_bytes);
    if (udp.peers == NULL || udp.known == NULL || udp.bufs == NULL) {
        snprintf(err, errlen, "out of memory");
        return LCI_ERR_NOMEM;
    }
    for (unsigned i = 0; i < UDP_BATCH; i++) {
        udp.iov[i] = (struct iovec){udp.bufs + i * udp.buf_bytes,
                                    udp.buf_bytes};
        udp.msgs[i].msg_hdr = (struct msghdr){.msg_name = &udp.from[i],
                                              .msg_namelen = sizeof udp.from[i],
                                              .msg_iov = &udp.iov[i],
                                              .msg_iovlen = 1};
    }
    L->wire_state = &udp;
    return udp_exchange(L, &a, err, errlen);
}

/* Whether the address of node k is known (learning it from the fabric). */
static int peer_known(lci_live_t *L, uint32_t k)
{
    if (!udp.known[k] && L->fabric != NULL) {
        lci_fabric_node_t *n = lci_fabric_node(L->fabric, k);
        if (!atomic_load_explicit(&n->addr_set, memory_order_acquire)) {
            return 0;
        }
        udp.peers[k] = n->addr;
        udp.known[k] = 1;
    }
    return udp.known[k];
}

static int udp_send(lci_live_t *L, uint32_t dst, const unsigned char *pkt,
                    uint32_t bytes)
{
    if (!peer_known(L, dst)) {
        return -1; /* not there yet: the packet waits in the backlog */
    }
    unsigned char trailer[LCI_AUTH_TRAILER_BYTES];
    lci_live_auth_seal(&udp.auth, dst, pkt, bytes, trailer);
    struct iovec iov[2] = {{(void *)pkt, bytes}, {trailer, sizeof trailer}};
    struct msghdr m = {.msg_name = &udp.peers[dst],
                       .msg_namelen = sizeof udp.peers[dst],
                       .msg_iov = iov,
                       .msg_iovlen = 2};
    ssize_t r = sendmsg(udp.fd, &m, MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
                  errno == ENOBUFS || errno == EINTR)) {
        /* The socket pushes back: try again later.  The counter is spent;
         * the receiver's window takes the next one all the same. */
        return -1;
    }
    return 0; /* sent, or lost on the way (a real network) */
}

/* The packet in a datagram from address from, if it is the job's own;
 * otherwise counts it and returns NULL. */
static const unsigned char *admit(lci_live_t *L, const unsigned char *dgram,
                                  uint32_t bytes,
                                  const struct sockaddr_in *from,
                                  uint32_t *src_p, uint32_t *pkt_bytes_p)
{
    uint32_t claimed = lci_live_auth_claimed_sender(dgram, bytes);
    int from_peer = claimed < L->size && peer_known(L, claimed) &&
                    from->sin_family == AF_INET &&
                    from->sin_port == udp.peers[claimed].sin_port &&
                    from->sin_addr.s_addr == udp.peers[claimed].sin_addr.s_addr;
    if (from_peer && lci_live_auth_open(&udp.auth, dgram, bytes, src_p,
                                        pkt_bytes_p) == LCI_AUTH_OK) {
        return dgram;
    }
    lci_world_ni(L->rank)->counters.drops_auth++;
    return NULL;
}

static unsigned udp_poll(lci_live_t *L, lci_live_rx_func_t rx)
{
    /* One system call per pass, so that a packet that is alone costs no
     * second call to learn that nothing follows it: an idle wire is
     * looked at with recvfrom (the cheapest call), a busy one drained a
     * batch at a time with recvmmsg.  Bounded, so that arrivals cannot
     * starve the rest of the pass. */
    int got;
    if (udp.busy) {
        for (unsigned i = 0; i < UDP_BATCH; i++) {
            udp.msgs[i].msg_hdr.msg_namelen = sizeof udp.from[i];
        }
        got = recvmmsg(udp.fd, udp.msgs, UDP_BATCH, MSG_DONTWAIT, NULL);
    } else {
        socklen_t flen = sizeof udp.from[0];
        ssize_t r = recvfrom(udp.fd, udp.bufs, udp.buf_bytes, MSG_DONTWAIT,
                             (struct sockaddr *)&udp.from[0], &flen);
        got = r >= 0 ? 1 : -1;
        udp.msgs[0].msg_len = r >= 0 ? (unsigned)r : 0;
        udp.msgs[0].msg_hdr.msg_flags = 0;
    }
    udp.busy = got > 0;
    for (int i = 0; i < got; i++) {
        uint32_t src, bytes = udp.msgs[i].msg_len;
        if (bytes > udp.buf_bytes ||
            (udp.msgs[i].msg_hdr.msg_flags & MSG_TRUNC)) {
            bytes = 0; /* cut short: cannot be whole */
        }
        const unsigned char *pkt =
            admit(L, udp.iov[i].iov_base, bytes, &udp.from[i], &src, &bytes);
        if (pkt != NULL) {
            rx(L, pkt, bytes, src);
        }
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
    /* A real network damages datagrams, but a damaged one fails its tag
     * (lci_live_auth.c) before the link sees it: no CRC on top. */
    .may_damage = 0,
    .open = udp_open,
    .send = udp_send,
    .poll = udp_poll,
    .block = udp_block,
    .kick = udp_kick,
};
