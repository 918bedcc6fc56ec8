/*
 * lci_event_heap.h - the event queue of every platform: a 4-ary min-heap
 * of events ordered by (time, seq) over an array the caller owns.
 *
 * The sim platform's heap lives in the shared segment (any node process
 * may run any event), the live platform's in each node process's memory;
 * both are this code.  The caller checks capacity before a push and that
 * the heap is not empty before a pop, and numbers its events (seq) in
 * posting order: ties at the same time then run in that order, which keeps
 * a simulation deterministic.
 */
#ifndef LCI_EVENT_HEAP_H
#define LCI_EVENT_HEAP_H

#include <stdint.h>

#include "lci_world.h"

/* Adds ev to heap[0 .. *count_p) (which has room for one more). */
void lci_event_heap_push(lci_event_t *heap, uint64_t *count_p,
                         const lci_event_t *ev);

/* Removes and returns the earliest event of heap[0 .. *count_p), which
 * holds at least one. */
lci_event_t lci_event_heap_pop(lci_event_t *heap, uint64_t *count_p);

/* The time of the earliest event, LCI_TIME_INF if there is none. */
static inline uint64_t lci_event_heap_next_time(const lci_event_t *heap,
                                                uint64_t count)
{
    return count ? heap[0].time : LCI_TIME_INF;
}

#endif
