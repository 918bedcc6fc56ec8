/*
 * crl_api.c - CRL's calls answer misuse with the documented status, and
 * its global operations, big regions, flush and delete work.
 *
 * Usage: lci-run -n N ./crl_api      (N >= 2)
 *
 * Checks, on every node unless said otherwise:
 *   - before crl_init every call returns CRL_ERR_STATE;
 *   - NULL regions and zero sizes are CRL_ERR_INVAL; an unknown rid maps
 *     to NULL with CRL_ERR_NOREGION; bad nesting (end without start, write
 *     inside read, read inside write, flush inside a section) is
 *     CRL_ERR_STATE and leaves the region usable;
 *   - a region of many packets written by node 0 is read intact by all;
 *     after one node writes it back and flushes, node 0 sees the change;
 *   - broadcasts of 0, 1 and many packets arrive in order and intact; a
 *     receive with the wrong length is CRL_ERR_INVAL;
 *   - rgn_reduce_dadd/dmin/dmax give the exact answers;
 *   - only the home deletes a region; afterwards rgn_map fails everywhere.
 */
#include <inttypes.h>
#include <math.h>

#include "crl.h"
#include "e2e_common.h"

#define BIG 20000u

static void expect(int got, int want, const char *what)
{
    if (got != want) {
        e2e_fail("%s returned %d (%s), expected %d (%s); last error: %s", what,
                 got, crl_strerror((crl_status_t)got), want,
                 crl_strerror((crl_status_t)want), crl_last_error());
    }
}

static void before_init(void)
{
    int x = 0;
    expect(rgn_start_read(&x), CRL_ERR_STATE, "rgn_start_read before init");
    expect(rgn_barrier(), CRL_ERR_STATE, "rgn_barrier before init");
    expect(rgn_bcast_send(4, &x), CRL_ERR_STATE, "rgn_bcast_send before init");
    if (rgn_create(8) != CRL_RID_NONE || rgn_map(1) != NULL) {
        e2e_fail("rgn_create / rgn_map before init did not fail");
    }
    if (!isnan(rgn_reduce_dadd(1.0))) {
        e2e_fail("rgn_reduce_dadd before init is not NaN");
    }
}

static void misuse(int me)
{
    expect(rgn_start_read(NULL), CRL_ERR_INVAL, "rgn_start_read(NULL)");
    expect(rgn_end_write(NULL), CRL_ERR_INVAL, "rgn_end_write(NULL)");
    expect(rgn_unmap(NULL), CRL_ERR_INVAL, "rgn_unmap(NULL)");
    expect(rgn_flush(NULL), CRL_ERR_INVAL, "rgn_flush(NULL)");
    expect(crl_stats_get(NULL), CRL_ERR_INVAL, "crl_stats_get(NULL)");
    if (rgn_create(0) != CRL_RID_NONE) {
        e2e_fail("rgn_create(0) succeeded");
    }
    if (rgn_map(((rid_t)(crl_num_nodes + 5) << 32) | 3) != NULL) {
        e2e_fail("rgn_map of a rid naming no node succeeded");
    }
    if (rgn_map(((rid_t)(me + 1) << 32) | 4000) != NULL ||
        strstr(crl_last_error(), "no region") == NULL) {
        e2e_fail("rgn_map of a never-created rid: '%s'", crl_last_error());
    }
    expect(rgn_bcast_send(-1, NULL), CRL_ERR_INVAL, "rgn_bcast_send(-1)");

    rid_t rid = rgn_create(16);
    char *p = rgn_map(rid);
    if (p == NULL || rgn_rid(p) != rid || rgn_size(p) != 16) {
        e2e_fail("rgn_map / rgn_rid / rgn_size of a fresh region");
    }
    expect(rgn_end_read(p), CRL_ERR_STATE, "rgn_end_read without start");
    expect(rgn_end_write(p), CRL_ERR_STATE, "rgn_end_write without start");
    expect(rgn_start_read(p), CRL_OK, "rgn_start_read");
    expect(rgn_start_read(p), CRL_OK, "nested rgn_start_read");
    expect(rgn_start_write(p), CRL_ERR_STATE, "rgn_start_write inside read");
    expect(rgn_flush(p), CRL_ERR_STATE, "rgn_flush inside a section");
    expect(rgn_end_read(p), CRL_OK, "rgn_end_read");
    expect(rgn_end_read(p), CRL_OK, "rgn_end_read (outer)");
    expect(rgn_start_write(p), CRL_OK, "rgn_start_write");
    expect(rgn_start_read(p), CRL_ERR_STATE, "rgn_start_read inside write");
    expect(rgn_end_write(p), CRL_OK, "rgn_end_write");
    expect(rgn_unmap(p), CRL_OK, "rgn_unmap");
    expect(rgn_unmap(p), CRL_ERR_STATE, "rgn_unmap of an unmapped region");
    expect(rgn_delete(rid), CRL_OK, "rgn_delete of an unmapped own region");
    expect(rgn_delete(rid), CRL_ERR_NOREGION, "rgn_delete twice");
}

static void big_region(int me, int n)
{
    rid_t rid = 0;
    unsigned char *want = e2e_calloc(BIG, 1);
    e2e_fill(want, BIG, 77, 1, 2, 3);
    if (me == 0) {
        rid = rgn_create(BIG);
        unsigned char *p = rgn_map(rid);
        expect(rgn_start_write(p), CRL_OK, "rgn_start_write big");
        memcpy(p, want, BIG);
        expect(rgn_end_write(p), CRL_OK, "rgn_end_write big");
        expect(rgn_unmap(p), CRL_OK, "rgn_unmap big");
        expect(rgn_bcast_send(sizeof rid, &rid), CRL_OK, "rgn_bcast_send rid");
    } else {
        expect(rgn_bcast_recv(sizeof rid, &rid), CRL_OK, "rgn_bcast_recv rid");
    }
    unsigned char *p = rgn_map(rid);
    if (p == NULL) {
        e2e_fail("rgn_map big: %s", crl_last_error());
    }
    expect(rgn_start_read(p), CRL_OK, "rgn_start_read big");
    size_t d = e2e_first_difference(p, want, BIG);
    if (d != BIG) {
        e2e_fail("big region differs at byte %zu", d);
    }
    expect(rgn_end_read(p), CRL_OK, "rgn_end_read big");
    expect(rgn_barrier(), CRL_OK, "rgn_barrier");
    if (me == n - 1) { /* write it back and give it back */
        expect(rgn_start_write(p), CRL_OK, "rgn_start_write big remote");
        for (uint32_t i = 0; i < BIG; i++) {
            p[i] ^= 0x5a;
        }
        expect(rgn_end_write(p), CRL_OK, "rgn_end_write big remote");
        expect(rgn_flush(p), CRL_OK, "rgn_flush big");
    }
    expect(rgn_barrier(), CRL_OK, "rgn_barrier");
    expect(rgn_start_read(p), CRL_OK, "rgn_start_read big again");
    for (uint32_t i = 0; i < BIG; i++) {
        if (p[i] != (unsigned char)(want[i] ^ 0x5a)) {
            e2e_fail("after node %d's write, byte %u of the big region is "
                     "%u, expected %u",
                     n - 1, i, p[i], want[i] ^ 0x5a);
        }
    }
    expect(rgn_end_read(p), CRL_OK, "rgn_end_read big again");
    expect(rgn_unmap(p), CRL_OK, "rgn_unmap big");
    expect(rgn_barrier(), CRL_OK, "rgn_barrier");
    if (me == 1) {
        expect(rgn_delete(rid), CRL_ERR_STATE, "rgn_delete by a non-home");
    }
    expect(rgn_barrier(), CRL_OK, "rgn_barrier");
    if (me == 0) {
        expect(rgn_delete(rid), CRL_OK, "rgn_delete by the home");
    }
    expect(rgn_barrier(), CRL_OK, "rgn_barrier");
    if (rgn_map(rid) != NULL) {
        e2e_fail("a deleted region can still be mapped");
    }
    free(want);
}

static void broadcasts(int me)
{
    static const int lens[] = {0, 1, 5000};
    unsigned char *buf = e2e_calloc(5000, 1), *want = e2e_calloc(5000, 1);
    for (size_t i = 0; i < 3; i++) {
        e2e_fill(want, (size_t)lens[i], 9, (uint32_t)i, 0, 0);
        if (me == 0) {
            expect(rgn_bcast_send(lens[i], want), CRL_OK, "rgn_bcast_send");
        } else {
            expect(rgn_bcast_recv(lens[i], buf), CRL_OK, "rgn_bcast_recv");
            if (memcmp(buf, want, (size_t)lens[i]) != 0) {
                e2e_fail("broadcast %zu (%d bytes) differs", i, lens[i]);
            }
        }
    }
    if (me == 0) {
        expect(rgn_bcast_send(8, want), CRL_OK, "rgn_bcast_send");
    } else {
        expect(rgn_bcast_recv(4, buf), CRL_ERR_INVAL,
               "rgn_bcast_recv with the wrong length");
    }
    free(buf);
    free(want);
}

static void reductions(int me, int n)
{
    double sum = rgn_reduce_dadd((double)(me + 1));
    double lo = rgn_reduce_dmin((double)(me * 3 - 7));
    double hi = rgn_reduce_dmax((double)(me * 3 - 7));
    if (sum != (double)n * (n + 1) / 2 || lo != -7.0 ||
        hi != (double)((n - 1) * 3 - 7)) {
        e2e_fail("reductions gave sum %g min %g max %g", sum, lo, hi);
    }
}

int main(int argc, char **argv)
{
    e2e_prog = "crl_api";
    before_init();
    crl_status_t st = crl_init(&argc, &argv);
    if (st != CRL_OK) {
        fprintf(stderr, "crl_api: crl_init: %s\n", crl_last_error());
        return 1;
    }
    expect(crl_init(&argc, &argv), CRL_ERR_STATE, "crl_init twice");
    int me = crl_self_addr, n = crl_num_nodes;
    if (n < 2) {
        e2e_fail("needs at least 2 nodes");
    }
    misuse(me);
    expect(rgn_barrier(), CRL_OK, "rgn_barrier");
    big_region(me, n);
    broadcasts(me);
    reductions(me, n);
    crl_stats_t s;
    expect(crl_stats_get(&s), CRL_OK, "crl_stats_get");
    if (me != 0 && s.read_misses == 0) {
        e2e_fail("reading node 0's region counted no read miss");
    }
    if (me == 0) {
        printf("crl_api: %d nodes: misuse codes, big region, broadcast, "
               "reductions, delete: OK\n",
               n);
    }
    expect(crl_finalize(), CRL_OK, "crl_finalize");
    expect(rgn_barrier(), CRL_ERR_STATE, "rgn_barrier after finalize");
    return 0;
}
