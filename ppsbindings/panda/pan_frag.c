/*
 * pan_frag.c - fragmentation and reassembly.
 *
 * A message is cut into packets of at most lci_packet_capacity() bytes,
 * each starting with Panda's header; the pieces of the I/O vector are
 * written straight into the NI send buffers at their offsets.  LCI keeps
 * packets FIFO per sender, so the fragments of one sender's message arrive
 * in order and one reassembly slot per sender suffices (one for unicast,
 * one for multicast: the two travel different paths).  Each fragment is
 * copied once, charged, into the message's buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "pan_internal.h"

int pan_frag_init(void)
{
    pan.uni = calloc((size_t)pan.size, sizeof *pan.uni);
    pan.mc = calloc((size_t)pan.size, sizeof *pan.mc);
    if (pan.uni == NULL || pan.mc == NULL) {
        free(pan.uni);
        free(pan.mc);
        return pan_error(PAN_ERR_NOMEM,
                         "pan_init: no memory for %d "
                         "reassembly slots",
                         pan.size);
    }
    return PAN_OK;
}

void pan_frag_fini(void)
{
    for (int i = 0; i < pan.size; i++) {
        if (!pan.uni[i].placed) {
            free(pan.uni[i].buf);
        }
        if (!pan.mc[i].placed) {
            free(pan.mc[i].buf);
        }
    }
    free(pan.uni);
    free(pan.mc);
    pan.uni = pan.mc = NULL;
}

/* Fills one packet with hdr and the next n bytes of msg, starting at
 * piece *iov_p, offset *off_p within it. */
static lci_status_t fill(lci_packet_t *p, const pan_wire_hdr_t *hdr,
                         const pan_msg_t *msg, int *iov_p, size_t *off_p,
                         size_t n)
{
    lci_status_t st = lci_packet_write(p, 0, hdr, sizeof *hdr);
    size_t at = sizeof *hdr;
    while (st == LCI_OK && n > 0) {
        const struct iovec *v = &msg->iov[*iov_p];
        size_t chunk = v->iov_len - *off_p;
        if (chunk > n) {
            chunk = n;
        }
        if (chunk > 0) {
            st = lci_packet_write(p, at, (const char *)v->iov_base + *off_p,
                                  chunk);
        }
        at += chunk;
        n -= chunk;
        *off_p += chunk;
        if (*off_p == v->iov_len) {
            ++*iov_p;
            *off_p = 0;
        }
    }
    return st;
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
        if (n > pan.frag_cap) {
            n = pan.frag_cap;
        }
        hdr.first = sent == 0;
        lci_packet_t *p;
        lci_status_t st = lci_packet_alloc(&p);
        if (st != LCI_OK) {
            return pan_lci_error(st, "Panda send");
        }
        st = fill(p, &hdr, msg, &iov, &off, n);
        if (st != LCI_OK) {
            lci_packet_free(p);
            return pan_lci_error(st, "Panda send");
        }
        size_t len = sizeof hdr + n;
        st = dest >= 0 ? lci_send(p, dest, len) : lci_broadcast(p, len);
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
    if (dest != pan.rank) {
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
    pan_complete(&h, pan.rank, buf);
    return PAN_OK;
}

int pan_frag_bcast(const pan_wire_hdr_t *hdr, const pan_msg_t *msg)
{
    if (pan.size == 1) {
        return PAN_OK;
    }
    return send_packets(-1, hdr, msg);
}

/* Starts reassembling a message: in the buffer the port's placement
 * names, or in one of Panda's own. */
static void reasm_begin(pan_reasm_t *r, const pan_wire_hdr_t *hdr, int src,
                        const char *head, size_t head_len)
{
    r->hdr = *hdr;
    r->got = 0;
    r->skip = 0;
    r->placed = 0;
    r->active = 1;
    r->buf = NULL;
    if ((hdr->kind == PAN_K_ONEWAY || hdr->kind == PAN_K_BCAST) &&
        pan.ports[hdr->port].place != NULL) {
        pan_port_t *p = &pan.ports[hdr->port];
        size_t skip = 0;
        r->buf = p->place(src, head, head_len, hdr->len, &skip, p->place_arg);
        if (r->buf != NULL && skip <= hdr->len) {
            r->placed = 1;
            r->skip = skip;
            return;
        }
    }
    r->buf = hdr->len > 0 ? malloc(hdr->len) : NULL;
    if (r->buf == NULL && hdr->len > 0) {
        lci_abort(1, "Panda: no memory to reassemble a message");
    }
}

lci_upcall_result_t pan_frag_upcall(lci_rpacket_t *packet, void *arg)
{
    (void)arg;
    pan_wire_hdr_t hdr;
    if (packet->len < sizeof hdr) {
        lci_abort(1, "Panda: a packet shorter than Panda's header arrived");
    }
    memcpy(&hdr, packet->data, sizeof hdr);
    pan_reasm_t *r =
        packet->group < 0 ? &pan.uni[packet->src] : &pan.mc[packet->src];
    const char *data = (const char *)packet->data + sizeof hdr;
    size_t n = packet->len - sizeof hdr;
    if (hdr.first) {
        if (r->active) {
            lci_abort(1, "Panda: a message began before the previous one "
                         "from the same sender was complete");
        }
        reasm_begin(r, &hdr, packet->src, data, n);
    } else if (!r->active) {
        lci_abort(1, "Panda: a fragment arrived without its first fragment");
    }
    if (n > r->hdr.len - r->got) {
        lci_abort(1, "Panda: a fragment runs past the end of its message");
    }
    /* A placement keeps the bytes before skip out of its buffer. */
    size_t drop = r->got < r->skip ? r->skip - r->got : 0;
    if (drop > n) {
        drop = n;
    }
    if (n > drop) {
        lci_copy(r->buf + (r->got + drop - r->skip), data + drop, n - drop);
    }
    r->got += n;
    if (r->got == r->hdr.len) {
        char *buf = r->buf;
        r->buf = NULL;
        r->active = 0;
        if (r->placed) {
            pan_wire_hdr_t h = r->hdr;
            h.len = (uint32_t)(r->hdr.len - r->skip);
            pan_complete_placed(&h, packet->src, buf);
        } else {
            pan_complete(&r->hdr, packet->src, buf);
        }
    }
    return LCI_UPCALL_RELEASE;
}
