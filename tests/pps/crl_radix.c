/*
 * crl_radix.c - a parallel radix sort on CRL, checked: many writers share
 * 1 KiB regions (software cache lines) and every key must land in place.
 *
 * Usage: lci-run -n N ./crl_radix [-k KEYS_PER_NODE] [--bits B]
 *                                 [--radix R] [--seed S]
 *
 * As the paper's Radix: each node owns a contiguous part of an array of
 * N*K keys (B bits each), cut into regions of 256 keys homed on the owner.
 * A pass sorts on R bits: every node counts its keys' digits, publishes
 * the counts in a region of its own, reads everybody's, and writes each
 * key to its place in the other array -- mostly into regions homed
 * elsewhere, which neighbouring nodes write at the same time (different
 * keys, same region).  After the last pass every node checks its part is
 * sorted and follows its left neighbour's, and the count, sum and sum of
 * squares of all keys equal those before sorting (rgn_reduce_dadd of
 * integer sums kept below 2^53, so exact).  Rank 0 prints "time_s T" for
 * the sort.  Exit status 0 iff all holds.
 */
#include <inttypes.h>
#include <math.h>

#include "crl.h"
#include "e2e_common.h"

#define PER_REGION 256 /* keys per region: 1 KiB */

typedef struct {
    int me, n;
    long k;            /* keys per node */
    long regions;      /* regions per node and array */
    rid_t *rids[2];    /* [array][node * regions + r] */
    uint32_t **map[2]; /* the same, mapped on first use */
    rid_t *hist_rids;  /* per node: its digit counts */
    uint32_t **hist_map;
} radix_t;

static void crl_ok(crl_status_t st, const char *what)
{
    if (st != CRL_OK) {
        e2e_fail("%s returned %d (%s): %s", what, (int)st, crl_strerror(st),
                 crl_last_error());
    }
}

static void *map_rid(rid_t rid)
{
    void *p = rgn_map(rid);
    if (p == NULL) {
        e2e_fail("rgn_map: %s", crl_last_error());
    }
    return p;
}

static uint32_t *region(radix_t *x, int array, long global_region)
{
    uint32_t **m = &x->map[array][global_region];
    if (*m == NULL) {
        *m = map_rid(x->rids[array][global_region]);
    }
    return *m;
}

static uint32_t *hist(radix_t *x, int node)
{
    if (x->hist_map[node] == NULL) {
        x->hist_map[node] = map_rid(x->hist_rids[node]);
    }
    return x->hist_map[node];
}

/* Every node creates its regions; one broadcast per node tells the ids. */
static void create_regions(radix_t *x, unsigned hist_bytes)
{
    long total = x->regions * x->n;
    for (int a = 0; a < 2; a++) {
        x->rids[a] = e2e_calloc((size_t)total, sizeof(rid_t));
        x->map[a] = e2e_calloc((size_t)total, sizeof(uint32_t *));
    }
    x->hist_rids = e2e_calloc((size_t)x->n, sizeof(rid_t));
    x->hist_map = e2e_calloc((size_t)x->n, sizeof(uint32_t *));
    size_t len = (size_t)(2 * x->regions + 1);
    rid_t *mine = e2e_calloc(len, sizeof(rid_t));
    for (long r = 0; r < x->regions; r++) {
        mine[r] = rgn_create(PER_REGION * sizeof(uint32_t));
        mine[x->regions + r] = rgn_create(PER_REGION * sizeof(uint32_t));
    }
    mine[2 * x->regions] = rgn_create(hist_bytes);
    for (size_t i = 0; i < len; i++) {
        if (mine[i] == CRL_RID_NONE) {
            e2e_fail("rgn_create: %s", crl_last_error());
        }
    }
    rid_t *got = e2e_calloc(len, sizeof(rid_t));
    for (int root = 0; root < x->n; root++) {
        if (root == x->me) {
            memcpy(got, mine, len * sizeof(rid_t));
            crl_ok(rgn_bcast_send((int)(len * sizeof(rid_t)), mine),
                   "rgn_bcast_send");
        } else {
            crl_ok(rgn_bcast_recv((int)(len * sizeof(rid_t)), got),
                   "rgn_bcast_recv");
        }
        for (int a = 0; a < 2; a++) {
            memcpy(x->rids[a] + (long)root * x->regions, got + a * x->regions,
                   (size_t)x->regions * sizeof(rid_t));
        }
        x->hist_rids[root] = got[2 * x->regions];
        crl_ok(rgn_barrier(), "rgn_barrier");
    }
    free(mine);
    free(got);
}

/* Reads this node's keys of array a into keys[]. */
static void read_mine(radix_t *x, int a, uint32_t *keys)
{
    for (long r = 0; r < x->regions; r++) {
        uint32_t *p = region(x, a, (long)x->me * x->regions + r);
        crl_ok(rgn_start_read(p), "rgn_start_read");
        memcpy(keys + r * PER_REGION, p, PER_REGION * sizeof(uint32_t));
        crl_ok(rgn_end_read(p), "rgn_end_read");
    }
}

/* One pass: keys of array src, by digit (shift, mask), into array 1-src. */
static void pass(radix_t *x, int src, unsigned shift, uint32_t mask,
                 uint32_t *keys, uint64_t *base, uint32_t *counts)
{
    uint32_t ndigits = mask + 1;
    read_mine(x, src, keys);
    memset(counts, 0, ndigits * sizeof *counts);
    for (long i = 0; i < x->k; i++) {
        counts[(keys[i] >> shift) & mask]++;
    }
    uint32_t *h = hist(x, x->me);
    crl_ok(rgn_start_write(h), "rgn_start_write hist");
    memcpy(h, counts, ndigits * sizeof *counts);
    crl_ok(rgn_end_write(h), "rgn_end_write hist");
    crl_ok(rgn_barrier(), "rgn_barrier after counting");

    /* My first place for digit d: every key of a smaller digit, then the
     * keys of digit d on nodes left of me. */
    memset(base, 0, ndigits * sizeof *base);
    uint64_t *total = e2e_calloc(ndigits, sizeof *total);
    for (int q = 0; q < x->n; q++) {
        uint32_t *hq = hist(x, q);
        crl_ok(rgn_start_read(hq), "rgn_start_read hist");
        for (uint32_t d = 0; d < ndigits; d++) {
            total[d] += hq[d];
            if (q < x->me) {
                base[d] += hq[d];
            }
        }
        crl_ok(rgn_end_read(hq), "rgn_end_read hist");
    }
    uint64_t below = 0;
    for (uint32_t d = 0; d < ndigits; d++) {
        base[d] += below;
        below += total[d];
    }
    free(total);

    /* Each key to its place; consecutive keys of a digit share regions. */
    uint32_t *open = NULL;
    long open_region = -1;
    for (long i = 0; i < x->k; i++) {
        uint64_t g = base[(keys[i] >> shift) & mask]++;
        long reg = (long)(g / (uint64_t)x->k) * x->regions +
                   (long)(g % (uint64_t)x->k) / PER_REGION;
        if (reg != open_region) {
            if (open != NULL) {
                crl_ok(rgn_end_write(open), "rgn_end_write");
            }
            open = region(x, 1 - src, reg);
            open_region = reg;
            crl_ok(rgn_start_write(open), "rgn_start_write");
        }
        open[g % PER_REGION] = keys[i];
    }
    if (open != NULL) {
        crl_ok(rgn_end_write(open), "rgn_end_write");
    }
    crl_ok(rgn_barrier(), "rgn_barrier after the permutation");
}

/* Count, sum and sum of squares of all keys, the same on every node.  The
 * squares (up to 48 bits) are summed as their low and high 24 bits, so
 * that every sum stays an integer below 2^53, exact in the doubles the
 * reduction adds, in any order. */
static void checksums(const uint32_t *keys, long k, double out[4])
{
    uint64_t sum = 0, sq_lo = 0, sq_hi = 0;
    for (long i = 0; i < k; i++) {
        uint64_t sq = (uint64_t)keys[i] * keys[i];
        sum += keys[i];
        sq_lo += sq & 0xffffff;
        sq_hi += sq >> 24;
    }
    out[0] = rgn_reduce_dadd((double)k);
    out[1] = rgn_reduce_dadd((double)sum);
    out[2] = rgn_reduce_dadd((double)sq_lo);
    out[3] = rgn_reduce_dadd((double)sq_hi);
    for (int i = 0; i < 4; i++) {
        if (isnan(out[i])) {
            e2e_fail("rgn_reduce_dadd: %s", crl_last_error());
        }
    }
}

int main(int argc, char **argv)
{
    crl_status_t st = crl_init(&argc, &argv);
    if (st != CRL_OK) {
        fprintf(stderr, "crl_radix: crl_init: %s\n", crl_last_error());
        return 1;
    }
    e2e_prog = "crl_radix";
    radix_t x = {.me = crl_self_addr, .n = crl_num_nodes};
    x.k = e2e_opt_long(argc, argv, "-k", 2048);
    long bits = e2e_opt_long(argc, argv, "--bits", 16);
    long radix = e2e_opt_long(argc, argv, "--radix", 8);
    uint64_t seed = (uint64_t)e2e_opt_long(argc, argv, "--seed", 1);
    if (x.k < PER_REGION || x.k % PER_REGION != 0 || x.k > (1L << 20) ||
        bits < 1 || bits > 24 || radix < 1 || radix > 8) {
        e2e_fail("expected -k a multiple of %d up to 2^20, --bits 1..24, "
                 "--radix 1..8",
                 PER_REGION);
    }
    x.regions = x.k / PER_REGION;
    uint32_t mask = (UINT32_C(1) << radix) - 1;
    create_regions(&x, (unsigned)((mask + 1) * sizeof(uint32_t)));

    uint32_t *keys = e2e_calloc((size_t)x.k, sizeof *keys);
    uint64_t *base = e2e_calloc(mask + 1, sizeof *base);
    uint32_t *counts = e2e_calloc(mask + 1, sizeof *counts);
    uint64_t rng = seed * 1000003u + (uint64_t)x.me;
    for (long i = 0; i < x.k; i++) {
        keys[i] = (uint32_t)e2e_mix64(&rng) & ((UINT32_C(1) << bits) - 1);
    }
    for (long r = 0; r < x.regions; r++) {
        uint32_t *p = region(&x, 0, (long)x.me * x.regions + r);
        crl_ok(rgn_start_write(p), "rgn_start_write");
        memcpy(p, keys + r * PER_REGION, PER_REGION * sizeof(uint32_t));
        crl_ok(rgn_end_write(p), "rgn_end_write");
    }
    double before[4], after[4];
    checksums(keys, x.k, before);
    crl_ok(rgn_barrier(), "rgn_barrier before sorting");

    double t0 = lci_wtime();
    int src = 0;
    for (long shift = 0; shift < bits; shift += radix) {
        pass(&x, src, (unsigned)shift, mask, keys, base, counts);
        src = 1 - src;
    }
    double secs = lci_wtime() - t0;

    read_mine(&x, src, keys);
    for (long i = 1; i < x.k; i++) {
        if (keys[i] < keys[i - 1]) {
            e2e_fail("key %ld of my part (%" PRIu32 ") is less than the one "
                     "before (%" PRIu32 ")",
                     i, keys[i], keys[i - 1]);
        }
    }
    if (x.me > 0) {
        uint32_t *left = region(&x, src, (long)x.me * x.regions - 1);
        crl_ok(rgn_start_read(left), "rgn_start_read");
        uint32_t last = left[PER_REGION - 1];
        crl_ok(rgn_end_read(left), "rgn_end_read");
        if (keys[0] < last) {
            e2e_fail("my first key %" PRIu32 " is less than node %d's last "
                     "%" PRIu32,
                     keys[0], x.me - 1, last);
        }
    }
    checksums(keys, x.k, after);
    if (memcmp(before, after, sizeof before) != 0) {
        e2e_fail("keys changed: count %.0f -> %.0f, sum %.0f -> %.0f, sum "
                 "of squares %.0f * 2^24 + %.0f -> %.0f * 2^24 + %.0f",
                 before[0], after[0], before[1], after[1], before[3],
                 before[2], after[3], after[2]);
    }
    crl_stats_t s;
    crl_ok(crl_stats_get(&s), "crl_stats_get");
    double misses = rgn_reduce_dadd((double)(s.read_misses + s.write_misses));
    if (x.me == 0) {
        printf("crl_radix: %d nodes x %ld keys of %ld bits, radix %ld: "
               "time_s %.6f, %.0f misses: OK\n",
               x.n, x.k, bits, radix, secs, misses);
    }
    crl_ok(crl_finalize(), "crl_finalize");
    free(keys);
    free(base);
    free(counts);
    for (int a = 0; a < 2; a++) {
        free(x.rids[a]);
        free(x.map[a]);
    }
    free(x.hist_rids);
    free(x.hist_map);
    return 0;
}
