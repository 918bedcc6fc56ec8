/* lci_seq.h - 16-bit sequence numbers with wrap-safe comparison (serial
 * number arithmetic, as VMMC-2 uses). Valid while the two numbers are less
 * than 2^15 apart. */
#ifndef LCI_SEQ_H
#define LCI_SEQ_H

#include <stdbool.h>
#include <stdint.h>

typedef uint16_t lci_seq_t;

/* Signed distance b - a, in [-2^15, 2^15). */
static inline int32_t lci_seq_diff(lci_seq_t a, lci_seq_t b)
{
    return (int16_t)(uint16_t)(b - a);
}

static inline bool lci_seq_lt(lci_seq_t a, lci_seq_t b)
{
    return lci_seq_diff(a, b) > 0;
}

static inline bool lci_seq_le(lci_seq_t a, lci_seq_t b)
{
    return lci_seq_diff(a, b) >= 0;
}

static inline lci_seq_t lci_seq_add(lci_seq_t a, uint32_t n)
{
    return (lci_seq_t)(a + n);
}

#endif
