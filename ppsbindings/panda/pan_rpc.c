/*
 * pan_rpc.c - remote procedure calls: a request to a service, its handler,
 * and a reply matched to the waiting call by its id.
 */
#include <stdlib.h>

#include "pan_internal.h"

int pan_rpc_set(int service, pan_rpc_func_t func, void *arg)
{
    int r = pan_check_usable("pan_rpc_set");
    if (r != PAN_OK) {
        return r;
    }
    if (service < 0 || service >= PAN_NSERVICES) {
        return pan_error(PAN_ERR_INVAL,
                         "pan_rpc_set: service %d; expected "
                         "0..%d",
                         service, PAN_NSERVICES - 1);
    }
    if (func != NULL && pan->services[service].func != NULL) {
        return pan_error(PAN_ERR_BUSY, "pan_rpc_set: service %d has a handler",
                         service);
    }
    pan->services[service].func = func;
    pan->services[service].arg = arg;
    return PAN_OK;
}

void pan_rpc_request(int src, const pan_wire_hdr_t *hdr, char *buf)
{
    pan_rpc_ticket_t *t = malloc(sizeof *t);
    if (t == NULL) {
        lci_abort(1, "Panda: no memory for an RPC ticket");
    }
    t->src = src;
    t->id = hdr->tag;
    pan_service_t *s = &pan->services[hdr->port];
    s->func(src, buf, hdr->len, t, s->arg);
}

int pan_rpc_reply(pan_rpc_ticket_t *ticket, const pan_msg_t *reply)
{
    int r = pan_check_usable("pan_rpc_reply");
    if (r != PAN_OK) {
        return r;
    }
    if (ticket == NULL || reply == NULL) {
        return pan_error(PAN_ERR_INVAL, "pan_rpc_reply: NULL argument");
    }
    pan_wire_hdr_t hdr = {.kind = PAN_K_REP, .tag = ticket->id};
    r = pan_frag_send(ticket->src, &hdr, reply);
    free(ticket);
    return r;
}

void pan_rpc_replied(const pan_wire_hdr_t *hdr, char *buf)
{
    for (pan_call_t *c = pan->calls; c != NULL; c = c->next) {
        if (c->id == hdr->tag && !c->done) {
            c->done = 1;
            c->reply = buf;
            c->reply_len = hdr->len;
            pan_cond_wake_all(&c->cond);
            return;
        }
    }
    lci_abort(1, "Panda: a reply arrived for no waiting call");
}

static int call_done(void *arg)
{
    return ((pan_call_t *)arg)->done;
}

static void call_unlink(pan_call_t *call)
{
    for (pan_call_t **pp = &pan->calls; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == call) {
            *pp = call->next;
            return;
        }
    }
}

int pan_rpc_call(int dest, int service, const pan_msg_t *req, void **reply_p,
                 size_t *reply_len_p)
{
    int r = pan_check_usable("pan_rpc_call");
    if (r != PAN_OK) {
        return r;
    }
    if (pan->in_handler) {
        return pan_error(PAN_ERR_STATE, "pan_rpc_call: a handler may not "
                                        "wait for a reply; reply later "
                                        "from a thread instead");
    }
    if (dest < 0 || dest >= pan->size) {
        return pan_error(PAN_ERR_INVAL,
                         "pan_rpc_call: destination %d; "
                         "expected 0..%d",
                         dest, pan->size - 1);
    }
    if (service < 0 || service >= PAN_NSERVICES) {
        return pan_error(PAN_ERR_INVAL,
                         "pan_rpc_call: service %d; expected "
                         "0..%d",
                         service, PAN_NSERVICES - 1);
    }
    if (req == NULL || reply_p == NULL || reply_len_p == NULL) {
        return pan_error(PAN_ERR_INVAL, "pan_rpc_call: NULL argument");
    }
    pan_call_t call = {.id = pan->next_call++, .next = pan->calls};
    pan->calls = &call;
    pan_wire_hdr_t hdr = {
        .kind = PAN_K_REQ, .port = (uint16_t)service, .tag = call.id};
    r = pan_frag_send(dest, &hdr, req);
    if (r == PAN_OK) {
        r = pan_block_until(&call.cond, call_done, &call);
    }
    call_unlink(&call);
    if (r != PAN_OK) {
        free(call.reply);
        return r;
    }
    *reply_p = call.reply;
    *reply_len_p = call.reply_len;
    return PAN_OK;
}
