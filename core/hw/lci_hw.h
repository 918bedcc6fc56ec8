/*
 * lci_hw.h - the emulated hardware around the NI processor: the link and
 * switch fabric (with its fault injector), and the host DMA engine.
 *
 * Hardware works on its own, concurrently with the NI processor: the
 * firmware starts a transfer and is told when it is done.  Timing follows
 * the cost profile; the fabric is cut-through with link-level
 * back-pressure, FIFO per source-destination path, and never drops -- only
 * the fault injector does.
 */
#ifndef LCI_HW_H
#define LCI_HW_H

#include <stdint.h>

#include "lci_ni.h"
#include "lci_world.h"

/* Transmits a packet: header hdr (the link fills crc, link_seq and
 * hop_src in the packet, not in *hdr) and hdr->len payload bytes at
 * payload, starting no earlier than now.  The buffer buf (LCI_NONE for
 * header-only packets) is released back to the firmware when the send DMA
 * has finished with it. */
void lci_hw_transmit(lci_ni_t *ni, uint64_t now, const lci_wire_hdr_t *hdr,
                     const void *payload, uint32_t buf);

/* The sim platform's wire (its transmit operation, lci_platform.h): the
 * simulated send DMA, links and switch, with back-pressure and fault
 * injection; lci_hw_transmit goes here through the platform table. */
void lci_hw_link_transmit(lci_ni_t *ni, uint64_t now, const lci_wire_hdr_t *hdr,
                          const void *payload, uint32_t buf);

/* The link hardware's part of a transmission, common to every platform:
 * writes header and payload to pkt, stamping there the link sequence and
 * the transmitting NI (hop_src), and sets the CRC field last, never
 * copying the header's (crc_on; a link that cannot damage a packet leaves
 * it 0, and its receiver ignores the field, which the shared-memory wire
 * fills with its slot stamp).  Returns the packet's size in bytes. */
uint32_t lci_hw_frame(lci_ni_t *ni, const lci_wire_hdr_t *hdr,
                      const void *payload, unsigned char *pkt, int crc_on);

/* Whether the links compute and check the CRC: only where a packet can be
 * damaged, by the wire itself (wire_may_damage: a real network) or by
 * fault injection flipping bits (corrupt=P).  The other faults lose,
 * repeat or starve whole packets, which arrive intact or not at all.  An
 * intact packet passes the check either way, so leaving it out changes
 * nothing but the time spent.  Every platform decides by this rule. */
static inline int lci_hw_crc_needed(const lci_fault_config_t *f,
                                    int wire_may_damage)
{
    return wire_may_damage || f->corrupt > 0;
}

/* What the fault injector does to the n-th packet src puts on the wire
 * (pkt may be damaged in place): */
#define LCI_HW_FAULT_LOST 1u  /* lost */
#define LCI_HW_FAULT_TWICE 2u /* delivered twice */
unsigned lci_hw_fault(const lci_wire_hdr_t *hdr, uint32_t src,
                      unsigned char *pkt, uint32_t bytes, uint64_t n,
                      uint64_t now, uint64_t *burst_left);

/* The receiving hardware, common to every platform: checks CRC and link
 * sequence of the bytes that arrived and stores them in a free receive
 * buffer (*buf_p, LCI_NONE if none).  Returns the lci_hw_status_t for
 * the sink's arrived (lci_hw_sink.h). */
uint32_t lci_hw_rx_frame(lci_ni_t *ni, uint64_t now, const unsigned char *pkt,
                         uint32_t bytes, int crc_on, lci_wire_hdr_t *hdr_p,
                         uint32_t *buf_p);

/* The same for a packet whose header is at pkt and payload at payload
 * (bytes in all).  payload is NULL (the payload follows the header) where
 * crc_on: a wire that may damage carries whole packets, and the CRC is
 * computed over them. */
uint32_t lci_hw_rx_frame_from(lci_ni_t *ni, uint64_t now,
                              const unsigned char *pkt,
                              const unsigned char *payload, uint32_t bytes,
                              int crc_on, lci_wire_hdr_t *hdr_p,
                              uint32_t *buf_p);

/* The host is about to write send buffer buf of its NI again: packets on
 * the simulated wire still reading their payload from it take their copy
 * now. */
void lci_hw_send_buffer_reused(lci_ni_t *ni, uint32_t buf);

/* Copies buffer buf into the host receive ring slot `slot` by DMA, starting
 * no earlier than now; the firmware hears of the completion through
 * the sink's host_dma_started (lci_hw_sink.h). */
void lci_hw_host_dma(lci_ni_t *ni, uint64_t now, uint32_t buf, uint32_t slot);

/* Whether node's NI and host are dead (fault injection) at time t. */
static inline int lci_hw_dead(uint32_t node, uint64_t t)
{
    const lci_fault_window_t *d = &lci_seg()->cfg.fault.die;
    return d->dur > 0 && d->a == node && t >= d->start;
}

/* Event handlers of the hardware. */
void lci_hw_on_wire_arrive(const lci_event_t *ev);
void lci_hw_on_tx_done(const lci_event_t *ev);

#endif
