/*
 * lci_fw_sink.c - the firmware's side of the hardware's reports: the sink
 * it registers with core/hw (lci_hw_sink.h), so that the layers below call
 * it through a table they were given and never by name.
 */
#include "lci_fw.h"
#include "lci_hw_sink.h"

static const lci_hw_sink_t fw_sink = {
    .arrived = lci_fw_arrived,
    .tx_done = lci_fw_tx_done,
    .host_dma_started = lci_fw_host_dma_started,
    .send_buf_release = lci_fw_send_buf_release,
    .fault_check = lci_fw_fault_check,
};

void lci_fw_sink_register(void)
{
    /* Every slot is filled: it cannot be refused. */
    (void)lci_hw_sink_register(&fw_sink);
}
