/*
 * radix.c - the paper's Radix: a parallel radix sort on CRL (region-based
 * distributed shared memory).
 *
 * Usage: lci-run -n N ./radix [--quick] [--keys K | -k KEYS_PER_NODE]
 *                             [--bits B] [--radix R] [--seed S]
 *
 * As in the paper (section 6.6): an array of K random keys of B bits
 * (default 3,000,000 keys of 21 bits, radix 128 = 7 bits a pass, so three
 * passes) is cut into N contiguous parts, one per node (sizes differing by
 * at most one key), and each part into 1 KiB regions of 256 keys, homed on
 * the part's node: the software cache lines.  Two such arrays alternate as
 * source and destination.  A pass: every node counts the digits of its
 * keys, publishes the counts in a region of its own and reads everybody's,
 * so it knows where each of its digit buckets goes in the destination
 * array; then the permutation phase, where the communication is: the node
 * sorts its keys by digit locally and writes each bucket into its place,
 * region by region, one write section per destination region it touches
 * (mostly regions homed on other nodes; neighbouring nodes share the
 * regions where their runs meet).  Then every node reads its own part of
 * the destination, now the source of the next pass.
 *
 * Check: every node's part is sorted and its first key is no less than
 * its left neighbour's last; the count, the sum and the sum of squares of
 * all keys (summed exactly as integers below 2^53) are the same before and
 * after.  Rank 0 prints "radix: ... time_s T ...: OK"; exit status 0 iff
 * every node's check holds.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crl.h"
#include "lci.h"

#define PER_REGION 256 /* keys per region: 1 KiB */

typedef struct {
    long keys, per_node; /* per_node: -k, or 0 */
    long bits, radix;
    uint64_t seed;
} radix_opts_t;

typedef struct {
    int me, n;
    long total;        /* keys in all */
    long first, k;     /* my part: global positions first .. first+k-1 */
    long max_regions;  /* regions of the largest part */
    rid_t *rids[2];    /* [array][node * max_regions + r] */
    uint32_t **map[2]; /* the same, mapped on first use */
    rid_t *hist_rids;  /* per node: its digit counts */
    uint32_t **hist_map;
} radix_t;

static int me = -1;

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "radix: node %d: %s%s%s\n", me, what,
            detail != NULL ? ": " : "", detail != NULL ? detail : "");
    exit(1);
}

static void crl_ok(crl_status_t st, const char *what)
{
    if (st != CRL_OK) {
        fail(what, crl_last_error());
    }
}

static void *alloc(size_t n, size_t size)
{
    void *p = calloc(n > 0 ? n : 1, size);
    if (p == NULL) {
        fail("out of memory", NULL);
    }
    return p;
}

/* Node q's part: its first global position and its number of keys. */
static void part_of(const radix_t *x, int q, long *first, long *k)
{
    long small = x->total / x->n, extra = x->total % x->n;
    *k = small + (q < extra ? 1 : 0);
    *first = q * small + (q < extra ? q : extra);
}

/* The node whose part holds global position g. */
static int owner_of(const radix_t *x, long g)
{
    long small = x->total / x->n, extra = x->total % x->n;
    long cut = extra * (small + 1);
    return g < cut ? (int)(g / (small + 1)) : (int)(extra + (g - cut) / small);
}

static void *map_rid(rid_t rid)
{
    void *p = rgn_map(rid);
    if (p == NULL) {
        fail("rgn_map", crl_last_error());
    }
    return p;
}

/* Region r of node q's part of array a, mapped. */
static uint32_t *region(radix_t *x, int a, int q, long r)
{
    uint32_t **m = &x->map[a][q * x->max_regions + r];
    if (*m == NULL) {
        *m = map_rid(x->rids[a][q * x->max_regions + r]);
    }
    return *m;
}

static uint32_t *hist(radix_t *x, int q)
{
    if (x->hist_map[q] == NULL) {
        x->hist_map[q] = map_rid(x->hist_rids[q]);
    }
    return x->hist_map[q];
}

/* Every node creates its regions; one broadcast per node tells the ids. */
static void create_regions(radix_t *x, unsigned hist_bytes)
{
    long mine = (x->k + PER_REGION - 1) / PER_REGION,
         len = 2 * x->max_regions + 1;
    for (int a = 0; a < 2; a++) {
        x->rids[a] = alloc((size_t)(x->max_regions * x->n), sizeof(rid_t));
        x->map[a] = alloc((size_t)(x->max_regions * x->n), sizeof(uint32_t *));
    }
    x->hist_rids = alloc((size_t)x->n, sizeof(rid_t));
    x->hist_map = alloc((size_t)x->n, sizeof(uint32_t *));
    rid_t *ids = alloc((size_t)len, sizeof(rid_t));
    for (int a = 0; a < 2; a++) {
        for (long r = 0; r < mine; r++) {
            ids[a * x->max_regions + r] =
                rgn_create(PER_REGION * sizeof(uint32_t));
            if (ids[a * x->max_regions + r] == CRL_RID_NONE) {
                fail("rgn_create", crl_last_error());
            }
        }
    }
    ids[2 * x->max_regions] = rgn_create(hist_bytes);
    if (ids[2 * x->max_regions] == CRL_RID_NONE) {
        fail("rgn_create", crl_last_error());
    }
    rid_t *got = alloc((size_t)len, sizeof(rid_t));
    for (int root = 0; root < x->n; root++) {
        if (root == x->me) {
            memcpy(got, ids, (size_t)len * sizeof(rid_t));
            crl_ok(rgn_bcast_send((int)(len * (long)sizeof(rid_t)), ids),
                   "rgn_bcast_send");
        } else {
            crl_ok(rgn_bcast_recv((int)(len * (long)sizeof(rid_t)), got),
                   "rgn_bcast_recv");
        }
        for (int a = 0; a < 2; a++) {
            memcpy(x->rids[a] + (long)root * x->max_regions,
                   got + a * x->max_regions,
                   (size_t)x->max_regions * sizeof(rid_t));
        }
        x->hist_rids[root] = got[2 * x->max_regions];
        crl_ok(rgn_barrier(), "rgn_barrier");
    }
    free(ids);
    free(got);
}

/* Copies my part of array a into buf, or buf into it (to_regions). */
static void copy_mine(radix_t *x, int a, uint32_t *buf, int to_regions)
{
    for (long off = 0; off < x->k; off += PER_REGION) {
        long n = x->k - off < PER_REGION ? x->k - off : PER_REGION;
        uint32_t *p = region(x, a, x->me, off / PER_REGION);
        if (to_regions) {
            crl_ok(rgn_start_write(p), "rgn_start_write");
            memcpy(p, buf + off, (size_t)n * sizeof *p);
            crl_ok(rgn_end_write(p), "rgn_end_write");
        } else {
            crl_ok(rgn_start_read(p), "rgn_start_read");
            memcpy(buf + off, p, (size_t)n * sizeof *p);
            crl_ok(rgn_end_read(p), "rgn_end_read");
        }
    }
}

/* Writes run[0..n) to global positions g .. g+n-1 of array a, one write
 * section per region. */
static void write_run(radix_t *x, int a, long g, const uint32_t *run, long n)
{
    while (n > 0) {
        int q = owner_of(x, g);
        long qfirst, qk;
        part_of(x, q, &qfirst, &qk);
        long off = g - qfirst, in_region = PER_REGION - off % PER_REGION;
        long m = n < in_region ? n : in_region;
        if (m > qk - off) {
            m = qk - off;
        }
        uint32_t *p = region(x, a, q, off / PER_REGION);
        crl_ok(rgn_start_write(p), "rgn_start_write");
        memcpy(p + off % PER_REGION, run, (size_t)m * sizeof *run);
        crl_ok(rgn_end_write(p), "rgn_end_write");
        g += m;
        run += m;
        n -= m;
    }
}

/* One pass: keys (my part of array src) by digit (shift, mask) into array
 * 1 - src; sorted is scratch of x->k keys. */
static void pass(radix_t *x, int src, unsigned shift, uint32_t mask,
                 uint32_t *keys, uint32_t *sorted, uint64_t *base,
                 uint32_t *counts)
{
    uint32_t ndigits = mask + 1;
    copy_mine(x, src, keys, 0);
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
    uint64_t *total = alloc(ndigits, sizeof *total);
    memset(base, 0, ndigits * sizeof *base);
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

    /* Locally by digit (stable), then each digit's run to its place. */
    uint64_t at = 0;
    uint64_t *start = alloc(ndigits, sizeof *start);
    for (uint32_t d = 0; d < ndigits; d++) {
        start[d] = at;
        at += counts[d];
    }
    for (long i = 0; i < x->k; i++) {
        sorted[start[(keys[i] >> shift) & mask]++] = keys[i];
    }
    at = 0;
    for (uint32_t d = 0; d < ndigits; d++) {
        write_run(x, 1 - src, (long)base[d], sorted + at, counts[d]);
        at += counts[d];
    }
    free(start);
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
            fail("rgn_reduce_dadd", crl_last_error());
        }
    }
}

/* The node's own check: sorted, and in order with its left neighbour. */
static int check_order(radix_t *x, int a, const uint32_t *keys)
{
    for (long i = 1; i < x->k; i++) {
        if (keys[i] < keys[i - 1]) {
            fprintf(stderr,
                    "radix: node %d: key %ld (%" PRIu32 ") is less than the "
                    "one before (%" PRIu32 ")\n",
                    x->me, i, keys[i], keys[i - 1]);
            return 0;
        }
    }
    if (x->me > 0) {
        long lfirst, lk;
        part_of(x, x->me - 1, &lfirst, &lk);
        uint32_t *left = region(x, a, x->me - 1, (lk - 1) / PER_REGION);
        crl_ok(rgn_start_read(left), "rgn_start_read");
        uint32_t last = left[(lk - 1) % PER_REGION];
        crl_ok(rgn_end_read(left), "rgn_end_read");
        if (keys[0] < last) {
            fprintf(stderr,
                    "radix: node %d: my first key %" PRIu32 " is less than "
                    "node %d's last %" PRIu32 "\n",
                    x->me, keys[0], x->me - 1, last);
            return 0;
        }
    }
    return 1;
}

static int usage(const char *bad)
{
    if (me == 0) {
        fprintf(stderr,
                "radix: %s\nusage: radix [--quick] [--keys K (at least one "
                "per node, up to 2^28) | -k KEYS_PER_NODE] [--bits B "
                "(1..24)] [--radix R (1..12)] [--seed S]\n",
                bad);
    }
    return 2;
}

static int parse(int argc, char **argv, radix_opts_t *o, int nodes)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) {
            o->keys = 65536;
            o->per_node = 0;
            continue;
        }
        if (i + 1 >= argc) {
            return usage("an option lacks its value");
        }
        const char *v = argv[++i];
        char *end;
        long n = strtol(v, &end, 10);
        int bad = *end != '\0' || *v == '\0';
        if (strcmp(a, "--keys") == 0) {
            if (bad || n < nodes || n > (1L << 28)) {
                return usage("--keys expects at least one key per node, up "
                             "to 2^28");
            }
            o->keys = n;
            o->per_node = 0;
        } else if (strcmp(a, "-k") == 0) {
            if (bad || n < 1 || n > (1L << 28) / nodes) {
                return usage("-k expects 1 or more keys per node");
            }
            o->per_node = n;
        } else if (strcmp(a, "--bits") == 0) {
            if (bad || n < 1 || n > 24) {
                return usage("--bits expects 1..24");
            }
            o->bits = n;
        } else if (strcmp(a, "--radix") == 0) {
            if (bad || n < 1 || n > 12) {
                return usage("--radix expects 1..12");
            }
            o->radix = n;
        } else if (strcmp(a, "--seed") == 0) {
            if (bad || n < 0) {
                return usage("--seed expects a non-negative integer");
            }
            o->seed = (uint64_t)n;
        } else {
            return usage("unknown option");
        }
    }
    if (o->per_node > 0) {
        o->keys = o->per_node * nodes;
    }
    return 0;
}

static uint64_t mix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    crl_status_t st = crl_init(&argc, &argv);
    if (st != CRL_OK) {
        fprintf(stderr, "radix: crl_init: %s\n", crl_last_error());
        return 1;
    }
    me = crl_self_addr;
    radix_opts_t o = {.keys = 3000000, .bits = 21, .radix = 7, .seed = 1};
    int bad = parse(argc, argv, &o, crl_num_nodes);
    if (bad != 0) {
        crl_finalize();
        return bad;
    }
    radix_t x = {.me = me, .n = crl_num_nodes, .total = o.keys};
    part_of(&x, x.me, &x.first, &x.k);
    long biggest, first0;
    part_of(&x, 0, &first0, &biggest);
    x.max_regions = (biggest + PER_REGION - 1) / PER_REGION;
    uint32_t mask = (UINT32_C(1) << o.radix) - 1;
    create_regions(&x, (unsigned)((mask + 1) * sizeof(uint32_t)));

    uint32_t *keys = alloc((size_t)x.k, sizeof *keys);
    uint32_t *sorted = alloc((size_t)x.k, sizeof *sorted);
    uint64_t *base = alloc(mask + 1, sizeof *base);
    uint32_t *counts = alloc(mask + 1, sizeof *counts);
    uint64_t rng = o.seed * 1000003u + (uint64_t)x.me;
    for (long i = 0; i < x.k; i++) {
        keys[i] = (uint32_t)mix64(&rng) & ((UINT32_C(1) << o.bits) - 1);
    }
    copy_mine(&x, 0, keys, 1);
    double before[4], after[4];
    checksums(keys, x.k, before);
    crl_ok(rgn_barrier(), "rgn_barrier before sorting");

    double t0 = lci_wtime();
    int src = 0;
    for (long shift = 0; shift < o.bits; shift += o.radix) {
        pass(&x, src, (unsigned)shift, mask, keys, sorted, base, counts);
        src = 1 - src;
    }
    double secs = rgn_reduce_dmax(lci_wtime() - t0);

    copy_mine(&x, src, keys, 0);
    int ok = check_order(&x, src, keys);
    checksums(keys, x.k, after);
    if (memcmp(before, after, sizeof before) != 0) {
        if (x.me == 0) {
            fprintf(stderr,
                    "radix: keys changed: count %.0f -> %.0f, sum %.0f -> "
                    "%.0f, sum of squares %.0f * 2^24 + %.0f -> %.0f * 2^24 "
                    "+ %.0f\n",
                    before[0], after[0], before[1], after[1], before[3],
                    before[2], after[3], after[2]);
        }
        ok = 0;
    }
    int all_ok = rgn_reduce_dmin(ok ? 1.0 : 0.0) == 1.0;
    crl_stats_t s;
    crl_ok(crl_stats_get(&s), "crl_stats_get");
    double misses = rgn_reduce_dadd((double)(s.read_misses + s.write_misses));
    if (x.me == 0) {
        printf("radix: %ld keys of %ld bits, radix %ld, %d nodes: time_s %.6f, "
               "%.0f misses: %s\n",
               o.keys, o.bits, 1L << o.radix, x.n, secs, misses,
               all_ok ? "OK" : "WRONG");
    }
    crl_ok(crl_finalize(), "crl_finalize");
    free(keys);
    free(sorted);
    free(base);
    free(counts);
    for (int a = 0; a < 2; a++) {
        free(x.rids[a]);
        free(x.map[a]);
    }
    free(x.hist_rids);
    free(x.hist_map);
    return all_ok ? 0 : 1;
}
