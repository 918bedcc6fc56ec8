/*
 * e2e_fa.c - remote fetch-and-add is atomic.
 *
 * Usage: lci-run -n N ./e2e_fa [-k K] [--target T] [--var V]
 *
 * Every node performs K lci_fetch_add(T, V, +1) (T defaults to node 0;
 * T = -1 means the last node) and, interleaved, K fetch-and-adds of
 * -(rank+1) on a second variable.  Each node checks that its own old values
 * increase, then reports them to node 0 in packets.  Node 0 checks that the
 * N*K old values are distinct and cover init..init+N*K-1, and that the
 * final values are init+N*K and init2 - K*N*(N+1)/2.
 */
#include <inttypes.h>

#include "e2e_common.h"

#define FA_MAGIC 0xFAFAFAFAu

struct fa_hdr {
    uint32_t magic;
    uint32_t src;
    uint32_t first; /* index of the first value in this packet */
    uint32_t count; /* number of int64_t values that follow */
};

struct fa_state {
    int rank, size;
    long k;
    int64_t base;         /* the variable's value before anyone added */
    uint8_t *seen;        /* node 0: seen[v - base] */
    uint32_t *next_index; /* node 0: per sender, next expected index */
    uint64_t received;    /* node 0: values received */
};

static void fa_record(struct fa_state *st, int src, int64_t v)
{
    int64_t total = (int64_t)st->size * st->k;

    if (v < st->base || v >= st->base + total) {
        e2e_fail("node %d got old value %" PRId64 ", outside [%" PRId64
                 ", %" PRId64 ")",
                 src, v, st->base, st->base + total);
    }
    if (st->seen[v - st->base]) {
        e2e_fail("old value %" PRId64 " returned twice (second time to node "
                 "%d): the fetch-and-add is not atomic",
                 v, src);
    }
    st->seen[v - st->base] = 1;
    st->received++;
}

static lci_upcall_result_t fa_upcall(lci_rpacket_t *p, void *arg)
{
    struct fa_state *st = arg;
    struct fa_hdr h;

    if (st->rank != 0) {
        e2e_fail("unexpected packet from node %d", p->src);
    }
    if (p->len < sizeof(h)) {
        e2e_fail("short packet (%zu bytes) from node %d", p->len, p->src);
    }
    memcpy(&h, p->data, sizeof(h));
    if (h.magic != FA_MAGIC || h.src != (uint32_t)p->src || p->src <= 0 ||
        p->src >= st->size || p->group != -1) {
        e2e_fail("bad report packet from node %d (group %d)", p->src, p->group);
    }
    if (p->len != sizeof(h) + (size_t)h.count * sizeof(int64_t)) {
        e2e_fail("report from node %d: %zu bytes for %" PRIu32 " values",
                 p->src, p->len, h.count);
    }
    if (h.first != st->next_index[h.src] || h.first + h.count > st->k) {
        e2e_fail("report from node %d starts at index %" PRIu32
                 ", expected %" PRIu32 " (lost, duplicated or reordered)",
                 p->src, h.first, st->next_index[h.src]);
    }
    for (uint32_t i = 0; i < h.count; i++) {
        int64_t v;
        memcpy(&v, (const uint8_t *)p->data + sizeof(h) + i * sizeof(v),
               sizeof(v));
        fa_record(st, p->src, v);
    }
    st->next_index[h.src] += h.count;
    return LCI_UPCALL_RELEASE;
}

static int64_t fa_do(int target, unsigned var, int64_t add)
{
    int64_t old;
    lci_status_t rc = lci_fetch_add(target, var, add, &old);

    if (rc != LCI_OK) {
        e2e_fail("lci_fetch_add(node %d, var %u, %+" PRId64
                 ") returned %d (%s): %s",
                 target, var, add, (int)rc, lci_strerror(rc), lci_last_error());
    }
    return old;
}

int main(int argc, char **argv)
{
    struct fa_state st;
    int target;
    unsigned var, var2, nvars;
    int64_t *old, base2 = 0;
    size_t cap, per_packet;

    e2e_init(&argc, &argv, "e2e_fa");
    memset(&st, 0, sizeof(st));
    st.rank = lci_rank();
    st.size = lci_size();
    st.k = e2e_opt_long(argc, argv, "-k", 100);
    target = (int)e2e_opt_long(argc, argv, "--target", 0);
    var = (unsigned)e2e_opt_long(argc, argv, "--var", 0);
    nvars = lci_fa_count();
    if (target == -1) {
        target = st.size - 1;
    }
    if (target < 0 || target >= st.size) {
        e2e_fail("--target %d out of range 0..%d", target, st.size - 1);
    }
    if (nvars == 0 || var >= nvars) {
        e2e_fail("--var %u but lci_fa_count() is %u", var, nvars);
    }
    var2 = (var + 1) % nvars; /* == var if there is only one variable */
    if (st.k < 0 || st.k > 1000000) {
        e2e_fail("-k %ld out of range 0..1000000", st.k);
    }
    cap = lci_packet_capacity();
    if (cap < sizeof(struct fa_hdr) + sizeof(int64_t)) {
        e2e_fail("packet capacity %zu too small for a report", cap);
    }
    per_packet = (cap - sizeof(struct fa_hdr)) / sizeof(int64_t);
    old = e2e_calloc((size_t)st.k, sizeof(*old));
    e2e_check(lci_upcall_set(fa_upcall, &st), "lci_upcall_set");

    /* Node 0 reads the starting values before anyone adds.  Reports may
     * reach it while it is still adding, so its tables exist from here. */
    if (st.rank == 0) {
        st.seen = e2e_calloc((size_t)st.size * (size_t)st.k, 1);
        st.next_index = e2e_calloc((size_t)st.size, sizeof(uint32_t));
        st.base = fa_do(target, var, 0);
        if (var2 != var) {
            base2 = fa_do(target, var2, 0);
        }
    }
    e2e_check(lci_barrier(), "lci_barrier before the adds");

    for (long i = 0; i < st.k; i++) {
        old[i] = fa_do(target, var, 1);
        if (i > 0 && old[i] <= old[i - 1]) {
            e2e_fail("my fetch-and-add #%ld returned %" PRId64
                     ", not more than #%ld's %" PRId64,
                     i, old[i], i - 1, old[i - 1]);
        }
        if (var2 != var) {
            fa_do(target, var2, -(int64_t)(st.rank + 1));
        }
    }

    if (st.rank != 0) {
        for (size_t first = 0; first < (size_t)st.k; first += per_packet) {
            struct fa_hdr h;
            size_t n = (size_t)st.k - first;
            lci_packet_t *pkt;

            if (n > per_packet) {
                n = per_packet;
            }
            h.magic = FA_MAGIC;
            h.src = (uint32_t)st.rank;
            h.first = (uint32_t)first;
            h.count = (uint32_t)n;
            e2e_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
            e2e_write(pkt, 0, &h, sizeof(h));
            e2e_write(pkt, sizeof(h), old + first, n * sizeof(int64_t));
            e2e_check(lci_send(pkt, 0, sizeof(h) + n * sizeof(int64_t)),
                      "lci_send");
        }
    } else {
        uint64_t total = (uint64_t)st.size * (uint64_t)st.k;
        int64_t final, final2;

        for (long i = 0; i < st.k; i++) {
            fa_record(&st, 0, old[i]);
        }
        e2e_wait_for(&st.received, total, "every node's old values");
        for (uint64_t v = 0; v < total; v++) {
            if (!st.seen[v]) {
                e2e_fail("no node got old value %" PRId64,
                         st.base + (int64_t)v);
            }
        }
        final = fa_do(target, var, 0);
        if (final != st.base + (int64_t)total) {
            e2e_fail("final value of variable %u on node %d is %" PRId64
                     ", expected %" PRId64,
                     var, target, final, st.base + (int64_t)total);
        }
        if (var2 != var) {
            int64_t want =
                base2 - st.k * (int64_t)st.size * (int64_t)(st.size + 1) / 2;
            final2 = fa_do(target, var2, 0);
            if (final2 != want) {
                e2e_fail("final value of variable %u on node %d is %" PRId64
                         ", expected %" PRId64,
                         var2, target, final2, want);
            }
        }
        printf("e2e_fa: %d nodes x %ld fetch-and-adds on node %d: final "
               "%" PRId64 ", old values distinct and complete: OK\n",
               st.size, st.k, target, final);
        free(st.seen);
        free(st.next_index);
    }
    e2e_check(lci_barrier(), "lci_barrier at the end");
    e2e_check(lci_finalize(), "lci_finalize");
    free(old);
    return 0;
}
