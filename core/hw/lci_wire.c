/*
 * lci_wire.c - links and switches: timing, the link-level sequence and CRC
 * checks of the receiving hardware, and fault injection.
 */
#include <string.h>

#include "lci_crc.h"
#include "lci_decomp.h"
#include "lci_fw.h"
#include "lci_hw.h"
#include "lci_sched.h"

typedef struct {
    uint32_t src;
    uint32_t bytes;
    uint64_t reserved;
    /* header and payload follow */
} wire_slot_t;

static wire_slot_t *wire_slot(uint32_t idx)
{
    lci_seg_t *s = lci_seg();
    return (wire_slot_t *)(lci_world.base + s->off_wire +
                           (uint64_t)idx * s->wire_slot_bytes);
}

static uint32_t *wire_free_stack(void)
{
    return (uint32_t *)(lci_world.base + lci_seg()->off_wire_free);
}

static uint64_t ns_for_bytes(uint64_t bytes, double mb_per_s)
{
    /* 1 MB/s is one byte per microsecond. */
    return (uint64_t)((double)bytes * 1000.0 / mb_per_s + 0.5);
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* splitmix64: a deterministic stream of fault decisions from the seed. */
static uint64_t fault_random(uint64_t seed, uint64_t n)
{
    uint64_t z = seed + (n + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double fault_uniform(uint64_t seed, uint64_t n)
{
    return (double)(fault_random(seed, n) >> 11) * (1.0 / 9007199254740992.0);
}

uint32_t lci_hw_frame(lci_ni_t *ni, lci_wire_hdr_t *hdr, const void *payload,
                      unsigned char *pkt, int crc_on)
{
    /* Link hardware: a per-destination sequence number, then the CRC over
     * everything after the CRC field (0 on a link that cannot damage). */
    lci_ni_peer_t *peer = lci_ni_peer(ni, hdr->dst);
    uint32_t bytes = (uint32_t)sizeof *hdr + hdr->len;
    hdr->link_seq = ++peer->link_tx;
    memcpy(pkt, hdr, sizeof *hdr);
    if (hdr->len > 0) {
        memcpy(pkt + sizeof *hdr, payload, hdr->len);
    }
    uint32_t crc = 0;
    if (crc_on) {
        crc = lci_crc32(pkt + sizeof hdr->crc, bytes - sizeof hdr->crc);
    }
    memcpy(pkt, &crc, sizeof crc);
    return bytes;
}

static void count_fault(void)
{
    /* Atomic: on the live platform every node injects at once. */
    __atomic_fetch_add(&lci_seg()->faults_injected, 1, __ATOMIC_RELAXED);
}

unsigned lci_hw_fault(const lci_wire_hdr_t *hdr, uint32_t src,
                      unsigned char *pkt, uint32_t bytes, uint64_t n,
                      uint64_t now, uint64_t *burst_left)
{
    /* Decided per packet from the seed, never by the protocol code. */
    int is_data = hdr->type == LCI_PKT_DATA || hdr->type == LCI_PKT_MCAST;
    const lci_fault_config_t *f = &lci_seg()->cfg.fault;
    int lose = is_data && f->drop_nth != 0 && n + 1 == f->drop_nth;
    lose |= f->drop > 0 && fault_uniform(f->seed, 4 * n) < f->drop;
    if (*burst_left > 0) {
        (*burst_left)--;
        lose = 1;
    } else if (f->burst > 0 && fault_uniform(f->seed, 4 * n + 2) < f->burst) {
        *burst_left = f->burst_len - 1;
        lose = 1;
    }
    const lci_fault_window_t *ld = &f->linkdown;
    if (lci_fault_window_on(ld, now) &&
        ((ld->a == src && ld->b == hdr->dst) ||
         (ld->b == src && ld->a == hdr->dst))) {
        lose = 1;
    }
    if (lose) {
        count_fault();
        return LCI_HW_FAULT_LOST;
    }
    if (f->corrupt > 0 && fault_uniform(f->seed, 4 * n + 1) < f->corrupt) {
        count_fault();
        uint64_t r = fault_random(f->seed ^ 0x5bd1e995, n);
        pkt[r % bytes] ^= (unsigned char)(1u << (r >> 32) % 8);
    }
    if (f->dup > 0 && fault_uniform(f->seed, 4 * n + 3) < f->dup) {
        return LCI_HW_FAULT_TWICE;
    }
    return 0;
}

void lci_hw_transmit(lci_ni_t *ni, uint64_t now, lci_wire_hdr_t *hdr,
                     const void *payload, uint32_t buf)
{
    if (lci_world.live != NULL) {
        lci_world.live_transmit(ni, now, hdr, payload, buf);
        return;
    }
    lci_seg_t *s = lci_seg();
    const lci_profile_t *p = &s->prof;
    lci_ni_t *dst = lci_world_ni(hdr->dst);
    uint32_t bytes = (uint32_t)sizeof *hdr + hdr->len;

    /* Cut-through through one crossbar switch; the receiver's wire DMA
     * drains packets one at a time, and back-pressure holds the sender's
     * link until its packet has drained. */
    uint64_t dur = ns_for_bytes(bytes, p->link_mb_s);
    uint64_t latency = (uint64_t)(p->switch_hop_ns + 2 * p->wire_ns);
    uint64_t start = max_u64(now, ni->tx_free) + (uint64_t)p->ni_dma_setup_ns;
    uint64_t rx_start = max_u64(start + latency, dst->rx_free);
    uint64_t rx_end = rx_start + dur;
    dst->rx_free = rx_end;
    ni->tx_free = max_u64(start + dur, rx_end - latency);
    if (buf != LCI_NONE && buf < ni->nsend) {
        lci_fw_send_buf_release(ni, buf, ni->tx_free);
    } else if (buf != LCI_NONE) {
        lci_sim_post(ni->tx_free, LCI_EV_TX_DONE, ni->node, buf, 0);
    }

    if (s->wire_free_count == 0) {
        lci_sched_fail((int)ni->node, LCI_ERR_CONFIG,
                       "the network ran out of in-flight packet slots (%u)",
                       s->nwire);
    }
    uint32_t idx = wire_free_stack()[--s->wire_free_count];
    wire_slot_t *ws = wire_slot(idx);
    unsigned char *pkt = (unsigned char *)(ws + 1);
    ws->src = ni->node;
    ws->bytes = bytes;
    lci_hw_frame(ni, hdr, payload, pkt, 1);

    uint64_t n = s->packets_on_wire++;
    unsigned fate = lci_hw_fault(hdr, ni->node, pkt, bytes, n, now,
                                 &s->burst_left);
    if (fate & LCI_HW_FAULT_LOST) {
        wire_free_stack()[s->wire_free_count++] = idx;
        return;
    }
    lci_sim_post(rx_end, LCI_EV_WIRE_ARRIVE, hdr->dst, idx, 0);
    if ((fate & LCI_HW_FAULT_TWICE) && s->wire_free_count > 0) {
        /* The same bytes once more, right behind the first copy. */
        count_fault();
        uint32_t twin = wire_free_stack()[--s->wire_free_count];
        memcpy(wire_slot(twin), ws, sizeof *ws + bytes);
        dst->rx_free = rx_end + dur;
        lci_sim_post(rx_end + dur, LCI_EV_WIRE_ARRIVE, hdr->dst, twin, 0);
    }
}

uint32_t lci_hw_rx_frame(lci_ni_t *ni, uint64_t now, const unsigned char *pkt,
                         uint32_t bytes, int crc_on, lci_wire_hdr_t *hdr_p,
                         uint32_t *buf_p)
{
    lci_seg_t *s = lci_seg();
    lci_wire_hdr_t hdr;
    uint32_t status = LCI_HW_OK;
    if (bytes < sizeof hdr) {
        /* A runt (only a real network delivers one): unusable. */
        memset(&hdr, 0, sizeof hdr);
        memcpy(&hdr, pkt, bytes);
        *hdr_p = hdr;
        *buf_p = LCI_NONE;
        return LCI_HW_CRC;
    }
    memcpy(&hdr, pkt, sizeof hdr);

    /* The receiving hardware checks the CRC over what arrived. */
    uint32_t crc = 0;
    if (crc_on) {
        crc = lci_crc32(pkt + sizeof hdr.crc, bytes - sizeof hdr.crc);
    }
    if (crc != hdr.crc || sizeof hdr + hdr.len != bytes ||
        hdr.len > ni->payload_max || hdr.dst != ni->node ||
        hdr.hop_src >= ni->nnodes) {
        status = LCI_HW_CRC;
    } else {
        lci_ni_peer_t *peer = lci_ni_peer(ni, hdr.hop_src);
        uint16_t expect = (uint16_t)(peer->link_rx + 1);
        if (hdr.link_seq == expect) {
            peer->link_rx = expect;
        } else if ((int16_t)(uint16_t)(hdr.link_seq - expect) > 0) {
            status = LCI_HW_SEQ_GAP;
            peer->link_rx = hdr.link_seq;
        } else {
            status = LCI_HW_SEQ_DUP;
        }
    }
    /* The wire DMA stores the packet in a free receive buffer, if the NI
     * has one; control packets need none.  An intact packet is stored
     * whatever its link sequence says: a gap before it or a repetition is
     * for the protocol to judge (RX_no stops the run; go-back-N has its
     * own sequence numbers, and the packet after a loss may be just the
     * retransmission it waits for). */
    uint32_t buf = LCI_NONE;
    /* With reliability on the host, acknowledgements go up as well. */
    int wants_buffer = !lci_pkt_is_control(hdr.type) ||
                       lci_decomp_active->rx_place == LCI_PLACE_HOST;
    if (lci_fault_window_on(&s->cfg.fault.nobuf, now) &&
        s->cfg.fault.nobuf.a == ni->node) {
        wants_buffer = 0; /* starved of receive buffers */
        count_fault();
    }
    if (status != LCI_HW_CRC && wants_buffer) {
        buf = lci_ni_stack_pop(ni, &ni->recv_free);
        if (buf != LCI_NONE) {
            memcpy(lci_ni_buf(ni, buf), pkt, sizeof hdr + hdr.len);
            *lci_ni_refcnt(ni, buf) = 1;
        }
    }
    *hdr_p = hdr;
    *buf_p = buf;
    return status;
}

void lci_hw_on_wire_arrive(const lci_event_t *ev)
{
    lci_seg_t *s = lci_seg();
    lci_ni_t *ni = lci_world_ni(ev->node);
    wire_slot_t *ws = wire_slot(ev->a);
    if (lci_hw_dead(ev->node, ev->time)) {
        wire_free_stack()[s->wire_free_count++] = ev->a; /* nobody there */
        return;
    }
    lci_wire_hdr_t hdr;
    uint32_t buf;
    uint32_t status = lci_hw_rx_frame(ni, ev->time,
                                      (const unsigned char *)(ws + 1),
                                      ws->bytes, 1, &hdr, &buf);
    uint32_t link_src = ws->src;
    wire_free_stack()[s->wire_free_count++] = ev->a;
    ni->counters.pkts_recv++;
    lci_fw_arrived(ni, ev->time, &hdr, buf, status, link_src);
}

void lci_hw_on_tx_done(const lci_event_t *ev)
{
    lci_ni_t *ni = lci_world_ni(ev->node);
    lci_fw_tx_done(ni, ev->time, ev->a);
}
