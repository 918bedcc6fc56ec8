/*
 * lci_ready.c - the runnable hosts as a heap ordered by (clock, rank) (see
 * lci_ready.h).  The heap and each host's position in it live in the
 * shared segment: under the processes engine any node process may update
 * them while it holds the turn.
 */
#include "lci_ready.h"
#include "lci_pair_order.h"
#include "lci_world.h"

#define NOT_READY UINT32_MAX

/* A heap entry keeps the clock it was ordered by: the holder's own clock
 * runs ahead of its entry until the turn passes. */
typedef struct {
    uint64_t clock;
    uint32_t node;
    uint32_t reserved;
} entry_t;

static entry_t *heap(void)
{
    return (entry_t *)(lci_world.base + lci_seg()->off_ready);
}

static uint32_t *pos(void)
{
    return (uint32_t *)(heap() + lci_seg()->cfg.nnodes);
}

/* 1 if a comes before b, else 0, without a branch (sift_down adds it to
 * a child's index). */
static uint32_t before(const entry_t *a, const entry_t *b)
{
    return lci_pair_before(a->clock, a->node, b->clock, b->node);
}

/* Puts e at position i of heap h, positions p. */
static void put(entry_t *h, uint32_t *p, uint32_t i, entry_t e)
{
    h[i] = e;
    p[e.node] = i;
}

static void place(uint32_t i, entry_t e)
{
    put(heap(), pos(), i, e);
}

/* The sifts keep the heap's and the positions' addresses in locals: a
 * store through them could alias the segment's offsets, so place() would
 * read those again at every level. */
static void sift_up(uint32_t i)
{
    entry_t *h = heap(), e = h[i];
    uint32_t *p = pos();
    while (i > 0) {
        uint32_t parent = (i - 1) / 2;
        if (!before(&e, &h[parent])) {
            break;
        }
        h[i] = h[parent];
        p[h[i].node] = i;
        i = parent;
    }
    put(h, p, i, e);
}

static void sift_down(uint32_t i)
{
    entry_t *h = heap(), e = h[i];
    uint32_t *p = pos();
    uint32_t n = lci_seg()->ready_count;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) {
            break;
        }
        /* Which child is earlier differs every time: chosen by
         * arithmetic, not by a branch the processor would mispredict. */
        if (c + 1 < n) {
            c += before(&h[c + 1], &h[c]);
        }
        if (!before(&h[c], &e)) {
            break;
        }
        h[i] = h[c];
        p[h[i].node] = i;
        i = c;
    }
    put(h, p, i, e);
}

static entry_t entry_of(uint32_t node)
{
    return (entry_t){.clock = lci_world_host(node)->clock, .node = node};
}

void lci_ready_init(void)
{
    lci_seg_t *s = lci_seg();
    for (uint32_t k = 0; k < s->cfg.nnodes; k++) {
        place(k, entry_of(k)); /* equal clocks: rank order is a heap */
    }
    s->ready_count = s->cfg.nnodes;
    s->ready_version++;
    s->ready_memo_version = UINT64_MAX; /* no answer yet */
}

void lci_ready_insert(uint32_t node)
{
    if (pos()[node] != NOT_READY) {
        return;
    }
    uint32_t i = lci_seg()->ready_count++;
    lci_seg()->ready_version++;
    place(i, entry_of(node));
    sift_up(i);
}

void lci_ready_remove(uint32_t node)
{
    uint32_t i = pos()[node];
    if (i == NOT_READY) {
        return;
    }
    pos()[node] = NOT_READY;
    lci_seg()->ready_version++;
    entry_t last = heap()[--lci_seg()->ready_count];
    if (last.node == node) {
        return;
    }
    place(i, last);
    sift_down(i);
    sift_up(pos()[last.node]);
}

void lci_ready_moved(uint32_t node)
{
    uint32_t i = pos()[node];
    if (i != NOT_READY) {
        lci_seg()->ready_version++;
        heap()[i].clock = lci_world_host(node)->clock; /* clocks only grow */
        sift_down(i);
    }
}

uint64_t lci_ready_min_other(uint32_t self, int *who_p)
{
    lci_seg_t *s = lci_seg();
    /* The scheduler asks again after every event, and events rarely make
     * a host runnable: the last answer for self holds until the heap
     * changes. */
    if (s->ready_memo_version == s->ready_version &&
        s->ready_memo_self == self) {
        *who_p = s->ready_memo_who;
        return s->ready_memo_min;
    }
    uint32_t n = s->ready_count;
    const entry_t *h = heap(), *best = NULL;
    if (n > 0 && h[0].node != self) {
        best = &h[0];
    } else {
        /* self is at the top: the smallest of the others heads one of the
         * two subtrees below it. */
        for (uint32_t c = 1; c <= 2 && c < n; c++) {
            if (best == NULL || before(&h[c], best)) {
                best = &h[c];
            }
        }
    }
    *who_p = best != NULL ? (int)best->node : -1;
    s->ready_memo_version = s->ready_version;
    s->ready_memo_self = self;
    s->ready_memo_who = *who_p;
    s->ready_memo_min = best != NULL ? best->clock : UINT64_MAX;
    return s->ready_memo_min;
}
