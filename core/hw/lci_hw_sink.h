/*
 * lci_hw_sink.h - how the emulated hardware reports to the firmware.
 *
 * The hardware (core/hw: links, send DMA, host DMA) and the live
 * platform's wire (core/live) sit below the firmware and never call it by
 * name: they report through a sink, a small table of functions the
 * firmware registers at start-up (lci_hw_sink_register), as a UCX
 * transport delivers through the handlers its interface was given.
 *
 * The sink is process memory, never the shared segment: function
 * addresses differ between processes, so every process that runs events
 * registers it (the firmware does so when a decomposition is selected).
 * Until then every report stops the run naming the missing firmware.
 */
#ifndef LCI_HW_SINK_H
#define LCI_HW_SINK_H

#include <stdint.h>

#include "lci.h"
#include "lci_internal.h"
#include "lci_ni.h"
#include "lci_world.h"

typedef struct lci_hw_sink {
    /* A packet arrived (header hdr, in receive buffer buf or LCI_NONE)
     * with link status status (lci_hw_status_t) from link neighbour
     * link_src. */
    void (*arrived)(lci_ni_t *ni, uint64_t now, const lci_wire_hdr_t *hdr,
                    uint32_t buf, uint32_t status, uint32_t link_src);
    /* The send DMA finished with receive buffer buf. */
    void (*tx_done)(lci_ni_t *ni, uint64_t now, uint32_t buf);
    /* A host DMA of buf started at now; it completes at done. */
    void (*host_dma_started)(lci_ni_t *ni, uint64_t now, uint32_t buf,
                             uint64_t done);
    /* The wire's use of send buffer buf ends at time when. */
    void (*send_buf_release)(lci_ni_t *ni, uint32_t buf, uint64_t when);
    /* After every event of node: turns a fault its firmware recorded into
     * a stopped run, before the host can see anything after it. */
    void (*fault_check)(uint32_t node);
} lci_hw_sink_t;

/* The sink of this process. */
extern LCI_INTERNAL const lci_hw_sink_t *lci_hw_sink;

/* Makes sink this process's; refuses one with an empty slot
 * (LCI_ERR_CONFIG) and keeps the previous one. */
lci_status_t lci_hw_sink_register(const lci_hw_sink_t *sink);

#endif
