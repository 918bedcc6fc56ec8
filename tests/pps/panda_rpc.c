/*
 * panda_rpc.c - node program: Panda RPC round trips and one-way messages of
 * many sizes, checked byte for byte.
 *
 * Usage: lci-run -n N ./panda_rpc [--mt] [--max BYTES] [-k ROUNDS]
 *
 * RPC: every node calls node rank+1 once per size (0 B, around the
 * fragment size, 4 KiB, 64 KiB, up to --max, default 1 MiB) for -k rounds;
 * service i expects a request of size i and answers with another size, so
 * requests and replies of every size are checked.  One-way: every node,
 * this one included, sends node 0 messages made of three I/O vector pieces,
 * big enough to take several packets, so fragments of different senders
 * interleave at node 0, which checks content and per-sender order.  Node 0
 * places other nodes' messages in buffers of its own, leaving out the
 * first 10 bytes (pan_port_place_set).
 */
#include "pps_node.h"

#define SEED        0x5eedULL
#define NSIZES_MAX  12
#define ONEWAY_PORT 3

static size_t sizes[NSIZES_MAX];
static int nsizes;

static void add_size(size_t s, size_t max)
{
    if (s <= max && nsizes < NSIZES_MAX) {
        sizes[nsizes++] = s;
    }
}

static size_t reply_size(int i)
{
    return sizes[(i + 3) % nsizes];
}

static void expect_pattern(const void *data, size_t len, size_t want,
                           uint32_t a, uint32_t b, uint32_t c, const char *what)
{
    if (len != want) {
        e2e_fail("%s: %zu bytes, expected %zu", what, len, want);
    }
    uint8_t *ref = e2e_calloc(want, 1);
    e2e_fill(ref, want, SEED, a, b, c);
    size_t at = want > 0 ? e2e_first_difference(ref, data, want) : 0;
    free(ref);
    if (at != want) {
        e2e_fail("%s: byte %zu of %zu differs", what, at, want);
    }
}

static void serve(int src, const void *req, size_t len,
                  pan_rpc_ticket_t *ticket, void *arg)
{
    int i = (int)(intptr_t)arg;
    expect_pattern(req, len, sizes[i], (uint32_t)src, (uint32_t)i, 0,
                   "RPC request");
    size_t n = reply_size(i);
    uint8_t *rep = e2e_calloc(n, 1);
    e2e_fill(rep, n, SEED, (uint32_t)pan_rank(), (uint32_t)i, 1);
    pan_msg_t msg;
    pan_msg_init(&msg);
    pps_check(pan_msg_push(&msg, rep, n), "pan_msg_push");
    pps_check(pan_rpc_reply(ticket, &msg), "pan_rpc_reply");
    free(rep);
}

/* One-way messages at node 0: next expected index per sender. */
static int *next_from;
static int oneway_got;

static size_t oneway_size(int k)
{
    return pan_size() > 8 ? 3000 : 3000 + 997 * (size_t)k;
}

#define PLACE_SKIP 10

static void *place(int src, const void *head, size_t head_len, size_t len,
                   size_t *skip_p, void *arg)
{
    (void)src;
    (void)head;
    (void)arg;
    if (head_len < PLACE_SKIP || len < PLACE_SKIP) {
        e2e_fail("placement saw %zu of %zu bytes", head_len, len);
    }
    *skip_p = PLACE_SKIP;
    return e2e_calloc(len - PLACE_SKIP, 1);
}

static void oneway(int src, const void *data, size_t len, void *arg)
{
    (void)arg;
    int k = next_from[src]++;
    size_t want = oneway_size(k);
    uint8_t *ref = e2e_calloc(want, 1);
    e2e_fill(ref, want, SEED, (uint32_t)src, (uint32_t)k, 2);
    size_t skip = src == pan_rank() ? 0 : PLACE_SKIP; /* own: not placed */
    if (len != want - skip || memcmp(ref + skip, data, len) != 0) {
        e2e_fail("one-way message %d from %d: wrong length or content", k, src);
    }
    free(ref);
    if (skip > 0) {
        free((void *)(uintptr_t)data); /* placed: ours */
    }
    oneway_got++;
}

int main(int argc, char **argv)
{
    pps_init(&argc, &argv, "panda_rpc");
    long max = e2e_opt_long(argc, argv, "--max", 1L << 20);
    long rounds = e2e_opt_long(argc, argv, "-k", 1);
    int me = pan_rank(), n = pan_size();
    size_t frag = lci_packet_capacity() - 16;

    add_size(0, (size_t)max);
    add_size(1, (size_t)max);
    add_size(frag - 1, (size_t)max);
    add_size(frag, (size_t)max);
    add_size(frag + 1, (size_t)max);
    add_size(2 * frag + 1, (size_t)max);
    add_size(4096, (size_t)max);
    add_size(65536, (size_t)max);
    add_size((size_t)max, (size_t)max);
    for (int i = 0; i < nsizes; i++) {
        pps_check(pan_rpc_set(i, serve, (void *)(intptr_t)i), "pan_rpc_set");
    }
    next_from = e2e_calloc((size_t)n, sizeof *next_from);
    pps_check(pan_port_set(ONEWAY_PORT, oneway, NULL), "pan_port_set");
    pps_check(pan_port_place_set(ONEWAY_PORT, place, NULL),
              "pan_port_place_set");
    pps_check(pan_barrier(), "pan_barrier");

    int peer = (me + 1) % n;
    for (long r = 0; r < rounds; r++) {
        for (int i = 0; i < nsizes; i++) {
            uint8_t *req = e2e_calloc(sizes[i], 1);
            e2e_fill(req, sizes[i], SEED, (uint32_t)me, (uint32_t)i, 0);
            pan_msg_t msg;
            pan_msg_init(&msg);
            /* Two pieces, split off-centre, to exercise the I/O vector. */
            pps_check(pan_msg_push(&msg, req, sizes[i] / 3), "pan_msg_push");
            pps_check(
                pan_msg_push(&msg, req + sizes[i] / 3, sizes[i] - sizes[i] / 3),
                "pan_msg_push");
            void *rep;
            size_t rep_len;
            pps_check(pan_rpc_call(peer, i, &msg, &rep, &rep_len),
                      "pan_rpc_call");
            expect_pattern(rep, rep_len, reply_size(i), (uint32_t)peer,
                           (uint32_t)i, 1, "RPC reply");
            free(rep);
            free(req);
        }
    }

    const int per_sender = 4;
    for (int k = 0; k < per_sender; k++) {
        size_t len = oneway_size(k);
        uint8_t *buf = e2e_calloc(len, 1);
        e2e_fill(buf, len, SEED, (uint32_t)me, (uint32_t)k, 2);
        pan_msg_t msg;
        pan_msg_init(&msg);
        pps_check(pan_msg_push(&msg, buf, 10), "pan_msg_push");
        pps_check(pan_msg_push(&msg, buf + 10, 0), "pan_msg_push");
        pps_check(pan_msg_push(&msg, buf + 10, len - 10), "pan_msg_push");
        pps_check(pan_send(0, ONEWAY_PORT, &msg), "pan_send");
        free(buf);
    }
    if (me == 0) {
        while (oneway_got < n * per_sender) {
            pps_check(pan_wait(), "pan_wait");
        }
    }
    pps_check(pan_end(), "pan_end");
    free(next_from);
    return 0;
}
