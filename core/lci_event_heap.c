/* lci_event_heap.c - the event queue of every platform (see
 * lci_event_heap.h).
 *
 * Four children a node, not two: half the levels for a pop, whose cost is
 * mostly waiting for memory, and a node's children share two cache lines.
 * (time, seq) orders events totally, so any correct heap pops the same
 * sequence and traces do not depend on the arity. */
#include "lci_event_heap.h"
#include "lci_pair_order.h"

#define LCI_EVENT_HEAP_ARITY 4

/* 1 if a comes before b, else 0, without a branch (ev_min2 uses it to
 * choose a child by arithmetic). */
static inline uint64_t ev_before(const lci_event_t *a, const lci_event_t *b)
{
    return lci_pair_before(a->time, a->seq, b->time, b->seq);
}

void lci_event_heap_push(lci_event_t *heap, uint64_t *count_p,
                         const lci_event_t *ev)
{
    uint64_t i = (*count_p)++;
    while (i > 0) {
        uint64_t parent = (i - 1) / LCI_EVENT_HEAP_ARITY;
        if (!ev_before(ev, &heap[parent])) {
            break;
        }
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = *ev;
}

/* The smaller of children x and y, chosen arithmetically. */
static inline uint64_t ev_min2(const lci_event_t *heap, uint64_t x, uint64_t y)
{
    uint64_t take_y = ev_before(&heap[y], &heap[x]);
    return x ^ ((x ^ y) & (0 - take_y));
}

/* Floyd's pop: the hole left at the top goes down to a leaf along the
 * earlier child, without comparing with the last event at every level;
 * the last event then fills it, sifted up (it came from the bottom, so
 * it rarely goes far).  Fewer comparisons, and the load of the last event
 * is off the path of the descent. */
lci_event_t lci_event_heap_pop(lci_event_t *heap, uint64_t *count_p)
{
    lci_event_t top = heap[0];
    uint64_t n = --*count_p, i = 0;
    if (n == 0) {
        return top;
    }
    for (;;) {
        uint64_t first = LCI_EVENT_HEAP_ARITY * i + 1;
        uint64_t c;
        if (first + LCI_EVENT_HEAP_ARITY <= n) {
            /* A full node: a tournament of two pairs. */
            uint64_t a = ev_min2(heap, first, first + 1);
            uint64_t b = ev_min2(heap, first + 2, first + 3);
            c = ev_min2(heap, a, b);
        } else {
            if (first >= n) {
                break;
            }
            c = first;
            for (uint64_t k = first + 1; k < n; k++) {
                c = ev_min2(heap, c, k);
            }
        }
        heap[i] = heap[c];
        i = c;
    }
    lci_event_t last = heap[n];
    while (i > 0) {
        uint64_t parent = (i - 1) / LCI_EVENT_HEAP_ARITY;
        if (!ev_before(&last, &heap[parent])) {
            break;
        }
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = last;
    return top;
}
