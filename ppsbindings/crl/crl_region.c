/*
 * crl_region.c - regions: identifiers, the per-node tables that find a
 * region's state from its rid, creation, deletion, mapping.
 *
 * A rid names its home, so a node keeps one table per home, indexed by
 * the home's creation index: no hashing and no global directory.
 */
#include <stdlib.h>
#include <string.h>

#include "crl_internal.h"

static rid_t rid_make(int home, uint32_t index)
{
    return ((rid_t)(uint32_t)(home + 1) << 32) | index;
}

int crl_rid_home(rid_t rid)
{
    return (int)(rid >> 32) - 1;
}

static uint32_t rid_index(rid_t rid)
{
    return (uint32_t)rid;
}

/* The rid names a node of this run. */
static int rid_valid(rid_t rid)
{
    int home = crl_rid_home(rid);
    return home >= 0 && home < crl.size;
}

crl_region_t *crl_region_lookup(rid_t rid)
{
    if (!rid_valid(rid)) {
        return NULL;
    }
    int home = crl_rid_home(rid);
    uint32_t i = rid_index(rid);
    return i < crl.table_len[home] ? crl.table[home][i] : NULL;
}

static crl_region_t *region_new(rid_t rid, uint32_t size)
{
    crl_region_t *r = calloc(1, sizeof *r + size);
    if (r == NULL) {
        return NULL;
    }
    r->magic = CRL_REGION_MAGIC;
    r->rid = rid;
    r->home = crl_rid_home(rid);
    r->size = size;
    return r;
}

static int table_put(crl_region_t *r)
{
    int home = r->home;
    uint32_t i = rid_index(r->rid);
    if (i >= crl.table_len[home]) {
        uint32_t len = crl.table_len[home] ? crl.table_len[home] : 16;
        while (len <= i) {
            len *= 2;
        }
        crl_region_t **t = realloc(crl.table[home], len * sizeof *t);
        if (t == NULL) {
            return -1;
        }
        memset(t + crl.table_len[home], 0,
               (len - crl.table_len[home]) * sizeof *t);
        crl.table[home] = t;
        crl.table_len[home] = len;
    }
    crl.table[home][i] = r;
    return 0;
}

static void region_free(crl_region_t *r)
{
    crl.table[r->home][rid_index(r->rid)] = NULL;
    crl_dir_free(r->dir);
    r->magic = 0;
    free(r);
}

crl_region_t *crl_region_of(void *rgn, const char *fn)
{
    if (rgn == NULL) {
        crl_error(CRL_ERR_INVAL, "%s: NULL region", fn);
        return NULL;
    }
    crl_region_t *r =
        (crl_region_t *)((unsigned char *)rgn - offsetof(crl_region_t, data));
    if (r->magic != CRL_REGION_MAGIC) {
        crl_error(CRL_ERR_INVAL, "%s: %p is not a mapped region", fn, rgn);
        return NULL;
    }
    return r;
}

rid_t rgn_create(unsigned size)
{
    if (crl_check_started("rgn_create") != CRL_OK) {
        return CRL_RID_NONE;
    }
    if (size == 0) {
        crl_error(CRL_ERR_INVAL, "rgn_create: size 0; a region holds at "
                                 "least one byte");
        return CRL_RID_NONE;
    }
    crl_region_t *r = region_new(rid_make(crl.rank, crl.next_index), size);
    if (r != NULL) {
        r->dir = crl_dir_new();
    }
    if (r == NULL || r->dir == NULL || table_put(r) != 0) {
        if (r != NULL) {
            crl_dir_free(r->dir);
        }
        free(r);
        crl_error(CRL_ERR_NOMEM, "rgn_create: no memory for %u bytes", size);
        return CRL_RID_NONE;
    }
    crl.next_index++;
    return r->rid;
}

static int deletes_acknowledged(const void *arg)
{
    (void)arg;
    return crl.delete_acks == 0;
}

crl_status_t rgn_delete(rid_t rid)
{
    crl_status_t st = crl_check_started("rgn_delete");
    if (st != CRL_OK) {
        return st;
    }
    crl_region_t *r = crl_region_lookup(rid);
    if (r == NULL || r->deleted) {
        return crl_error(CRL_ERR_NOREGION, "rgn_delete: no region 0x%llx",
                         (unsigned long long)rid);
    }
    if (r->home != crl.rank) {
        return crl_error(CRL_ERR_STATE,
                         "rgn_delete: region 0x%llx belongs to node %d; only "
                         "its home deletes it",
                         (unsigned long long)rid, r->home);
    }
    if (r->readers || r->writer || !crl_dir_idle(r)) {
        return crl_error(CRL_ERR_STATE,
                         "rgn_delete: region 0x%llx has a section open or a "
                         "request pending",
                         (unsigned long long)rid);
    }
    crl_enter();
    /* Copies elsewhere hold no section (the caller's promise): drop them,
     * and wait until they are gone, so that after rgn_delete (and a
     * barrier) no node maps the region any more. */
    crl.delete_acks = 0;
    for (int n = 0; n < crl.size; n++) {
        if (n != crl.rank &&
            (crl_bit_get(r->dir->sharers, n) || r->dir->owner == n)) {
            crl_send_ctl(n, CRL_MSG_DELETE, rid, 0);
            crl.delete_acks++;
        }
    }
    r->deleted = 1;
    if (r->map_count == 0) {
        region_free(r);
    }
    crl_leave();
    return crl_wait(deletes_acknowledged, NULL, "rgn_delete");
}

void *rgn_map(rid_t rid)
{
    if (crl_check_started("rgn_map") != CRL_OK) {
        return NULL;
    }
    if (!rid_valid(rid)) {
        crl_error(CRL_ERR_NOREGION, "rgn_map: 0x%llx is not a region id",
                  (unsigned long long)rid);
        return NULL;
    }
    crl_region_t *r = crl_region_lookup(rid);
    if (r == NULL && crl_rid_home(rid) != crl.rank) {
        /* First map here: the home says how big the region is. */
        crl_enter();
        crl.map_rid = rid;
        crl.map_done = 0;
        crl_send_ctl(crl_rid_home(rid), CRL_MSG_MAP_REQ, rid, 0);
        crl_leave();
        if (crl_wait_flag(&crl.map_done, "the region's size") != CRL_OK) {
            return NULL;
        }
        if (crl.map_size > 0) {
            r = region_new(rid, crl.map_size);
            if (r == NULL || table_put(r) != 0) {
                free(r);
                crl_error(CRL_ERR_NOMEM, "rgn_map: no memory for %u bytes",
                          crl.map_size);
                return NULL;
            }
        }
    }
    if (r == NULL || r->deleted) {
        crl_error(CRL_ERR_NOREGION, "rgn_map: no region 0x%llx",
                  (unsigned long long)rid);
        return NULL;
    }
    r->map_count++;
    return r->data;
}

crl_status_t rgn_unmap(void *rgn)
{
    crl_status_t st = crl_check_started("rgn_unmap");
    if (st != CRL_OK) {
        return st;
    }
    crl_region_t *r = crl_region_of(rgn, "rgn_unmap");
    if (r == NULL) {
        return CRL_ERR_INVAL;
    }
    if (r->map_count == 0) {
        return crl_error(CRL_ERR_STATE,
                         "rgn_unmap: region 0x%llx is not "
                         "mapped",
                         (unsigned long long)r->rid);
    }
    if (--r->map_count == 0 && r->deleted) {
        region_free(r);
    }
    return CRL_OK;
}

rid_t rgn_rid(void *rgn)
{
    crl_region_t *r = crl_region_of(rgn, "rgn_rid");
    return r != NULL ? r->rid : CRL_RID_NONE;
}

unsigned rgn_size(void *rgn)
{
    crl_region_t *r = crl_region_of(rgn, "rgn_size");
    return r != NULL ? r->size : 0;
}

/* ---- handlers ------------------------------------------------------- */

void crl_region_on_map_req(int src, const crl_msg_hdr_t *h)
{
    crl_region_t *r = crl_region_lookup(h->rid);
    uint32_t size =
        r != NULL && !r->deleted && r->home == crl.rank ? r->size : 0;
    crl_send_ctl(src, CRL_MSG_MAP_REP, h->rid, size);
}

void crl_region_on_map_rep(const crl_msg_hdr_t *h)
{
    if (h->rid == crl.map_rid) {
        crl.map_size = h->size;
        crl.map_done = 1;
    }
}

void crl_region_on_delete(int src, const crl_msg_hdr_t *h)
{
    if (h->type == CRL_MSG_DELETE_ACK) {
        crl.delete_acks--;
        return;
    }
    crl_send_ctl(src, CRL_MSG_DELETE_ACK, h->rid, 0);
    crl_region_t *r = crl_region_lookup(h->rid);
    if (r == NULL) {
        return;
    }
    r->deleted = 1;
    r->copy = CRL_COPY_INVALID;
    if (r->map_count == 0) {
        region_free(r);
    }
}

void crl_region_free_all(void)
{
    for (int home = 0; home < crl.size; home++) {
        for (uint32_t i = 0; i < crl.table_len[home]; i++) {
            if (crl.table[home][i] != NULL) {
                region_free(crl.table[home][i]);
            }
        }
        free(crl.table[home]);
    }
}
