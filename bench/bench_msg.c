/*
 * bench_msg.c - message fragmentation and reassembly over LCI packets for
 * the benchmarks (see bench_msg.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bench_msg.h"

#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

/* One sender's stream (unicast or multicast) being reassembled. */
typedef struct {
    uint64_t len;  /* message length */
    uint64_t got;  /* bytes received so far */
    uint32_t kind;
    int active;    /* a message is partly received */
} rx_stream_t;

struct bench_msg_rx {
    int nnodes;
    rx_stream_t *streams; /* [0..n-1] unicast, [n..2n-1] multicast, by src */
    unsigned char *dst;
    size_t dst_cap;
    int copy;
    uint64_t foreign;
    bench_msg_done_func_t done;
    void *arg;
};

static const unsigned char *msg_zeros(size_t len)
{
    static unsigned char *zeros;
    static size_t zeros_len;

    if (len > zeros_len) {
        free(zeros);
        zeros = calloc(1, len);
        if (zeros == NULL) {
            bench_fail("out of memory");
        }
        zeros_len = len;
    }
    return zeros;
}

static size_t msg_capacity(void)
{
    size_t cap = lci_packet_capacity();

    if (cap <= sizeof(bench_msg_hdr_t)) {
        bench_fail("packet capacity %zu is too small for the %zu-byte message header", cap,
                   sizeof(bench_msg_hdr_t));
    }
    return cap;
}

size_t bench_msg_npackets(size_t len)
{
    size_t cap = msg_capacity();
    size_t first = cap - sizeof(bench_msg_hdr_t);

    if (len <= first) {
        return 1;
    }
    return 1 + (len - first + cap - 1) / cap;
}

static void msg_send_packet(int dest, lci_packet_t *pkt, size_t len)
{
    if (dest == BENCH_MSG_BCAST) {
        BENCH_CHECK(lci_broadcast(pkt, len));
    } else {
        BENCH_CHECK(lci_send(pkt, dest, len));
    }
}

void bench_msg_send(int dest, uint32_t kind, const void *data, size_t len)
{
    size_t cap = msg_capacity();
    const unsigned char *src = data ? data : msg_zeros(cap);
    bench_msg_hdr_t hdr = {.magic = BENCH_MSG_MAGIC, .kind = kind, .len = len};
    size_t chunk = len < cap - sizeof hdr ? len : cap - sizeof hdr;
    size_t off = 0;
    lci_packet_t *pkt;

    BENCH_CHECK(lci_packet_alloc(&pkt));
    BENCH_CHECK(lci_packet_write(pkt, 0, &hdr, sizeof hdr));
    if (chunk > 0) {
        BENCH_CHECK(lci_packet_write(pkt, sizeof hdr, src, chunk));
    }
    msg_send_packet(dest, pkt, sizeof hdr + chunk);
    off = chunk;
    while (off < len) {
        chunk = len - off < cap ? len - off : cap;
        BENCH_CHECK(lci_packet_alloc(&pkt));
        BENCH_CHECK(lci_packet_write(pkt, 0, data ? src + off : src, chunk));
        msg_send_packet(dest, pkt, chunk);
        off += chunk;
    }
}

bench_msg_rx_t *bench_msg_rx_create(void *dst, size_t dst_cap, bench_msg_done_func_t done,
                                    void *arg)
{
    bench_msg_rx_t *rx = calloc(1, sizeof *rx);

    if (rx == NULL) {
        bench_fail("out of memory");
    }
    rx->nnodes = lci_size();
    rx->streams = calloc(2 * (size_t)rx->nnodes, sizeof *rx->streams);
    if (rx->streams == NULL) {
        bench_fail("out of memory");
    }
    rx->dst = dst;
    rx->dst_cap = dst ? dst_cap : 0;
    rx->done = done;
    rx->arg = arg;
    return rx;
}

void bench_msg_rx_free(bench_msg_rx_t *rx)
{
    if (rx != NULL) {
        free(rx->streams);
        free(rx);
    }
}

void bench_msg_rx_set_copy(bench_msg_rx_t *rx, int copy)
{
    rx->copy = copy;
}

uint64_t bench_msg_rx_foreign(const bench_msg_rx_t *rx)
{
    return rx->foreign;
}

/* Copies len bytes at message offset off into the destination buffer. */
static void rx_copy(bench_msg_rx_t *rx, uint64_t off, const void *data, size_t len)
{
    if (!rx->copy || len == 0) {
        return;
    }
    if (off + len > rx->dst_cap) {
        bench_fail("message of more than %zu bytes does not fit the destination buffer",
                   rx->dst_cap);
    }
    /* Charged at the host's copy bandwidth from the cost profile. */
    BENCH_CHECK(lci_copy(rx->dst + off, data, len));
}

lci_upcall_result_t bench_msg_upcall(lci_rpacket_t *packet, void *arg)
{
    bench_msg_rx_t *rx = arg;
    rx_stream_t *st;
    const unsigned char *data = packet->data;
    size_t len = packet->len;
    bench_msg_hdr_t hdr;

    if (packet->src < 0 || packet->src >= rx->nnodes) {
        bench_fail("packet from rank %d of %d", packet->src, rx->nnodes);
    }
    st = &rx->streams[(packet->group >= 0 ? rx->nnodes : 0) + packet->src];
    if (!st->active) {
        if (len < sizeof hdr) {
            rx->foreign++;
            return LCI_UPCALL_RELEASE;
        }
        memcpy(&hdr, data, sizeof hdr);
        if (hdr.magic != BENCH_MSG_MAGIC) {
            rx->foreign++;
            return LCI_UPCALL_RELEASE;
        }
        data += sizeof hdr;
        len -= sizeof hdr;
        if (len > hdr.len) {
            bench_fail("first packet from %d carries %zu bytes of a %llu-byte message",
                       packet->src, len, (unsigned long long)hdr.len);
        }
        rx_copy(rx, 0, data, len);
        if (len == hdr.len) {
            rx->done(packet->src, packet->group, hdr.kind, data, len, rx->arg);
            return LCI_UPCALL_RELEASE;
        }
        st->active = 1;
        st->len = hdr.len;
        st->got = len;
        st->kind = hdr.kind;
        return LCI_UPCALL_RELEASE;
    }
    if (st->got + len > st->len) {
        bench_fail("packet from %d overruns its %llu-byte message", packet->src,
                   (unsigned long long)st->len);
    }
    rx_copy(rx, st->got, data, len);
    st->got += len;
    if (st->got == st->len) {
        st->active = 0;
        rx->done(packet->src, packet->group, st->kind, rx->copy ? rx->dst : NULL,
                 (size_t)st->len, rx->arg);
    }
    return LCI_UPCALL_RELEASE;
}

void bench_msg_wait_flag(bench_msg_rx_t *rx, const int *flag)
{
    while (*flag == 0) {
        BENCH_CHECK(lci_poll_wait());
    }
    (void)rx;
}

void bench_msg_wait_count(bench_msg_rx_t *rx, const uint64_t *counter, uint64_t target)
{
    while (*counter < target) {
        BENCH_CHECK(lci_poll_wait());
    }
    (void)rx;
}
