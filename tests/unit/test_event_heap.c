/* test_event_heap.c - the event queue (core/lci_event_heap.c): events come
 * out in (time, seq) order whatever the order they went in, ties in time
 * by seq, through every shape of a node's last children. */
#include "config.h"

#include <stdlib.h>

#include "lci_event_heap.h"
#include "unit_run.h"

enum { MAXN = 4096 };

static lci_event_t heap[MAXN];

/* A small deterministic generator: the test must not depend on libc's. */
static uint64_t rng_state;

static uint64_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return rng_state >> 33;
}

static int by_time_seq(const void *pa, const void *pb)
{
    const lci_event_t *a = pa, *b = pb;
    if (a->time != b->time) {
        return a->time < b->time ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Pushes n events with times drawn from [0, span) (small spans make many
 * ties), pops them all and checks the order against a sorted copy. */
static void pops_in_sorted_order(uint64_t n, uint64_t span)
{
    static lci_event_t ref[MAXN];
    uint64_t count = 0;
    for (uint64_t i = 0; i < n; i++) {
        lci_event_t ev = {.time = rng() % span, .seq = i, .a = (uint32_t)i};
        ref[i] = ev;
        lci_event_heap_push(heap, &count, &ev);
    }
    CU_ASSERT_EQUAL_FATAL(count, n);
    qsort(ref, n, sizeof ref[0], by_time_seq);
    for (uint64_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL_FATAL(lci_event_heap_next_time(heap, count),
                              ref[i].time);
        lci_event_t ev = lci_event_heap_pop(heap, &count);
        CU_ASSERT_EQUAL_FATAL(ev.time, ref[i].time);
        CU_ASSERT_EQUAL_FATAL(ev.seq, ref[i].seq);
        CU_ASSERT_EQUAL_FATAL(ev.a, ref[i].a);
    }
    CU_ASSERT_EQUAL(count, 0);
    CU_ASSERT_EQUAL(lci_event_heap_next_time(heap, count), LCI_TIME_INF);
}

static void every_size_up_to_a_few_levels_pops_in_order(void)
{
    rng_state = 1;
    /* Every count of children the last node can have, at several depths. */
    for (uint64_t n = 1; n <= 100; n++) {
        pops_in_sorted_order(n, 1000000);
    }
    pops_in_sorted_order(MAXN, 1000000);
}

static void equal_times_pop_in_posting_order(void)
{
    rng_state = 2;
    for (uint64_t n = 1; n <= 64; n++) {
        pops_in_sorted_order(n, 1); /* all at the same time */
        pops_in_sorted_order(n, 3); /* a few distinct times */
    }
    pops_in_sorted_order(MAXN, 7);
}

/* As the simulator uses it: pops and pushes interleaved, each push no
 * earlier than the event just popped. */
static void interleaved_pushes_and_pops_stay_in_order(void)
{
    rng_state = 3;
    uint64_t count = 0, seq = 0;
    for (int i = 0; i < 600; i++) {
        lci_event_t ev = {.time = rng() % 5000, .seq = seq++};
        lci_event_heap_push(heap, &count, &ev);
    }
    lci_event_t prev = {0};
    for (int step = 0; step < 200000; step++) {
        lci_event_t ev = lci_event_heap_pop(heap, &count);
        CU_ASSERT_FATAL(ev.time > prev.time ||
                        (ev.time == prev.time && ev.seq > prev.seq) ||
                        step == 0);
        prev = ev;
        /* Zero to two new events: the queue grows and shrinks. */
        uint64_t k = rng() % 3;
        for (uint64_t j = 0; j < k && count < MAXN; j++) {
            lci_event_t next = {.time = ev.time + rng() % 4000, .seq = seq++};
            lci_event_heap_push(heap, &count, &next);
        }
        if (count == 0) {
            lci_event_t next = {.time = ev.time, .seq = seq++};
            lci_event_heap_push(heap, &count, &next);
        }
    }
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"every_size_up_to_a_few_levels_pops_in_order",
         every_size_up_to_a_few_levels_pops_in_order},
        {"equal_times_pop_in_posting_order", equal_times_pop_in_posting_order},
        {"interleaved_pushes_and_pops_stay_in_order",
         interleaved_pushes_and_pops_stay_in_order},
    };
    return lci_unit_run("event_heap", tests, LCI_UNIT_COUNT(tests));
}
