/*
 * lci_live.c - the live platform's clock, event queue and progress engine
 * (see lci_live.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lci_event_heap.h"
#include "lci_hw.h"
#include "lci_hw_sink.h"
#include "lci_live.h"
#include "lci_live_nic.h"
#include "lci_live_wire.h"
#include "lci_sched.h"

static lci_live_t live;
static uint64_t epoch; /* time 0 of the run, as on the sim platform */

uint64_t lci_live_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t lci_live_now(void)
{
    return lci_live_clock() - epoch;
}

void lci_live_profile(lci_profile_t *prof)
{
    /* Real work costs what it costs: no charge on top.  Rates become
     * infinite for the same reason; the watchdog delay is a policy, not a
     * cost, and stays. */
    double watchdog = prof->watchdog_ns, clock_ns = prof->ni_clock_ns;
#define LCI_LIVE_ZERO(field, def, unit, desc)                                  \
    if (unit == LCI_UNIT_TIME) {                                               \
        prof->field = 0.0;                                                     \
    } else if (unit == LCI_UNIT_RATE) {                                        \
        prof->field = 1e12;                                                    \
    }
    LCI_PROFILE_FIELDS(LCI_LIVE_ZERO)
#undef LCI_LIVE_ZERO
    prof->watchdog_ns = watchdog;
    prof->ni_clock_ns = clock_ns;
}

/* ---- this node's event queue ------------------------------------------ */

void lci_live_post(uint64_t time, uint16_t type, uint32_t node, uint32_t a,
                   uint64_t b)
{
    lci_live_t *L = &live;
    if (node != L->rank) {
        lci_sched_fail((int)L->rank, LCI_ERR_PLATFORM,
                       "live platform: an event for node %u posted on node "
                       "%u",
                       node, L->rank);
    }
    if (L->nheap == L->capheap) {
        uint64_t cap = L->capheap ? 2 * L->capheap : 256;
        lci_event_t *h = realloc(L->heap, cap * sizeof *h);
        if (h == NULL) {
            lci_sched_fail((int)node, LCI_ERR_NOMEM,
                           "live platform: out of memory for events");
        }
        L->heap = h;
        L->capheap = cap;
    }
    lci_event_t ev = {.time = time, .seq = L->seq++, .type = type,
                      .node = (uint16_t)node, .a = a, .b = b};
    lci_event_heap_push(L->heap, &L->nheap, &ev);
}

uint64_t lci_live_recent(void)
{
    return live.now;
}

uint64_t lci_live_next_event(void)
{
    return lci_event_heap_next_time(live.heap, live.nheap);
}

int lci_live_can_run_now(uint64_t t)
{
    /* Firmware may go on with the next work item if its time has come. */
    return t <= live.now;
}

/* ---- the link: what the firmware transmits goes on the wire ----------- */

static void backlog_add(lci_live_t *L, uint32_t dst, const unsigned char *pkt,
                        uint32_t bytes)
{
    lci_live_backlog_t *b = malloc(sizeof *b + bytes);
    if (b == NULL) {
        lci_sched_fail((int)L->rank, LCI_ERR_NOMEM,
                       "live platform: out of memory for the link backlog");
    }
    b->next = NULL;
    b->dst = dst;
    b->bytes = bytes;
    memcpy(b->pkt, pkt, bytes);
    lci_live_backlog_queue_t *q = &L->bl[dst];
    if (q->tail) {
        q->tail->next = b;
    } else {
        q->head = b;
    }
    q->tail = b;
    L->backlog++;
}

/* Sends what waited for room, in order; returns how many went. */
static unsigned backlog_flush(lci_live_t *L)
{
    unsigned n = 0;
    for (uint32_t dst = 0; dst < L->size && L->backlog > 0; dst++) {
        lci_live_backlog_queue_t *q = &L->bl[dst];
        while (q->head != NULL) {
            lci_live_backlog_t *b = q->head;
            if (L->wire->send(L, b->dst, b->pkt, b->bytes) != 0) {
                break;
            }
            q->head = b->next;
            if (q->head == NULL) {
                q->tail = NULL;
            }
            L->backlog--;
            free(b);
            n++;
        }
    }
    return n;
}

static void wire_put(lci_live_t *L, uint32_t dst, const unsigned char *pkt,
                     uint32_t bytes)
{
    /* Packets behind a backlog wait their turn: the link stays FIFO. */
    if (L->bl[dst].head != NULL || L->wire->send(L, dst, pkt, bytes) != 0) {
        backlog_add(L, dst, pkt, bytes);
    }
}

/* The bytes are on the wire: the buffer is free again, as on the sim
 * platform when the send DMA finishes. */
static void transmitted(lci_ni_t *ni, uint64_t now, uint32_t buf)
{
    if (buf != LCI_NONE && buf < ni->nsend) {
        lci_hw_sink->send_buf_release(ni, buf, now);
    } else if (buf != LCI_NONE) {
        lci_live_post(now, LCI_EV_TX_DONE, ni->node, buf, 0);
    }
}

void lci_live_transmit(lci_ni_t *ni, uint64_t now, const lci_wire_hdr_t *hdr,
                       const void *payload, uint32_t buf)
{
    lci_live_t *L = &live;
    uint32_t dst = hdr->dst;
    L->packets++;
    if (!L->faults && L->wire->reserve != NULL && L->bl[dst].head == NULL) {
        /* The fast path: framed straight into the wire's slot. */
        unsigned char *slot = L->wire->reserve(L, dst, sizeof *hdr + hdr->len);
        if (slot != NULL) {
            L->wire->commit(L, dst,
                            lci_hw_frame(ni, hdr, payload, slot, L->crc_on));
            transmitted(ni, now, buf);
            return;
        }
    }
    unsigned char *pkt = L->scratch;
    uint32_t bytes = lci_hw_frame(ni, hdr, payload, pkt, L->crc_on);
    unsigned fate = 0;
    if (L->faults) {
        /* Each node draws its own stream of fault decisions. */
        uint64_t n = (L->packets - 1) * L->size + L->rank;
        fate = lci_hw_fault(hdr, ni->node, pkt, bytes, n, now, &L->burst_left);
    }
    if (!(fate & LCI_HW_FAULT_LOST)) {
        wire_put(L, dst, pkt, bytes);
        if (fate & LCI_HW_FAULT_TWICE) {
            __atomic_fetch_add(&lci_seg()->faults_injected, 1,
                               __ATOMIC_RELAXED);
            wire_put(L, dst, pkt, bytes);
        }
    }
    transmitted(ni, now, buf);
}

/* Reads the clock for this pass.  Real time has passed: the NI processor
 * cannot start any work before now, so the firmware's clock (and every
 * timer it sets) is current, whatever time the host stamped on its
 * commands. */
static void clock_read(lci_live_t *L)
{
    L->now = lci_live_now();
    L->stale_passes = 0;
    lci_ni_t *ni = lci_world_ni(L->rank);
    if (ni->cpu_free < L->now) {
        ni->cpu_free = L->now;
    }
    const lci_fault_window_t *die = &lci_seg()->cfg.fault.die;
    if (die->dur > 0 && die->a == L->rank && L->now >= die->start) {
        /* die=N@T: the node process is killed, as by kill -9. */
        lci_world_host(L->rank)->died = 1;
        kill(getpid(), SIGKILL);
    }
}

static void live_receive(lci_live_t *L, const unsigned char *pkt,
                         uint32_t bytes, uint32_t src)
{
    lci_ni_t *ni = lci_world_ni(L->rank);
    lci_wire_hdr_t hdr;
    uint32_t buf;
    if (ni->h_intr_enabled) {
        /* The polling watchdog compares the arrival with the host's last
         * poll: a stale stamp could fall before a poll that came before
         * the packet, and its interrupt would never come. */
        clock_read(L);
    }
    uint32_t status =
        lci_hw_rx_frame(ni, L->now, pkt, bytes, L->crc_on, &hdr, &buf);
    ni->counters.pkts_recv++;
    L->last_rx = L->now;
    lci_hw_sink->arrived(ni, L->now, &hdr, buf, status, src);
    /* As after every event on the sim platform: a failure the firmware
     * recorded (RX_no seeing a lost packet) stops the run before the host
     * can see anything after it. */
    lci_hw_sink->fault_check(L->rank);
}

/* ---- progress --------------------------------------------------------- */

int lci_live_progress(void)
{
    lci_live_t *L = &live;
    if (L->in_progress) {
        return 0; /* the firmware runs to completion, never nested */
    }
    L->in_progress = 1;
    lci_sched_check_abort();
    /* Reading the clock costs more than an empty poll: a pass reads it
     * every few passes, which is soon enough for timers of microseconds
     * and more.  What arrives is stamped with the pass's clock, a little
     * early, never late: the host sees it at once (a fresh stamp could lie
     * ahead of the host's clock), and reading the clock for it cost a
     * tenth of a small packet's path; only with interrupts on does an
     * arrival read the clock (live_receive).  What the host posts is
     * stamped with a time already read, so it is due at once. */
    if (++L->stale_passes >= 8) {
        clock_read(L);
    }
    int did = (int)backlog_flush(L);
    did += (int)L->wire->poll(L, live_receive);
    while (L->nheap > 0 && L->heap[0].time <= L->now) {
        lci_event_t ev = lci_event_heap_pop(L->heap, &L->nheap);
        lci_event_table[ev.type](&ev);
        lci_hw_sink->fault_check(ev.node);
        did++;
    }
    L->in_progress = 0;
    return did;
}

void lci_live_host_event(uint16_t type, uint32_t a)
{
    lci_live_t *L = &live;
    if (L->nic_thread || L->in_progress) {
        lci_live_post(L->now, type, L->rank, a, 0);
        lci_live_kick();
        return;
    }
    lci_event_t ev = {.time = L->now, .type = type, .node = (uint16_t)L->rank,
                      .a = a};
    L->in_progress = 1;
    lci_event_table[type](&ev);
    L->in_progress = 0;
    lci_hw_sink->fault_check(L->rank);
    if (lci_live_next_event() <= L->now) {
        lci_live_progress(); /* the firmware was due anyway: it runs now */
    }
}

void lci_live_will_send(uint32_t dst)
{
    lci_live_t *L = &live;
    if (!L->nic_thread && L->wire->will_send != NULL) {
        L->wire->will_send(L, dst);
    }
}

int lci_live_progress_fresh(void)
{
    live.stale_passes = 8; /* this pass reads the clock */
    return lci_live_progress();
}

lci_live_t *lci_live_state(void)
{
    return &live;
}

/* ---- start and stop --------------------------------------------------- */

lci_status_t lci_live_init(uint32_t self, int fabric_fd, char *err,
                           size_t errlen)
{
    lci_live_t *L = &live;
    lci_seg_t *s = lci_seg();
    memset(L, 0, sizeof *L);
    L->rank = self;
    L->size = s->cfg.nnodes;
    L->launched = fabric_fd >= 0;
    L->wire = s->cfg.wire == LCI_WIRE_UDP ? &lci_live_wire_udp
                                          : &lci_live_wire_shm;
    const lci_fault_config_t *f = &s->cfg.fault;
    L->faults = lci_fault_on_wire(f);
    L->crc_on = lci_hw_crc_needed(f, L->wire->may_damage);
    L->scratch = malloc(s->cfg.packet_size + 64);
    L->bl = calloc(L->size, sizeof *L->bl);
    if (L->scratch == NULL || L->bl == NULL) {
        snprintf(err, errlen, "out of memory");
        return LCI_ERR_NOMEM;
    }
    lci_status_t st = lci_live_fabric_map(L, fabric_fd, err, errlen);
    if (st != LCI_OK) {
        return st;
    }
    /* Fault windows (linkdown=A-B@T+D, ...) count from the start of the
     * run; one machine's nodes share lci-run's epoch. */
    epoch = L->fabric ? L->fabric->epoch : lci_live_clock();
    st = L->wire->open(L, err, errlen);
    if (st != LCI_OK) {
        return st;
    }
    clock_read(L);
    return lci_live_nic_init(L, err, errlen);
}

void lci_live_on_fail(int node, const char *msg)
{
    if (!live.launched) {
        /* No lci-run to report it: say it here. */
        fprintf(stderr, "lci: node %d: %s\n", node, msg);
    }
    if (live.fabric != NULL) {
        /* Wake every blocked node so that it sees the stop. */
        for (uint32_t k = 0; k < live.size; k++) {
            lci_live_fabric_wake(&live, k);
        }
    }
}
