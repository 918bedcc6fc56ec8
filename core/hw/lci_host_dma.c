/* lci_host_dma.c - the DMA engine between NI SRAM and host memory. */
#include <string.h>

#include "lci_hw.h"
#include "lci_hw_sink.h"
#include "lci_platform.h"

void lci_hw_host_dma(lci_ni_t *ni, uint64_t now, uint32_t buf, uint32_t slot)
{
    const lci_profile_t *p = lci_prof();
    const lci_wire_hdr_t *hdr = lci_ni_buf_hdr(ni, buf);
    uint32_t bytes = (uint32_t)sizeof *hdr + hdr->len;
    uint64_t start = (now > ni->hdma_free ? now : ni->hdma_free) +
                     (uint64_t)p->ni_dma_setup_ns;
    uint64_t end = start + lci_hw_transfer_ns(&ni->pci_memo, bytes, p->pci_mb_s);
    ni->hdma_free = end;

    /* The data lands in host memory now, but the descriptor says when it
     * becomes visible, and the host looks at nothing from its future: no
     * completion event is needed for the host's sake. */
    lci_ring_slot_t *d = lci_world_ring_slot(ni->node, slot);
    lci_world_touch(d);
    lci_hbuf_stack_t *stack = lci_world_hbuf_stack(ni->node);
    /* The NI's ring limit guarantees a free host buffer. */
    uint32_t hbuf = lci_world_hbuf_stack_slots(ni->node)[--stack->h_count];
    char *data = lci_world_hbuf(ni->node, hbuf);
    lci_world_touch(data);
    memcpy(data, hdr + 1, hdr->len);
    memcpy(&d->hdr, hdr, sizeof *hdr);
    d->ni_hbuf = hbuf;
    d->ni_time = end;
    /* The full flag last: the host reads the slot only once it is set. */
    __atomic_store_n(&d->ni_full, 1, __ATOMIC_RELEASE);
    lci_platform->wake_arrival(ni->node, end);
    lci_hw_sink->host_dma_started(ni, now, buf, end);
}
