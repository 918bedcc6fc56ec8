/*
 * lci_sched.c - the turn, the event queue and the hosts' clocks (see
 * lci_sched.h for the rules).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lci_engine.h"
#include "lci_event_heap.h"
#include "lci_hw_sink.h"
#include "lci_platform.h"
#include "lci_ready.h"
#include "lci_sched.h"

/* The turn goes from self to node to: bookkeeping common to every
 * engine. */
static void turn_to(uint32_t self, uint32_t to)
{
    lci_ready_moved(self); /* the giver's clock has moved */
    lci_seg()->turn = to;
    lci_seg()->handoffs++;
}

static void hand_turn(uint32_t self, uint32_t to)
{
    turn_to(self, to);
    lci_engine->handoff(self, to);
    lci_sched_check_abort();
}

/* ---- event heap, ordered by (time, seq) ------------------------------ */

static void heap_insert(const lci_event_t *ev)
{
    lci_seg_t *s = lci_seg();
    if (s->heap_count == s->heap_cap) {
        lci_sched_fail((int)ev->node, LCI_ERR_CONFIG,
                       "the event queue is full (%llu events); run lci-run "
                       "with a larger --events",
                       (unsigned long long)s->heap_cap);
    }
    lci_event_heap_push(lci_world_heap(), &s->heap_count, ev);
    if (s->heap_count > s->heap_peak) {
        s->heap_peak = s->heap_count;
    }
}

void lci_sim_post(uint64_t time, uint16_t type, uint32_t node, uint32_t a,
                  uint64_t b)
{
    lci_event_t ev = {.time = time, .seq = lci_seg()->next_seq++,
                      .type = type, .node = (uint16_t)node, .a = a, .b = b};
    heap_insert(&ev);
}

void lci_sim_post_written(uint64_t time, uint64_t seq, uint16_t type,
                          uint32_t node, uint32_t a)
{
    lci_event_t ev = {.time = time, .seq = seq, .type = type,
                      .node = (uint16_t)node, .a = a};
    heap_insert(&ev);
}

static lci_event_t heap_pop(void)
{
    return lci_event_heap_pop(lci_world_heap(), &lci_seg()->heap_count);
}

static uint64_t next_event_time(void)
{
    return lci_event_heap_next_time(lci_world_heap(), lci_seg()->heap_count);
}

/* FNV-1a over 64-bit words (one multiply a word, not eight): the trace
 * hash takes in every event of a run that asks for it (--trace-hash), so
 * it must be cheap; a run that does not ask skips it. */
static void fnv_mix(uint64_t *h, uint64_t v)
{
    *h ^= v;
    *h *= 0x100000001b3ULL;
    *h ^= *h >> 29;
}

void lci_sim_trace(uint64_t t, uint16_t type, uint32_t node)
{
    lci_seg_t *s = lci_seg();
    if (!s->cfg.trace_hash) {
        return;
    }
    fnv_mix(&s->trace_hash, t);
    fnv_mix(&s->trace_hash, ((uint64_t)type << 32) | node);
}

uint64_t lci_sim_event_seq(void)
{
    return lci_seg()->event_seq;
}

int lci_sim_can_run_now(uint64_t t)
{
    return t < lci_seg()->horizon && t < next_event_time();
}

/* Runs the earliest event; horizon bounds what it may do without one. */
static void run_one_event(uint64_t horizon)
{
    lci_seg_t *s = lci_seg();
    lci_event_t ev = heap_pop();
    s->events_run++;
    s->event_seq = ev.seq;
    s->events_by_type[ev.type & 15]++;
    s->horizon = horizon;
    if (s->cfg.trace_hash) {
        fnv_mix(&s->trace_hash, ev.time);
        fnv_mix(&s->trace_hash, ((uint64_t)ev.type << 32) | ev.node);
        fnv_mix(&s->trace_hash, ev.a);
        fnv_mix(&s->trace_hash, ev.b);
    }
    if (ev.type == 0 || ev.type >= LCI_EV_MAX || !lci_event_table[ev.type]) {
        lci_sched_fail(ev.node, LCI_ERR_PLATFORM, "unknown event type %u",
                       ev.type);
    }
    lci_event_table[ev.type](&ev);
    lci_hw_sink->fault_check(ev.node);
}

/* ---- choosing who runs ----------------------------------------------- */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > LCI_TIME_INF - b ? LCI_TIME_INF : a + b;
}

static uint64_t min_ready_other(uint32_t self, int *who_p)
{
    return lci_ready_min_other(self, who_p);
}

static const char *status_name(uint32_t st)
{
    switch (st) {
    case LCI_HOST_READY:
        return "running";
    case LCI_HOST_WAITING:
        return "waiting for a packet";
    case LCI_HOST_IDLE:
        return "polling with nothing to receive";
    case LCI_HOST_EXITED:
        return "finalized";
    default:
        return "?";
    }
}

static void report_deadlock(uint32_t self) __attribute__((noreturn));
static void report_deadlock(uint32_t self)
{
    lci_seg_t *s = lci_seg();
    char msg[3800];
    size_t off = 0;
    off += (size_t)snprintf(msg + off, sizeof msg - off,
                            "deadlock: every node waits and nothing is in "
                            "flight;");
    uint32_t shown = 0;
    for (uint32_t j = 0; j < s->cfg.nnodes && off < sizeof msg - 80; j++) {
        lci_host_shared_t *h = lci_world_host(j);
        if (h->status == LCI_HOST_EXITED) {
            continue;
        }
        off += (size_t)snprintf(msg + off, sizeof msg - off,
                                " node %u %s at %.3f us;", j,
                                status_name(h->status), h->clock / 1000.0);
        shown++;
    }
    (void)shown;
    lci_sched_fail((int)self, LCI_ERR_DEADLOCK, "%s", msg);
}

/* Nothing is runnable and no event is pending.  Hosts spinning on an empty
 * poll get their poll back (as if they had spun until now) once per round
 * of progress; when that too changes nothing, the cluster is deadlocked. */
static void cluster_idle(uint32_t self)
{
    lci_seg_t *s = lci_seg();
    int any_idle = 0, any_waiting = 0;
    for (uint32_t j = 0; j < s->cfg.nnodes; j++) {
        uint32_t st = lci_world_host(j)->status;
        any_idle |= st == LCI_HOST_IDLE;
        any_waiting |= st == LCI_HOST_WAITING;
    }
    if (!any_idle && !any_waiting) {
        return; /* everyone finished */
    }
    /* A ring release written without an event is progress all the same,
     * as when it was one. */
    uint64_t progress = s->events_run + s->ring_logged;
    if (any_idle && progress != s->events_at_idle) {
        s->events_at_idle = progress;
        for (uint32_t j = 0; j < s->cfg.nnodes; j++) {
            lci_host_shared_t *h = lci_world_host(j);
            if (h->status == LCI_HOST_IDLE) {
                h->status = LCI_HOST_READY;
                h->woken_idle = 1;
                lci_ready_insert(j);
            }
        }
        return;
    }
    report_deadlock(self);
}

void lci_sched_sync(uint32_t self)
{
    lci_seg_t *s = lci_seg();
    lci_host_shared_t *me = lci_world_host(self);
    for (;;) {
        lci_sched_check_abort();
        int who;
        uint64_t m = min_ready_other(self, &who);
        uint64_t t = me->clock;
        uint64_t lim = sat_add(t < m ? t : m, s->lookahead_ns);
        uint64_t te = next_event_time();
        if (te <= t && te < lim) {
            run_one_event(lim);
            continue;
        }
        if (t < sat_add(m, s->lookahead_ns)) {
            return;
        }
        hand_turn(self, (uint32_t)who);
    }
}

int lci_sched_wait(uint32_t self, lci_host_status_t how)
{
    lci_seg_t *s = lci_seg();
    lci_host_shared_t *me = lci_world_host(self);
    me->status = how;
    me->woken_idle = 0;
    lci_ready_remove(self);
    while (me->status != LCI_HOST_READY) {
        lci_sched_check_abort();
        int who;
        uint64_t m = min_ready_other(self, &who);
        uint64_t te = next_event_time();
        if (te != LCI_TIME_INF && te < sat_add(m, s->lookahead_ns)) {
            run_one_event(sat_add(m, s->lookahead_ns));
            continue;
        }
        if (who >= 0) {
            hand_turn(self, (uint32_t)who);
            continue;
        }
        cluster_idle(self);
    }
    lci_sched_sync(self);
    return (int)me->woken_idle;
}

void lci_sched_wake(uint32_t node, uint64_t time)
{
    lci_host_shared_t *h = lci_world_host(node);
    if (h->status == LCI_HOST_WAITING || h->status == LCI_HOST_IDLE) {
        h->status = LCI_HOST_READY;
        h->woken_idle = 0;
        if (h->clock < time) {
            h->clock = time;
        }
        lci_ready_insert(node);
        /* The woken host may act from its clock on: nothing may now run
         * ahead of that without an event. */
        lci_seg_t *s = lci_seg();
        uint64_t bound = sat_add(h->clock, s->lookahead_ns);
        if (bound < s->horizon) {
            s->horizon = bound;
        }
    }
}

void lci_sched_on_host_wake(const lci_event_t *ev)
{
    lci_platform->wake(ev->node, ev->time);
}

void lci_sched_exit(uint32_t self)
{
    lci_world_host(self)->status = LCI_HOST_EXITED;
    lci_ready_remove(self);
    lci_engine->finished(self);
}

int lci_sched_pass_on(uint32_t self)
{
    lci_seg_t *s = lci_seg();
    for (;;) {
        lci_sched_check_abort();
        int who;
        uint64_t m = min_ready_other(self, &who);
        uint64_t te = next_event_time();
        if (te != LCI_TIME_INF && te < sat_add(m, s->lookahead_ns)) {
            run_one_event(sat_add(m, s->lookahead_ns));
            continue;
        }
        if (who >= 0) {
            turn_to(self, (uint32_t)who);
            return who;
        }
        cluster_idle(self);
        if (min_ready_other(self, &who) == LCI_TIME_INF &&
            next_event_time() == LCI_TIME_INF) {
            return -1; /* every host finalized and nothing is in flight */
        }
    }
}

void lci_sched_start(uint32_t self)
{
    lci_seg_t *s = lci_seg();
    /* Sequentially consistent with lci-run's marking of nodes that exit
     * without lci_init: one of the two sides sees the other. */
    atomic_store(&lci_world_host(self)->started, 1);
    for (uint32_t j = 0; j < s->cfg.nnodes; j++) {
        if (atomic_load(&lci_world_host(j)->gone)) {
            lci_sched_fail((int)j, LCI_ERR_PLATFORM,
                           "exited without calling lci_init while other "
                           "nodes use LCI");
        }
    }
    lci_engine->start(self);
    lci_sched_sync(self);
}

void lci_sched_check_abort(void)
{
    if (atomic_load_explicit(&lci_seg()->abort, memory_order_acquire)) {
        fflush(NULL);
        _exit(LCI_EXIT_ABORTED);
    }
}

void lci_sched_fail(int node, lci_status_t status, const char *fmt, ...)
{
    lci_seg_t *s = lci_seg();
    uint32_t expected = 0;
    /* Claim the report (2), write it, then publish it (1): on the live
     * platform lci-run and the other nodes run meanwhile, and must never
     * read a report half written. */
    if (atomic_compare_exchange_strong(&s->abort, &expected,
                                       LCI_ABORT_WRITING)) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->abort_msg, sizeof s->abort_msg, fmt, ap);
        va_end(ap);
        s->abort_node = node;
        s->abort_status = status;
        atomic_store_explicit(&s->abort, LCI_ABORT_PUBLISHED,
                              memory_order_release);
        lci_platform->failed(node, s->abort_msg);
        fflush(NULL); /* what the node printed so far is not lost */
        lci_engine->wake_all();
    }
    _exit(LCI_EXIT_ABORTED);
}
