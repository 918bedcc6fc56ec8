/*
 * lci_policy.h - the interface for protocol modules (policy authors read
 * this first).
 *
 * A framework is one kind of protocol job; a component is one way of doing
 * it; a decomposition picks one component per framework and says where
 * each runs.  Frameworks:
 *
 *   rx  - reliability and flow control between neighbours: decides when a
 *         packet may go on the wire, what flow-control fields it carries,
 *         whether an arrival is accepted, and what a freed receive buffer
 *         gives back to its sender.  Components: none (credits, RX_no).
 *   mc  - multicast forwarding: which children a multicast packet goes to
 *         next.  Components: tree (binary spanning tree).
 *   fa  - the fetch-and-add server.
 *
 * Life cycle of a packet through the ops of an NI-placed rx component:
 *   tx(txd)        a descriptor wants the wire: transmit now (through
 *                  lci_fw_transmit) or queue it until the window opens;
 *   stamp(hdr)     fill the flow-control fields of any outgoing header;
 *   accept(entry)  an arrival: take its flow-control fields, and return 1
 *                  to let it through or 0 after disposing of it;
 *   released(peer) a receive buffer filled by peer became free again.
 *
 * Components are const tables, registered in lci/lci_decomp.c.  Every op is
 * set; an op a component cannot do returns LCI_ERR_UNSUPPORTED.  Policy
 * code obeys the firmware rules (no malloc, stdio, locks or blocking), so
 * the same code can run on the NI.
 */
#ifndef LCI_POLICY_H
#define LCI_POLICY_H

#include <stdint.h>

#include "lci_ni.h"

#define LCI_POLICY_ABI 1

typedef struct {
    void (*tx)(lci_ni_t *ni, uint32_t txd);
    void (*stamp)(lci_ni_t *ni, lci_wire_hdr_t *hdr);
    int (*accept)(lci_ni_t *ni, const lci_rxq_entry_t *e);
    void (*released)(lci_ni_t *ni, uint32_t peer);
} lci_rx_ops_t;

typedef struct {
    const char *name;
    const char *description;
    uint32_t abi;
    lci_rx_ops_t ops;
} lci_rx_component_t;

typedef struct {
    /* Queues transmissions of buffer buf (header hdr, already received or
     * built by the root) to this node's children in the tree; returns how
     * many. */
    uint32_t (*forward)(lci_ni_t *ni, uint32_t buf, const lci_wire_hdr_t *hdr);
} lci_mc_ops_t;

typedef struct {
    const char *name;
    const char *description;
    uint32_t abi;
    lci_mc_ops_t ops;
} lci_mc_component_t;

typedef struct {
    /* Serves a request in receive buffer buf: applies it and sends the
     * reply from the same buffer. */
    void (*serve)(lci_ni_t *ni, uint32_t buf);
} lci_fa_ops_t;

typedef struct {
    const char *name;
    const char *description;
    uint32_t abi;
    lci_fa_ops_t ops;
} lci_fa_component_t;

/* A fetch-and-add request or reply payload. */
typedef struct {
    uint32_t var;
    uint32_t token;
    int64_t value; /* request: the addend; reply: the old value */
} lci_fa_msg_t;

extern const lci_rx_component_t lci_rx_none_component;
extern const lci_mc_component_t lci_mc_tree_component;
extern const lci_fa_component_t lci_fa_ni_component;

#endif
