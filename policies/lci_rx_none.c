/*
 * lci_rx_none.c - RX_no: no retransmission.  Assumes reliable hardware with
 * FIFO paths, so there are no sequence numbers, no timers and no sender
 * buffering.  Credit-based sliding window between each pair of NIs: each NI
 * reserves W receive buffers per sender; a closed window queues the packet
 * on a per-destination blocked-sends queue, drained when credits return.
 * Freed-buffer counts ride on reverse traffic, with an explicit
 * acknowledgement after W/2 releases when there is none.  Any packet the
 * hardware lost, damaged or duplicated stops the run: never wrong data.
 */
#include "lci_decomp.h"
#include "lci_fw.h"

static void blocked_push(lci_ni_t *ni, lci_ni_peer_t *peer, uint32_t txd)
{
    lci_ni_txd(ni, txd)->next = LCI_NONE;
    if (peer->blocked_tail == LCI_NONE) {
        peer->blocked_head = txd;
    } else {
        lci_ni_txd(ni, peer->blocked_tail)->next = txd;
    }
    peer->blocked_tail = txd;
}

static uint32_t blocked_pop(lci_ni_t *ni, lci_ni_peer_t *peer)
{
    uint32_t txd = peer->blocked_head;
    if (txd != LCI_NONE) {
        peer->blocked_head = lci_ni_txd(ni, txd)->next;
        if (peer->blocked_head == LCI_NONE) {
            peer->blocked_tail = LCI_NONE;
        }
    }
    return txd;
}

static void rx_none_tx(lci_ni_t *ni, uint32_t txd)
{
    lci_ni_peer_t *peer = lci_ni_peer(ni, lci_ni_txd(ni, txd)->dst);
    /* FIFO: nothing overtakes a packet already waiting for this peer. */
    if (peer->credits > 0 && peer->blocked_head == LCI_NONE) {
        peer->credits--;
        lci_fw_transmit(ni, txd);
    } else {
        ni->counters.window_stalls++;
        blocked_push(ni, peer, txd);
    }
}

static void rx_none_stamp(lci_ni_t *ni, lci_wire_hdr_t *hdr)
{
    lci_ni_peer_t *peer = lci_ni_peer(ni, hdr->dst);
    hdr->credits = (uint16_t)peer->freed;
    peer->freed = 0;
}

static int rx_none_accept(lci_ni_t *ni, const lci_rxq_entry_t *e)
{
    switch (e->status) {
    case LCI_HW_OK:
        break;
    case LCI_HW_CRC:
        lci_fw_fail(ni, LCI_FW_RXNO_CRC, e->link_src, ni->node, 0);
        return 0;
    case LCI_HW_SEQ_GAP:
        lci_fw_fail(ni, LCI_FW_RXNO_LOST, e->link_src, ni->node, 0);
        return 0;
    default:
        lci_fw_fail(ni, LCI_FW_RXNO_DUP, e->link_src, ni->node, 0);
        return 0;
    }
    if (e->buf == LCI_NONE && !lci_pkt_is_control(e->hdr.type)) {
        lci_fw_fail(ni, LCI_FW_RXNO_NOBUF, e->hdr.hop_src, ni->node, 0);
        return 0;
    }
    if (e->hdr.credits == 0) {
        return 1;
    }
    lci_fw_charge(ni, lci_prof()->ni_credit_ns);
    lci_ni_peer_t *peer = lci_ni_peer(ni, e->hdr.hop_src);
    peer->credits += e->hdr.credits;
    while (peer->credits > 0 && peer->blocked_head != LCI_NONE) {
        peer->credits--;
        lci_fw_transmit(ni, blocked_pop(ni, peer));
    }
    return 1;
}

static void rx_none_released(lci_ni_t *ni, uint32_t peer_node)
{
    lci_ni_peer_t *peer = lci_ni_peer(ni, peer_node);
    peer->freed++;
    uint32_t half = ni->window / 2 ? ni->window / 2 : 1;
    if (peer->freed >= half) {
        lci_fw_send_control(ni, peer_node, LCI_PKT_CREDIT);
    }
}

const lci_rx_component_t lci_rx_none_component = {
    .name = "none",
    .description = "no retransmission: NI credit flow control (RX_no)",
    .abi = LCI_POLICY_ABI,
    .ops =
        {
            .tx = rx_none_tx,
            .stamp = rx_none_stamp,
            .accept = rx_none_accept,
            .released = rx_none_released,
        },
};
