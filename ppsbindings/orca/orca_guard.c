/*
 * orca_guard.c - guarded operations (Orca's guards): an operation whose
 * guard is false waits until a write to its object makes it true.
 *
 * Where an invocation waits depends on where it runs.  A thread that runs
 * an operation locally (a read of a replica, anything on the owner) blocks
 * until the object changes and tests again.  A request from another node
 * (single-copy) or an ordered write (replicated) that finds its guard
 * false is kept, marshalled, on the object; after every write to the
 * object the kept invocations are tested again, oldest first, and each
 * one that now passes runs (and may let older ones pass).  Every replica
 * applies the same writes in the same order and so keeps and runs the
 * same writes at the same points: the copies stay equal.
 */
#include <stdlib.h>
#include <string.h>

#include "orca_internal.h"

int orca_op_guard(orca_type_t *type, int op, orca_func_t guard)
{
    int r = orca_check_usable("orca_op_guard");
    if (r != ORCA_OK) {
        return r;
    }
    if (type == NULL || guard == NULL) {
        return orca_error(ORCA_ERR_INVAL, "orca_op_guard: NULL argument");
    }
    if (op < 0 || op >= type->nops) {
        return orca_error(ORCA_ERR_UNKNOWN_OP,
                          "orca_op_guard: type %s has no operation number %d",
                          type->name, op);
    }
    orca_op_t *o = &type->ops[op];
    if (ffi_prep_cif(&o->guard_cif, FFI_DEFAULT_ABI, o->cif.nargs,
                     &ffi_type_sint32, o->ffi_args) != FFI_OK) {
        return orca_error(ORCA_ERR_INVAL,
                          "orca_op_guard: libffi cannot call "
                          "the guard of %s.%s",
                          type->name, o->name);
    }
    o->guard = guard;
    return ORCA_OK;
}

/* Blocks the calling thread until obj changes. */
static int wait_for_change(orca_object_t *obj)
{
    int r = obj->changed != NULL ? pan_cond_wait(obj->changed) : pan_wait();
    return r < 0 ? orca_panda_error(r, "orca_invoke: waiting for a guard")
                 : ORCA_OK;
}

int orca_guard_wait(orca_object_t *obj, int op, const orca_value_t *args)
{
    while (!orca_guard_holds(obj->type, op, obj->state, args)) {
        int r = wait_for_change(obj);
        if (r != ORCA_OK) {
            return r;
        }
    }
    return ORCA_OK;
}

void orca_guard_defer(orca_object_t *obj, int src, pan_rpc_ticket_t *ticket,
                      const void *data, size_t len)
{
    orca_waiting_t *w = malloc(sizeof *w + len);
    if (w == NULL) {
        orca_fatal("Orca: no memory to keep an invocation for its guard");
    }
    w->next = NULL;
    w->src = src;
    w->ticket = ticket;
    w->len = len;
    memcpy(w->data, data, len);
    if (obj->waiting == NULL) {
        obj->waiting_tail = &obj->waiting;
    }
    *obj->waiting_tail = w;
    obj->waiting_tail = &w->next;
}

/* Runs w if its guard holds now; whether it ran. */
static int try_run(orca_object_t *obj, const orca_waiting_t *w)
{
    orca_wire_call_t hdr;
    orca_value_t args[ORCA_MAX_ARGS];
    /* Checked when it arrived. */
    orca_unmarshal_call(w->data, w->len, &hdr, args);
    if (!orca_guard_holds(obj->type, hdr.op, obj->state, args)) {
        return 0;
    }
    orca_value_t result;
    orca_apply(obj->type, hdr.op, obj->state, args, &result);
    if (w->ticket != NULL) {
        orca_single_reply(w->ticket, w->src, ORCA_OK, &result);
    } else if (w->src == pan_rank()) {
        orca_replicated_done(hdr.invocation, &result);
    }
    return 1;
}

void orca_object_changed(orca_object_t *obj)
{
    if (obj->retrying) {
        return; /* the loop below sees this change too */
    }
    obj->retrying = 1;
    int ran = 1;
    while (ran) {
        ran = 0;
        for (orca_waiting_t **pp = &obj->waiting; *pp != NULL;
             pp = &(*pp)->next) {
            orca_waiting_t *w = *pp;
            if (try_run(obj, w)) {
                *pp = w->next;
                if (obj->waiting_tail == &w->next) {
                    obj->waiting_tail = pp;
                }
                free(w);
                ran = 1;
                break; /* the state changed: the oldest first again */
            }
        }
    }
    obj->retrying = 0;
    if (obj->changed != NULL) {
        pan_cond_broadcast(obj->changed);
    }
}

void orca_guard_drop_all(orca_object_t *obj)
{
    while (obj->waiting != NULL) {
        orca_waiting_t *w = obj->waiting;
        obj->waiting = w->next;
        if (w->ticket != NULL) {
            orca_error(ORCA_ERR_STATE,
                       "object %u was freed while the "
                       "operation waited for its guard",
                       (unsigned)obj->id);
            orca_single_reply(w->ticket, w->src, ORCA_ERR_STATE, NULL);
        }
        free(w);
    }
}
