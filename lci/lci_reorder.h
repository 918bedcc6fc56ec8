/*
 * lci_reorder.h - FIFO order restored on the host, per sending neighbour,
 * behind an rx that delivers out of order (LCI_RX_UNORDERED).
 *
 * The NI hands packets up as its rx accepts them; each carries the
 * sequence number of its hop (hop_src to this node).  A packet whose turn
 * has not come waits here with its host receive buffer; the one whose turn
 * it is goes on at once, and after it every waiting one it lets go.  The
 * rx accepts only numbers within its window of the next one it misses, so
 * at most window - 1 packets per neighbour ever wait.
 *
 * Plain memory, allocated once; no dependence on the rest of the library
 * (tests/unit/test_reorder.c uses it alone).
 */
#ifndef LCI_REORDER_H
#define LCI_REORDER_H

#include <stdint.h>

#include "lci_contract.h"

typedef struct lci_reorder lci_reorder_t;

typedef enum {
    /* Not part of a neighbour's order (a packet this node's NI returned):
     * process it now. */
    LCI_REORDER_PASS = 0,
    /* Its neighbour's next: process it now, then the waiting ones whose
     * turn has come (lci_reorder_next). */
    LCI_REORDER_NEXT = 1,
    /* Early: kept, with its buffer, until its turn. */
    LCI_REORDER_HELD = 2,
    /* A number already seen, beyond the window, or from no neighbour:
     * nothing a correct NI hands up; release it. */
    LCI_REORDER_DROP = 3,
} lci_reorder_verdict_t;

/* Order for nnodes neighbours and a window of window packets; NULL when
 * out of memory. */
lci_reorder_t *lci_reorder_new(uint32_t nnodes, uint32_t window);
void lci_reorder_free(lci_reorder_t *ro);

/* A packet taken from the receive ring, in host buffer hbuf. */
lci_reorder_verdict_t
lci_reorder_arrive(lci_reorder_t *ro, const lci_wire_hdr_t *hdr, uint32_t hbuf);

/* Whether the packet whose turn it is from neighbour hop is waiting: if
 * so, fills *hdr and *hbuf (it stays until lci_reorder_take). */
int lci_reorder_next(const lci_reorder_t *ro, uint32_t hop, lci_wire_hdr_t *hdr,
                     uint32_t *hbuf);
/* Takes the packet lci_reorder_next found: the turn passes to the next. */
void lci_reorder_take(lci_reorder_t *ro, uint32_t hop);

/* Packets waiting, from all neighbours. */
uint32_t lci_reorder_waiting(const lci_reorder_t *ro);

#endif
