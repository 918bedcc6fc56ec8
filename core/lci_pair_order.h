/*
 * lci_pair_order.h - the order of (major, minor) pairs, the keys of both
 * heaps of the simulator: the event queue's (time, seq) and the runnable
 * hosts' (clock, rank).
 *
 * The pair is compared as one unsigned 128-bit number, major high: two
 * instructions and no branch, where the three-way test took about ten
 * and a branch the processor mispredicts at every level of a heap.
 */
#ifndef LCI_PAIR_ORDER_H
#define LCI_PAIR_ORDER_H

#include <stdint.h>

/* 1 if (a_major, a_minor) comes before (b_major, b_minor), else 0. */
static inline unsigned lci_pair_before(uint64_t a_major, uint64_t a_minor,
                                       uint64_t b_major, uint64_t b_minor)
{
    __extension__ typedef unsigned __int128 pair_key_t;
    pair_key_t a = (pair_key_t)a_major << 64 | a_minor;
    pair_key_t b = (pair_key_t)b_major << 64 | b_minor;
    return a < b;
}

#endif
