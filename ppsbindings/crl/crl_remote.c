/*
 * crl_remote.c - sections and flushes as the application sees them, and
 * the side of the protocol that runs where a copy is cached.
 *
 * A remote copy is invalid, shared or exclusive.  A miss sends a request
 * to the home and polls until the reply has arrived in full; the reply
 * handler opens the section itself, so an invalidation that follows the
 * reply on the wire finds the copy in use and waits for the section's end.
 * At the home the same calls go through the home's queue (crl_home.c).
 */
#include "crl_internal.h"

/* Common checks of a section call: CRL is started and rgn is a live
 * region.  Sets *r_p only on success. */
static crl_status_t section_region(void *rgn, const char *fn,
                                   crl_region_t **r_p)
{
    *r_p = NULL;
    crl_status_t st = crl_check_started(fn);
    if (st != CRL_OK) {
        return st;
    }
    crl_region_t *r = crl_region_of(rgn, fn);
    if (r == NULL) {
        return CRL_ERR_INVAL;
    }
    if (r->deleted) {
        return crl_error(CRL_ERR_NOREGION, "%s: region 0x%llx was deleted", fn,
                         (unsigned long long)r->rid);
    }
    *r_p = r;
    return CRL_OK;
}

/* Drops this node's copy and tells the home, with the data if it was
 * exclusive (it may have been written). */
static void give_back(crl_region_t *r, crl_msg_type_t plain,
                      crl_msg_type_t with_data)
{
    if (r->copy == CRL_COPY_EXCLUSIVE) {
        crl_send_data(r->home, with_data, r->rid, r->data, r->size);
    } else {
        crl_send_ctl(r->home, plain, r->rid, r->size);
    }
    r->copy = CRL_COPY_INVALID;
}

static void section_ended(crl_region_t *r)
{
    if (r->readers > 0 || r->writer) {
        return;
    }
    if (r->home == crl.rank) {
        crl_home_serve(r);
    } else if (r->inv_deferred) {
        r->inv_deferred = 0;
        give_back(r, CRL_MSG_INV_ACK, CRL_MSG_INV_ACK_DATA);
    }
}

/* Starts a section: a hit opens it at once, a miss asks the home. */
static crl_status_t start(void *rgn, crl_want_t want, const char *fn)
{
    crl_region_t *r;
    crl_status_t st = section_region(rgn, fn, &r);
    if (st != CRL_OK) {
        return st;
    }
    if (r->writer || (want == CRL_WANT_WRITE && r->readers > 0)) {
        return crl_error(CRL_ERR_STATE,
                         "%s: this node already has a %s section open on "
                         "region 0x%llx",
                         fn, r->writer ? "write" : "read",
                         (unsigned long long)r->rid);
    }
    int granted;
    crl_enter();
    if (r->home == crl.rank) {
        granted = crl_home_start(r, want);
    } else if (want == CRL_WANT_READ &&
               (r->readers > 0 || r->copy != CRL_COPY_INVALID)) {
        r->readers++;
        granted = 1;
    } else if (want == CRL_WANT_WRITE && r->copy == CRL_COPY_EXCLUSIVE) {
        r->writer = 1;
        granted = 1;
    } else {
        r->want = want;
        r->granted = 0;
        r->data_got = 0;
        crl_send_ctl(r->home,
                     want == CRL_WANT_READ ? CRL_MSG_SHARED_REQ
                                           : CRL_MSG_EXCL_REQ,
                     r->rid, r->size);
        granted = 0;
    }
    crl_leave();
    if (want == CRL_WANT_READ) {
        crl.stats.read_hits += granted != 0;
        crl.stats.read_misses += granted == 0;
    } else {
        crl.stats.write_hits += granted != 0;
        crl.stats.write_misses += granted == 0;
    }
    if (!granted) {
        return crl_wait_flag(&r->granted, fn);
    }
    return CRL_OK;
}

crl_status_t rgn_start_read(void *rgn)
{
    return start(rgn, CRL_WANT_READ, "rgn_start_read");
}

crl_status_t rgn_start_write(void *rgn)
{
    return start(rgn, CRL_WANT_WRITE, "rgn_start_write");
}

/* Ends a section; the last one to end lets waiting work proceed. */
static crl_status_t end(void *rgn, crl_want_t kind, const char *fn)
{
    crl_region_t *r;
    crl_status_t st = section_region(rgn, fn, &r);
    if (st != CRL_OK) {
        return st;
    }
    int open = kind == CRL_WANT_READ ? r->readers > 0 : r->writer;
    if (!open) {
        return crl_error(CRL_ERR_STATE,
                         "%s: no %s section open on region 0x%llx", fn,
                         kind == CRL_WANT_READ ? "read" : "write",
                         (unsigned long long)r->rid);
    }
    crl_enter();
    if (kind == CRL_WANT_READ) {
        r->readers--;
    } else {
        r->writer = 0;
    }
    section_ended(r);
    crl_leave();
    return CRL_OK;
}

crl_status_t rgn_end_read(void *rgn)
{
    return end(rgn, CRL_WANT_READ, "rgn_end_read");
}

crl_status_t rgn_end_write(void *rgn)
{
    return end(rgn, CRL_WANT_WRITE, "rgn_end_write");
}

crl_status_t rgn_flush(void *rgn)
{
    crl_region_t *r;
    crl_status_t st = section_region(rgn, "rgn_flush", &r);
    if (st != CRL_OK) {
        return st;
    }
    if (r->readers > 0 || r->writer) {
        return crl_error(CRL_ERR_STATE,
                         "rgn_flush: region 0x%llx has a section open",
                         (unsigned long long)r->rid);
    }
    if (r->home == crl.rank || r->copy == CRL_COPY_INVALID) {
        return CRL_OK; /* nothing cached to give back */
    }
    crl_enter();
    give_back(r, CRL_MSG_FLUSH, CRL_MSG_FLUSH_DATA);
    crl_leave();
    return CRL_OK;
}

/* ---- handlers ------------------------------------------------------- */

void crl_remote_on_reply(const crl_msg_hdr_t *h, const void *data, uint32_t len)
{
    crl_region_t *r = crl_region_lookup(h->rid);
    if (r == NULL || r->want == CRL_WANT_NONE) {
        crl_fatal("CRL: node %d: reply %u for region 0x%llx that it did not "
                  "ask for",
                  crl.rank, h->type, (unsigned long long)h->rid);
    }
    if (h->type != CRL_MSG_EXCL_ACK) {
        if (h->offset + (uint64_t)len > r->size) {
            crl_fatal("CRL: node %d: data beyond the end of region 0x%llx",
                      crl.rank, (unsigned long long)r->rid);
        }
        lci_copy(r->data + h->offset, data, len);
        r->data_got += len;
        if (r->data_got < r->size) {
            return;
        }
    }
    r->data_got = 0;
    r->copy =
        h->type == CRL_MSG_SHARED_DATA ? CRL_COPY_SHARED : CRL_COPY_EXCLUSIVE;
    if (r->want == CRL_WANT_READ) {
        r->readers++;
    } else {
        r->writer = 1;
    }
    r->want = CRL_WANT_NONE;
    r->granted = 1;
}

void crl_remote_on_inv(const crl_msg_hdr_t *h)
{
    crl_region_t *r = crl_region_lookup(h->rid);
    if (r == NULL) {
        return;
    }
    crl.stats.invalidations_received++;
    if (r->copy == CRL_COPY_INVALID) {
        return; /* our flush crossed it; the home counts the flush */
    }
    if (r->readers > 0 || r->writer) {
        r->inv_deferred = 1;
        return;
    }
    give_back(r, CRL_MSG_INV_ACK, CRL_MSG_INV_ACK_DATA);
}
