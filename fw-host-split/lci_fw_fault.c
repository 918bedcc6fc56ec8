/*
 * lci_fw_fault.c - turns a fault the firmware recorded (it has no stdio)
 * into a stopped run with a diagnostic naming the violated assumption.
 */
#include "lci_fw.h"
#include "lci_sched.h"

void lci_fw_fault_check(uint32_t node)
{
    lci_ni_t *ni = lci_world_ni(node);
    if (ni->fault == LCI_FW_OK) {
        return;
    }
    lci_status_t st = lci_fw_fault_status(ni->fault);
    const char *decomp = lci_seg()->cfg.decomp;
    switch (ni->fault) {
    case LCI_FW_RXNO_CRC:
        lci_sched_fail((int)node, st,
                       "%s: RX_no assumes reliable hardware, but a packet "
                       "from node %u to node %u arrived damaged (CRC "
                       "error); it was not delivered. Use a retransmitting "
                       "decomposition on an unreliable network",
                       decomp, ni->fault_a, ni->fault_b);
    case LCI_FW_RXNO_LOST:
        lci_sched_fail((int)node, st,
                       "%s: RX_no assumes reliable hardware, but the link "
                       "from node %u to node %u lost a packet. Use a "
                       "retransmitting decomposition on an unreliable "
                       "network",
                       decomp, ni->fault_a, ni->fault_b);
    case LCI_FW_RXNO_DUP:
        lci_sched_fail((int)node, st,
                       "%s: RX_no assumes reliable hardware, but the link "
                       "from node %u to node %u duplicated or reordered a "
                       "packet; it was not delivered",
                       decomp, ni->fault_a, ni->fault_b);
    case LCI_FW_RXNO_NOBUF:
        lci_sched_fail((int)node, st,
                       "%s: RX_no flow control violated: node %u had no "
                       "receive buffer for a packet from node %u",
                       decomp, ni->fault_b, ni->fault_a);
    case LCI_FW_QUEUE_FULL: {
        static const char *const what[LCI_NI_Q_COUNT] = {
            [LCI_NI_Q_SEND] = "send",
            [LCI_NI_Q_HOST_DMA] = "host-DMA wait",
            [LCI_NI_Q_ARRIVAL] = "arrival"};
        uint32_t w = ni->fault_a < LCI_NI_Q_COUNT ? ni->fault_a : 0;
        const char *name = what[w] ? what[w] : "unnamed";
        lci_sched_fail((int)node, st,
                       "NI of node %u: the %s queue (%u entries) "
                       "overflowed; its size in the NI layout does not "
                       "cover what can be outstanding",
                       node, name, ni->fault_b);
    }
    case LCI_FW_UNSUPPORTED:
        lci_sched_fail((int)node, LCI_ERR_UNSUPPORTED,
                       "NI of node %u: return-to-sender is not built into "
                       "this firmware",
                       node);
    default:
        lci_sched_fail((int)node, st, "NI of node %u failed (fault %u)", node,
                       ni->fault);
    }
}
