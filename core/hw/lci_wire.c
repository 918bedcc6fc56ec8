/*
 * lci_wire.c - links and switches: timing, the link-level sequence and CRC
 * checks of the receiving hardware, and fault injection; and the NI's
 * transmit queue.
 *
 * A packet handed to the link at time now starts when the link is free
 * (back-pressure from a busy receiver keeps it busy), so it may wait in the
 * NI's transmit queue.  The queue holds a buffer for one destination once:
 * sending it again while its copy still waits (go-back-N resending a
 * window the receiver has not even seen) only updates the waiting copy's
 * header, as a firmware whose queue holds descriptors of its buffers does.
 * Likewise an ack or a NACK to a peer that already has one waiting is
 * merged into it (the newer cumulative ack; credits that ride with an ack
 * are part of it, an unordered rx's selective ack, and the newer replaces
 * them; credits alone, RX_no's, are added up).  Without
 * this a receiver that drops for lack of buffers, each NACK answered by a
 * whole window, fills the link queues faster than they drain.
 */
#include <stddef.h>
#include <string.h>

#include "lci_crc.h"
#include "lci_decomp.h"
#include "lci_hw.h"
#include "lci_hw_sink.h"
#include "lci_platform.h"
#include "lci_sched.h"

typedef struct {
    uint32_t src;
    uint32_t bytes;
    uint32_t buf;    /* the NI buffer it was sent from, or LCI_NONE */
    uint32_t by_ref; /* the payload is still read from send buffer buf */
    uint64_t start;  /* when its transmission begins; 0 once it is gone */
    uint64_t tx_end; /* when the sender's link is done with it */
    uint32_t next_ref; /* the next slot reading from the same buffer */
    uint32_t reserved[3];
    /* header and payload follow (the payload only when not by_ref) */
} wire_slot_t;

_Static_assert(sizeof(wire_slot_t) == LCI_WIRE_SLOT_HEAD,
               "the segment layout reserves LCI_WIRE_SLOT_HEAD bytes");

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

/* ---- payloads by reference ------------------------------------------
 *
 * A cut-through network holds no copy of a packet: its bytes go from the
 * sender's buffer to the receiver's.  The simulator's wire slot needs the
 * header (the link queue and the merging read it), but the payload can
 * stay in the sender's send buffer until the arrival copies it into a
 * receive buffer, unless the host writes that buffer again first: then
 * the slots still reading it get their copy (lci_hw_send_buffer_reused).
 * Each send buffer has a list of such slots.  A wire that may damage a
 * packet (corrupt=) carries whole copies, since the damage is done to
 * the bytes in flight. */

static uint32_t *on_wire_head(uint32_t node, uint32_t buf)
{
    lci_seg_t *s = lci_seg();
    return (uint32_t *)(lci_world.base + s->off_on_wire) +
           (uint64_t)node * s->cfg.nsend + buf;
}

static void by_ref_link(uint32_t idx)
{
    wire_slot_t *ws = wire_slot(idx);
    uint32_t *head = on_wire_head(ws->src, ws->buf);
    ws->by_ref = 1;
    ws->next_ref = *head;
    *head = idx;
}

static void by_ref_unlink(uint32_t idx)
{
    wire_slot_t *ws = wire_slot(idx);
    uint32_t *at = on_wire_head(ws->src, ws->buf);
    while (*at != idx) { /* a list of one or two: the buffer's sends */
        at = &wire_slot(*at)->next_ref;
    }
    *at = ws->next_ref;
    ws->by_ref = 0;
}

void lci_hw_send_buffer_reused(lci_ni_t *ni, uint32_t buf)
{
    uint32_t *head = on_wire_head(ni->node, buf);
    const char *payload = lci_ni_buf(ni, buf) + sizeof(lci_wire_hdr_t);
    for (uint32_t idx = *head; idx != UINT32_MAX;) {
        wire_slot_t *ws = wire_slot(idx);
        memcpy((char *)(ws + 1) + sizeof(lci_wire_hdr_t), payload,
               ws->bytes - sizeof(lci_wire_hdr_t));
        ws->by_ref = 0;
        idx = ws->next_ref;
    }
    *head = UINT32_MAX;
}

static void wire_slot_free(uint32_t idx)
{
    lci_seg_t *s = lci_seg();
    wire_slot_t *ws = wire_slot(idx);
    if (ws->by_ref) {
        by_ref_unlink(idx);
    }
    ws->start = 0; /* no longer waiting for the link */
    wire_free_stack()[s->wire_free_count++] = idx;
}

/* Whether the simulated links compute and check the CRC: the simulated
 * wire never damages a packet, only corrupt=P does. */
static int sim_crc_on(void)
{
    return lci_hw_crc_needed(&lci_seg()->cfg.fault, 0);
}

/* ---- the transmit queue --------------------------------------------- */

/* The entries of node's tx-waiting index where a packet like hdr from buf
 * may wait (*count_p of them), or NULL for a packet never merged. */
static uint32_t *tx_waiting(uint32_t node, const lci_wire_hdr_t *hdr,
                            uint32_t buf, unsigned *count_p)
{
    lci_seg_t *s = lci_seg();
    const lci_config_t *cfg = &s->cfg;
    uint32_t *mine = (uint32_t *)(lci_world.base + s->off_tx_waiting) +
                     node * LCI_TX_WAITING_PER_NODE(cfg);
    uint64_t acks = (uint64_t)(cfg->nsend + cfg->nrecv) * LCI_BUF_MAX_SENDS;
    *count_p = 1;
    if (buf != LCI_NONE) {
        if (lci_decomp_active->rx->flags & LCI_RX_SENDS_ONCE) {
            return NULL; /* a buffer's packet never waits twice */
        }
        *count_p = LCI_BUF_MAX_SENDS;
        return mine + (uint64_t)buf * LCI_BUF_MAX_SENDS;
    }
    if (hdr->type == LCI_PKT_CREDIT) {
        return mine + acks + hdr->dst;
    }
    if (hdr->type == LCI_PKT_NACK) {
        return mine + acks + cfg->nnodes + hdr->dst;
    }
    return NULL;
}

/* Whether slot idx (an entry of the index, or LCI_NONE) holds a packet
 * that has not started to leave its NI at now; its header in *hdr_p. */
static int tx_still_waiting(uint32_t idx, uint64_t now,
                            lci_wire_hdr_t *hdr_p)
{
    if (idx == LCI_NONE) {
        return 0;
    }
    const wire_slot_t *ws = wire_slot(idx);
    if (ws->start <= now) {
        return 0; /* the usual case: gone; its header is not read */
    }
    memcpy(hdr_p, ws + 1, sizeof *hdr_p);
    return 1;
}

/* The slot of a copy of this packet that node's link has not started to
 * send at now, or LCI_NONE. */
static uint32_t tx_find_waiting(uint32_t node, uint64_t now,
                                const lci_wire_hdr_t *hdr, uint32_t buf,
                                uint32_t *entries, unsigned count)
{
    for (unsigned k = 0; k < count; k++) {
        lci_wire_hdr_t old;
        if (!tx_still_waiting(entries[k], now, &old)) {
            continue;
        }
        const wire_slot_t *ws = wire_slot(entries[k]);
        if (ws->src == node && ws->buf == buf &&
            old.dst == hdr->dst && old.type == hdr->type &&
            old.len == hdr->len && old.seq == hdr->seq && old.ep == hdr->ep &&
            ((hdr->flags & LCI_HF_ACK) ||
             (uint32_t)old.credits + hdr->credits <= UINT16_MAX)) {
            return entries[k];
        }
    }
    return LCI_NONE;
}

/* Notes that slot idx waits for the link, in an entry of its own
 * destination or one no longer waiting (else the first). */
static void tx_note_waiting(uint64_t now, uint32_t idx, uint16_t dst,
                            uint32_t *entries, unsigned count)
{
    unsigned use = 0;
    for (unsigned k = 0; k < count; k++) {
        lci_wire_hdr_t old;
        if (!tx_still_waiting(entries[k], now, &old) || old.dst == dst) {
            use = k;
            break;
        }
    }
    entries[use] = idx;
}

/* The waiting copy in slot idx takes the newer header's news: its ack
 * with the credits that ride with it, its flags (an ack request), and
 * credits without an ack on top of its own. */
static void tx_merge(uint32_t idx, const lci_wire_hdr_t *hdr)
{
    wire_slot_t *ws = wire_slot(idx);
    unsigned char *pkt = (unsigned char *)(ws + 1);
    lci_wire_hdr_t old;
    memcpy(&old, pkt, sizeof old);
    /* A copy the link already damaged stays damaged: a new CRC over it
     * would pass the damage off as intact. */
    int intact = !sim_crc_on() ||
                 old.crc == lci_crc32(pkt + sizeof old.crc,
                                      ws->bytes - sizeof old.crc);
    if (hdr->flags & LCI_HF_ACK) {
        old.ack = hdr->ack;
        old.credits = hdr->credits;
    } else {
        old.credits = (uint16_t)(old.credits + hdr->credits);
    }
    old.flags = (uint8_t)(old.flags | hdr->flags);
    memcpy(pkt, &old, sizeof old);
    if (sim_crc_on() && intact) {
        uint32_t crc =
            lci_crc32(pkt + sizeof old.crc, ws->bytes - sizeof old.crc);
        memcpy(pkt, &crc, sizeof crc);
    }
}

/* The wire's reference to buf ends when the link is done with it. */
static void tx_release(lci_ni_t *ni, uint32_t buf, uint64_t when)
{
    if (buf != LCI_NONE && buf < ni->nsend) {
        lci_hw_sink->send_buf_release(ni, buf, when);
    } else if (buf != LCI_NONE) {
        lci_platform->post(when, LCI_EV_TX_DONE, ni->node, buf, 0);
    }
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

/* The link hardware's header: the packet's, with a per-destination
 * sequence number and this NI as the hop's source; the caller writes the
 * CRC field. */
static void frame_header(lci_ni_t *ni, const lci_wire_hdr_t *hdr,
                         unsigned char *pkt)
{
    lci_ni_peer_t *peer = lci_ni_peer(ni, hdr->dst);
    /* The link stamps its sequence number and this NI into the packet
     * after copying the header, not into the header before: a copy that
     * reads back a store just made stalls (store forwarding fails on a
     * narrow store inside a wide load). */
    uint16_t link_seq = ++peer->link_tx;
    uint16_t hop_src = (uint16_t)ni->node;
    /* Not the CRC field, which the caller writes last: the live wire
     * frames a small packet where its stamp goes (lci_live_shm.c), and a
     * header taken from an arrival there carries a stamp in it. */
    memcpy(pkt + sizeof hdr->crc, (const char *)hdr + sizeof hdr->crc,
           sizeof *hdr - sizeof hdr->crc);
    memcpy(pkt + offsetof(lci_wire_hdr_t, link_seq), &link_seq,
           sizeof link_seq);
    memcpy(pkt + offsetof(lci_wire_hdr_t, hop_src), &hop_src, sizeof hop_src);
}

uint32_t lci_hw_frame(lci_ni_t *ni, const lci_wire_hdr_t *hdr,
                      const void *payload, unsigned char *pkt, int crc_on)
{
    /* Link hardware: a per-destination sequence number, then the CRC over
     * everything after the CRC field (0 on a link that cannot damage). */
    uint32_t bytes = (uint32_t)sizeof *hdr + hdr->len;
    frame_header(ni, hdr, pkt);
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

/* Stops the run: every wire slot holds a packet.  Says what they hold. */
static void wire_report_full(lci_ni_t *ni)
{
    lci_seg_t *s = lci_seg();
    uint32_t by_type[LCI_PKT_TYPE_MAX] = {0}, from_me = 0, to_me = 0;
    for (uint32_t i = 0; i < s->nwire; i++) {
        wire_slot_t *ws = wire_slot(i);
        lci_wire_hdr_t h;
        memcpy(&h, ws + 1, sizeof h);
        by_type[h.type < LCI_PKT_TYPE_MAX ? h.type : 0]++;
        from_me += ws->src == ni->node;
        to_me += h.dst == ni->node;
    }
    lci_sched_fail((int)ni->node, LCI_ERR_CONFIG,
                   "the network ran out of in-flight packet slots (%u: %u "
                   "data, %u multicast, %u acknowledgements, %u NACKs, %u "
                   "fetch-and-add; %u from this node, %u to it)",
                   s->nwire, by_type[LCI_PKT_DATA], by_type[LCI_PKT_MCAST],
                   by_type[LCI_PKT_CREDIT], by_type[LCI_PKT_NACK],
                   by_type[LCI_PKT_FA_REQ] + by_type[LCI_PKT_FA_REP], from_me,
                   to_me);
}

void lci_hw_transmit(lci_ni_t *ni, uint64_t now, const lci_wire_hdr_t *hdr,
                     const void *payload, uint32_t buf)
{
    lci_platform->transmit(ni, now, hdr, payload, buf);
}

void lci_hw_link_transmit(lci_ni_t *ni, uint64_t now, const lci_wire_hdr_t *hdr,
                          const void *payload, uint32_t buf)
{
    lci_seg_t *s = lci_seg();
    const lci_profile_t *p = &s->prof;
    lci_ni_t *dst = lci_world_ni(hdr->dst);
    uint32_t bytes = (uint32_t)sizeof *hdr + hdr->len;

    unsigned nentries;
    uint32_t *entries = tx_waiting(ni->node, hdr, buf, &nentries);
    if (entries != NULL) {
        uint32_t waiting =
            tx_find_waiting(ni->node, now, hdr, buf, entries, nentries);
        if (waiting != LCI_NONE) {
            tx_merge(waiting, hdr);
            tx_release(ni, buf, wire_slot(waiting)->tx_end);
            ni->counters.tx_merged++;
            return;
        }
    }

    /* Cut-through through one crossbar switch; the receiver's wire DMA
     * drains packets one at a time, and back-pressure holds the sender's
     * link until its packet has drained. */
    uint64_t dur = lci_hw_transfer_ns(&ni->link_memo, bytes, p->link_mb_s);
    uint64_t latency = (uint64_t)(p->switch_hop_ns + 2 * p->wire_ns);
    uint64_t start = max_u64(now, ni->tx_free) + (uint64_t)p->ni_dma_setup_ns;
    uint64_t rx_start = max_u64(start + latency, dst->rx_free);
    uint64_t rx_end = rx_start + dur;
    dst->rx_free = rx_end;
    ni->tx_free = max_u64(start + dur, rx_end - latency);
    tx_release(ni, buf, ni->tx_free);

    if (s->wire_free_count == 0) {
        wire_report_full(ni);
    }
    uint32_t idx = wire_free_stack()[--s->wire_free_count];
    wire_slot_t *ws = wire_slot(idx);
    unsigned char *pkt = (unsigned char *)(ws + 1);
    ws->src = ni->node;
    ws->bytes = bytes;
    ws->buf = buf;
    ws->start = start;
    ws->tx_end = ni->tx_free;
    if (buf < ni->nsend && hdr->len > 0 && !sim_crc_on()) {
        uint32_t no_crc = 0; /* a link that cannot damage computes none */
        frame_header(ni, hdr, pkt); /* the payload stays in buf */
        memcpy(pkt, &no_crc, sizeof no_crc);
        by_ref_link(idx);
    } else {
        ws->by_ref = 0;
        lci_hw_frame(ni, hdr, payload, pkt, sim_crc_on());
    }

    uint64_t n = s->packets_on_wire++;
    unsigned fate = s->wire_faults ? lci_hw_fault(hdr, ni->node, pkt, bytes, n,
                                                  now, &s->burst_left)
                                   : 0;
    if (fate & LCI_HW_FAULT_LOST) {
        wire_slot_free(idx);
        return;
    }
    if (entries != NULL) {
        tx_note_waiting(now, idx, hdr->dst, entries, nentries);
    }
    lci_platform->post(rx_end, LCI_EV_WIRE_ARRIVE, hdr->dst, idx, 0);
    if ((fate & LCI_HW_FAULT_TWICE) && s->wire_free_count > 0) {
        /* The same bytes once more, right behind the first copy. */
        count_fault();
        uint32_t twin = wire_free_stack()[--s->wire_free_count];
        memcpy(wire_slot(twin), ws,
               sizeof *ws + (ws->by_ref ? sizeof *hdr : bytes));
        wire_slot(twin)->start = 0; /* the copy is never merged into */
        if (ws->by_ref) {
            by_ref_link(twin);
        }
        dst->rx_free = rx_end + dur;
        lci_platform->post(rx_end + dur, LCI_EV_WIRE_ARRIVE, hdr->dst, twin, 0);
    }
}

uint32_t lci_hw_rx_frame(lci_ni_t *ni, uint64_t now, const unsigned char *pkt,
                         uint32_t bytes, int crc_on, lci_wire_hdr_t *hdr_p,
                         uint32_t *buf_p)
{
    return lci_hw_rx_frame_from(ni, now, pkt, NULL, bytes, crc_on, hdr_p,
                                buf_p);
}

uint32_t lci_hw_rx_frame_from(lci_ni_t *ni, uint64_t now,
                              const unsigned char *pkt,
                              const unsigned char *payload, uint32_t bytes,
                              int crc_on, lci_wire_hdr_t *hdr_p,
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
    if ((crc_on && crc != hdr.crc) || sizeof hdr + hdr.len != bytes ||
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
            char *to = lci_ni_buf(ni, buf);
            if (payload == NULL) {
                memcpy(to, pkt, sizeof hdr + hdr.len);
            } else {
                memcpy(to, pkt, sizeof hdr);
                memcpy(to + sizeof hdr, payload, hdr.len);
            }
            *lci_ni_refcnt(ni, buf) = 1;
        }
    }
    *hdr_p = hdr;
    *buf_p = buf;
    return status;
}

void lci_hw_on_wire_arrive(const lci_event_t *ev)
{
    lci_ni_t *ni = lci_world_ni(ev->node);
    wire_slot_t *ws = wire_slot(ev->a);
    if (lci_hw_dead(ev->node, ev->time)) {
        wire_slot_free(ev->a); /* nobody there */
        return;
    }
    lci_wire_hdr_t hdr;
    uint32_t buf;
    const unsigned char *payload = NULL;
    if (ws->by_ref) {
        payload = (const unsigned char *)lci_ni_buf(lci_world_ni(ws->src),
                                                    ws->buf) +
                  sizeof hdr;
    }
    uint32_t status = lci_hw_rx_frame_from(ni, ev->time,
                                           (const unsigned char *)(ws + 1),
                                           payload, ws->bytes, sim_crc_on(),
                                           &hdr, &buf);
    uint32_t link_src = ws->src;
    wire_slot_free(ev->a);
    ni->counters.pkts_recv++;
    lci_hw_sink->arrived(ni, ev->time, &hdr, buf, status, link_src);
}

void lci_hw_on_tx_done(const lci_event_t *ev)
{
    lci_ni_t *ni = lci_world_ni(ev->node);
    lci_hw_sink->tx_done(ni, ev->time, ev->a);
}
