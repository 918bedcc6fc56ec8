/*
 * crl_home.c - the home side of the invalidation protocol.
 *
 * The home keeps the master copy and a directory per region: which remote
 * nodes hold shared copies, which one (if any) holds the exclusive copy.
 * Requests (remote ones and the home's own) wait in a FIFO queue and are
 * served from its head, one at a time:
 *   - a read needs no remote exclusive copy; the home recalls it first;
 *   - a write needs no other copy at all; the home invalidates them first;
 *   - the home's own open sections hold back remote requests they conflict
 *     with until the section ends.
 * While a round of invalidations is outstanding nothing else is served.
 * An exclusive copy returns with its data.  A flush that crosses an
 * invalidation on the wire counts as that node's acknowledgement (the
 * remote ignores an invalidation for a copy it no longer holds).
 */
#include <stdlib.h>
#include <string.h>

#include "crl_internal.h"

static size_t dir_words(void)
{
    return ((size_t)crl.size + 63) / 64;
}

crl_dir_t *crl_dir_new(void)
{
    crl_dir_t *d = calloc(1, sizeof *d);
    if (d == NULL) {
        return NULL;
    }
    d->sharers = calloc(dir_words(), sizeof(uint64_t));
    d->inv_sent = calloc(dir_words(), sizeof(uint64_t));
    if (d->sharers == NULL || d->inv_sent == NULL) {
        crl_dir_free(d);
        return NULL;
    }
    d->owner = -1;
    return d;
}

void crl_dir_free(crl_dir_t *d)
{
    if (d == NULL) {
        return;
    }
    free(d->sharers);
    free(d->inv_sent);
    free(d->queue);
    free(d);
}

int crl_dir_idle(const crl_region_t *r)
{
    return r->dir->qlen == 0 && r->dir->acks_pending == 0;
}

static int has_sharers(const crl_dir_t *d)
{
    for (size_t i = 0; i < dir_words(); i++) {
        if (d->sharers[i] != 0) {
            return 1;
        }
    }
    return 0;
}

static void queue_push(crl_dir_t *d, int node, crl_want_t want)
{
    if (d->qlen == d->qcap) {
        size_t cap = d->qcap ? 2 * d->qcap : 8;
        crl_request_t *q = malloc(cap * sizeof *q);
        if (q == NULL) {
            crl_fatal("CRL: node %d: out of memory queueing a request",
                      crl.rank);
        }
        for (size_t i = 0; i < d->qlen; i++) {
            q[i] = d->queue[(d->qhead + i) % d->qcap];
        }
        free(d->queue);
        d->queue = q;
        d->qcap = cap;
        d->qhead = 0;
    }
    d->queue[(d->qhead + d->qlen) % d->qcap] =
        (crl_request_t){.node = node, .want = want};
    d->qlen++;
}

/* Gives node the access it asked for; the directory already allows it. */
static void grant(crl_region_t *r, int node, crl_want_t want)
{
    crl_dir_t *d = r->dir;
    if (node == crl.rank) {
        if (want == CRL_WANT_READ) {
            r->readers++;
        } else {
            r->writer = 1;
        }
        r->want = CRL_WANT_NONE;
        r->granted = 1;
        return;
    }
    if (d->owner == node) {
        crl_fatal("CRL: node %d: node %d asks for region 0x%llx it holds "
                  "exclusively",
                  crl.rank, node, (unsigned long long)r->rid);
    }
    if (want == CRL_WANT_READ) {
        crl_bit_set(d->sharers, node);
        crl_send_data(node, CRL_MSG_SHARED_DATA, r->rid, r->data, r->size);
        return;
    }
    int had_copy = crl_bit_get(d->sharers, node);
    memset(d->sharers, 0, dir_words() * sizeof(uint64_t));
    d->owner = node;
    if (had_copy) {
        crl_send_ctl(node, CRL_MSG_EXCL_ACK, r->rid, r->size);
    } else {
        crl_send_data(node, CRL_MSG_EXCL_DATA, r->rid, r->data, r->size);
    }
}

static void invalidate(crl_region_t *r, int node)
{
    crl_bit_set(r->dir->inv_sent, node);
    r->dir->acks_pending++;
    crl.stats.invalidations_sent++;
    crl_send_ctl(node, CRL_MSG_INV, r->rid, r->size);
}

/* Invalidates the copies that stand in the way of (node, want); returns
 * how many acknowledgements are now awaited. */
static int clear_way(crl_region_t *r, int node, crl_want_t want)
{
    crl_dir_t *d = r->dir;
    if (d->owner >= 0 && d->owner != node) {
        invalidate(r, d->owner);
    }
    if (want == CRL_WANT_WRITE) {
        for (int n = 0; n < crl.size; n++) {
            if (n != node && crl_bit_get(d->sharers, n)) {
                invalidate(r, n);
            }
        }
    }
    return d->acks_pending;
}

void crl_home_serve(crl_region_t *r)
{
    crl_dir_t *d = r->dir;
    while (d->acks_pending == 0 && d->qlen > 0) {
        crl_request_t q = d->queue[d->qhead];
        if (q.node != crl.rank &&
            (r->writer || (q.want == CRL_WANT_WRITE && r->readers > 0))) {
            return; /* the home's own section ends first */
        }
        if (clear_way(r, q.node, q.want) > 0) {
            return; /* served when the acknowledgements are in */
        }
        d->qhead = (d->qhead + 1) % d->qcap;
        d->qlen--;
        grant(r, q.node, q.want);
    }
}

int crl_home_start(crl_region_t *r, crl_want_t want)
{
    crl_dir_t *d = r->dir;
    if (want == CRL_WANT_READ && r->readers > 0) {
        r->readers++; /* nested read: the copy is already readable */
        return 1;
    }
    int free_now = crl_dir_idle(r) && d->owner < 0 &&
                   (want == CRL_WANT_READ || !has_sharers(d));
    if (free_now) {
        grant(r, crl.rank, want);
        return 1;
    }
    r->want = want;
    r->granted = 0;
    queue_push(d, crl.rank, want);
    crl_home_serve(r);
    return r->granted;
}

static crl_region_t *home_region(int src, const crl_msg_hdr_t *h)
{
    crl_region_t *r = crl_region_lookup(h->rid);
    if (r == NULL || r->home != crl.rank || r->dir == NULL) {
        crl_fatal("CRL: node %d: message %u from node %d for region 0x%llx, "
                  "which this node is not the home of",
                  crl.rank, h->type, src, (unsigned long long)h->rid);
    }
    return r;
}

void crl_home_on_request(int src, const crl_msg_hdr_t *h)
{
    crl_region_t *r = home_region(src, h);
    crl_want_t want =
        h->type == CRL_MSG_SHARED_REQ ? CRL_WANT_READ : CRL_WANT_WRITE;
    queue_push(r->dir, src, want);
    crl_home_serve(r);
    if (r->dir->qlen > 0) {
        crl.stats.requests_queued++; /* served from the queue later */
    }
}

void crl_home_on_ack(int src, const crl_msg_hdr_t *h, const void *data,
                     uint32_t len)
{
    crl_region_t *r = crl_region_lookup(h->rid);
    if (r == NULL || r->dir == NULL) {
        return; /* deleted meanwhile: the copy no longer matters */
    }
    crl_dir_t *d = r->dir;
    if (h->type == CRL_MSG_INV_ACK_DATA || h->type == CRL_MSG_FLUSH_DATA) {
        if (d->owner != src || h->offset + (uint64_t)len > r->size) {
            crl_fatal("CRL: node %d: data for region 0x%llx from node %d, "
                      "which does not hold it exclusively",
                      crl.rank, (unsigned long long)r->rid, src);
        }
        lci_copy(r->data + h->offset, data, len);
        d->data_got += len;
        if (d->data_got < r->size) {
            return;
        }
        d->data_got = 0;
    }
    if (crl_bit_get(d->inv_sent, src)) {
        crl_bit_clear(d->inv_sent, src);
        d->acks_pending--;
    } else if (h->type == CRL_MSG_INV_ACK || h->type == CRL_MSG_INV_ACK_DATA) {
        crl_fatal("CRL: node %d: node %d acknowledges an invalidation of "
                  "region 0x%llx that was not sent",
                  crl.rank, src, (unsigned long long)r->rid);
    }
    crl_bit_clear(d->sharers, src);
    if (d->owner == src) {
        d->owner = -1;
    }
    if (d->acks_pending == 0) {
        crl_home_serve(r);
    }
}
