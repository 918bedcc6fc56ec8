/* lci_event_heap.c - the event queue of every platform (see
 * lci_event_heap.h). */
#include "lci_event_heap.h"

static int ev_before(const lci_event_t *a, const lci_event_t *b)
{
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

void lci_event_heap_push(lci_event_t *heap, uint64_t *count_p,
                         const lci_event_t *ev)
{
    uint64_t i = (*count_p)++;
    while (i > 0) {
        uint64_t parent = (i - 1) / 2;
        if (!ev_before(ev, &heap[parent])) {
            break;
        }
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = *ev;
}

lci_event_t lci_event_heap_pop(lci_event_t *heap, uint64_t *count_p)
{
    lci_event_t top = heap[0];
    lci_event_t last = heap[--*count_p];
    uint64_t n = *count_p, i = 0;
    for (;;) {
        uint64_t c = 2 * i + 1;
        if (c >= n) {
            break;
        }
        if (c + 1 < n && ev_before(&heap[c + 1], &heap[c])) {
            c++;
        }
        if (!ev_before(&heap[c], &last)) {
            break;
        }
        heap[i] = heap[c];
        i = c;
    }
    if (n > 0) {
        heap[i] = last;
    }
    return top;
}
