/*
 * crl_msg.c - sending CRL messages: one packet for control messages, as
 * many as needed for region data, each fragment with its offset.
 *
 * Inside the LCI upcall a send must not wait for a buffer: with
 * reliability on the host (rxh-mh) buffers come back only when the host
 * takes in acknowledgements, which it does not do inside an upcall.  So a
 * handler that finds no free buffer puts the packet (a copy) in an outbox,
 * and later sends queue behind it to keep each destination's order; the
 * outbox is sent from CRL calls outside the upcall (crl_outbox_drain).
 *
 * These run inside protocol handlers, where nothing can be handed back to
 * the application, so an LCI failure stops the run with the reason.
 */
#include <stdlib.h>
#include <string.h>

#include "crl_internal.h"

static void crl_check(lci_status_t st, const char *what)
{
    if (st != LCI_OK) {
        crl_fatal("CRL: node %d: %s: %s", crl.rank, what, lci_last_error());
    }
}

/* A packet waiting in the outbox. */
struct crl_outgoing {
    struct crl_outgoing *next;
    int dest;
    uint32_t len;
    crl_msg_hdr_t hdr;
    unsigned char payload[];
};

static void transmit(lci_packet_t *pkt, int dest, const crl_msg_hdr_t *hdr,
                     const void *payload, uint32_t len)
{
    crl_check(lci_packet_write(pkt, 0, hdr, sizeof *hdr), "lci_packet_write");
    if (len > 0) {
        crl_check(lci_packet_write(pkt, sizeof *hdr, payload, len),
                  "lci_packet_write");
    }
    if (dest < 0) {
        crl_check(lci_broadcast(pkt, sizeof *hdr + len), "lci_broadcast");
    } else {
        crl_check(lci_send(pkt, dest, sizeof *hdr + len), "lci_send");
    }
    crl.stats.msgs_sent++;
}

static void outbox_put(int dest, const crl_msg_hdr_t *hdr, const void *payload,
                       uint32_t len)
{
    crl_outgoing_t *o = malloc(sizeof *o + len);
    if (o == NULL) {
        crl_fatal("CRL: node %d: out of memory holding a packet", crl.rank);
    }
    o->next = NULL;
    o->dest = dest;
    o->len = len;
    o->hdr = *hdr;
    if (len > 0) {
        /* The data as it is now: the region may change before it leaves. */
        lci_copy(o->payload, payload, len);
    }
    if (crl.outbox_tail != NULL) {
        crl.outbox_tail->next = o;
    } else {
        crl.outbox_head = o;
    }
    crl.outbox_tail = o;
    crl.stats.msgs_held++;
}

void crl_outbox_drain(void)
{
    while (crl.outbox_head != NULL) {
        crl_outgoing_t *o = crl.outbox_head;
        lci_packet_t *pkt;
        crl_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
        transmit(pkt, o->dest, &o->hdr, o->payload, o->len);
        crl.outbox_head = o->next;
        if (crl.outbox_head == NULL) {
            crl.outbox_tail = NULL;
        }
        free(o);
    }
}

void crl_send_packet(int dest, const crl_msg_hdr_t *hdr, const void *payload,
                     uint32_t len)
{
    lci_packet_t *pkt;
    if (crl.in_upcall) {
        if (crl.outbox_head == NULL && lci_packet_try_alloc(&pkt) == LCI_OK) {
            transmit(pkt, dest, hdr, payload, len);
        } else {
            outbox_put(dest, hdr, payload, len);
        }
        return;
    }
    crl_outbox_drain();
    crl_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
    transmit(pkt, dest, hdr, payload, len);
}

void crl_send_ctl(int dest, crl_msg_type_t type, rid_t rid, uint32_t size)
{
    crl_msg_hdr_t h = {.type = (uint8_t)type, .size = size, .rid = rid};
    crl_send_packet(dest, &h, NULL, 0);
}

void crl_send_data(int dest, crl_msg_type_t type, rid_t rid, const void *data,
                   uint32_t size)
{
    uint32_t room = (uint32_t)(lci_packet_capacity() - sizeof(crl_msg_hdr_t));
    uint32_t off = 0;
    do {
        uint32_t n = size - off < room ? size - off : room;
        crl_msg_hdr_t h = {
            .type = (uint8_t)type, .size = size, .offset = off, .rid = rid};
        crl_send_packet(dest, &h, (const unsigned char *)data + off, n);
        off += n;
    } while (off < size);
}
