/*
 * lci_fw.h - the NI firmware: event handlers and the services policies use.
 *
 * The firmware is event driven.  Hardware events (a packet arrived, a DMA
 * finished, the doorbell rang) queue work and kick the NI processor; the
 * processor then runs one work item at a time to completion, charging its
 * cost, in priority order: finished host DMAs, arrived packets, host
 * commands.  What the NI processor is doing is therefore what it costs.
 */
#ifndef LCI_FW_H
#define LCI_FW_H

#include <stdint.h>

#include "lci_ni.h"
#include "lci_world.h"

/* ---- from the hardware ---- */
void lci_fw_arrived(lci_ni_t *ni, uint64_t now, const lci_wire_hdr_t *hdr,
                    uint32_t buf, uint32_t status, uint32_t link_src);
/* A host DMA of buf started at now; it completes at done. */
void lci_fw_host_dma_started(lci_ni_t *ni, uint64_t now, uint32_t buf,
                             uint64_t done);
/* Drops a reference to send buffer buf whose use ends at time when. */
void lci_fw_send_buf_release(lci_ni_t *ni, uint32_t buf, uint64_t when);
/* The send DMA finished with receive buffer buf. */
void lci_fw_tx_done(lci_ni_t *ni, uint64_t now, uint32_t buf);
/* Drops one reference to buf; frees it when none is left. */
void lci_fw_buf_put(lci_ni_t *ni, uint64_t now, uint32_t buf);

/* ---- event handlers ---- */
void lci_fw_on_run(const lci_event_t *ev);
void lci_fw_on_doorbell(const lci_event_t *ev);
void lci_fw_on_ring_update(const lci_event_t *ev);
void lci_fw_on_watchdog(const lci_event_t *ev);
void lci_fw_on_intr_enable(const lci_event_t *ev);

/* ---- services for policies (run inside a firmware handler) ---- */

/* Charges n ns (n > 0) of NI processor time to the running handler. */
void lci_fw_charge_ns(lci_ni_t *ni, const char *what, uint64_t n);

/* Charges ns of NI processor time, rounded, to the running handler; what
 * names the work on the timeline.  Inline: a free operation (every one on
 * the live platform) costs a test, not a call. */
static inline void lci_fw_charge(lci_ni_t *ni, const char *what, double ns)
{
    uint64_t n = (uint64_t)(ns + 0.5);
    if (n != 0) {
        lci_fw_charge_ns(ni, what, n);
    }
}

/* Gives buffer buf (header hdr) to the rx module for the wire; takes a
 * reference for it. */
void lci_fw_send(lci_ni_t *ni, uint32_t buf, const lci_wire_hdr_t *hdr);

/* Hands buf to the host receive ring (takes a reference). */
void lci_fw_deliver(lci_ni_t *ni, uint32_t buf);

/* Records a failure the host turns into a stopped run with a diagnostic. */
void lci_fw_fail(lci_ni_t *ni, uint32_t fault, uint32_t a, uint32_t b,
                 uint32_t c);

/* ---- host side (lci_fw_fault.c, lci_fw_sink.c) ---- */

/* After every event: turns a fault node's NI recorded into a stopped run
 * with a diagnostic. */
void lci_fw_fault_check(uint32_t node);

/* Registers the firmware as this process's receiver of the hardware's
 * reports (lci_hw_sink.h); once per process, before any event runs. */
void lci_fw_sink_register(void);

#endif
