/*
 * lci_slot_queue.h - packets a reliability policy keeps (queued behind a
 * window, or sent and awaiting their acknowledgement), as slots in an
 * array linked by index.  Indices, not pointers: a policy's state may be
 * copied to, or mapped at, another address.
 */
#ifndef LCI_SLOT_QUEUE_H
#define LCI_SLOT_QUEUE_H

#include <stdint.h>

#include "lci_contract.h"

#define LCI_SLOT_NIL UINT32_MAX

/* One kept packet. */
typedef struct {
    uint32_t next;      /* next slot in the same queue, or LCI_SLOT_NIL */
    uint32_t buf;       /* the buffer (the policy owns one reference) */
    lci_wire_hdr_t hdr; /* header as sent; seq valid once transmitted */
} lci_slot_t;

typedef struct {
    uint32_t head;
    uint32_t tail;
    uint32_t count;
} lci_slot_queue_t;

static inline void lci_slotq_init(lci_slot_queue_t *q)
{
    q->head = LCI_SLOT_NIL;
    q->tail = LCI_SLOT_NIL;
    q->count = 0;
}

static inline void lci_slotq_push(lci_slot_t *slots, lci_slot_queue_t *q,
                                  uint32_t s)
{
    slots[s].next = LCI_SLOT_NIL;
    if (q->tail == LCI_SLOT_NIL) {
        q->head = s;
    } else {
        slots[q->tail].next = s;
    }
    q->tail = s;
    q->count++;
}

/* The oldest slot of q, taken off it; LCI_SLOT_NIL when q is empty. */
static inline uint32_t lci_slotq_pop(lci_slot_t *slots, lci_slot_queue_t *q)
{
    uint32_t s = q->head;
    if (s != LCI_SLOT_NIL) {
        q->head = slots[s].next;
        if (q->head == LCI_SLOT_NIL) {
            q->tail = LCI_SLOT_NIL;
        }
        q->count--;
    }
    return s;
}

/* Takes slot s out of q wherever it is (q holds it). */
static inline void lci_slotq_remove(lci_slot_t *slots, lci_slot_queue_t *q,
                                    uint32_t s)
{
    uint32_t prev = LCI_SLOT_NIL;
    for (uint32_t k = q->head; k != s; k = slots[k].next) {
        prev = k;
    }
    uint32_t next = slots[s].next;
    if (prev == LCI_SLOT_NIL) {
        q->head = next;
    } else {
        slots[prev].next = next;
    }
    if (q->tail == s) {
        q->tail = prev;
    }
    q->count--;
}

/* The free slots are a stack linked by next, its top in *free_head. */
static inline uint32_t lci_slot_alloc(lci_slot_t *slots, uint32_t *free_head)
{
    uint32_t s = *free_head;
    if (s != LCI_SLOT_NIL) {
        *free_head = slots[s].next;
    }
    return s;
}

static inline void lci_slot_free(lci_slot_t *slots, uint32_t *free_head,
                                 uint32_t s)
{
    slots[s].next = *free_head;
    *free_head = s;
}

/* Makes slots 0 .. n-1 free, slot 0 on top. */
static inline void lci_slots_init(lci_slot_t *slots, uint32_t *free_head,
                                  uint32_t n)
{
    *free_head = LCI_SLOT_NIL;
    for (uint32_t i = n; i > 0; i--) {
        lci_slot_free(slots, free_head, i - 1);
    }
}

#endif
