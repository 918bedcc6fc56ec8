/* test_timer_wheel.c - the hashed timer wheel: order, cancel, re-start,
 * exactly-once expiry, expiries many rotations away, next_expiry, and a
 * randomised comparison with a brute-force reference model. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "lci_timer_wheel.h"
#include "unit_run.h"

#define MAX_FIRED 4096

/* ---- helpers ------------------------------------------------------------ */

static lci_timer_wheel_t *wheel_new(unsigned ntimers, unsigned nslots,
                                    uint64_t tick_ns)
{
    size_t bytes = lci_timer_wheel_size(ntimers, nslots);

    CU_ASSERT_FATAL(bytes > 0);
    lci_timer_wheel_t *w = malloc(bytes);

    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    /* Garbage in the storage must not matter. */
    memset(w, 0xA5, bytes);
    CU_ASSERT_EQUAL_FATAL(lci_timer_wheel_init(w, ntimers, nslots, tick_ns),
                          LCI_OK);
    return w;
}

typedef struct {
    unsigned n;
    unsigned ids[MAX_FIRED];
    lci_timer_wheel_t *wheel;
    /* for rearm(): re-arm the fired timer rearm_left more times, each
     * time at period += rearm_offset */
    uint64_t period;
    int64_t rearm_offset;
    unsigned rearm_left;
} recorder_t;

static void record(void *arg, unsigned id)
{
    recorder_t *r = arg;

    CU_ASSERT_FATAL(r->n < MAX_FIRED);
    /* A timer is idle by the time its callback runs. */
    CU_ASSERT_FALSE(lci_timer_wheel_is_running(r->wheel, id));
    r->ids[r->n] = id;
    r->n++;
}

static void recorder_init(recorder_t *r, lci_timer_wheel_t *w)
{
    memset(r, 0, sizeof(*r));
    r->wheel = w;
}

/* ---- basic behaviour ---------------------------------------------------- */

static void timer_wheel_init_rejects_bad_arguments(void)
{
    uint64_t storage[64];
    lci_timer_wheel_t *w = (lci_timer_wheel_t *)(void *)storage;

    CU_ASSERT_EQUAL(lci_timer_wheel_init(NULL, 1, 1, 1), LCI_ERR_INVAL);
    CU_ASSERT_EQUAL(lci_timer_wheel_init(w, 0, 1, 1), LCI_ERR_INVAL);
    CU_ASSERT_EQUAL(lci_timer_wheel_init(w, 1, 0, 1), LCI_ERR_INVAL);
    CU_ASSERT_EQUAL(lci_timer_wheel_init(w, 1, 1, 0), LCI_ERR_INVAL);
    CU_ASSERT_EQUAL(
        lci_timer_wheel_init(w, LCI_TIMER_WHEEL_MAX_TIMERS + 1, 1, 1),
        LCI_ERR_INVAL);
    CU_ASSERT_EQUAL(lci_timer_wheel_size(0, 4), 0);
    CU_ASSERT_EQUAL(lci_timer_wheel_size(4, LCI_TIMER_WHEEL_MAX_SLOTS + 1), 0);
}

static void timer_wheel_size_matches_constant_macro(void)
{
    /* The macro is usable for static storage and agrees with the function. */
    static uint64_t storage[(LCI_TIMER_WHEEL_SIZE(8, 4) + 7) / 8];
    lci_timer_wheel_t *w = (lci_timer_wheel_t *)(void *)storage;

    CU_ASSERT_EQUAL(lci_timer_wheel_size(8, 4), LCI_TIMER_WHEEL_SIZE(8, 4));
    CU_ASSERT_TRUE(lci_timer_wheel_size(8, 4) >=
                   8 * sizeof(lci_timer_wheel_entry_t));
    CU_ASSERT_EQUAL_FATAL(lci_timer_wheel_init(w, 8, 4, 10), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 7, 35), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 35, NULL, NULL), 1u);
}

static void timer_wheel_start_rejects_bad_id(void)
{
    lci_timer_wheel_t *w = wheel_new(4, 4, 10);

    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 4, 10), LCI_ERR_INVAL);
    CU_ASSERT_FALSE(lci_timer_wheel_is_running(w, 4));
    CU_ASSERT_FALSE(lci_timer_wheel_cancel(w, 4));
    CU_ASSERT_EQUAL(lci_timer_wheel_expiry(w, 4), UINT64_MAX);
    CU_ASSERT_EQUAL(lci_timer_wheel_count(w), 0u);
    free(w);
}

static void timer_wheel_fires_in_expiry_then_id_order(void)
{
    lci_timer_wheel_t *w = wheel_new(16, 8, 100);
    recorder_t r;

    recorder_init(&r, w);
    /* Same slot (ticks 3 and 11 both hash to slot 3), equal expiries,
     * started in scrambled order. */
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 9, 350), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 2, 350), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 5, 1150), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 4, 301), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 7, 350), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 1, 20), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 0, 399), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_count(w), 7u);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 5000, record, &r), 7u);

    static const unsigned expected[] = {1, 4, 2, 7, 9, 0, 5};

    CU_ASSERT_EQUAL_FATAL(r.n, 7u);
    for (unsigned i = 0; i < 7; i++) {
        CU_ASSERT_EQUAL(r.ids[i], expected[i]);
    }
    CU_ASSERT_EQUAL(lci_timer_wheel_count(w), 0u);
    free(w);
}

static void timer_wheel_does_not_fire_before_expiry(void)
{
    lci_timer_wheel_t *w = wheel_new(4, 8, 100);
    recorder_t r;

    recorder_init(&r, w);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 3, 1234), LCI_OK);
    /* Same tick as the expiry, but earlier within it. */
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 1200, record, &r), 0u);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 1233, record, &r), 0u);
    CU_ASSERT_TRUE(lci_timer_wheel_is_running(w, 3));
    CU_ASSERT_EQUAL(lci_timer_wheel_expiry(w, 3), 1234u);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 1234, record, &r), 1u);
    CU_ASSERT_EQUAL(r.n, 1u);
    CU_ASSERT_EQUAL(r.ids[0], 3u);
    free(w);
}

static void timer_wheel_fires_each_timer_exactly_once(void)
{
    lci_timer_wheel_t *w = wheel_new(32, 8, 10);
    recorder_t r;
    unsigned times[32];

    recorder_init(&r, w);
    for (unsigned id = 0; id < 32; id++) {
        CU_ASSERT_EQUAL(lci_timer_wheel_start(w, id, 5 + 37 * id), LCI_OK);
    }
    for (uint64_t now = 0; now < 3000; now += 7) {
        lci_timer_wheel_advance(w, now, record, &r);
    }
    memset(times, 0, sizeof(times));
    for (unsigned i = 0; i < r.n; i++) {
        times[r.ids[i]]++;
    }
    CU_ASSERT_EQUAL(r.n, 32u);
    for (unsigned id = 0; id < 32; id++) {
        CU_ASSERT_EQUAL(times[id], 1u);
        /* Fired in id order, which here is expiry order. */
        CU_ASSERT_EQUAL(r.ids[id], id);
    }
    CU_ASSERT_EQUAL(lci_timer_wheel_next_expiry(w), UINT64_MAX);
    free(w);
}

static void timer_wheel_cancel_prevents_firing(void)
{
    lci_timer_wheel_t *w = wheel_new(4, 4, 10);
    recorder_t r;

    recorder_init(&r, w);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 0, 50), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 1, 50), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 2, 60), LCI_OK);
    CU_ASSERT_TRUE(lci_timer_wheel_cancel(w, 1));
    CU_ASSERT_FALSE(lci_timer_wheel_cancel(w, 1));
    CU_ASSERT_FALSE(lci_timer_wheel_cancel(w, 3));
    CU_ASSERT_FALSE(lci_timer_wheel_is_running(w, 1));
    CU_ASSERT_EQUAL(lci_timer_wheel_count(w), 2u);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 100, record, &r), 2u);
    CU_ASSERT_EQUAL_FATAL(r.n, 2u);
    CU_ASSERT_EQUAL(r.ids[0], 0u);
    CU_ASSERT_EQUAL(r.ids[1], 2u);
    free(w);
}

static void timer_wheel_restart_replaces_the_expiry(void)
{
    lci_timer_wheel_t *w = wheel_new(4, 4, 10);
    recorder_t r;

    recorder_init(&r, w);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 2, 100), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 2, 500), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_count(w), 1u);
    CU_ASSERT_EQUAL(lci_timer_wheel_next_expiry(w), 500u);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 499, record, &r), 0u);
    /* Earlier again, the usual retransmission-timer pattern in reverse. */
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 2, 520), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 2, 510), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 509, record, &r), 0u);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 600, record, &r), 1u);
    CU_ASSERT_EQUAL(r.n, 1u);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 10000, record, &r), 0u);
    CU_ASSERT_EQUAL(r.n, 1u);
    free(w);
}

static void timer_wheel_long_expiry_fires_after_many_rotations(void)
{
    /* 8 slots of 100 ns: one rotation is 800 ns; the timer is 125
     * rotations away and its slot comes round 124 times before. */
    lci_timer_wheel_t *w = wheel_new(2, 8, 100);
    recorder_t r;

    recorder_init(&r, w);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 1, 100050), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 0, 150), LCI_OK);
    for (uint64_t now = 0; now < 100050; now += 50) {
        lci_timer_wheel_advance(w, now, record, &r);
        CU_ASSERT_EQUAL_FATAL(r.n, now >= 150 ? 1u : 0u);
    }
    CU_ASSERT_TRUE(lci_timer_wheel_is_running(w, 1));
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 100050, record, &r), 1u);
    CU_ASSERT_EQUAL_FATAL(r.n, 2u);
    CU_ASSERT_EQUAL(r.ids[1], 1u);
    free(w);
}

static void timer_wheel_large_jump_fires_everything_in_order(void)
{
    lci_timer_wheel_t *w = wheel_new(64, 16, 1000);
    recorder_t r;

    recorder_init(&r, w);
    /* Expiries scattered over ~1000 rotations, ids not in expiry order. */
    for (unsigned id = 0; id < 64; id++) {
        uint64_t e = (uint64_t)((id * 37u) % 64u) * 250000u + id;

        CU_ASSERT_EQUAL(lci_timer_wheel_start(w, id, e), LCI_OK);
    }
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, UINT64_C(100000000), record, &r),
                    64u);
    CU_ASSERT_EQUAL_FATAL(r.n, 64u);
    for (unsigned i = 1; i < 64; i++) {
        uint64_t a = (uint64_t)((r.ids[i - 1] * 37u) % 64u);
        uint64_t b = (uint64_t)((r.ids[i] * 37u) % 64u);

        CU_ASSERT_TRUE(a < b);
    }
    free(w);
}

static void timer_wheel_next_expiry_reports_the_earliest_timer(void)
{
    lci_timer_wheel_t *w = wheel_new(8, 4, 100);

    CU_ASSERT_EQUAL(lci_timer_wheel_next_expiry(w), UINT64_MAX);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 0, 90000), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_next_expiry(w), 90000u);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 5, 777), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_next_expiry(w), 777u);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 6, 778), LCI_OK);
    CU_ASSERT_TRUE(lci_timer_wheel_cancel(w, 5));
    CU_ASSERT_EQUAL(lci_timer_wheel_next_expiry(w), 778u);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 1000, NULL, NULL), 1u);
    CU_ASSERT_EQUAL(lci_timer_wheel_next_expiry(w), 90000u);
    /* Already past: reported as is, fires at the next advance. */
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 7, 10), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_next_expiry(w), 10u);
    CU_ASSERT_TRUE(lci_timer_wheel_cancel(w, 0));
    CU_ASSERT_TRUE(lci_timer_wheel_cancel(w, 7));
    CU_ASSERT_EQUAL(lci_timer_wheel_next_expiry(w), UINT64_MAX);
    free(w);
}

/* The remembered earliest expiry stays right through any mix of starts,
 * re-arms, cancels and advances: checked against the minimum over all
 * timers after every step. */
static void timer_wheel_next_expiry_matches_the_minimum_at_every_step(void)
{
    enum { NT = 24 };
    lci_timer_wheel_t *w = wheel_new(NT, 8, 50);
    uint64_t seed = 12345, now = 0;

    for (int step = 0; step < 20000; step++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        unsigned id = (unsigned)(seed >> 33) % NT;
        unsigned op = (unsigned)(seed >> 20) % 4;

        if (op < 2) {
            uint64_t at = now + (seed >> 40) % 3000;
            CU_ASSERT_EQUAL_FATAL(lci_timer_wheel_start(w, id, at), LCI_OK);
        } else if (op == 2) {
            lci_timer_wheel_cancel(w, id);
        } else {
            now += (seed >> 45) % 400;
            lci_timer_wheel_advance(w, now, NULL, NULL);
        }
        uint64_t min = UINT64_MAX;
        for (unsigned t = 0; t < NT; t++) {
            uint64_t e = lci_timer_wheel_expiry(w, t);
            min = e < min ? e : min;
        }
        CU_ASSERT_EQUAL_FATAL(lci_timer_wheel_next_expiry(w), min);
    }
    free(w);
}

static void timer_wheel_past_expiry_fires_first_at_next_advance(void)
{
    lci_timer_wheel_t *w = wheel_new(8, 4, 100);
    recorder_t r;

    recorder_init(&r, w);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 5000, record, &r), 0u);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 1, 5001), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 2, 4000), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 3, 0), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 5001, record, &r), 3u);
    CU_ASSERT_EQUAL_FATAL(r.n, 3u);
    CU_ASSERT_EQUAL(r.ids[0], 3u);
    CU_ASSERT_EQUAL(r.ids[1], 2u);
    CU_ASSERT_EQUAL(r.ids[2], 1u);
    free(w);
}

/* Records, then re-arms the fired timer at period + rearm_offset. */
static void rearm(void *arg, unsigned id)
{
    recorder_t *r = arg;

    record(arg, id);
    if (r->rearm_left > 0) {
        r->rearm_left--;
        r->period = (uint64_t)((int64_t)r->period + r->rearm_offset);
        CU_ASSERT_EQUAL(lci_timer_wheel_start(r->wheel, id, r->period), LCI_OK);
    }
}

static void timer_wheel_callback_rearm_fires_again_in_same_advance_if_due(void)
{
    lci_timer_wheel_t *w = wheel_new(2, 4, 100);
    recorder_t r;

    recorder_init(&r, w);
    /* A periodic 100 ns timer from t=100: advancing to 1000 fires it at
     * 100, 200, ..., 1000. */
    r.period = 100;
    r.rearm_offset = 100;
    r.rearm_left = 1000;
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 1, 100), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 1000, rearm, &r), 10u);
    CU_ASSERT_EQUAL(r.n, 10u);
    CU_ASSERT_EQUAL(lci_timer_wheel_expiry(w, 1), 1100u);
    free(w);
}

static void timer_wheel_callback_rearm_in_the_past_waits_for_next_advance(void)
{
    lci_timer_wheel_t *w = wheel_new(2, 4, 100);
    recorder_t r;

    recorder_init(&r, w);
    /* Re-armed at its own expiry: it would loop forever if it fired again
     * in the same call. */
    r.period = 300;
    r.rearm_offset = 0;
    r.rearm_left = 1000;
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 0, 300), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 400, rearm, &r), 1u);
    CU_ASSERT_TRUE(lci_timer_wheel_is_running(w, 0));
    CU_ASSERT_EQUAL(lci_timer_wheel_next_expiry(w), 300u);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 400, rearm, &r), 1u);
    CU_ASSERT_EQUAL(r.n, 2u);
    /* Re-armed earlier still, then no more re-arming. */
    r.rearm_offset = -50;
    r.rearm_left = 1;
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 500, rearm, &r), 1u);
    CU_ASSERT_EQUAL(lci_timer_wheel_expiry(w, 0), 250u);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 500, rearm, &r), 1u);
    CU_ASSERT_EQUAL(lci_timer_wheel_count(w), 0u);
    CU_ASSERT_EQUAL(r.n, 4u);
    free(w);
}

static unsigned nested_result;

static void nested(void *arg, unsigned id)
{
    lci_timer_wheel_t *w = arg;

    nested_result = lci_timer_wheel_advance(w, UINT64_MAX, NULL, NULL);
}

static void timer_wheel_nested_advance_does_nothing(void)
{
    lci_timer_wheel_t *w = wheel_new(2, 4, 100);

    nested_result = 99;
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 0, 10), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 1, 1000), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 10, nested, w), 1u);
    CU_ASSERT_EQUAL(nested_result, 0u);
    CU_ASSERT_TRUE(lci_timer_wheel_is_running(w, 1));
    free(w);
}

static void timer_wheel_time_going_backwards_fires_nothing_new(void)
{
    lci_timer_wheel_t *w = wheel_new(2, 4, 100);

    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 10000, NULL, NULL), 0u);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 0, 9000), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_start(w, 1, 10050), LCI_OK);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 500, NULL, NULL), 0u);
    CU_ASSERT_EQUAL(lci_timer_wheel_count(w), 2u);
    CU_ASSERT_EQUAL(lci_timer_wheel_advance(w, 10050, NULL, NULL), 2u);
    free(w);
}

/* ---- randomised comparison with a reference model ----------------------- */

#define MODEL_MAX 256

typedef struct {
    uint64_t rng;
    lci_timer_wheel_t *wheel;
    unsigned ntimers;
    bool running[MODEL_MAX];
    uint64_t expiry[MODEL_MAX];
    uint64_t now;
    /* the advance in progress */
    bool has_last;
    uint64_t last_expiry;
    unsigned last_id;
    unsigned fired;
    bool mismatch;
} model_t;

static uint64_t model_rand(model_t *m)
{
    /* xorshift64*: deterministic across platforms */
    m->rng ^= m->rng >> 12;
    m->rng ^= m->rng << 25;
    m->rng ^= m->rng >> 27;
    return m->rng * UINT64_C(2685821657736338717);
}

static bool key_before(uint64_t ea, unsigned ia, uint64_t eb, unsigned ib)
{
    return ea < eb || (ea == eb && ia < ib);
}

/* The timer the reference says fires next, or -1. */
static int model_next(const model_t *m)
{
    int best = -1;

    for (unsigned id = 0; id < m->ntimers; id++) {
        if (!m->running[id] || m->expiry[id] > m->now) {
            continue;
        }
        if (m->has_last &&
            !key_before(m->last_expiry, m->last_id, m->expiry[id], id)) {
            continue;
        }
        if (best < 0 ||
            key_before(m->expiry[id], id, m->expiry[best], (unsigned)best)) {
            best = (int)id;
        }
    }
    return best;
}

static uint64_t model_random_expiry(model_t *m, uint64_t base)
{
    switch (model_rand(m) % 8) {
    case 0: /* in the past */
    {
        uint64_t back = model_rand(m) % 5000;

        return base > back ? base - back : 0;
    }
    case 1: /* many rotations away */
        return base + model_rand(m) % 2000000;
    case 2: /* exactly now */
        return base;
    default: /* soon */
        return base + model_rand(m) % 3000;
    }
}

static void model_start(model_t *m, unsigned id, uint64_t expiry)
{
    m->running[id] = true;
    m->expiry[id] = expiry;
    CU_ASSERT_EQUAL(lci_timer_wheel_start(m->wheel, id, expiry), LCI_OK);
}

static void model_cancel(model_t *m, unsigned id)
{
    bool was = m->running[id];

    m->running[id] = false;
    if (lci_timer_wheel_cancel(m->wheel, id) != was) {
        m->mismatch = true;
    }
}

static void model_fire(void *arg, unsigned id)
{
    model_t *m = arg;
    int want = model_next(m);

    if (want != (int)id) {
        m->mismatch = true;
        return;
    }
    m->running[id] = false;
    m->has_last = true;
    m->last_expiry = m->expiry[id];
    m->last_id = id;
    m->fired++;

    /* What a protocol does from a timer callback. */
    uint64_t action = model_rand(m) % 8;
    unsigned other = (unsigned)(model_rand(m) % m->ntimers);

    if (action == 0) {
        model_start(m, id, m->last_expiry + model_rand(m) % 400);
    } else if (action == 1) {
        model_start(m, id, model_random_expiry(m, m->last_expiry));
    } else if (action == 2) {
        model_start(m, other, model_random_expiry(m, m->last_expiry));
    } else if (action == 3) {
        model_cancel(m, other);
    }
}

static void model_check_state(model_t *m)
{
    uint64_t min = UINT64_MAX;
    unsigned count = 0;

    for (unsigned id = 0; id < m->ntimers; id++) {
        if (lci_timer_wheel_is_running(m->wheel, id) != m->running[id]) {
            m->mismatch = true;
        }
        if (m->running[id]) {
            count++;
            if (lci_timer_wheel_expiry(m->wheel, id) != m->expiry[id]) {
                m->mismatch = true;
            }
            if (m->expiry[id] < min) {
                min = m->expiry[id];
            }
        }
    }
    if (lci_timer_wheel_count(m->wheel) != count ||
        lci_timer_wheel_next_expiry(m->wheel) != min) {
        m->mismatch = true;
    }
}

static void run_model(unsigned ntimers, unsigned nslots, uint64_t tick_ns,
                      uint64_t seed, unsigned steps)
{
    static model_t m;
    size_t bytes = lci_timer_wheel_size(ntimers, nslots);
    lci_timer_wheel_t *spare = malloc(bytes);

    CU_ASSERT_PTR_NOT_NULL_FATAL(spare);
    memset(&m, 0, sizeof(m));
    m.rng = seed;
    m.ntimers = ntimers;
    m.wheel = wheel_new(ntimers, nslots, tick_ns);
    m.now = 0;
    for (unsigned step = 0; step < steps && !m.mismatch; step++) {
        uint64_t op = model_rand(&m) % 16;
        unsigned id = (unsigned)(model_rand(&m) % ntimers);

        if (op < 7) {
            model_start(&m, id, model_random_expiry(&m, m.now));
        } else if (op < 9) {
            model_cancel(&m, id);
        } else if (op == 9) {
            /* The wheel holds no pointers: it keeps working after a move
             * (as in a shared segment mapped at another address). */
            memcpy(spare, m.wheel, bytes);
            memset(m.wheel, 0x5A, bytes);
            lci_timer_wheel_t *t = m.wheel;

            m.wheel = spare;
            spare = t;
        } else {
            uint64_t r = model_rand(&m) % 16;
            uint64_t delta = r < 12   ? model_rand(&m) % 600
                             : r < 15 ? model_rand(&m) % 20000
                                      : model_rand(&m) % 3000000;

            m.now += delta;
            m.has_last = false;
            m.fired = 0;
            unsigned n =
                lci_timer_wheel_advance(m.wheel, m.now, model_fire, &m);

            /* Everything due has fired, except what callbacks re-armed
             * at or before the last timer fired. */
            if (n != m.fired || model_next(&m) >= 0) {
                m.mismatch = true;
            }
            m.has_last = false;
        }
        model_check_state(&m);
        if (m.mismatch) {
            fprintf(stderr,
                    "\nmodel mismatch: timers %u slots %u tick %llu "
                    "seed %llu step %u\n",
                    ntimers, nslots, (unsigned long long)tick_ns,
                    (unsigned long long)seed, step);
        }
    }
    CU_ASSERT_FALSE(m.mismatch);
    free(m.wheel);
    free(spare);
}

static void timer_wheel_matches_reference_model_under_random_operations(void)
{
    run_model(1, 1, 1, 1, 20000);
    run_model(16, 8, 100, 2, 40000);
    run_model(33, 7, 3, 3, 40000);
    run_model(64, 64, 500, 4, 40000);
    run_model(200, 256, 1000, 5, 40000);
    run_model(256, 16, 50, 6, 40000);
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"timer_wheel_init_rejects_bad_arguments",
         timer_wheel_init_rejects_bad_arguments},
        {"timer_wheel_size_matches_constant_macro",
         timer_wheel_size_matches_constant_macro},
        {"timer_wheel_start_rejects_bad_id", timer_wheel_start_rejects_bad_id},
        {"timer_wheel_fires_in_expiry_then_id_order",
         timer_wheel_fires_in_expiry_then_id_order},
        {"timer_wheel_does_not_fire_before_expiry",
         timer_wheel_does_not_fire_before_expiry},
        {"timer_wheel_fires_each_timer_exactly_once",
         timer_wheel_fires_each_timer_exactly_once},
        {"timer_wheel_cancel_prevents_firing",
         timer_wheel_cancel_prevents_firing},
        {"timer_wheel_restart_replaces_the_expiry",
         timer_wheel_restart_replaces_the_expiry},
        {"timer_wheel_long_expiry_fires_after_many_rotations",
         timer_wheel_long_expiry_fires_after_many_rotations},
        {"timer_wheel_large_jump_fires_everything_in_order",
         timer_wheel_large_jump_fires_everything_in_order},
        {"timer_wheel_next_expiry_reports_the_earliest_timer",
         timer_wheel_next_expiry_reports_the_earliest_timer},
        {"timer_wheel_next_expiry_matches_the_minimum_at_every_step",
         timer_wheel_next_expiry_matches_the_minimum_at_every_step},
        {"timer_wheel_past_expiry_fires_first_at_next_advance",
         timer_wheel_past_expiry_fires_first_at_next_advance},
        {"timer_wheel_callback_rearm_fires_again_in_same_advance_if_due",
         timer_wheel_callback_rearm_fires_again_in_same_advance_if_due},
        {"timer_wheel_callback_rearm_in_the_past_waits_for_next_advance",
         timer_wheel_callback_rearm_in_the_past_waits_for_next_advance},
        {"timer_wheel_nested_advance_does_nothing",
         timer_wheel_nested_advance_does_nothing},
        {"timer_wheel_time_going_backwards_fires_nothing_new",
         timer_wheel_time_going_backwards_fires_nothing_new},
        {"timer_wheel_matches_reference_model_under_random_operations",
         timer_wheel_matches_reference_model_under_random_operations},
    };

    return lci_unit_run("timer_wheel", tests, LCI_UNIT_COUNT(tests));
}
