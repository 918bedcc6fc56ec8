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

/* Transmits a packet: header hdr (crc and link_seq are filled here) and
 * hdr->len payload bytes at payload, starting no earlier than now.  The
 * buffer buf (LCI_NONE for header-only packets) is released back to the
 * firmware when the send DMA has finished with it. */
void lci_hw_transmit(lci_ni_t *ni, uint64_t now, lci_wire_hdr_t *hdr,
                     const void *payload, uint32_t buf);

/* Copies buffer buf into the host receive ring slot `slot` by DMA, starting
 * no earlier than now; the firmware hears of the completion through
 * lci_fw_host_dma_started's queue. */
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
