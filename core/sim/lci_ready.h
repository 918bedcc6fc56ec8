/*
 * lci_ready.h - the runnable (READY) hosts of a simulated run, ordered by
 * (clock, rank) in a binary heap in the shared segment.
 *
 * The scheduler asks, at every turn decision, which other runnable host
 * has the smallest clock.  A scan costs a pass over every host (a 4 KiB
 * walk at 64 nodes, 64 KiB at 1,024); the heap answers in constant time
 * and changes in O(log n) when a host's status changes or it passes the
 * turn.  Only the host holding the turn moves its own clock, and clocks
 * only grow, so a holder's stale key never hides a smaller one: the heap
 * is brought up to date when the turn passes.  Ties go to the lower rank,
 * as the scan's did, so traces stay the same.
 */
#ifndef LCI_READY_H
#define LCI_READY_H

#include <stdint.h>

/* Every host runnable at clock 0 (lci_world_init). */
void lci_ready_init(void);

/* A host becomes runnable, or stops being runnable. */
void lci_ready_insert(uint32_t node);
void lci_ready_remove(uint32_t node);

/* A runnable host's clock has grown. */
void lci_ready_moved(uint32_t node);

/* The smallest (clock, rank) among runnable hosts other than self: its
 * rank in *who_p (-1 if none) and its clock (UINT64_MAX if none). */
uint64_t lci_ready_min_other(uint32_t self, int *who_p);

#endif
