/*
 * panda_bcast.c - node program: unordered and totally-ordered broadcasts
 * from every node at once.
 *
 * Usage: lci-run -n N ./panda_bcast [--mt] [-k K]
 *
 * Every node sends K unordered and K totally-ordered broadcasts, sizes
 * from empty to several packets.  Unordered broadcasts must arrive intact
 * and in order per sender.  Totally-ordered ones must arrive intact, at
 * every node (the sender too), and in one order: each node folds the
 * (sender, index) pairs it delivered into a hash and sends it to node 0,
 * which fails unless every hash equals its own.
 */
#include "pps_node.h"

#define SEED        0xb0adULL
#define BCAST_PORT  1
#define OBCAST_PORT 2

static int *next_bcast, *next_obcast;
static int bcast_got, obcast_got;
static uint64_t order_hash = 1469598103934665603ULL;

static size_t msg_size(int k)
{
    return (size_t)(k % 4) * 700 + (k % 3 == 2 ? 3000 : 0);
}

static void check_body(const void *data, size_t len, int src, int k, int kind)
{
    size_t want = msg_size(k);
    if (len != want + 4) {
        e2e_fail("broadcast %d from %d: %zu bytes, expected %zu", k, src, len,
                 want + 4);
    }
    int32_t idx;
    memcpy(&idx, data, 4);
    if (idx != k) {
        e2e_fail("broadcast from %d: index %d, expected %d (out of order)", src,
                 idx, k);
    }
    uint8_t *ref = e2e_calloc(want, 1);
    e2e_fill(ref, want, SEED, (uint32_t)src, (uint32_t)k, (uint32_t)kind);
    if (want > 0 && memcmp(ref, (const uint8_t *)data + 4, want) != 0) {
        e2e_fail("broadcast %d from %d: content differs", k, src);
    }
    free(ref);
}

static void got_bcast(int src, const void *data, size_t len, void *arg)
{
    (void)arg;
    if (src == pan_rank()) {
        e2e_fail("an unordered broadcast came back to its sender");
    }
    check_body(data, len, src, next_bcast[src]++, 0);
    bcast_got++;
}

static void got_obcast(int src, const void *data, size_t len, void *arg)
{
    (void)arg;
    check_body(data, len, src, next_obcast[src]++, 1);
    obcast_got++;
    order_hash =
        pps_hash_step(order_hash, (uint64_t)(src * 100003 + next_obcast[src]));
}

static void send_one(int k, int kind)
{
    size_t len = msg_size(k);
    uint8_t *buf = e2e_calloc(len, 1);
    e2e_fill(buf, len, SEED, (uint32_t)pan_rank(), (uint32_t)k, (uint32_t)kind);
    int32_t idx = k;
    pan_msg_t msg;
    pan_msg_init(&msg);
    pps_check(pan_msg_push(&msg, &idx, 4), "pan_msg_push");
    pps_check(pan_msg_push(&msg, buf, len), "pan_msg_push");
    if (kind == 0) {
        pps_check(pan_bcast(BCAST_PORT, &msg), "pan_bcast");
    } else {
        pps_check(pan_obcast(OBCAST_PORT, &msg), "pan_obcast");
    }
    free(buf);
}

int main(int argc, char **argv)
{
    pps_init(&argc, &argv, "panda_bcast");
    int k_max = (int)e2e_opt_long(argc, argv, "-k", 10);
    int n = pan_size();
    next_bcast = e2e_calloc((size_t)n, sizeof(int));
    next_obcast = e2e_calloc((size_t)n, sizeof(int));
    pps_check(pan_port_set(BCAST_PORT, got_bcast, NULL), "pan_port_set");
    pps_check(pan_port_set(OBCAST_PORT, got_obcast, NULL), "pan_port_set");
    pps_hash_port_open();
    pps_check(pan_barrier(), "pan_barrier");

    for (int k = 0; k < k_max; k++) {
        send_one(k, 0);
        send_one(k, 1);
        pps_check(pan_poll(), "pan_poll");
    }
    while (bcast_got < (n - 1) * k_max || obcast_got < n * k_max) {
        pps_check(pan_wait(), "pan_wait");
    }
    pps_agree(order_hash, "the totally-ordered broadcasts");
    pps_check(pan_end(), "pan_end");
    free(next_bcast);
    free(next_obcast);
    return 0;
}
