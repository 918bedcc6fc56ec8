/*
 * orca_single.c - operations on single-copy objects held by another node:
 * shipped by Panda RPC, run by the owner's request handler, the typed
 * result (or the owner's error) returned in the reply.
 */
#include <stdlib.h>
#include <string.h>

#include "orca_internal.h"

int orca_single_remote(orca_object_t *obj, int op, const orca_value_t *args,
                       int nargs, orca_value_t *result_p)
{
    orca_call_head_t head;
    pan_msg_t msg;
    int r =
        orca_marshal_call(&head, &msg, obj->id, (uint16_t)op, 0, args, nargs);
    if (r != ORCA_OK) {
        return r;
    }
    void *reply;
    size_t len;
    int pr = pan_rpc_call(obj->owner, ORCA_PAN_SERVICE, &msg, &reply, &len);
    if (pr != PAN_OK) {
        return orca_panda_error(pr, "orca_invoke: calling the owner");
    }
    orca_wire_result_t res;
    if (len < sizeof res) {
        free(reply);
        return orca_error(ORCA_ERR_PANDA,
                          "orca_invoke: node %d sent a "
                          "reply of %zu bytes",
                          obj->owner, len);
    }
    memcpy(&res, reply, sizeof res);
    if (res.status != ORCA_OK) {
        r = orca_error(res.status, "orca_invoke: node %d answered: %.*s",
                       obj->owner, (int)(len - sizeof res),
                       (const char *)reply + sizeof res);
    } else if (result_p != NULL) {
        orca_value_from_slot((orca_vtype_t)res.type, res.value, result_p);
    }
    free(reply);
    return r;
}

void orca_single_reply(pan_rpc_ticket_t *ticket, int src, int status,
                       const orca_value_t *result)
{
    orca_wire_result_t res = {.status = status};
    if (status == ORCA_OK) {
        res.type = (uint8_t)result->type;
        orca_value_to_slot(result, &res.value);
    }
    pan_msg_t msg;
    pan_msg_init(&msg);
    int pr = pan_msg_push(&msg, &res, sizeof res);
    if (status != ORCA_OK && pr == PAN_OK) {
        const char *why = orca_last_error();
        pr = pan_msg_push(&msg, why, strlen(why));
    }
    if (pr == PAN_OK) {
        pr = pan_rpc_reply(ticket, &msg);
    }
    if (pr != PAN_OK) {
        orca_fatal("Orca: node %d cannot answer node %d: %s", pan_rank(), src,
                   pan_last_error());
    }
}

/* Runs a request or, if its guard is false, keeps it (*kept_p set); its
 * status, with the result on success. */
static int execute(int src, const void *req, size_t len,
                   pan_rpc_ticket_t *ticket, orca_value_t *result_p,
                   int *kept_p)
{
    orca_wire_call_t hdr;
    orca_value_t args[ORCA_MAX_ARGS];
    int r = orca_unmarshal_call(req, len, &hdr, args);
    if (r != ORCA_OK) {
        return r;
    }
    orca_object_t *obj = orca_object_by_id(hdr.object);
    if (obj == NULL || obj->owner != pan_rank()) {
        return orca_error(ORCA_ERR_INVAL,
                          "node %d does not hold object %u "
                          "that node %d invoked",
                          pan_rank(), (unsigned)hdr.object, src);
    }
    r = orca_signature_check(obj->type, hdr.op, args, hdr.nargs,
                             "the owner's signature");
    if (r != ORCA_OK) {
        return r;
    }
    if (!orca_guard_holds(obj->type, hdr.op, obj->state, args)) {
        orca_guard_defer(obj, src, ticket, req, len);
        *kept_p = 1;
        return ORCA_OK;
    }
    orca_apply(obj->type, hdr.op, obj->state, args, result_p);
    if (obj->type->ops[hdr.op].access == ORCA_WRITE) {
        orca_object_changed(obj);
    }
    return ORCA_OK;
}

void orca_single_request(int src, const void *req, size_t len,
                         pan_rpc_ticket_t *ticket, void *arg)
{
    (void)arg;
    orca_value_t result = {.type = ORCA_VOID};
    int kept = 0;
    int status = execute(src, req, len, ticket, &result, &kept);
    if (!kept) {
        orca_single_reply(ticket, src, status, &result);
    }
}
