/*
 * pan_obcast.c - totally-ordered broadcast, receive side.
 *
 * Each message carries the sequence number its sender took from the
 * sequencer.  Messages are queued for their handlers strictly in sequence
 * order; those that arrive early wait in a list sorted by number.
 */
#include <stdlib.h>

#include "pan_internal.h"

static void release_in_order(void)
{
    while (pan->holdback != NULL && pan->holdback->hdr.tag == pan->next_seq) {
        pan_delivery_t *d = pan->holdback;
        pan->holdback = d->next;
        pan->next_seq++;
        d->next = NULL;
        *pan->dq_tail = d;
        pan->dq_tail = &d->next;
    }
}

void pan_obcast_arrived(const pan_wire_hdr_t *hdr, int src, char *buf)
{
    if (hdr->tag < pan->next_seq) {
        lci_abort(1, "Panda: a totally-ordered broadcast arrived twice");
    }
    pan_delivery_t *d = pan_delivery_new();
    d->hdr = *hdr;
    d->src = src;
    d->buf = buf;
    d->placed = 0;
    pan_delivery_t **pp = &pan->holdback;
    while (*pp != NULL && (*pp)->hdr.tag < hdr->tag) {
        pp = &(*pp)->next;
    }
    d->next = *pp;
    *pp = d;
    release_in_order();
}

void pan_obcast_fini(void)
{
    while (pan->holdback != NULL) {
        pan_delivery_t *d = pan->holdback;
        pan->holdback = d->next;
        free(d->buf);
        free(d);
    }
}
