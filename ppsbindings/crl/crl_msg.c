/*
 * crl_msg.c - sending CRL messages: one packet for control messages, as
 * many as needed for region data, each fragment with its offset.
 *
 * These run inside protocol handlers, where nothing can be handed back to
 * the application, so an LCI failure stops the run with the reason.
 */
#include <string.h>

#include "crl_internal.h"

static void crl_check(lci_status_t st, const char *what)
{
    if (st != LCI_OK) {
        crl_fatal("CRL: node %d: %s: %s", crl.rank, what, lci_last_error());
    }
}

void crl_send_packet(int dest, const crl_msg_hdr_t *hdr, const void *payload,
                     uint32_t len)
{
    lci_packet_t *pkt;
    crl_check(lci_packet_alloc(&pkt), "lci_packet_alloc");
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
