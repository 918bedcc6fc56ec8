/* lci_hw_sink.c - the firmware's registered sink for hardware reports
 * (see lci_hw_sink.h). */
#include "lci_hw_sink.h"
#include "lci_sched.h"

static void no_firmware(uint32_t node) __attribute__((noreturn));
static void no_firmware(uint32_t node)
{
    lci_sched_fail((int)node, LCI_ERR_STATE,
                   "NI of node %u: the hardware reported to firmware that "
                   "was never registered (no decomposition selected)",
                   node);
}

static void none_arrived(lci_ni_t *ni, uint64_t now, const lci_wire_hdr_t *hdr,
                         uint32_t buf, uint32_t status, uint32_t link_src)
{
    (void)now, (void)hdr, (void)buf, (void)status, (void)link_src;
    no_firmware(ni->node);
}

static void none_tx_done(lci_ni_t *ni, uint64_t now, uint32_t buf)
{
    (void)now, (void)buf;
    no_firmware(ni->node);
}

static void none_host_dma_started(lci_ni_t *ni, uint64_t now, uint32_t buf,
                                  uint64_t done)
{
    (void)now, (void)buf, (void)done;
    no_firmware(ni->node);
}

static void none_send_buf_release(lci_ni_t *ni, uint32_t buf, uint64_t when)
{
    (void)buf, (void)when;
    no_firmware(ni->node);
}

/* Without firmware no fault can have been recorded. */
static void none_fault_check(uint32_t node)
{
    (void)node;
}

static const lci_hw_sink_t no_sink = {
    .arrived = none_arrived,
    .tx_done = none_tx_done,
    .host_dma_started = none_host_dma_started,
    .send_buf_release = none_send_buf_release,
    .fault_check = none_fault_check,
};

const lci_hw_sink_t *lci_hw_sink = &no_sink;

lci_status_t lci_hw_sink_register(const lci_hw_sink_t *sink)
{
    if (sink == NULL || !sink->arrived || !sink->tx_done ||
        !sink->host_dma_started || !sink->send_buf_release ||
        !sink->fault_check) {
        return LCI_ERR_CONFIG;
    }
    lci_hw_sink = sink;
    return LCI_OK;
}
