/*
 * crl_coll.c - CRL's global operations: barrier (LCI's), broadcast (LCI
 * broadcast, fragmented), and reductions (every node sends its value to
 * node 0, which combines them in rank order and broadcasts the result).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crl_internal.h"

typedef enum {
    CRL_REDUCE_ADD = 1,
    CRL_REDUCE_MIN,
    CRL_REDUCE_MAX
} crl_reduce_op_t;

static int all_arrived(const void *arg)
{
    uint32_t epoch = *(const uint32_t *)arg;
    return crl.barrier_arrivals[epoch & 1] >= crl.size - 1;
}

static int released(const void *arg)
{
    return crl.barrier_released == *(const uint32_t *)arg;
}

/* Every node reports to node 0, which broadcasts the release; arrivals
 * are counted by epoch parity, so reports for the next barrier may come
 * early.  Not lci_barrier: CRL must go on sending its outbox while it
 * waits. */
crl_status_t rgn_barrier(void)
{
    crl_status_t st = crl_check_started("rgn_barrier");
    if (st != CRL_OK || crl.size == 1) {
        return st;
    }
    uint32_t epoch = ++crl.barrier_epoch;
    crl_msg_hdr_t h = {.seq = epoch};
    if (crl.rank == 0) {
        st = crl_wait(all_arrived, &epoch, "rgn_barrier");
        if (st != CRL_OK) {
            return st;
        }
        crl.barrier_arrivals[epoch & 1] -= crl.size - 1;
        h.type = CRL_MSG_BARRIER_RELEASE;
        crl_enter();
        crl_send_packet(-1, &h, NULL, 0);
        crl_leave();
        return CRL_OK;
    }
    h.type = CRL_MSG_BARRIER_ARRIVE;
    crl_enter();
    crl_send_packet(0, &h, NULL, 0);
    crl_leave();
    return crl_wait(released, &epoch, "rgn_barrier");
}

void crl_coll_on_barrier(int src, const crl_msg_hdr_t *h)
{
    if (h->type == CRL_MSG_BARRIER_RELEASE) {
        crl.barrier_released = h->seq;
    } else if (crl.rank == 0) {
        crl.barrier_arrivals[h->seq & 1]++;
    } else {
        crl_fatal("CRL: node %d: barrier report from node %d", crl.rank, src);
    }
}

/* ---- broadcast ------------------------------------------------------ */

crl_status_t rgn_bcast_send(int nbytes, void *buf)
{
    crl_status_t st = crl_check_started("rgn_bcast_send");
    if (st != CRL_OK) {
        return st;
    }
    if (nbytes < 0 || (buf == NULL && nbytes > 0)) {
        return crl_error(CRL_ERR_INVAL, "rgn_bcast_send: %d bytes from %p",
                         nbytes, buf);
    }
    if (crl.size == 1) {
        return CRL_OK;
    }
    uint32_t size = (uint32_t)nbytes;
    uint32_t room = (uint32_t)(lci_packet_capacity() - sizeof(crl_msg_hdr_t));
    uint32_t off = 0;
    crl_enter();
    do {
        uint32_t n = size - off < room ? size - off : room;
        crl_msg_hdr_t h = {.type = CRL_MSG_BCAST, .size = size, .offset = off};
        crl_send_packet(-1, &h, (const unsigned char *)buf + off, n);
        off += n;
    } while (off < size);
    crl_leave();
    return CRL_OK;
}

void crl_coll_on_bcast(int src, const crl_msg_hdr_t *h, const void *data,
                       uint32_t len)
{
    crl_bcast_msg_t *m = crl.bcast_filling[src];
    if (m == NULL) {
        m = malloc(sizeof *m + h->size);
        if (m == NULL) {
            crl_fatal("CRL: node %d: no memory for a %u-byte broadcast",
                      crl.rank, h->size);
        }
        m->next = NULL;
        m->len = h->size;
        m->got = 0;
        crl.bcast_filling[src] = m;
    }
    if (h->size != m->len || h->offset != m->got ||
        h->offset + (uint64_t)len > m->len) {
        crl_fatal("CRL: node %d: broadcast fragment from node %d at offset "
                  "%u (expected %u of %u bytes)",
                  crl.rank, src, h->offset, m->got, m->len);
    }
    lci_copy(m->data + m->got, data, len);
    m->got += len;
    if (m->got < m->len) {
        return;
    }
    crl.bcast_filling[src] = NULL;
    if (crl.bcast_tail != NULL) {
        crl.bcast_tail->next = m;
    } else {
        crl.bcast_head = m;
    }
    crl.bcast_tail = m;
    crl.bcast_ready++;
}

crl_status_t rgn_bcast_recv(int nbytes, void *buf)
{
    crl_status_t st = crl_check_started("rgn_bcast_recv");
    if (st != CRL_OK) {
        return st;
    }
    if (nbytes < 0 || (buf == NULL && nbytes > 0)) {
        return crl_error(CRL_ERR_INVAL, "rgn_bcast_recv: %d bytes into %p",
                         nbytes, buf);
    }
    st = crl_wait_flag(&crl.bcast_ready, "a broadcast");
    if (st != CRL_OK) {
        return st;
    }
    crl_bcast_msg_t *m = crl.bcast_head;
    crl.bcast_head = m->next;
    if (crl.bcast_head == NULL) {
        crl.bcast_tail = NULL;
    }
    crl.bcast_ready--;
    if (m->len != (uint32_t)nbytes) {
        uint32_t len = m->len;
        free(m);
        return crl_error(CRL_ERR_INVAL,
                         "rgn_bcast_recv: expected %d bytes, the broadcast "
                         "has %u (dropped)",
                         nbytes, len);
    }
    lci_copy(buf, m->data, m->len);
    free(m);
    return CRL_OK;
}

void crl_coll_free(void)
{
    while (crl.bcast_head != NULL) {
        crl_bcast_msg_t *m = crl.bcast_head;
        crl.bcast_head = m->next;
        free(m);
    }
    for (int n = 0; n < crl.size; n++) {
        free(crl.bcast_filling[n]);
    }
}

/* ---- reductions ----------------------------------------------------- */

static double combine(crl_reduce_op_t op, double a, double b)
{
    switch (op) {
    case CRL_REDUCE_MIN:
        return b < a ? b : a;
    case CRL_REDUCE_MAX:
        return b > a ? b : a;
    default:
        return a + b;
    }
}

static void reduce_record(uint32_t seq, int rank, crl_reduce_op_t op,
                          double value)
{
    int slot = (int)(seq & 1);
    if (crl.reduce_count[slot] > 0 && crl.reduce_ops[slot] != (uint32_t)op) {
        crl_fatal("CRL: node %d: reduction %u mixes operations (node %d "
                  "calls a different rgn_reduce_*)",
                  crl.rank, seq, rank);
    }
    crl.reduce_ops[slot] = (uint32_t)op;
    crl.reduce_vals[slot][rank] = value;
    crl.reduce_count[slot]++;
}

void crl_coll_on_reduce_in(int src, const crl_msg_hdr_t *h, const void *data,
                           uint32_t len)
{
    crl_reduce_msg_t m;
    if (crl.rank != 0 || len != sizeof m) {
        crl_fatal("CRL: node %d: stray reduction message from node %d",
                  crl.rank, src);
    }
    memcpy(&m, data, sizeof m);
    reduce_record(h->seq, src, (crl_reduce_op_t)m.op, m.value);
}

void crl_coll_on_reduce_out(const crl_msg_hdr_t *h, const void *data,
                            uint32_t len)
{
    crl_reduce_msg_t m;
    if (len != sizeof m) {
        crl_fatal("CRL: node %d: malformed reduction result", crl.rank);
    }
    memcpy(&m, data, sizeof m);
    crl.reduce_result = m.value;
    crl.reduce_done_seq = h->seq;
    crl.reduce_done = 1;
}

static int all_values(const void *arg)
{
    return crl.reduce_count[*(const int *)arg] >= crl.size;
}

static double reduce(crl_reduce_op_t op, double value, const char *fn)
{
    if (crl_check_started(fn) != CRL_OK) {
        return NAN;
    }
    if (crl.size == 1) {
        return value;
    }
    uint32_t seq = ++crl.reduce_seq;
    crl_reduce_msg_t m = {.op = (uint32_t)op};
    crl_msg_hdr_t h = {.seq = seq};
    if (crl.rank == 0) {
        int slot = (int)(seq & 1);
        crl_enter();
        reduce_record(seq, 0, op, value);
        crl_leave();
        if (crl_wait(all_values, &slot, fn) != CRL_OK) {
            return NAN;
        }
        double acc = crl.reduce_vals[slot][0];
        for (int n = 1; n < crl.size; n++) {
            acc = combine(op, acc, crl.reduce_vals[slot][n]);
        }
        crl.reduce_count[slot] = 0;
        m.value = acc;
        h.type = CRL_MSG_REDUCE_OUT;
        crl_enter();
        crl_send_packet(-1, &h, &m, sizeof m);
        crl_leave();
        return acc;
    }
    m.value = value;
    h.type = CRL_MSG_REDUCE_IN;
    crl.reduce_done = 0;
    crl_enter();
    crl_send_packet(0, &h, &m, sizeof m);
    crl_leave();
    if (crl_wait_flag(&crl.reduce_done, fn) != CRL_OK) {
        return NAN;
    }
    if (crl.reduce_done_seq != seq) {
        crl_error(CRL_ERR_STATE,
                  "%s: got the result of reduction %u, "
                  "expected %u",
                  fn, crl.reduce_done_seq, seq);
        return NAN;
    }
    return crl.reduce_result;
}

double rgn_reduce_dadd(double value)
{
    return reduce(CRL_REDUCE_ADD, value, "rgn_reduce_dadd");
}

double rgn_reduce_dmin(double value)
{
    return reduce(CRL_REDUCE_MIN, value, "rgn_reduce_dmin");
}

double rgn_reduce_dmax(double value)
{
    return reduce(CRL_REDUCE_MAX, value, "rgn_reduce_dmax");
}
