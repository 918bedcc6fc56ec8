/*
 * lci_rx_none.c - RX_no: no retransmission.  Assumes reliable hardware with
 * FIFO paths, so there are no sequence numbers, no timers and no sender
 * buffering.  Credit-based sliding window between each pair of nodes: each
 * receiver reserves W buffers per sender; a closed window queues the packet
 * on a per-destination blocked-sends queue, drained when credits return.
 * Freed-buffer counts ride on reverse traffic, with an explicit
 * acknowledgement after W/2 releases when there is none.  Any packet the
 * hardware lost, damaged or duplicated stops the run: never wrong data.
 */
#include <string.h>

#include "lci_policy.h"

#define NONE UINT32_MAX

typedef struct {
    uint32_t credits;    /* packets we may still send to this peer */
    uint32_t freed;      /* its buffers we released, not yet reported */
    uint32_t head, tail; /* blocked-sends queue (indices into slots) */
} peer_t;

/* A packet waiting for its window to open. */
typedef struct {
    uint32_t next;
    uint32_t buf;
    lci_wire_hdr_t hdr;
} slot_t;

typedef struct {
    uint32_t nnodes, nslots, window, free_slot;
    /* peer_t[nnodes] then slot_t[nslots] follow */
} state_t;

static peer_t *peers(state_t *s)
{
    return (peer_t *)(s + 1);
}

static slot_t *slots(state_t *s)
{
    return (slot_t *)(peers(s) + s->nnodes);
}

static size_t rx_none_state_size(const lci_rx_params_t *p)
{
    /* Every buffer can wait on at most two queues at once (a multicast
     * packet forwarded to two children). */
    return sizeof(state_t) + p->nnodes * sizeof(peer_t) +
           2 * (size_t)p->nbufs * sizeof(slot_t);
}

static uint32_t rx_none_timers(const lci_rx_params_t *p)
{
    (void)p;
    return 0; /* no timers at all: that is the point */
}

static void rx_none_init(void *state, const lci_rx_params_t *p)
{
    state_t *s = state;
    s->nnodes = p->nnodes;
    s->nslots = 2 * p->nbufs;
    s->window = p->window;
    for (uint32_t i = 0; i < p->nnodes; i++) {
        peers(s)[i] =
            (peer_t){.credits = p->window, .head = NONE, .tail = NONE};
    }
    for (uint32_t i = 0; i < s->nslots; i++) {
        slots(s)[i].next = i + 1 < s->nslots ? i + 1 : NONE;
    }
    s->free_slot = 0;
}

/* On the wire now: the freed-buffer count for the peer rides along, and
 * the send buffer is free again as soon as it is transmitted. */
static void transmit(state_t *s, lci_env_t *env, uint32_t buf,
                     lci_wire_hdr_t *hdr)
{
    peer_t *peer = &peers(s)[hdr->dst];
    peer->credits--;
    hdr->credits = (uint16_t)peer->freed;
    peer->freed = 0;
    env->ops->transmit(env, buf, hdr);
    env->ops->release(env, buf);
}

static void rx_none_send(void *state, lci_env_t *env, uint32_t buf,
                         lci_wire_hdr_t *hdr)
{
    state_t *s = state;
    peer_t *peer = &peers(s)[hdr->dst];
    /* FIFO: nothing overtakes a packet already waiting for this peer. */
    if (peer->credits > 0 && peer->head == NONE) {
        transmit(s, env, buf, hdr);
        return;
    }
    uint32_t i = s->free_slot;
    if (i == NONE) {
        env->ops->fail(env, LCI_FW_QUEUE_FULL, LCI_NI_Q_SEND, s->nslots);
        env->ops->release(env, buf);
        return;
    }
    env->ops->counters(env)->window_stalls++;
    slot_t *slot = &slots(s)[i];
    s->free_slot = slot->next;
    *slot = (slot_t){.next = NONE, .buf = buf, .hdr = *hdr};
    if (peer->tail == NONE) {
        peer->head = i;
    } else {
        slots(s)[peer->tail].next = i;
    }
    peer->tail = i;
}

static void drain(state_t *s, lci_env_t *env, peer_t *peer)
{
    while (peer->credits > 0 && peer->head != NONE) {
        uint32_t i = peer->head;
        slot_t *slot = &slots(s)[i];
        peer->head = slot->next;
        if (peer->head == NONE) {
            peer->tail = NONE;
        }
        lci_wire_hdr_t h = slot->hdr;
        uint32_t buf = slot->buf;
        slot->next = s->free_slot;
        s->free_slot = i;
        transmit(s, env, buf, &h);
    }
}

static int rx_none_accept(void *state, lci_env_t *env, uint32_t buf,
                          const lci_wire_hdr_t *hdr, uint32_t hw_status)
{
    state_t *s = state;
    /* The link hardware names the neighbour the packet came from. */
    switch (hw_status) {
    case LCI_HW_OK:
        break;
    case LCI_HW_CRC:
        env->ops->fail(env, LCI_FW_RXNO_CRC, hdr->hop_src, env->node);
        return 0;
    case LCI_HW_SEQ_GAP:
        env->ops->fail(env, LCI_FW_RXNO_LOST, hdr->hop_src, env->node);
        return 0;
    default:
        env->ops->fail(env, LCI_FW_RXNO_DUP, hdr->hop_src, env->node);
        return 0;
    }
    if (buf == LCI_BUF_NONE && !lci_pkt_is_control(hdr->type)) {
        env->ops->fail(env, LCI_FW_RXNO_NOBUF, hdr->hop_src, env->node);
        return 0;
    }
    if (hdr->credits > 0) {
        env->ops->charge(env, LCI_COST_ACK);
        peer_t *peer = &peers(s)[hdr->hop_src];
        peer->credits += hdr->credits;
        drain(s, env, peer);
    }
    return !lci_pkt_is_control(hdr->type);
}

static void rx_none_released(void *state, lci_env_t *env, uint32_t peer_node)
{
    state_t *s = state;
    peer_t *peer = &peers(s)[peer_node];
    peer->freed++;
    uint32_t half = s->window / 2 ? s->window / 2 : 1;
    if (peer->freed >= half) {
        lci_wire_hdr_t h;
        memset(&h, 0, sizeof h);
        h.type = LCI_PKT_CREDIT;
        h.dst = (uint16_t)peer_node;
        h.origin = (uint16_t)env->node;
        h.credits = (uint16_t)peer->freed;
        peer->freed = 0;
        env->ops->counters(env)->pkts_sent_ack++;
        env->ops->transmit(env, LCI_BUF_NONE, &h);
    }
}

static void rx_none_timer(void *state, lci_env_t *env, uint32_t id)
{
    (void)state;
    (void)env;
    (void)id; /* never started */
}

static uint32_t rx_none_pending(const void *state)
{
    const state_t *s = state;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->nnodes; i++) {
        const peer_t *p = &peers((state_t *)s)[i];
        for (uint32_t k = p->head; k != NONE; k = slots((state_t *)s)[k].next) {
            n++;
        }
    }
    return n;
}

const lci_rx_component_t lci_rx_none_component = {
    .name = "none",
    .description = "no retransmission: credit flow control (RX_no)",
    .abi = LCI_POLICY_ABI,
    .flags = LCI_RX_SENDS_ONCE,
    .ops =
        {
            .state_size = rx_none_state_size,
            .timers = rx_none_timers,
            .init = rx_none_init,
            .send = rx_none_send,
            .accept = rx_none_accept,
            .released = rx_none_released,
            .handled = lci_rx_handled_ignored,
            .timer = rx_none_timer,
            .pending = rx_none_pending,
        },
};
