/*
 * lci_ring_index.h - positions in rings of any size without a division.
 *
 * The fast paths take several ring positions per packet (command ring,
 * arrival queue, DMA queue, buffer fifos, the host's receive ring), and a
 * division by a size known only at run time costs tens of cycles where a
 * mask or a compare costs one.  Every default size is a power of two; other
 * sizes still work, with the division.
 */
#ifndef LCI_RING_INDEX_H
#define LCI_RING_INDEX_H

#include <stdint.h>

/* The position of the free-running index idx in a ring of cap entries. */
static inline uint64_t lci_ring_pos(uint64_t idx, uint64_t cap)
{
    return (cap & (cap - 1)) == 0 ? idx & (cap - 1) : idx % cap;
}

/* pos + n in a ring of cap entries, for pos < cap and n <= cap. */
static inline uint32_t lci_ring_add(uint32_t pos, uint32_t n, uint32_t cap)
{
    uint32_t t = pos + n;
    return t >= cap ? t - cap : t;
}

#endif
