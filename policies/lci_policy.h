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
 *         gives back to its sender.  Written against lci_env.h, so the same
 *         module runs in the NI firmware or in the host library.
 *         Components: none (credits, RX_no), gbn (go-back-N, RX_ni and
 *         RX_h), vmmc2 (VMMC-2's firmware reliability), ssam (SSAM's
 *         request/reply windows), am2 (AM-II's endpoints and channels),
 *         srd (reliable but unordered, with selective acks; the host
 *         restores the order).
 *   mc  - multicast forwarding: which children a multicast packet goes to
 *         next.  Components: tree (binary spanning tree).
 *   fa  - the fetch-and-add server.
 *
 * Components are const tables, registered in lci/lci_decomp.c.  Every op is
 * set; an op a component cannot do returns LCI_ERR_UNSUPPORTED.  Policy
 * code obeys the firmware rules (no malloc, stdio, locks or blocking), so
 * the same code can run on the NI.
 */
#ifndef LCI_POLICY_H
#define LCI_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "lci_env.h"
#include "lci_ni.h"

#define LCI_POLICY_ABI 3

/* ---- rx: reliability and flow control between neighbours ---------------
 *
 * The state of an rx module is state_size() bytes that the side gives it
 * (NI SRAM or host memory), set up by init().  Life of a packet:
 *
 *   send(buf, hdr)   a packet wants the wire (hdr: dst, type, len, origin,
 *                    group, aux, flags).  The policy transmits it now
 *                    (env->transmit, filling seq/ack/credits) or queues it
 *                    until its window opens.  *hdr is the caller's copy,
 *                    the policy's to fill in place (a copy of a header
 *                    just written field by field stalls the processor);
 *                    one it queues it copies.  The caller's reference to
 *                    buf passes to the policy, which releases it when it
 *                    no longer needs the packet (after transmission for
 *                    RX_no, after the acknowledgement for go-back-N).
 *   accept(buf, hdr, status)
 *                    an arrival, with the link hardware's status.  buf is
 *                    LCI_BUF_NONE for a control packet, or when the NI had
 *                    no free buffer for a data packet.  Returns 1 when the
 *                    packet is to be delivered (new, and in order unless
 *                    the component is LCI_RX_UNORDERED), 0 when
 *                    it was consumed (control) or dropped.  The caller
 *                    keeps its reference to buf.
 *   released(peer)   a receive buffer that held a packet from peer became
 *                    free again.
 *   handled(peer)    the client is done with a packet from peer that
 *                    accept() passed: on the host, its upcall (or the
 *                    library's own handling) returned; on the NI, it went
 *                    to the host.  What the handler sent back to peer on
 *                    the way has carried the ack (SSAM's reply-as-ack).
 *   timer(id)        timer id (0 .. timers()-1) expired.
 *   pending()        packets not yet acknowledged or still queued.
 */
typedef struct {
    size_t (*state_size)(const lci_rx_params_t *p);
    uint32_t (*timers)(const lci_rx_params_t *p);
    void (*init)(void *state, const lci_rx_params_t *p);
    void (*send)(void *state, lci_env_t *env, uint32_t buf,
                 lci_wire_hdr_t *hdr);
    int (*accept)(void *state, lci_env_t *env, uint32_t buf,
                  const lci_wire_hdr_t *hdr, uint32_t hw_status);
    void (*released)(void *state, lci_env_t *env, uint32_t peer);
    void (*handled)(void *state, lci_env_t *env, uint32_t peer);
    void (*timer)(void *state, lci_env_t *env, uint32_t id);
    /* Packets sent but not yet acknowledged, or still queued: 0 when this
     * side owes nothing to anyone. */
    uint32_t (*pending)(const void *state);
} lci_rx_ops_t;

/* What an rx component tells its placement about itself (flags).
 *
 * LCI_RX_UNORDERED: delivers a pair's packets out of order; the host
 * library restores FIFO per sending neighbour by sequence number
 * (lci/lci_reorder.c).  Only an NI-placed rx may say so.  The NI hands
 * every packet such an rx passed up to the host, if only for its sequence
 * number (LCI_HF_SEQ_ONLY), so that the host's order has no holes. */
#define LCI_RX_UNORDERED (1u << 0)
/* LCI_RX_SENDS_ONCE: never sends a data packet again (no retransmission),
 * so the link never finds a waiting copy of one to merge the new one into
 * and need not look (lci_wire.c). */
#define LCI_RX_SENDS_ONCE (1u << 1)
/* The flags this library knows: lci_decomp_check refuses others. */
#define LCI_RX_FLAGS_KNOWN (LCI_RX_UNORDERED | LCI_RX_SENDS_ONCE)

typedef struct {
    const char *name;
    const char *description;
    uint32_t abi;
    uint32_t flags; /* LCI_RX_*; 0 for an rx that delivers in order */
    lci_rx_ops_t ops;
} lci_rx_component_t;

/* released() of a policy that owes no NACK for a packet dropped for lack
 * of a receive buffer: its sender's timeout recovers it like a lost one. */
static inline void lci_rx_released_ignored(void *state, lci_env_t *env,
                                           uint32_t peer)
{
    (void)state, (void)env, (void)peer;
}

/* handled() of a policy whose acknowledgements do not wait for the
 * client's handler. */
static inline void lci_rx_handled_ignored(void *state, lci_env_t *env,
                                          uint32_t peer)
{
    (void)state, (void)env, (void)peer;
}

/* ---- mc: multicast forwarding ------------------------------------------ */
typedef struct {
    /* Sends buffer buf (header hdr, received, or built by the root) on to
     * this node's children in the tree of group g (members: its member
     * list, NULL for group 0, every node); returns how many. */
    uint32_t (*forward)(lci_env_t *env, const lci_ni_group_t *g,
                        const uint16_t *members, uint32_t buf,
                        const lci_wire_hdr_t *hdr);
} lci_mc_ops_t;

typedef struct {
    const char *name;
    const char *description;
    uint32_t abi;
    lci_mc_ops_t ops;
} lci_mc_component_t;

/* ---- fa: the fetch-and-add server -------------------------------------- */

/* A fetch-and-add request or reply payload. */
typedef struct {
    uint32_t var;
    uint32_t token;
    int64_t value; /* request: the addend; reply: the old value */
} lci_fa_msg_t;

typedef struct {
    /* The operation itself, the same on either side: applies request msg
     * (len bytes) to vars and turns msg into the reply (the old value).
     * Returns 0 for a malformed request, which is dropped. */
    int (*apply)(int64_t *vars, uint32_t nvars, lci_fa_msg_t *msg,
                 size_t len);
    /* Placed on the NI: serves a request in receive buffer buf and replies
     * from the same buffer (no copy).  The host placement serves from
     * host memory (lci/lci_place_host.c) with apply(). */
    void (*serve)(lci_ni_t *ni, uint32_t buf);
} lci_fa_ops_t;

typedef struct {
    const char *name;
    const char *description;
    uint32_t abi;
    lci_fa_ops_t ops;
} lci_fa_component_t;

extern const lci_rx_component_t lci_rx_none_component;
extern const lci_rx_component_t lci_rx_gbn_component;
extern const lci_rx_component_t lci_rx_vmmc2_component;
extern const lci_rx_component_t lci_rx_ssam_component;
extern const lci_rx_component_t lci_rx_am2_component;
extern const lci_rx_component_t lci_rx_srd_component;
extern const lci_mc_component_t lci_mc_tree_component;
extern const lci_fa_component_t lci_fa_component;

#endif
