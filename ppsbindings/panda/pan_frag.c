/*
 * pan_frag.c - fragmentation: sending a message as packets.
 *
 * A message is cut into packets of at most lci_packet_capacity() bytes,
 * each starting with Panda's header; the pieces of the I/O vector are
 * written straight into the NI send buffers at their offsets.  LCI keeps
 * packets FIFO per sender, so the fragments of one sender's message arrive
 * in order (pan_reasm.c puts them together).
 */
#include <stdlib.h>
#include <string.h>

#include "pan_internal.h"

/* The gather list of one packet: hdr and the next n bytes of msg, starting
 * at piece *iov_p, offset *off_p within it (the header and at most every
 * piece of msg: PAN_MSG_MAX_IOV + 1 entries).  Returns its length. */
static int gather(struct iovec *v, const pan_wire_hdr_t *hdr,
                  const pan_msg_t *msg, int *iov_p, size_t *off_p, size_t n)
{
    v[0].iov_base = (void *)hdr;
    v[0].iov_len = sizeof *hdr;
    int nv = 1;
    while (n > 0) {
        const struct iovec *piece = &msg->iov[*iov_p];
        size_t chunk = piece->iov_len - *off_p;
        if (chunk > n) {
            chunk = n;
        }
        if (chunk > 0) {
            v[nv].iov_base = (char *)piece->iov_base + *off_p;
            v[nv++].iov_len = chunk;
        }
        n -= chunk;
        *off_p += chunk;
        if (*off_p == piece->iov_len) {
            ++*iov_p;
            *off_p = 0;
        }
    }
    return nv;
}

/* One packet of a broadcast: the buffer, its contents, the broadcast. */
static lci_status_t broadcast_packet(const struct iovec *v, int nv,
                                     size_t len)
{
    lci_packet_t *p;
    lci_status_t st = lci_packet_alloc(&p);
    if (st != LCI_OK) {
        return st;
    }
    st = lci_packet_writev(p, 0, v, nv);
    if (st != LCI_OK) {
        lci_packet_free(p);
        return st;
    }
    return lci_broadcast(p, len);
}

/* Sends msg as packets to dest, or to every other node when dest < 0. */
static int send_packets(int dest, const pan_wire_hdr_t *hdr0,
                        const pan_msg_t *msg)
{
    pan_wire_hdr_t hdr = *hdr0;
    hdr.len = (uint32_t)msg->len;
    size_t sent = 0;
    int iov = 0;
    size_t off = 0;
    do {
        size_t n = msg->len - sent;
        if (n > pan->frag_cap) {
            n = pan->frag_cap;
        }
        hdr.first = sent == 0;
        struct iovec v[PAN_MSG_MAX_IOV + 1];
        int nv = gather(v, &hdr, msg, &iov, &off, n);
        lci_status_t st = dest >= 0 ? lci_sendv(dest, v, nv)
                                    : broadcast_packet(v, nv, sizeof hdr + n);
        if (st != LCI_OK) {
            return pan_lci_error(st, "Panda send");
        }
        sent += n;
    } while (sent < msg->len);
    return PAN_OK;
}

char *pan_frag_flatten(const pan_msg_t *msg)
{
    if (msg->len == 0) {
        return NULL;
    }
    char *buf = malloc(msg->len);
    if (buf == NULL) {
        return NULL;
    }
    size_t at = 0;
    for (int i = 0; i < msg->iovcnt; i++) {
        if (msg->iov[i].iov_len == 0) {
            continue;
        }
        lci_copy(buf + at, msg->iov[i].iov_base, msg->iov[i].iov_len);
        at += msg->iov[i].iov_len;
    }
    return buf;
}

int pan_frag_send(int dest, const pan_wire_hdr_t *hdr, const pan_msg_t *msg)
{
    if (dest != pan->rank) {
        return send_packets(dest, hdr, msg);
    }
    /* To this node: one copy, no network. */
    char *buf = pan_frag_flatten(msg);
    if (buf == NULL && msg->len > 0) {
        return pan_error(PAN_ERR_NOMEM, "Panda send: no memory for %zu bytes",
                         msg->len);
    }
    pan_wire_hdr_t h = *hdr;
    h.len = (uint32_t)msg->len;
    h.first = 1;
    pan_complete(&h, pan->rank, buf);
    return PAN_OK;
}

int pan_frag_bcast(const pan_wire_hdr_t *hdr, const pan_msg_t *msg)
{
    if (pan->size == 1) {
        return PAN_OK;
    }
    return send_packets(-1, hdr, msg);
}
