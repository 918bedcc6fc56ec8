/*
 * crl_node.c - a node's CRL state: start and stop, error reports, and the
 * LCI upcall that hands each CRL packet to its protocol handler.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crl_internal.h"

crl_node_t crl;
int crl_self_addr = -1;
int crl_num_nodes = 0;

static char crl_errbuf[512];

crl_status_t crl_error(crl_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(crl_errbuf, sizeof crl_errbuf, fmt, ap);
    va_end(ap);
    return status;
}

void crl_fatal(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lci_abort(1, msg);
}

const char *crl_last_error(void)
{
    return crl_errbuf;
}

const char *crl_strerror(crl_status_t status)
{
    switch (status) {
    case CRL_OK:
        return "success";
    case CRL_ERR_INVAL:
        return "invalid argument";
    case CRL_ERR_STATE:
        return "call not valid now";
    case CRL_ERR_NOREGION:
        return "no such region";
    case CRL_ERR_NOMEM:
        return "out of memory";
    case CRL_ERR_LCI:
        return "LCI failed";
    }
    return "unknown CRL status";
}

crl_status_t crl_check_started(const char *fn)
{
    if (!crl.started) {
        return crl_error(CRL_ERR_STATE, "%s: crl_init has not been called", fn);
    }
    return CRL_OK;
}

/* ---- dispatch ------------------------------------------------------- */

static void crl_handle(const lci_rpacket_t *p)
{
    crl_msg_hdr_t h;
    if (p->len < sizeof h) {
        crl_fatal("CRL: node %d: a %zu-byte packet from node %d is shorter "
                  "than a CRL header",
                  crl.rank, p->len, p->src);
    }
    memcpy(&h, p->data, sizeof h);
    const unsigned char *data = (const unsigned char *)p->data + sizeof h;
    uint32_t len = (uint32_t)(p->len - sizeof h);
    crl.stats.msgs_received++;
    switch ((crl_msg_type_t)h.type) {
    case CRL_MSG_MAP_REQ:
        crl_region_on_map_req(p->src, &h);
        break;
    case CRL_MSG_MAP_REP:
        crl_region_on_map_rep(&h);
        break;
    case CRL_MSG_DELETE:
    case CRL_MSG_DELETE_ACK:
        crl_region_on_delete(p->src, &h);
        break;
    case CRL_MSG_SHARED_REQ:
    case CRL_MSG_EXCL_REQ:
        crl_home_on_request(p->src, &h);
        break;
    case CRL_MSG_INV_ACK:
    case CRL_MSG_INV_ACK_DATA:
    case CRL_MSG_FLUSH:
    case CRL_MSG_FLUSH_DATA:
        crl_home_on_ack(p->src, &h, data, len);
        break;
    case CRL_MSG_SHARED_DATA:
    case CRL_MSG_EXCL_DATA:
    case CRL_MSG_EXCL_ACK:
        crl_remote_on_reply(&h, data, len);
        break;
    case CRL_MSG_INV:
        crl_remote_on_inv(&h);
        break;
    case CRL_MSG_BCAST:
        crl_coll_on_bcast(p->src, &h, data, len);
        break;
    case CRL_MSG_REDUCE_IN:
        crl_coll_on_reduce_in(p->src, &h, data, len);
        break;
    case CRL_MSG_REDUCE_OUT:
        crl_coll_on_reduce_out(&h, data, len);
        break;
    case CRL_MSG_BARRIER_ARRIVE:
    case CRL_MSG_BARRIER_RELEASE:
        crl_coll_on_barrier(p->src, &h);
        break;
    default:
        crl_fatal("CRL: node %d: unknown message type %u from node %d",
                  crl.rank, h.type, p->src);
    }
}

static void crl_defer(lci_rpacket_t *p)
{
    if (crl.dlen == crl.dcap) {
        size_t cap = crl.dcap ? 2 * crl.dcap : 64;
        lci_rpacket_t **q = malloc(cap * sizeof *q);
        if (q == NULL) {
            crl_fatal("CRL: node %d: out of memory keeping packets", crl.rank);
        }
        for (size_t i = 0; i < crl.dlen; i++) {
            q[i] = crl.deferred[(crl.dhead + i) % crl.dcap];
        }
        free(crl.deferred);
        crl.deferred = q;
        crl.dcap = cap;
        crl.dhead = 0;
    }
    crl.deferred[(crl.dhead + crl.dlen) % crl.dcap] = p;
    crl.dlen++;
    crl.stats.msgs_deferred++;
}

static lci_upcall_result_t crl_upcall(lci_rpacket_t *p, void *arg)
{
    (void)arg;
    if (crl.busy || crl.dlen > 0) {
        /* A CRL call is changing state: handle it when that is done. */
        crl_defer(p);
        return LCI_UPCALL_KEEP;
    }
    crl.busy = 1;
    crl.in_upcall = 1;
    crl_handle(p);
    crl.in_upcall = 0;
    crl.busy = 0;
    return LCI_UPCALL_RELEASE;
}

void crl_enter(void)
{
    crl.busy++;
}

void crl_leave(void)
{
    if (crl.busy == 1) {
        crl_outbox_drain();
        while (crl.dlen > 0) {
            lci_rpacket_t *p = crl.deferred[crl.dhead];
            crl.dhead = (crl.dhead + 1) % crl.dcap;
            crl.dlen--;
            crl_handle(p);
            lci_status_t st = lci_release(p);
            if (st != LCI_OK) {
                crl_fatal("CRL: node %d: lci_release: %s", crl.rank,
                          lci_last_error());
            }
        }
    }
    crl.busy--;
}

crl_status_t crl_wait(int (*done)(const void *arg), const void *arg,
                      const char *what)
{
    for (;;) {
        if (crl.outbox_head != NULL) {
            crl_enter();
            crl_leave(); /* sends the outbox */
        }
        if (done(arg)) {
            return CRL_OK;
        }
        int n = lci_poll_wait();
        if (n < 0) {
            return crl_error(CRL_ERR_LCI, "waiting for %s: %s", what,
                             lci_last_error());
        }
    }
}

static int flag_set(const void *arg)
{
    return *(const volatile int *)arg != 0;
}

crl_status_t crl_wait_flag(const volatile int *flag, const char *what)
{
    return crl_wait(flag_set, (const void *)flag, what);
}

/* ---- life cycle ----------------------------------------------------- */

crl_status_t crl_init(int *argc, char ***argv)
{
    if (crl.started) {
        return crl_error(CRL_ERR_STATE, "crl_init: called twice");
    }
    /* A program that measures LCI itself first may have started it. */
    int owns_lci = lci_rank() < 0;
    lci_status_t st = owns_lci ? lci_init(argc, argv) : LCI_OK;
    if (st != LCI_OK) {
        return crl_error(CRL_ERR_LCI, "crl_init: lci_init: %s",
                         lci_last_error());
    }
    memset(&crl, 0, sizeof crl);
    crl.owns_lci = owns_lci;
    crl.rank = lci_rank();
    crl.size = lci_size();
    crl.table = calloc((size_t)crl.size, sizeof *crl.table);
    crl.table_len = calloc((size_t)crl.size, sizeof *crl.table_len);
    crl.bcast_filling = calloc((size_t)crl.size, sizeof *crl.bcast_filling);
    crl.reduce_vals[0] = calloc((size_t)crl.size, sizeof(double));
    crl.reduce_vals[1] = calloc((size_t)crl.size, sizeof(double));
    if (crl.table == NULL || crl.table_len == NULL ||
        crl.bcast_filling == NULL || crl.reduce_vals[0] == NULL ||
        crl.reduce_vals[1] == NULL) {
        return crl_error(CRL_ERR_NOMEM, "crl_init: out of memory for %d nodes",
                         crl.size);
    }
    st = lci_upcall_set(crl_upcall, NULL);
    if (st != LCI_OK) {
        return crl_error(CRL_ERR_LCI, "crl_init: lci_upcall_set: %s",
                         lci_last_error());
    }
    crl_self_addr = crl.rank;
    crl_num_nodes = crl.size;
    crl.started = 1;
    return CRL_OK;
}

crl_status_t crl_finalize(void)
{
    crl_status_t st = crl_check_started("crl_finalize");
    if (st != CRL_OK) {
        return st;
    }
    st = rgn_barrier();
    if (st != CRL_OK) {
        return st;
    }
    crl_region_free_all();
    crl_coll_free();
    for (size_t i = 0; i < crl.dlen; i++) {
        lci_release(crl.deferred[(crl.dhead + i) % crl.dcap]);
    }
    free(crl.deferred);
    free(crl.table);
    free(crl.table_len);
    free(crl.bcast_filling);
    free(crl.reduce_vals[0]);
    free(crl.reduce_vals[1]);
    int owns_lci = crl.owns_lci;
    memset(&crl, 0, sizeof crl);
    crl_self_addr = -1;
    crl_num_nodes = 0;
    if (owns_lci && lci_finalize() != LCI_OK) {
        return crl_error(CRL_ERR_LCI, "crl_finalize: lci_finalize: %s",
                         lci_last_error());
    }
    return CRL_OK;
}

crl_status_t crl_stats_get(crl_stats_t *stats_p)
{
    crl_status_t st = crl_check_started("crl_stats_get");
    if (st != CRL_OK) {
        return st;
    }
    if (stats_p == NULL) {
        return crl_error(CRL_ERR_INVAL, "crl_stats_get: NULL stats_p");
    }
    *stats_p = crl.stats;
    return CRL_OK;
}
