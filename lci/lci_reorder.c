/*
 * lci_reorder.c - FIFO order restored on the host per sending neighbour
 * (see lci_reorder.h).
 *
 * Per neighbour: the next sequence number and a ring of window places for
 * the packets that came early, the place of number expected + d being
 * (base + d) mod window.  Offsets from expected, not numbers modulo the
 * window, so that the 16-bit wrap needs no window that divides 2^16.
 */
#include <stdlib.h>

#include "lci_reorder.h"
#include "lci_seq.h"

typedef struct {
    uint32_t hbuf;
    uint32_t used;
    lci_wire_hdr_t hdr;
} waiting_t;

typedef struct {
    lci_seq_t expected; /* the next number from this neighbour */
    uint32_t base;      /* the place of expected in its ring */
} neighbour_t;

struct lci_reorder {
    uint32_t nnodes, window, nwaiting;
    neighbour_t *nb;   /* [nnodes] */
    waiting_t *places; /* [nnodes][window] */
};

lci_reorder_t *lci_reorder_new(uint32_t nnodes, uint32_t window)
{
    if (window == 0) {
        window = 1;
    }
    lci_reorder_t *ro = calloc(1, sizeof *ro);
    if (ro == NULL) {
        return NULL;
    }
    ro->nnodes = nnodes;
    ro->window = window;
    ro->nb = calloc(nnodes, sizeof *ro->nb);
    ro->places = calloc((size_t)nnodes * window, sizeof *ro->places);
    if (ro->nb == NULL || ro->places == NULL) {
        lci_reorder_free(ro);
        return NULL;
    }
    return ro;
}

void lci_reorder_free(lci_reorder_t *ro)
{
    if (ro != NULL) {
        free(ro->nb);
        free(ro->places);
        free(ro);
    }
}

/* The place of number expected + d from neighbour hop (d < window). */
static waiting_t *place(const lci_reorder_t *ro, uint32_t hop, uint32_t d)
{
    const neighbour_t *nb = &ro->nb[hop];
    return &ro->places[(size_t)hop * ro->window + (nb->base + d) % ro->window];
}

static void pass_turn(lci_reorder_t *ro, uint32_t hop)
{
    neighbour_t *nb = &ro->nb[hop];
    nb->expected = lci_seq_add(nb->expected, 1);
    nb->base = (nb->base + 1) % ro->window;
}

lci_reorder_verdict_t
lci_reorder_arrive(lci_reorder_t *ro, const lci_wire_hdr_t *hdr, uint32_t hbuf)
{
    /* Only what came over the wire through the rx has a place in a
     * neighbour's order. */
    if (hdr->type == LCI_PKT_RETURNED || lci_pkt_is_control(hdr->type)) {
        return LCI_REORDER_PASS;
    }
    uint32_t hop = hdr->hop_src;
    if (hop >= ro->nnodes) {
        return LCI_REORDER_DROP;
    }
    int32_t d = lci_seq_diff(ro->nb[hop].expected, hdr->seq);
    if (d == 0) {
        pass_turn(ro, hop);
        return LCI_REORDER_NEXT;
    }
    if (d < 0 || (uint32_t)d >= ro->window) {
        return LCI_REORDER_DROP;
    }
    waiting_t *w = place(ro, hop, (uint32_t)d);
    if (w->used) {
        return LCI_REORDER_DROP;
    }
    w->used = 1;
    w->hbuf = hbuf;
    w->hdr = *hdr;
    ro->nwaiting++;
    return LCI_REORDER_HELD;
}

int lci_reorder_next(const lci_reorder_t *ro, uint32_t hop, lci_wire_hdr_t *hdr,
                     uint32_t *hbuf)
{
    if (hop >= ro->nnodes) {
        return 0;
    }
    const waiting_t *w = place(ro, hop, 0);
    if (!w->used) {
        return 0;
    }
    *hdr = w->hdr;
    *hbuf = w->hbuf;
    return 1;
}

void lci_reorder_take(lci_reorder_t *ro, uint32_t hop)
{
    if (hop >= ro->nnodes) {
        return;
    }
    waiting_t *w = place(ro, hop, 0);
    if (w->used) {
        w->used = 0;
        ro->nwaiting--;
        pass_turn(ro, hop);
    }
}

uint32_t lci_reorder_waiting(const lci_reorder_t *ro)
{
    return ro->nwaiting;
}
