/*
 * lci_env.h - the environment a policy runs in: everything a protocol
 * module may ask of the side that runs it, the host library or the NI
 * firmware.
 *
 * A policy is written once against this interface; fw-host-split/ supplies
 * one implementation for the NI side and one for the host side.  What
 * differs between the two is where the work happens and what it costs
 * (charge() on the slow NI processor or on the host, extra host <-> NI
 * crossings), never the protocol code.
 *
 * Rules for policy code (it may run as firmware): no malloc, stdio, locks
 * or blocking calls; all state lives in the memory the side gives it
 * (state_size() bytes); every handler runs to completion.
 *
 * Buffers are small integers in the side's buffer space.  A policy that
 * keeps a packet for retransmission holds a reference (hold) and drops it
 * when the packet is acknowledged (release).  transmit() takes its own
 * reference for the time the packet is on the wire, so a policy may
 * release right after transmitting (RX_no) or keep it (go-back-N).
 */
#ifndef LCI_ENV_H
#define LCI_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "lci.h"
#include "lci_contract.h"

typedef struct lci_env lci_env_t;

/* Operations whose cost the side charges from its cost profile: the same
 * operation costs more on a slow NI processor than on the host. */
typedef enum {
    LCI_COST_ACK = 0,     /* process received credits or acknowledgements */
    LCI_COST_FORWARD = 1, /* set up the forwarding of a packet to a child */
    LCI_COST_REL_SEND = 2, /* sequence and window bookkeeping of a packet
                              sent (or sent again) */
    LCI_COST_REL_RECV = 3, /* sequence bookkeeping of a packet received */
    LCI_COST_TIMER = 4,    /* handle a timer expiry */
    LCI_COST_COUNT
} lci_cost_t;

typedef struct {
    /* Current time on this side, in ns (the NI clock or the host clock). */
    uint64_t (*now)(lci_env_t *env);
    /* Charges the cost of operation what on this side's processor. */
    void (*charge)(lci_env_t *env, lci_cost_t what);
    /* Puts buffer buf on the wire with header hdr (hdr->dst is the peer;
     * the policy has filled seq, ack and credits).  buf is LCI_BUF_NONE
     * for a header-only control packet. */
    void (*transmit)(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr);
    /* Gives buffer buf (header hdr) to the reliability layer below for the
     * wire: an mc module forwards through it.  Takes its own reference. */
    void (*send)(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr);
    /* Takes / drops a reference to buffer buf. */
    void (*hold)(lci_env_t *env, uint32_t buf);
    void (*release)(lci_env_t *env, uint32_t buf);
    /* Hands an accepted packet on (to the host's client, or to multicast
     * forwarding); takes its own reference. */
    void (*deliver)(lci_env_t *env, uint32_t buf);
    /* A packet (buffer buf, sent with header hdr) that cannot be delivered
     * goes back to its sender's client with the reason (return-to-sender).
     * Takes its own reference. */
    void (*bounce)(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr,
                   lci_status_t reason);
    /* One timer per id (0 .. timers-1 of the policy's params); starting a
     * running timer moves it. */
    void (*timer_start)(lci_env_t *env, uint32_t id, uint64_t expiry);
    void (*timer_cancel)(lci_env_t *env, uint32_t id);
    /* Records a fatal protocol failure (an LCI_FW_* code and details);
     * the run stops after the handler returns. */
    void (*fail)(lci_env_t *env, uint32_t fault, uint32_t a, uint32_t b);
    /* This side's counters. */
    lci_counters_t *(*counters)(lci_env_t *env);
} lci_env_ops_t;

struct lci_env {
    const lci_env_ops_t *ops;
    void *ctx;       /* the side's own state */
    uint32_t node;   /* this node */
    uint32_t nnodes; /* nodes in the cluster */
};

#define LCI_BUF_NONE UINT32_MAX

/* What a reliability policy is configured with. */
typedef struct {
    uint32_t nnodes;
    uint32_t nbufs;        /* buffers in the side's buffer space */
    uint32_t window;       /* send window, packets per peer */
    uint32_t max_retries;  /* retransmissions before return-to-sender */
    uint64_t rto_ns;       /* retransmission timeout */
    uint64_t ack_delay_ns; /* delayed-acknowledgement timeout */
    uint32_t nsend;        /* of the nbufs, those packets are sent from
                              (0: any of them) */
    uint32_t frames;       /* endpoints the side holds at once (AM-II) */
    uint64_t fault_ns;     /* time to page an endpoint in (AM-II) */
} lci_rx_params_t;

/* Consecutive retransmission timeouts double, up to 2^this times rto_ns: a
 * receiver that is alive but swamped (an incast of a thousand senders)
 * gets room to catch up instead of a retransmission storm, and is not
 * given up on for being busy.  Progress resets it. */
#define LCI_RTO_BACKOFF_MAX 3

/* How long a peer that acknowledges nothing takes to be given up on. */
static inline double lci_rx_give_up_ns(uint32_t max_retries, uint64_t rto_ns)
{
    double t = 0;
    for (uint32_t i = 0; i <= max_retries; i++) {
        t += (double)rto_ns * (double)(1u << (i < LCI_RTO_BACKOFF_MAX
                                                  ? i
                                                  : LCI_RTO_BACKOFF_MAX));
    }
    return t;
}

#endif
