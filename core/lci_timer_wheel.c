/*
 * lci_timer_wheel.c - hashed timer wheel (see lci_timer_wheel.h).
 *
 * Firmware code: no libc calls (the compiler may emit memset/memcpy).
 *
 * Each slot holds a doubly linked list of timer ids sorted by (expiry, id),
 * so the head of a slot is its earliest timer.  Timers whose tick is already
 * behind the wheel's position (started late, or deferred by a callback) go to
 * a separate sorted "overdue" list that advance() serves first.
 *
 * Invariant between steps of advance(): every timer on the wheel has tick >=
 * cur_tick and, during an advance(), an (expiry, id) after the last one
 * fired.  So the only candidates to fire next are the head of slot cur_tick
 * and the first eligible timer of the overdue list.
 */
#include "config.h"

#include "lci_ring_index.h"
#include "lci_timer_wheel.h"

#define LCI_TW_NIL          UINT32_MAX
#define LCI_TW_LIST_IDLE    UINT32_MAX
#define LCI_TW_LIST_OVERDUE (UINT32_MAX - 1)

/* The bitmap of slots whose list is not empty. */
static uint64_t *lci_tw_occupied(lci_timer_wheel_t *w)
{
    return (uint64_t *)(void *)(w->entries + w->ntimers);
}

static const uint64_t *lci_tw_occupied_const(const lci_timer_wheel_t *w)
{
    return (const uint64_t *)(const void *)(w->entries + w->ntimers);
}

static uint32_t lci_tw_words(const lci_timer_wheel_t *w)
{
    return (w->nslots + 63) / 64;
}

static uint32_t *lci_tw_heads(lci_timer_wheel_t *w)
{
    return (uint32_t *)(void *)(lci_tw_occupied(w) + lci_tw_words(w));
}

static const uint32_t *lci_tw_heads_const(const lci_timer_wheel_t *w)
{
    return (const uint32_t *)(const void *)(lci_tw_occupied_const(w) +
                                            lci_tw_words(w));
}

/* The first occupied slot from slot s on, or nslots if there is none. */
static uint32_t lci_tw_next_occupied(const lci_timer_wheel_t *w, uint32_t s)
{
    const uint64_t *bits = lci_tw_occupied_const(w);

    for (uint32_t i = s / 64; i < lci_tw_words(w); i++) {
        uint64_t word = bits[i];

        if (i == s / 64) {
            word &= ~0ull << (s % 64); /* the slots before s do not count */
        }
        if (word != 0) {
            return i * 64 + (uint32_t)__builtin_ctzll(word);
        }
    }
    return w->nslots;
}

/* Is (ea, ia) strictly before (eb, ib)? */
static bool lci_tw_key_before(uint64_t ea, uint32_t ia, uint64_t eb,
                              uint32_t ib)
{
    return ea < eb || (ea == eb && ia < ib);
}

/* Does timer a come strictly before (expiry, id)? */
static bool lci_tw_before(const lci_timer_wheel_t *w, uint32_t a,
                          uint64_t expiry, uint32_t id)
{
    return lci_tw_key_before(w->entries[a].expiry_ns, a, expiry, id);
}

/* Does (expiry, id) come after the timer last fired by this advance()?
 * Uses the saved key: the callback may have re-armed that timer. */
static bool lci_tw_after_last(const lci_timer_wheel_t *w, uint64_t expiry,
                              uint32_t id)
{
    return !w->has_last ||
           lci_tw_key_before(w->last_expiry, w->last_id, expiry, id);
}

static uint32_t *lci_tw_list_head(lci_timer_wheel_t *w, uint32_t list)
{
    return list == LCI_TW_LIST_OVERDUE ? &w->overdue_head
                                       : &lci_tw_heads(w)[list];
}

static void lci_tw_unlink(lci_timer_wheel_t *w, uint32_t id)
{
    lci_timer_wheel_entry_t *e = &w->entries[id];

    if (e->prev != LCI_TW_NIL) {
        w->entries[e->prev].next = e->next;
    } else {
        *lci_tw_list_head(w, e->list) = e->next;
        if (e->next == LCI_TW_NIL && e->list != LCI_TW_LIST_OVERDUE) {
            lci_tw_occupied(w)[e->list / 64] &= ~(1ull << (e->list % 64));
        }
    }
    if (e->next != LCI_TW_NIL) {
        w->entries[e->next].prev = e->prev;
    }
    e->next = LCI_TW_NIL;
    e->prev = LCI_TW_NIL;
    e->list = LCI_TW_LIST_IDLE;
    w->nrunning--;
    if (e->expiry_ns == w->next_expiry) {
        w->next_known = 0; /* it may have been the earliest */
    }
}

/* Inserts id into list, keeping it sorted by (expiry, id). */
static void lci_tw_insert(lci_timer_wheel_t *w, uint32_t list, uint32_t id)
{
    uint32_t *headp = lci_tw_list_head(w, list);
    lci_timer_wheel_entry_t *e = &w->entries[id];
    uint32_t prev = LCI_TW_NIL;
    uint32_t cur = *headp;

    while (cur != LCI_TW_NIL && lci_tw_before(w, cur, e->expiry_ns, id)) {
        prev = cur;
        cur = w->entries[cur].next;
    }
    e->prev = prev;
    e->next = cur;
    e->list = list;
    if (prev == LCI_TW_NIL) {
        *headp = id;
        if (list != LCI_TW_LIST_OVERDUE) {
            lci_tw_occupied(w)[list / 64] |= 1ull << (list % 64);
        }
    } else {
        w->entries[prev].next = id;
    }
    if (cur != LCI_TW_NIL) {
        w->entries[cur].prev = id;
    }
    w->nrunning++;
    if (e->expiry_ns < w->next_expiry) {
        w->next_expiry = e->expiry_ns; /* stays known if it was */
    }
}

/* The tick of a time: the wheel's tick is a power of two (init), so a
 * shift, not a division; the tick only buckets timers, each fires at its
 * exact expiry. */
static uint64_t lci_tw_tick(const lci_timer_wheel_t *w, uint64_t ns)
{
    return ns >> w->tick_shift;
}

/* The slot of a tick (a mask when nslots is a power of two). */
static uint32_t lci_tw_slot(const lci_timer_wheel_t *w, uint64_t tick)
{
    return (uint32_t)lci_ring_pos(tick, w->nslots);
}

static uint64_t lci_tw_tick_of(const lci_timer_wheel_t *w, uint32_t id)
{
    return lci_tw_tick(w, w->entries[id].expiry_ns);
}

/* The timer of the wheel proper with the earliest expiry, or LCI_TW_NIL.
 * Slots are visited from the current tick's on, in tick order: the first
 * head due within one turn of the wheel is the earliest of all (every
 * timer has tick >= cur_tick, and one of an earlier tick would sit in a
 * slot visited before, whose head is no later than it).  Only heads of
 * later turns make the visit go on. */
static uint32_t lci_tw_earliest(const lci_timer_wheel_t *w)
{
    const uint32_t *heads = lci_tw_heads_const(w);
    uint32_t start = lci_tw_slot(w, w->cur_tick);
    uint64_t turn_end = w->cur_tick + w->nslots;
    uint32_t best = LCI_TW_NIL;

    for (uint32_t pass = 0; pass < 2; pass++) {
        uint32_t from = pass == 0 ? start : 0;
        uint32_t to = pass == 0 ? w->nslots : start;
        for (uint32_t s = lci_tw_next_occupied(w, from); s < to;
             s = lci_tw_next_occupied(w, s + 1)) {
            uint32_t id = heads[s];
            if (best == LCI_TW_NIL ||
                lci_tw_before(w, id, w->entries[best].expiry_ns, best)) {
                best = id;
            }
            if (lci_tw_tick_of(w, id) < turn_end) {
                return best;
            }
        }
    }
    return best;
}

/* Earliest tick of any timer on the wheel proper, or UINT64_MAX. */
static uint64_t lci_tw_next_wheel_tick(const lci_timer_wheel_t *w)
{
    uint32_t id = lci_tw_earliest(w);
    return id == LCI_TW_NIL ? UINT64_MAX : lci_tw_tick_of(w, id);
}

size_t lci_timer_wheel_size(unsigned ntimers, unsigned nslots)
{
    if (ntimers == 0 || ntimers > LCI_TIMER_WHEEL_MAX_TIMERS || nslots == 0 ||
        nslots > LCI_TIMER_WHEEL_MAX_SLOTS) {
        return 0;
    }
    return LCI_TIMER_WHEEL_SIZE(ntimers, nslots);
}

lci_status_t lci_timer_wheel_init(lci_timer_wheel_t *wheel, unsigned ntimers,
                                  unsigned nslots, uint64_t tick_ns)
{
    if (wheel == NULL || tick_ns == 0 ||
        lci_timer_wheel_size(ntimers, nslots) == 0) {
        return LCI_ERR_INVAL;
    }
    wheel->tick_shift = 0;
    while ((1ull << wheel->tick_shift) < tick_ns && wheel->tick_shift < 63) {
        wheel->tick_shift++;
    }
    wheel->tick_ns = 1ull << wheel->tick_shift;
    wheel->cur_tick = 0;
    wheel->last_expiry = 0;
    wheel->last_id = 0;
    wheel->ntimers = ntimers;
    wheel->nslots = nslots;
    wheel->nrunning = 0;
    wheel->overdue_head = LCI_TW_NIL;
    wheel->in_advance = 0;
    wheel->has_last = 0;
    wheel->next_known = 1; /* no timer: UINT64_MAX */
    wheel->next_expiry = UINT64_MAX;
    for (uint32_t i = 0; i < ntimers; i++) {
        wheel->entries[i] = (lci_timer_wheel_entry_t){
            .expiry_ns = 0,
            .next = LCI_TW_NIL,
            .prev = LCI_TW_NIL,
            .list = LCI_TW_LIST_IDLE,
            .reserved = 0,
        };
    }
    uint32_t *heads = lci_tw_heads(wheel);

    for (uint32_t s = 0; s < nslots; s++) {
        heads[s] = LCI_TW_NIL;
    }
    for (uint32_t i = 0; i < lci_tw_words(wheel); i++) {
        lci_tw_occupied(wheel)[i] = 0;
    }
    return LCI_OK;
}

lci_status_t lci_timer_wheel_start(lci_timer_wheel_t *wheel, unsigned id,
                                   uint64_t expiry_ns)
{
    if (wheel == NULL || id >= wheel->ntimers) {
        return LCI_ERR_INVAL;
    }
    if (wheel->entries[id].list != LCI_TW_LIST_IDLE) {
        lci_tw_unlink(wheel, id);
    }
    wheel->entries[id].expiry_ns = expiry_ns;

    uint64_t tick = lci_tw_tick(wheel, expiry_ns);
    /* Started by a callback at or before the timer being fired: it is in
     * the past of this advance(), so it waits for the next one (this is
     * what keeps a self-restarting timer from looping forever). */
    bool deferred =
        wheel->in_advance && !lci_tw_after_last(wheel, expiry_ns, id);

    if (tick < wheel->cur_tick || deferred) {
        lci_tw_insert(wheel, LCI_TW_LIST_OVERDUE, id);
    } else {
        lci_tw_insert(wheel, lci_tw_slot(wheel, tick), id);
    }
    return LCI_OK;
}

bool lci_timer_wheel_cancel(lci_timer_wheel_t *wheel, unsigned id)
{
    if (wheel == NULL || id >= wheel->ntimers ||
        wheel->entries[id].list == LCI_TW_LIST_IDLE) {
        return false;
    }
    lci_tw_unlink(wheel, id);
    return true;
}

bool lci_timer_wheel_is_running(const lci_timer_wheel_t *wheel, unsigned id)
{
    return wheel != NULL && id < wheel->ntimers &&
           wheel->entries[id].list != LCI_TW_LIST_IDLE;
}

uint64_t lci_timer_wheel_expiry(const lci_timer_wheel_t *wheel, unsigned id)
{
    if (!lci_timer_wheel_is_running(wheel, id)) {
        return UINT64_MAX;
    }
    return wheel->entries[id].expiry_ns;
}

unsigned lci_timer_wheel_count(const lci_timer_wheel_t *wheel)
{
    return wheel == NULL ? 0 : wheel->nrunning;
}

/* First overdue timer that may fire now: skips the deferred ones, which sort
 * before the last fired timer (and so form a prefix of the list). */
static uint32_t lci_tw_overdue_candidate(const lci_timer_wheel_t *w,
                                         uint64_t now_ns)
{
    uint32_t id = w->overdue_head;

    while (id != LCI_TW_NIL &&
           !lci_tw_after_last(w, w->entries[id].expiry_ns, id)) {
        id = w->entries[id].next;
    }
    if (id != LCI_TW_NIL && w->entries[id].expiry_ns > now_ns) {
        return LCI_TW_NIL;
    }
    return id;
}

static uint32_t lci_tw_wheel_candidate(const lci_timer_wheel_t *w,
                                       uint64_t now_ns)
{
    uint32_t id = lci_tw_heads_const(w)[lci_tw_slot(w, w->cur_tick)];

    if (id == LCI_TW_NIL || lci_tw_tick_of(w, id) != w->cur_tick ||
        w->entries[id].expiry_ns > now_ns) {
        return LCI_TW_NIL;
    }
    return id;
}

/* Moves to the next tick; over a stretch longer than one rotation, jumps
 * straight to the next tick that holds a timer (or to target). */
static void lci_tw_step(lci_timer_wheel_t *w, uint64_t target)
{
    w->cur_tick++;
    if (target - w->cur_tick < w->nslots) {
        return;
    }
    uint32_t head = lci_tw_heads(w)[lci_tw_slot(w, w->cur_tick)];

    if (head != LCI_TW_NIL && lci_tw_tick_of(w, head) == w->cur_tick) {
        return;
    }
    uint64_t next = lci_tw_next_wheel_tick(w);

    if (next > target) {
        next = target;
    }
    if (next > w->cur_tick) {
        w->cur_tick = next;
    }
}

unsigned lci_timer_wheel_advance(lci_timer_wheel_t *wheel, uint64_t now_ns,
                                 lci_timer_wheel_func_t func, void *arg)
{
    if (wheel == NULL || wheel->in_advance) {
        return 0;
    }
    uint64_t target = lci_tw_tick(wheel, now_ns);
    unsigned fired = 0;

    wheel->in_advance = 1;
    wheel->has_last = 0;
    for (;;) {
        uint32_t od = lci_tw_overdue_candidate(wheel, now_ns);
        uint32_t wh = lci_tw_wheel_candidate(wheel, now_ns);
        uint32_t pick = od;

        if (pick == LCI_TW_NIL ||
            (wh != LCI_TW_NIL &&
             lci_tw_before(wheel, wh, wheel->entries[od].expiry_ns, od))) {
            pick = wh;
        }
        if (pick != LCI_TW_NIL) {
            lci_tw_unlink(wheel, pick);
            wheel->last_expiry = wheel->entries[pick].expiry_ns;
            wheel->last_id = pick;
            wheel->has_last = 1;
            fired++;
            if (func != NULL) {
                func(arg, pick);
            }
            continue;
        }
        if (wheel->cur_tick >= target) {
            break;
        }
        lci_tw_step(wheel, target);
    }
    wheel->in_advance = 0;
    wheel->has_last = 0;
    return fired;
}

uint64_t lci_timer_wheel_next_expiry(lci_timer_wheel_t *wheel)
{
    if (wheel == NULL) {
        return UINT64_MAX;
    }
    if (wheel->next_known) {
        return wheel->next_expiry;
    }
    uint64_t best = UINT64_MAX;

    if (wheel->overdue_head != LCI_TW_NIL) {
        best = wheel->entries[wheel->overdue_head].expiry_ns;
    }
    uint32_t id = lci_tw_earliest(wheel);
    if (id != LCI_TW_NIL && wheel->entries[id].expiry_ns < best) {
        best = wheel->entries[id].expiry_ns;
    }
    wheel->next_expiry = best;
    wheel->next_known = 1;
    return best;
}
