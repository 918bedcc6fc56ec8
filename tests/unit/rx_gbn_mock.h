/* rx_gbn_mock.h - a mock environment for rx policy tests: a virtual clock,
 * per-node timer tables, buffers with reference counts, and FIFO links
 * between policy instances that can drop, corrupt and starve packets.
 * Events run in time order; the mock checks protocol invariants as the
 * packets go by (acks match what was delivered, windows are respected,
 * sequence numbers have no gaps).  A node may accept deliveries out of
 * order (an unordered rx): then each message is checked to come exactly
 * once instead of in order. */
#ifndef LCI_RX_GBN_MOCK_H
#define LCI_RX_GBN_MOCK_H

#include <stddef.h>
#include <stdint.h>

#include "lci_policy.h"

/* Time in the tests' own words, and their nodes. */
#define US 1000ull
#define MS 1000000ull
#define FOREVER UINT64_MAX
#define A 0
#define B 1
#define C 2

#define MOCK_MAXN 4
#define MOCK_MAXIDX 16
#define MOCK_MAXBOUNCE 256
#define MOCK_UNLIMITED UINT32_MAX

/* One transmission, as the policy handed it to the wire. */
typedef struct {
    uint64_t time;
    uint16_t src, dst;
    uint8_t type, flags;
    uint16_t seq, ack, credits;
    uint32_t tag;    /* message number (data), UINT32_MAX for control */
    uint8_t dropped; /* lost on the link */
} mock_tx_t;

typedef struct {
    uint64_t time;
    uint32_t node, dst, tag;
    lci_status_t reason;
} mock_bounce_t;

typedef struct {
    lci_env_t env;
    void *state;
    size_t state_size;
    lci_counters_t ctr;
    uint64_t timer_at[2 * MOCK_MAXN];
    uint8_t timer_armed[2 * MOCK_MAXN];
    uint32_t rto_fires, ack_fires;
    /* the client: send buffers, receive buffers, messages to send */
    uint32_t nsend, send_inuse;
    uint32_t rx_limit, rx_used; /* receive buffers (starvation) */
    uint64_t rx_hold_ns;        /* time the host keeps a receive buffer */
    uint32_t to_send[MOCK_MAXN], next_tag[MOCK_MAXN];
    uint32_t delivered[MOCK_MAXN]; /* in order from each source */
    uint32_t order_errors;
    /* Out-of-order delivery accepted (set before the run): instead of
     * order errors, duplicates are counted, and the acks are checked
     * against the messages delivered without a gap (prefix). */
    int unordered;
    uint32_t dup_errors;
    uint32_t prefix[MOCK_MAXN];    /* messages 0 .. prefix-1 all came */
    uint32_t *arrival[MOCK_MAXN];  /* per message: its place among the
                                      deliveries from that source (1 = the
                                      first), 0 until delivered */
    uint32_t arrival_cap[MOCK_MAXN];
    /* invariant bookkeeping */
    uint16_t ack_seen[MOCK_MAXN]; /* newest ack from each peer */
    uint16_t next_new[MOCK_MAXN]; /* next new data seq to each peer */
    uint8_t seq_wrapped[MOCK_MAXN];
    int cur_src; /* accept() running for a packet from cur_src */
    uint16_t cur_seq;
    uint32_t cur_tag;
    uint32_t fails, last_fault;
    int echo; /* the handler answers every packet with one of its own */
} mock_node_t;

typedef struct {
    int cut;      /* drop everything */
    double loss;  /* drop probability (seeded PRNG) */
    uint64_t count;
    uint64_t drop_idx[MOCK_MAXIDX]; /* drop the k-th packet on the link */
    uint32_t ndrop;
    uint64_t crc_idx[MOCK_MAXIDX]; /* deliver the k-th with LCI_HW_CRC */
    uint32_t ncrc;
    /* drop the first transmission of the data packet with this sequence
     * number (retransmissions do not move it, as they move drop_idx) */
    uint16_t drop_seq[MOCK_MAXIDX];
    uint32_t ndrop_seq;
    uint8_t drop_seq_done[MOCK_MAXIDX];
    uint64_t free_at; /* link busy until (serialisation) */
} mock_link_t;

typedef struct {
    uint64_t now, delay_ns, gap_ns, rng, steps;
    uint64_t last_deliver_at; /* time of the last accepted packet */
    uint32_t nnodes;
    lci_rx_params_t params;
    const lci_rx_ops_t *ops;
    mock_node_t node[MOCK_MAXN];
    mock_link_t link[MOCK_MAXN][MOCK_MAXN];
    mock_tx_t *txlog;
    size_t ntx, txcap;
    mock_bounce_t bounce[MOCK_MAXBOUNCE];
    uint32_t nbounce;
    uint64_t refs_taken, refs_dropped, bad_releases;
    uint32_t ack_violations, window_violations, seq_gaps;
    uint32_t charge_calls, deliver_calls, env_send_calls;
    int per_packet_acks; /* the policy acks each packet by itself: skip
                            the piggybacked-ack and window checks */
} mock_world_t;

extern mock_world_t W;
/* The rx policy the next mock_setup() runs (go-back-N unless set). */
extern const lci_rx_ops_t *mock_rx_ops;

void mock_setup(uint32_t nnodes, const lci_rx_params_t *p, uint64_t delay_ns,
                uint64_t seed);
void mock_teardown(void);
/* The client of node src sends count messages to dst at time t. */
void mock_send_at(uint64_t t, uint32_t src, uint32_t dst, uint32_t count);
/* Sends what the clients want to send now (as far as buffers allow). */
void mock_pump(void);
/* Runs events in time order until none are left or time passes until. */
void mock_run(uint64_t until);
/* Copies node's policy state to a new address at time t, poisoning the
 * old one: the state must hold no pointers. */
void mock_move_state_at(uint64_t t, uint32_t node);
/* Nodes A and B send each other n packets over links that lose one in
 * ten, while their policies' states move to new addresses 40 times on the
 * way; runs to the end.  The caller checks what arrived. */
void mock_run_moving_state(uint32_t n);
/* What must hold after every run that ends quietly: acks equal what was
 * delivered, windows and sequence numbers respected, no message out of
 * order (an ordered rx) or twice (an unordered one), every reference
 * dropped, no failures, no timer left running. */
void mock_check_clean(void);
/* Calls accept() on node directly with a header from peer. */
int mock_inject(uint32_t node, const lci_wire_hdr_t *hdr, int with_buf,
                uint32_t status);
/* A send buffer of node with one reference, for calling send() directly. */
uint32_t mock_buf_new(uint32_t node);
/* Buffers with a nonzero reference count. */
uint32_t mock_bufs_in_use(void);
/* Transmissions matching src, dst, type (0 = any type). */
uint32_t mock_count_tx(uint32_t src, uint32_t dst, uint8_t type);
/* Index of the n-th (0-based) matching transmission, or -1. */
long mock_find_tx(uint32_t src, uint32_t dst, uint8_t type, uint32_t n);
/* On an unordered node: when message tag from src was delivered (its
 * place among the deliveries from src, 1 = first), 0 if it was not. */
uint32_t mock_arrival(uint32_t node, uint32_t src, uint32_t tag);

#endif
