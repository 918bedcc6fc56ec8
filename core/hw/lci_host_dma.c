/* lci_host_dma.c - the DMA engine between NI SRAM and host memory. */
#include <string.h>

#include "lci_fw.h"
#include "lci_hw.h"
#include "lci_sched.h"

void lci_hw_host_dma(lci_ni_t *ni, uint64_t now, uint32_t buf, uint32_t slot)
{
    const lci_profile_t *p = lci_prof();
    uint32_t bytes = (uint32_t)sizeof(lci_wire_hdr_t) +
                     lci_ni_buf_hdr(ni, buf)->len;
    uint64_t start = (now > ni->hdma_free ? now : ni->hdma_free) +
                     (uint64_t)p->ni_dma_setup_ns;
    uint64_t end = start + (uint64_t)((double)bytes * 1000.0 / p->pci_mb_s + 0.5);
    ni->hdma_free = end;
    ni->hdma_inflight++;
    lci_sim_post(end, LCI_EV_HDMA_DONE, ni->node, buf, slot);
}

void lci_hw_on_host_dma_done(const lci_event_t *ev)
{
    lci_ni_t *ni = lci_world_ni(ev->node);
    uint32_t buf = ev->a;
    lci_ring_slot_t *slot = lci_world_ring_slot(ev->node, (uint32_t)ev->b);
    const lci_wire_hdr_t *hdr = lci_ni_buf_hdr(ni, buf);
    memcpy(&slot->hdr, hdr, sizeof *hdr);
    memcpy(slot + 1, hdr + 1, hdr->len);
    slot->ni_time = ev->time;
    slot->h_kept = 0;
    /* The full flag last: the host reads the slot only once it is set. */
    __atomic_store_n(&slot->ni_full, 1, __ATOMIC_RELEASE);
    ni->hdma_inflight--;
    lci_sched_wake(ev->node, ev->time);
    lci_fw_host_dma_done(ni, ev->time, buf);
}
