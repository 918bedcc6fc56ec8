/* lci_event_table.c - the one table that maps event types to handlers. */
#include "lci_fw.h"
#include "lci_hw.h"
#include "lci_sched.h"

const lci_event_handler_func_t lci_event_table[LCI_EV_MAX] = {
    [LCI_EV_DOORBELL] = lci_fw_on_doorbell,
    [LCI_EV_RING_UPDATE] = lci_fw_on_ring_update,
    [LCI_EV_FW_RUN] = lci_fw_on_run,
    [LCI_EV_WIRE_ARRIVE] = lci_hw_on_wire_arrive,
    [LCI_EV_TX_DONE] = lci_hw_on_tx_done,
    [LCI_EV_WATCHDOG] = lci_fw_on_watchdog,
    [LCI_EV_HOST_WAKE] = lci_sched_on_host_wake,
    [LCI_EV_INTR_ENABLE] = lci_fw_on_intr_enable,
};

lci_event_handler_func_t lci_event_handler(uint16_t type)
{
    return type < LCI_EV_MAX ? lci_event_table[type] : NULL;
}
