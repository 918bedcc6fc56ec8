/*
 * pan_dispatch.c - complete messages to their handlers, and waiting.
 *
 * LCI's upcall only puts messages together and queues them; handlers run
 * later, from pan_poll, pan_wait or a blocking call, outside the upcall, so
 * that they may send, broadcast (which takes a fetch-and-add) and reply.
 */
#include <stdlib.h>

#include "pan_internal.h"

pan_delivery_t *pan_delivery_new(void)
{
    pan_delivery_t *d = pan->spare;
    if (d != NULL) {
        pan->spare = d->next;
        return d;
    }
    d = malloc(sizeof *d);
    if (d == NULL) {
        lci_abort(1, "Panda: no memory to queue a message");
    }
    return d;
}

void pan_delivery_free(pan_delivery_t *d)
{
    d->next = pan->spare;
    pan->spare = d;
}

void pan_enqueue(const pan_wire_hdr_t *hdr, int src, char *buf, int placed)
{
    pan_delivery_t *d = pan_delivery_new();
    d->next = NULL;
    d->hdr = *hdr;
    d->src = src;
    d->buf = buf;
    d->placed = placed;
    *pan->dq_tail = d;
    pan->dq_tail = &d->next;
}

void pan_complete(const pan_wire_hdr_t *hdr, int src, char *buf)
{
    switch (hdr->kind) {
    case PAN_K_REP:
        pan_rpc_replied(hdr, buf);
        break;
    case PAN_K_OBCAST:
        pan_obcast_arrived(hdr, src, buf);
        break;
    case PAN_K_BARRIER_IN:
        free(buf);
        pan->barrier_in++;
        pan_cond_wake_all(&pan->barrier_cond);
        break;
    case PAN_K_BARRIER_OUT:
        free(buf);
        pan->barrier_out++;
        pan_cond_wake_all(&pan->barrier_cond);
        break;
    case PAN_K_ONEWAY:
    case PAN_K_BCAST:
    case PAN_K_REQ:
        pan_enqueue(hdr, src, buf, 0);
        break;
    default:
        lci_abort(1, "Panda: a message of unknown kind arrived");
    }
}

void pan_complete_placed(const pan_wire_hdr_t *hdr, int src, char *buf)
{
    if (hdr->kind == PAN_K_OBCAST) {
        lci_abort(1, "Panda: totally-ordered broadcasts are not placed");
    }
    pan_enqueue(hdr, src, buf, 1);
}

static int has_handler(const pan_delivery_t *d)
{
    if (d->hdr.kind == PAN_K_REQ) {
        return pan->services[d->hdr.port].func != NULL;
    }
    return pan->ports[d->hdr.port].func != NULL;
}

static void run_handler(pan_delivery_t *d)
{
    pan->in_handler = 1;
    if (d->hdr.kind == PAN_K_REQ) {
        pan_rpc_request(d->src, &d->hdr, d->buf);
    } else {
        pan_port_t *p = &pan->ports[d->hdr.port];
        p->func(d->src, d->buf, d->hdr.len, p->arg);
    }
    pan->in_handler = 0;
}

int pan_dispatch(void)
{
    if (pan->in_handler) {
        return 0; /* handlers do not nest */
    }
    pan_reasm_retry(); /* placements that said "later" may say where now */
    int n = 0;
    pan_delivery_t **pp = &pan->dq_head;
    while (*pp != NULL) {
        pan_delivery_t *d = *pp;
        if (!has_handler(d)) {
            pp = &d->next; /* held until a handler is set */
            continue;
        }
        *pp = d->next;
        if (pan->dq_tail == &d->next) {
            pan->dq_tail = pp;
        }
        run_handler(d);
        if (!d->placed) {
            free(d->buf);
        }
        pan_delivery_free(d);
        n++;
    }
    if (n > 0) {
        pan->handled += (uint64_t)n;
        pan_cond_wake_all(&pan->handled_cond);
    }
    return n;
}

void pan_dispatch_fini(void)
{
    while (pan->dq_head != NULL) {
        pan_delivery_t *d = pan->dq_head;
        pan->dq_head = d->next;
        if (!d->placed) {
            free(d->buf);
        }
        free(d);
    }
    pan->dq_tail = &pan->dq_head;
    while (pan->spare != NULL) {
        pan_delivery_t *d = pan->spare;
        pan->spare = d->next;
        free(d);
    }
}

int pan_block_until(struct pan_cond *cond, int (*done)(void *), void *arg)
{
    if (pan->in_handler) {
        return pan_error(PAN_ERR_STATE, "Panda: a handler may not block");
    }
    for (;;) {
        pan_dispatch();
        if (done(arg)) {
            return PAN_OK;
        }
        if (pan->mode == PAN_MT) {
            int r = pan_cond_wait_internal(cond);
            if (r != PAN_OK) {
                return r;
            }
            continue;
        }
        int r = lci_poll_wait();
        if (r < 0) {
            return pan_lci_error((lci_status_t)r, "Panda wait");
        }
    }
}

int pan_poll(void)
{
    int r = pan_check_usable("pan_poll");
    if (r != PAN_OK) {
        return r;
    }
    if (pan->in_handler) {
        return 0;
    }
    r = lci_poll();
    if (r < 0) {
        return pan_lci_error((lci_status_t)r, "pan_poll");
    }
    return pan_dispatch();
}

static int handled_since(void *arg)
{
    return pan->handled > *(uint64_t *)arg;
}

int pan_wait(void)
{
    int r = pan_check_usable("pan_wait");
    if (r != PAN_OK) {
        return r;
    }
    uint64_t before = pan->handled;
    r = pan_block_until(&pan->handled_cond, handled_since, &before);
    if (r != PAN_OK) {
        return r;
    }
    return (int)(pan->handled - before);
}
