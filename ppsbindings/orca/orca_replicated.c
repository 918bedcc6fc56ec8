/*
 * orca_replicated.c - writes to replicated objects: shipped by Panda's
 * totally-ordered broadcast and applied by every node, the invoker
 * included, in sequence order.  The invoker waits for its own copy's
 * application and returns its result.
 */
#include "orca_internal.h"

static void pending_unlink(orca_pending_t *p)
{
    for (orca_pending_t **pp = &orca.pending; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            return;
        }
    }
}

int orca_replicated_write(orca_object_t *obj, int op, const orca_value_t *args,
                          int nargs, orca_value_t *result_p)
{
    orca_pending_t me = {.invocation = orca.next_invocation++,
                         .next = orca.pending};
    orca_call_head_t head;
    pan_msg_t msg;
    int r = orca_marshal_call(&head, &msg, obj->id, (uint16_t)op, me.invocation,
                              args, nargs);
    if (r != ORCA_OK) {
        return r;
    }
    orca.pending = &me;
    int pr = pan_obcast(ORCA_PAN_PORT, &msg);
    if (pr != PAN_OK) {
        r = orca_panda_error(pr, "orca_invoke: broadcasting a write");
    }
    /* Other threads run meanwhile; the handler marks this one done. */
    while (r == ORCA_OK && !me.done) {
        pr = pan_wait();
        if (pr < 0) {
            r = orca_panda_error(pr, "orca_invoke: waiting for a write");
        }
    }
    pending_unlink(&me);
    if (r == ORCA_OK && result_p != NULL) {
        *result_p = me.result;
    }
    return r;
}

void orca_replicated_done(uint64_t invocation, const orca_value_t *result)
{
    for (orca_pending_t *p = orca.pending; p != NULL; p = p->next) {
        if (p->invocation == invocation) {
            p->done = 1;
            p->result = *result;
            return;
        }
    }
    orca_fatal("Orca: a write came back that no thread waits for");
}

void orca_replicated_arrived(int src, const void *data, size_t len, void *arg)
{
    (void)arg;
    orca_wire_call_t hdr;
    orca_value_t args[ORCA_MAX_ARGS];
    orca_value_t result = {.type = ORCA_VOID};
    if (orca_unmarshal_call(data, len, &hdr, args) != ORCA_OK) {
        orca_fatal("Orca: a broken write from node %d: %s", src,
                   orca_last_error());
    }
    if (hdr.object >= orca.nobjects) {
        orca_fatal("Orca: a write from node %d to object %u, which this "
                   "node never created",
                   src, (unsigned)hdr.object);
    }
    orca_object_t *obj = orca_object_by_id(hdr.object);
    /* A write to a freed object is dropped (every copy drops it). */
    if (obj != NULL && hdr.op != ORCA_OP_SYNC) {
        if (orca_signature_check(obj->type, hdr.op, args, hdr.nargs,
                                 "a replicated write") != ORCA_OK) {
            /* The copies would diverge: stop. */
            orca_fatal("Orca: node %d cannot apply a write from node %d "
                       "(types registered differently?): %s",
                       pan_rank(), src, orca_last_error());
        }
        if (!orca_guard_holds(obj->type, hdr.op, obj->state, args)) {
            /* Every copy keeps it until a later write lets it run. */
            orca_guard_defer(obj, src, NULL, data, len);
            return;
        }
        orca_apply(obj->type, hdr.op, obj->state, args, &result);
        orca_object_changed(obj);
    }
    if (src == pan_rank()) {
        orca_replicated_done(hdr.invocation, &result);
    }
}
