/*
 * lci_place_ni.c - the environment of a policy placed in the NI firmware:
 * the NI clock and processor, its SRAM buffers, the wire, the host DMA
 * and a timer wheel driven by the NI clock.
 */
#include "lci_decomp.h"
#include "lci_fw.h"
#include "lci_hw.h"
#include "lci_place.h"
#include "lci_timer_wheel.h"

static lci_ni_t *ni_of(lci_env_t *env)
{
    return env->ctx;
}

static uint64_t ni_now(lci_env_t *env)
{
    return ni_of(env)->now;
}

static void ni_charge(lci_env_t *env, lci_cost_t what)
{
    const lci_profile_t *p = lci_prof();
    double ns = 0;
    const char *name = "";
    switch (what) {
    case LCI_COST_ACK:
        name = "ack";
        ns = p->ni_credit_ns;
        break;
    case LCI_COST_FORWARD:
        name = "mcast_fwd";
        ns = p->ni_mcast_fwd_ns;
        break;
    case LCI_COST_REL_SEND:
        name = "rel_tx";
        ns = p->ni_rel_tx_ns;
        break;
    case LCI_COST_REL_RECV:
        name = "rel_rx";
        ns = p->ni_rel_rx_ns;
        break;
    case LCI_COST_TIMER:
        name = "timer";
        ns = p->ni_timer_ns;
        break;
    case LCI_COST_COUNT:
        break;
    }
    lci_fw_charge(ni_of(env), name, ns);
}

static void count_sent(lci_ni_t *ni, uint8_t type)
{
    switch (type) {
    case LCI_PKT_DATA:
        ni->counters.pkts_sent_data++;
        break;
    case LCI_PKT_MCAST:
        ni->counters.pkts_sent_mcast++;
        break;
    case LCI_PKT_CREDIT:
    case LCI_PKT_NACK:
    case LCI_PKT_ROUTE:
        break; /* the rx policy counts its own control packets */
    default:
        ni->counters.pkts_sent_fa++;
        break;
    }
}

static void ni_transmit(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr)
{
    /* Passed on as it is, not copied: the link stamps this NI as the
     * packet's hop_src (lci_hw_frame). */
    lci_ni_t *ni = ni_of(env);
    lci_fw_charge(ni, "tx", lci_prof()->ni_tx_ns);
    count_sent(ni, hdr->type);
    const void *payload = NULL;
    if (buf != LCI_BUF_NONE) {
        /* The wire's own reference, dropped when the send DMA is done. */
        (*lci_ni_refcnt(ni, buf))++;
        payload = lci_ni_buf(ni, buf) + sizeof(lci_wire_hdr_t);
    }
    lci_hw_transmit(ni, ni->now, hdr, payload,
                    buf == LCI_BUF_NONE ? LCI_NONE : buf);
}

static void ni_send(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr)
{
    lci_fw_send(ni_of(env), buf, hdr);
}

static void ni_hold(lci_env_t *env, uint32_t buf)
{
    (*lci_ni_refcnt(ni_of(env), buf))++;
}

static void ni_release(lci_env_t *env, uint32_t buf)
{
    lci_ni_t *ni = ni_of(env);
    lci_fw_buf_put(ni, ni->now, buf);
}

static void ni_deliver(lci_env_t *env, uint32_t buf)
{
    lci_fw_deliver(ni_of(env), buf);
}

/* Return-to-sender: the packet goes up to this host's client, marked as
 * returned, with the node it could not reach. */
static void ni_bounce(lci_env_t *env, uint32_t buf, const lci_wire_hdr_t *hdr,
                      lci_status_t reason)
{
    lci_ni_t *ni = ni_of(env);
    lci_wire_hdr_t *h = lci_ni_buf_hdr(ni, buf);
    *h = *hdr;
    h->type = LCI_PKT_RETURNED;
    h->aux = (uint32_t)-reason;
    ni->counters.pkts_returned++;
    lci_fw_deliver(ni, buf);
}

static lci_timer_wheel_t *wheel(lci_ni_t *ni)
{
    return LCI_NI_AT(ni, ni->off_timers, lci_timer_wheel_t);
}

static void ni_timer_start(lci_env_t *env, uint32_t id, uint64_t expiry)
{
    lci_ni_t *ni = ni_of(env);
    if (id < ni->ntimers) {
        lci_timer_wheel_start(wheel(ni), id, expiry);
    }
}

static void ni_timer_cancel(lci_env_t *env, uint32_t id)
{
    lci_ni_t *ni = ni_of(env);
    if (id < ni->ntimers) {
        lci_timer_wheel_cancel(wheel(ni), id);
    }
}

static void ni_fail(lci_env_t *env, uint32_t fault, uint32_t a, uint32_t b)
{
    lci_fw_fail(ni_of(env), fault, a, b, 0);
}

static lci_counters_t *ni_counters(lci_env_t *env)
{
    return &ni_of(env)->counters;
}

static const lci_env_ops_t ni_env_ops = {
    .now = ni_now,
    .charge = ni_charge,
    .transmit = ni_transmit,
    .send = ni_send,
    .hold = ni_hold,
    .release = ni_release,
    .deliver = ni_deliver,
    .bounce = ni_bounce,
    .timer_start = ni_timer_start,
    .timer_cancel = ni_timer_cancel,
    .fail = ni_fail,
    .counters = ni_counters,
};

lci_env_t lci_place_ni_env(lci_ni_t *ni)
{
    lci_env_t env = {.ops = &ni_env_ops, .ctx = ni, .node = ni->node,
                     .nnodes = ni->nnodes};
    return env;
}
