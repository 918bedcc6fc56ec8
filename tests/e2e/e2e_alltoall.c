/*
 * e2e_alltoall.c - every node sends K packets to every other node and
 * checks what it receives: exactly once, FIFO per sender, intact content,
 * right count.
 *
 * Usage: lci-run -n N ./e2e_alltoall [-k K] [--seed S] [--keep M] [--intr]
 *                                    [--sender R] [--hold-until F]
 *                                    [--hold-after F]
 *
 * Sender rank s sends packets seq = 0..K-1 to each destination, visiting
 * destinations round-robin (s+1, s+2, ...) so that consecutive packets go
 * to different nodes.  Each payload is
 *
 *   struct a2a_hdr | bytes determined by a PRNG seeded with (S, s, d, seq)
 *
 * and its length varies with seq between the header size and the packet
 * capacity (both ends included).  The header carries a checksum of the
 * whole payload.  With --keep M the upcall keeps up to M packets
 * (LCI_UPCALL_KEEP) and the main loop releases them later, exercising
 * lci_release().  With --intr the node enables network interrupts.  With
 * --sender R only rank R sends (a one-way stream: the others only receive).
 * --hold-until F and --hold-after F keep polling, before the exchange and
 * after it, until file F exists (live runs that something outside the job
 * disturbs meanwhile: tests/live_forged.sh).
 */
#include <inttypes.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>

#include "e2e_common.h"

#define A2A_MAGIC 0xA2A2A2A2u

struct a2a_hdr {
    uint32_t magic;
    uint32_t src;
    uint32_t dst;
    uint32_t seq;
    uint32_t len;      /* payload length including this header */
    uint32_t checksum; /* of the payload with this field zero */
};

struct a2a_state {
    int rank, size;
    uint64_t seed;
    size_t cap;
    long k;
    int sender; /* the only sending rank, or -1 for all */
    uint32_t *next_seq; /* per sender: the seq expected next */
    uint64_t received;
    uint8_t *expect;      /* scratch: regenerated payload */
    lci_rpacket_t **kept; /* packets kept by the upcall */
    size_t nkept, keep_max;
    uint64_t kept_total;
};

/* Payload length of packet seq from src to dst: covers the header-only
 * packet, the full capacity and values in between. */
static size_t a2a_len(const struct a2a_state *st, uint32_t src, uint32_t dst,
                      uint32_t seq)
{
    size_t hdr = sizeof(struct a2a_hdr);
    size_t span = st->cap - hdr + 1;

    if (seq % 17 == 0) {
        return st->cap;
    }
    if (seq % 17 == 1) {
        return hdr;
    }
    return hdr + ((size_t)seq * 131 + (size_t)src * 7 + dst) % span;
}

static void a2a_build(const struct a2a_state *st, uint8_t *buf, uint32_t src,
                      uint32_t dst, uint32_t seq)
{
    struct a2a_hdr h;
    size_t len = a2a_len(st, src, dst, seq);

    h.magic = A2A_MAGIC;
    h.src = src;
    h.dst = dst;
    h.seq = seq;
    h.len = (uint32_t)len;
    h.checksum = 0;
    memcpy(buf, &h, sizeof(h));
    e2e_fill(buf + sizeof(h), len - sizeof(h), st->seed, src, dst, seq);
    h.checksum = e2e_checksum(buf, len);
    memcpy(buf, &h, sizeof(h));
}

static lci_upcall_result_t a2a_upcall(lci_rpacket_t *p, void *arg)
{
    struct a2a_state *st = arg;
    struct a2a_hdr h;
    uint32_t sum;

    if (p->len < sizeof(h) || p->len > st->cap) {
        e2e_fail("packet from %d has length %zu (valid: %zu..%zu)", p->src,
                 p->len, sizeof(h), st->cap);
    }
    memcpy(&h, p->data, sizeof(h));
    if (h.magic != A2A_MAGIC) {
        e2e_fail("packet from %d has bad magic 0x%08" PRIx32, p->src, h.magic);
    }
    if (p->src < 0 || p->src >= st->size || (uint32_t)p->src != h.src) {
        e2e_fail("packet says src %" PRIu32 " but LCI says src %d", h.src,
                 p->src);
    }
    if (p->group != -1) {
        e2e_fail("unicast packet from %d has group %d (expected -1)", p->src,
                 p->group);
    }
    if (h.dst != (uint32_t)st->rank) {
        e2e_fail("packet for node %" PRIu32 " (seq %" PRIu32
                 " from %d) delivered here",
                 h.dst, h.seq, p->src);
    }
    if (h.src == (uint32_t)st->rank) {
        e2e_fail("received my own packet seq %" PRIu32, h.seq);
    }
    if (h.seq != st->next_seq[h.src]) {
        e2e_fail("from node %" PRIu32 ": got seq %" PRIu32 ", expected %" PRIu32
                 " (%s)",
                 h.src, h.seq, st->next_seq[h.src],
                 h.seq < st->next_seq[h.src] ? "duplicate or reordered"
                                             : "lost or reordered");
    }
    if (h.seq >= (uint32_t)st->k) {
        e2e_fail("from node %" PRIu32 ": seq %" PRIu32 " beyond K=%ld", h.src,
                 h.seq, st->k);
    }
    if (h.len != p->len || p->len != a2a_len(st, h.src, h.dst, h.seq)) {
        e2e_fail("from node %" PRIu32 " seq %" PRIu32
                 ": length %zu, header says %" PRIu32 ", expected %zu",
                 h.src, h.seq, p->len, h.len, a2a_len(st, h.src, h.dst, h.seq));
    }
    a2a_build(st, st->expect, h.src, h.dst, h.seq);
    sum = ((const struct a2a_hdr *)(const void *)st->expect)->checksum;
    if (h.checksum != sum || memcmp(p->data, st->expect, p->len) != 0) {
        size_t at = e2e_first_difference(p->data, st->expect, p->len);
        e2e_fail("from node %" PRIu32 " seq %" PRIu32
                 ": content differs from what was sent at byte %zu of %zu "
                 "(checksum 0x%08" PRIx32 ", payload sums to 0x%08" PRIx32 ")",
                 h.src, h.seq, at, p->len, h.checksum,
                 e2e_payload_checksum(p->data, p->len,
                                      offsetof(struct a2a_hdr, checksum)));
    }
    st->next_seq[h.src]++;
    st->received++;

    if (st->nkept < st->keep_max && h.seq % 3 == 0) {
        st->kept[st->nkept++] = p;
        st->kept_total++;
        return LCI_UPCALL_KEEP;
    }
    return LCI_UPCALL_RELEASE;
}

static void a2a_release_kept(struct a2a_state *st)
{
    for (size_t i = 0; i < st->nkept; i++) {
        /* A kept packet must stay intact until released. */
        struct a2a_hdr h;
        memcpy(&h, st->kept[i]->data, sizeof(h));
        if (h.magic != A2A_MAGIC || h.dst != (uint32_t)st->rank ||
            h.src >= (uint32_t)st->size || h.len != st->kept[i]->len) {
            e2e_fail("kept packet %zu was overwritten before release", i);
        }
        a2a_build(st, st->expect, h.src, h.dst, h.seq);
        if (memcmp(st->kept[i]->data, st->expect, h.len) != 0) {
            e2e_fail("kept packet (from %" PRIu32 ", seq %" PRIu32
                     ") changed before it was released",
                     h.src, h.seq);
        }
        e2e_check(lci_release(st->kept[i]), "lci_release");
    }
    st->nkept = 0;
}

/* The value of option name, or NULL. */
static const char *opt_str(int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return argv[i + 1];
        }
    }
    return NULL;
}

/* Polls (taking in whatever arrives) until file path exists. */
static void hold_until(const char *path)
{
    const struct timespec nap = {0, 200000};
    while (path != NULL && access(path, F_OK) != 0) {
        if (lci_poll() < 0) {
            e2e_fail("lci_poll while holding: %s", lci_last_error());
        }
        nanosleep(&nap, NULL);
    }
}

int main(int argc, char **argv)
{
    struct a2a_state st;
    uint8_t *buf;
    uint64_t expected;

    e2e_init(&argc, &argv, "e2e_alltoall");
    memset(&st, 0, sizeof(st));
    st.rank = lci_rank();
    st.size = lci_size();
    st.k = e2e_opt_long(argc, argv, "-k", 100);
    st.seed = (uint64_t)e2e_opt_long(argc, argv, "--seed", 1);
    st.keep_max = (size_t)e2e_opt_long(argc, argv, "--keep", 4);
    st.sender = (int)e2e_opt_long(argc, argv, "--sender", -1);
    if (st.sender < -1 || st.sender >= st.size) {
        e2e_fail("--sender %d is not a rank of 0..%d", st.sender, st.size - 1);
    }
    st.cap = lci_packet_capacity();
    if (st.k < 0 || st.k > 1000000) {
        e2e_fail("-k %ld out of range 0..1000000", st.k);
    }
    if (st.cap < sizeof(struct a2a_hdr)) {
        e2e_fail("packet capacity %zu is smaller than the %zu-byte header",
                 st.cap, sizeof(struct a2a_hdr));
    }
    st.next_seq = e2e_calloc((size_t)st.size, sizeof(*st.next_seq));
    st.expect = e2e_calloc(st.cap, 1);
    st.kept = e2e_calloc(st.keep_max, sizeof(*st.kept));
    buf = e2e_calloc(st.cap, 1);
    e2e_check(lci_upcall_set(a2a_upcall, &st), "lci_upcall_set");
    if (e2e_opt_flag(argc, argv, "--intr")) {
        e2e_check(lci_intr_enable(), "lci_intr_enable");
    }

    hold_until(opt_str(argc, argv, "--hold-until"));
    long nsend = st.sender < 0 || st.sender == st.rank ? st.k : 0;
    for (long seq = 0; seq < nsend; seq++) {
        for (int off = 1; off < st.size; off++) {
            int dst = (st.rank + off) % st.size;
            size_t len =
                a2a_len(&st, (uint32_t)st.rank, (uint32_t)dst, (uint32_t)seq);
            lci_packet_t *pkt;

            a2a_build(&st, buf, (uint32_t)st.rank, (uint32_t)dst,
                      (uint32_t)seq);
            e2e_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
            /* Write in two pieces (header, body) to exercise offsets. */
            e2e_write(pkt, 0, buf, sizeof(struct a2a_hdr));
            e2e_write(pkt, sizeof(struct a2a_hdr), buf + sizeof(struct a2a_hdr),
                      len - sizeof(struct a2a_hdr));
            e2e_check(lci_send(pkt, dst, len), "lci_send");
        }
        if (st.nkept == st.keep_max) {
            a2a_release_kept(&st);
        }
    }

    expected = st.sender < 0 ? (uint64_t)(st.size - 1) * (uint64_t)st.k
               : st.sender == st.rank ? 0
                                      : (uint64_t)st.k;
    while (st.received < expected) {
        if (st.nkept == st.keep_max) {
            a2a_release_kept(&st);
        }
        int n = lci_poll_wait();
        if (n < 0) {
            e2e_fail("lci_poll_wait returned %d (%s) after %" PRIu64
                     " of %" PRIu64 " packets: %s",
                     n, lci_strerror((lci_status_t)n), st.received, expected,
                     lci_last_error());
        }
    }
    a2a_release_kept(&st);
    hold_until(opt_str(argc, argv, "--hold-after"));
    e2e_check(lci_barrier(), "lci_barrier");

    /* Nothing may arrive after the count is complete. */
    if (lci_poll() < 0 || st.received != expected) {
        e2e_fail("received %" PRIu64 " packets, expected %" PRIu64, st.received,
                 expected);
    }
    for (int s = 0; s < st.size; s++) {
        int sends = s != st.rank && (st.sender < 0 || st.sender == s);
        uint32_t want = sends ? (uint32_t)st.k : 0;
        if (st.next_seq[s] != want) {
            e2e_fail("from node %d: %" PRIu32 " packets, expected %" PRIu32, s,
                     st.next_seq[s], want);
        }
    }
    e2e_check(lci_finalize(), "lci_finalize");
    if (st.rank == 0) {
        printf("e2e_alltoall: %d nodes x %ld packets each way, payload up to "
               "%zu bytes: OK\n",
               st.size, st.k, st.cap);
    }
    free(buf);
    free(st.kept);
    free(st.expect);
    free(st.next_seq);
    return 0;
}
