/*
 * crl_coherence.c - CRL keeps shared regions coherent under concurrent
 * readers and writers.
 *
 * Usage: lci-run -n N ./crl_coherence [-k K] [--regions M] [--seed S]
 *                                     [--intr]
 *
 * Every node creates M data regions (sizes from 24 bytes to several
 * packets) and tells the others their ids with rgn_bcast_send.  Node 0
 * also creates a counter region and a "last write" region.  Then every
 * node performs K random operations, computing a random while between them:
 *   - write a data region: check that its whole content matches its
 *     version (no torn or stale fragments), bump the version, rewrite the
 *     content, then record (region, version) in the last-write region;
 *   - read a data region: check its content matches its version and that
 *     the version never goes back on this node;
 *   - read the last-write region, then the region it names: that region's
 *     version must be at least the recorded one (a write seen through
 *     another region is seen by later reads: sequential consistency);
 *   - increment the counter under a write lock;
 *   - flush a cached copy.
 * With --intr, network interrupts deliver CRL's messages too.
 * Finally the counter must equal the number of increments of all nodes,
 * and the versions must add up to the number of writes of all nodes
 * (rgn_reduce_dadd), as seen by every node.
 */
#include <inttypes.h>
#include <math.h>

#include "crl.h"
#include "e2e_common.h"

#define SEED_CONTENT 0xC0FFEEull

typedef struct {
    uint64_t version;
    uint32_t index; /* global index of the region */
    uint32_t writer;
} rec_hdr_t;

typedef struct {
    uint64_t index;
    uint64_t version;
} last_write_t;

static void crl_ok(crl_status_t st, const char *what)
{
    if (st != CRL_OK) {
        e2e_fail("%s returned %d (%s): %s", what, (int)st, crl_strerror(st),
                 crl_last_error());
    }
}

static uint32_t region_size(uint32_t index)
{
    static const uint32_t sizes[] = {24, 200, 1000, 2600, 64, 5000};
    return sizes[index % (sizeof sizes / sizeof sizes[0])];
}

static void fill(unsigned char *data, uint32_t size, uint32_t index,
                 uint64_t version, uint32_t writer)
{
    rec_hdr_t h = {.version = version, .index = index, .writer = writer};
    memcpy(data, &h, sizeof h);
    e2e_fill(data + sizeof h, size - sizeof h, SEED_CONTENT, index,
             (uint32_t)version, (uint32_t)(version >> 32));
}

/* Checks that the content is the one written for its version. */
static uint64_t check(const unsigned char *data, uint32_t size, uint32_t index,
                      const char *when)
{
    static unsigned char want[8192];
    rec_hdr_t h;
    memcpy(&h, data, sizeof h);
    if (h.index != index) {
        e2e_fail("%s region %u: header names region %u", when, index, h.index);
    }
    fill(want, size, index, h.version, h.writer);
    size_t d = e2e_first_difference(want, data, size);
    if (d != size) {
        e2e_fail("%s region %u version %" PRIu64 ": byte %zu of %u differs "
                 "(torn or stale copy)",
                 when, index, h.version, d, size);
    }
    return h.version;
}

int main(int argc, char **argv)
{
    crl_status_t st = crl_init(&argc, &argv);
    if (st != CRL_OK) {
        fprintf(stderr, "crl_coherence: crl_init: %s\n", crl_last_error());
        return 1;
    }
    e2e_prog = "crl_coherence";
    long k = e2e_opt_long(argc, argv, "-k", 50);
    long m = e2e_opt_long(argc, argv, "--regions", 3);
    uint64_t seed = (uint64_t)e2e_opt_long(argc, argv, "--seed", 1);
    int me = crl_self_addr, n = crl_num_nodes;
    if (k < 0 || m < 1 || m > 1000) {
        e2e_fail("-k %ld / --regions %ld out of range", k, m);
    }
    if (e2e_opt_flag(argc, argv, "--intr")) {
        e2e_check(lci_intr_enable(), "lci_intr_enable");
    }
    uint32_t total = (uint32_t)(m * n);
    rid_t *rids = e2e_calloc(total, sizeof *rids);
    rid_t extra[2] = {0, 0}; /* counter, last write */

    for (uint32_t i = 0; i < (uint32_t)m; i++) {
        uint32_t index = (uint32_t)me * (uint32_t)m + i;
        rids[index] = rgn_create(region_size(index));
        if (rids[index] == CRL_RID_NONE) {
            e2e_fail("rgn_create: %s", crl_last_error());
        }
        unsigned char *d = rgn_map(rids[index]);
        crl_ok(rgn_start_write(d), "rgn_start_write");
        fill(d, region_size(index), index, 0, (uint32_t)me);
        crl_ok(rgn_end_write(d), "rgn_end_write");
        crl_ok(rgn_unmap(d), "rgn_unmap");
    }
    if (me == 0) {
        extra[0] = rgn_create(sizeof(int64_t));
        extra[1] = rgn_create(sizeof(last_write_t));
    }
    /* Tell every node the ids, one root at a time. */
    for (int root = 0; root < n; root++) {
        rid_t msg[1 + 1000 + 2];
        int len = (int)((1 + m + 2) * (long)sizeof(rid_t));
        if (root == me) {
            msg[0] = (rid_t)me;
            memcpy(msg + 1, rids + (uint32_t)me * m, (size_t)m * sizeof(rid_t));
            memcpy(msg + 1 + m, extra, sizeof extra);
            crl_ok(rgn_bcast_send(len, msg), "rgn_bcast_send");
        } else {
            crl_ok(rgn_bcast_recv(len, msg), "rgn_bcast_recv");
            if (msg[0] != (rid_t)root) {
                e2e_fail("broadcast %d came from node %" PRIu64, root,
                         (uint64_t)msg[0]);
            }
            memcpy(rids + (uint32_t)root * m, msg + 1,
                   (size_t)m * sizeof(rid_t));
            if (root == 0) {
                memcpy(extra, msg + 1 + m, sizeof extra);
            }
        }
        crl_ok(rgn_barrier(), "rgn_barrier");
    }

    unsigned char **data = e2e_calloc(total, sizeof *data);
    uint64_t *seen = e2e_calloc(total, sizeof *seen);
    for (uint32_t i = 0; i < total; i++) {
        data[i] = rgn_map(rids[i]);
        if (data[i] == NULL || rgn_size(data[i]) != region_size(i)) {
            e2e_fail("rgn_map region %u: %s", i, crl_last_error());
        }
    }
    int64_t *counter = rgn_map(extra[0]);
    last_write_t *last = rgn_map(extra[1]);
    if (counter == NULL || last == NULL) {
        e2e_fail("rgn_map of node 0's regions: %s", crl_last_error());
    }

    uint64_t rng = seed * 7919u + (uint64_t)me, writes = 0, incs = 0;
    int64_t counter_seen = 0;
    for (long it = 0; it < k; it++) {
        uint64_t r = e2e_mix64(&rng);
        uint32_t j = (uint32_t)((r >> 8) % total);
        unsigned op = (unsigned)(r % 100);
        lci_compute((double)((r >> 40) % 20) * 1e-6);
        if (op < 30) { /* write */
            crl_ok(rgn_start_write(data[j]), "rgn_start_write");
            uint64_t v = check(data[j], region_size(j), j, "before write");
            if (v < seen[j]) {
                e2e_fail("region %u went back from version %" PRIu64
                         " to %" PRIu64,
                         j, seen[j], v);
            }
            fill(data[j], region_size(j), j, v + 1, (uint32_t)me);
            seen[j] = v + 1;
            crl_ok(rgn_end_write(data[j]), "rgn_end_write");
            writes++;
            crl_ok(rgn_start_write(last), "rgn_start_write last");
            *last = (last_write_t){.index = j, .version = v + 1};
            crl_ok(rgn_end_write(last), "rgn_end_write last");
        } else if (op < 60) { /* read */
            crl_ok(rgn_start_read(data[j]), "rgn_start_read");
            uint64_t v = check(data[j], region_size(j), j, "read");
            crl_ok(rgn_end_read(data[j]), "rgn_end_read");
            if (v < seen[j]) {
                e2e_fail("region %u went back from version %" PRIu64
                         " to %" PRIu64,
                         j, seen[j], v);
            }
            seen[j] = v;
        } else if (op < 75) { /* read through the last-write record */
            crl_ok(rgn_start_read(last), "rgn_start_read last");
            last_write_t lw = *last;
            crl_ok(rgn_end_read(last), "rgn_end_read last");
            if (lw.version == 0) {
                continue;
            }
            if (lw.index >= total) {
                e2e_fail("last-write record names region %" PRIu64, lw.index);
            }
            crl_ok(rgn_start_read(data[lw.index]), "rgn_start_read");
            uint64_t v = check(data[lw.index], region_size((uint32_t)lw.index),
                               (uint32_t)lw.index, "read after last-write");
            crl_ok(rgn_end_read(data[lw.index]), "rgn_end_read");
            if (v < lw.version) {
                e2e_fail("region %" PRIu64 " read as version %" PRIu64
                         " after its version %" PRIu64 " was seen written",
                         lw.index, v, lw.version);
            }
        } else if (op < 92) { /* increment the counter */
            crl_ok(rgn_start_write(counter), "rgn_start_write counter");
            if (*counter < counter_seen) {
                e2e_fail("counter went back from %" PRId64 " to %" PRId64,
                         counter_seen, *counter);
            }
            counter_seen = ++*counter;
            crl_ok(rgn_end_write(counter), "rgn_end_write counter");
            incs++;
        } else { /* give a copy back */
            crl_ok(rgn_flush(data[j]), "rgn_flush");
        }
    }
    crl_ok(rgn_barrier(), "rgn_barrier after the operations");

    double all_incs = rgn_reduce_dadd((double)incs);
    double all_writes = rgn_reduce_dadd((double)writes);
    double max_writes = rgn_reduce_dmax((double)writes);
    double min_writes = rgn_reduce_dmin((double)writes);
    if (isnan(all_incs) || isnan(all_writes) || isnan(max_writes) ||
        isnan(min_writes)) {
        e2e_fail("reduction: %s", crl_last_error());
    }
    if ((double)writes > max_writes || (double)writes < min_writes) {
        e2e_fail("my %" PRIu64 " writes lie outside min %g / max %g", writes,
                 min_writes, max_writes);
    }
    crl_ok(rgn_start_read(counter), "rgn_start_read counter");
    int64_t final = *counter;
    crl_ok(rgn_end_read(counter), "rgn_end_read counter");
    if ((double) final != all_incs) {
        e2e_fail("counter is %" PRId64 ", but the nodes incremented it %.0f "
                 "times",
                 final, all_incs);
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < total; i++) {
        crl_ok(rgn_start_read(data[i]), "rgn_start_read");
        sum += check(data[i], region_size(i), i, "final");
        crl_ok(rgn_end_read(data[i]), "rgn_end_read");
    }
    if ((double)sum != all_writes) {
        e2e_fail("versions add up to %" PRIu64 ", but the nodes wrote %.0f "
                 "times",
                 sum, all_writes);
    }
    crl_stats_t s;
    crl_ok(crl_stats_get(&s), "crl_stats_get");
    double misses = rgn_reduce_dadd((double)(s.read_misses + s.write_misses));
    double invs = rgn_reduce_dadd((double)s.invalidations_sent);
    crl_ok(rgn_barrier(), "rgn_barrier before unmapping");
    for (uint32_t i = 0; i < total; i++) {
        crl_ok(rgn_unmap(data[i]), "rgn_unmap");
    }
    crl_ok(rgn_unmap(counter), "rgn_unmap");
    crl_ok(rgn_unmap(last), "rgn_unmap");
    if (me == 0) {
        printf("crl_coherence: %d nodes x %ld operations on %u regions: "
               "counter %" PRId64 ", %.0f writes, %.0f misses, %.0f "
               "invalidations: OK\n",
               n, k, total, final, all_writes, misses, invs);
    }
    crl_ok(crl_finalize(), "crl_finalize");
    free(rids);
    free(data);
    free(seen);
    return 0;
}
