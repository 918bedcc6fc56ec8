/*
 * orca_object.c - the layer's life cycle, shared objects, and invocation:
 * where an operation runs depends on how its object lives.
 */
#include <stdlib.h>
#include <string.h>

#include "orca_internal.h"

int orca_init(void)
{
    if (orca.inited) {
        return orca_error(ORCA_ERR_STATE, "orca_init: already initialised");
    }
    if (pan_size() < 1) {
        return orca_error(ORCA_ERR_STATE, "orca_init: Panda is not "
                                          "initialised (call pan_init first)");
    }
    int r = pan_port_set(ORCA_PAN_PORT, orca_replicated_arrived, NULL);
    if (r != PAN_OK) {
        return orca_panda_error(r, "orca_init");
    }
    r = pan_rpc_set(ORCA_PAN_SERVICE, orca_single_request, NULL);
    if (r != PAN_OK) {
        pan_port_set(ORCA_PAN_PORT, NULL, NULL);
        return orca_panda_error(r, "orca_init");
    }
    memset(&orca, 0, sizeof orca);
    orca.inited = 1;
    return ORCA_OK;
}

static void object_destroy(orca_object_t *obj)
{
    orca_guard_drop_all(obj);
    pan_cond_free(obj->changed);
    free(obj->state);
    free(obj);
}

int orca_end(void)
{
    int r = orca_check_usable("orca_end");
    if (r != ORCA_OK) {
        return r;
    }
    if (orca.pending != NULL) {
        return orca_error(ORCA_ERR_STATE, "orca_end: a thread still waits "
                                          "for a write");
    }
    /* Others may still invoke this node's objects until they get here. */
    r = pan_barrier();
    if (r != PAN_OK) {
        return orca_panda_error(r, "orca_end");
    }
    pan_port_set(ORCA_PAN_PORT, NULL, NULL);
    pan_rpc_set(ORCA_PAN_SERVICE, NULL, NULL);
    for (uint32_t i = 0; i < orca.nobjects; i++) {
        if (orca.objects[i] != NULL) {
            object_destroy(orca.objects[i]);
        }
    }
    free(orca.objects);
    orca_types_free();
    memset(&orca, 0, sizeof orca);
    return ORCA_OK;
}

static int objects_grow(void)
{
    if (orca.nobjects < orca.cap_objects) {
        return ORCA_OK;
    }
    uint32_t cap = orca.cap_objects ? 2 * orca.cap_objects : 16;
    orca_object_t **o = realloc(orca.objects, cap * sizeof *o);
    if (o == NULL) {
        return orca_error(ORCA_ERR_NOMEM, "orca_object_create: no memory");
    }
    orca.objects = o;
    orca.cap_objects = cap;
    return ORCA_OK;
}

int orca_object_create(orca_type_t *type, int owner, orca_object_t **obj_p)
{
    int r = orca_check_usable("orca_object_create");
    if (r != ORCA_OK) {
        return r;
    }
    if (type == NULL || obj_p == NULL) {
        return orca_error(ORCA_ERR_INVAL, "orca_object_create: NULL "
                                          "argument");
    }
    if (owner != ORCA_REPLICATED && (owner < 0 || owner >= pan_size())) {
        return orca_error(ORCA_ERR_INVAL,
                          "orca_object_create: owner %d; "
                          "expected ORCA_REPLICATED (-1) or a node 0..%d",
                          owner, pan_size() - 1);
    }
    r = objects_grow();
    if (r != ORCA_OK) {
        return r;
    }
    orca_object_t *obj = calloc(1, sizeof *obj);
    if (obj == NULL) {
        return orca_error(ORCA_ERR_NOMEM, "orca_object_create: no memory");
    }
    obj->owner = owner;
    obj->type = type;
    if (pan_mode() == PAN_MT && pan_cond_create(&obj->changed) != PAN_OK) {
        free(obj);
        return orca_error(ORCA_ERR_NOMEM, "orca_object_create: no memory");
    }
    if (owner == ORCA_REPLICATED || owner == pan_rank()) {
        obj->state = calloc(1, type->state_size);
        if (obj->state == NULL) {
            pan_cond_free(obj->changed);
            free(obj);
            return orca_error(ORCA_ERR_NOMEM,
                              "orca_object_create: no "
                              "memory for a state of %zu bytes",
                              type->state_size);
        }
        if (type->init != NULL) {
            type->init(obj->state);
        }
    }
    obj->id = orca.nobjects;
    orca.objects[orca.nobjects++] = obj;
    /* No invocation may reach a node before it has the object. */
    r = pan_barrier();
    if (r != PAN_OK) {
        return orca_panda_error(r, "orca_object_create");
    }
    *obj_p = obj;
    return ORCA_OK;
}

int orca_object_free(orca_object_t *obj)
{
    int r = orca_check_usable("orca_object_free");
    if (r != ORCA_OK) {
        return r;
    }
    if (obj == NULL || obj->id >= orca.nobjects ||
        orca.objects[obj->id] != obj) {
        return orca_error(ORCA_ERR_INVAL, "orca_object_free: not an object");
    }
    r = pan_barrier();
    if (r != PAN_OK) {
        return orca_panda_error(r, "orca_object_free");
    }
    /* Writes still travelling to it are dropped on arrival. */
    orca.objects[obj->id] = NULL;
    object_destroy(obj);
    return ORCA_OK;
}

orca_object_t *orca_object_by_id(uint32_t id)
{
    return id < orca.nobjects ? orca.objects[id] : NULL;
}

static int check_object(const orca_object_t *obj, const char *fn)
{
    int r = orca_check_usable(fn);
    if (r != ORCA_OK) {
        return r;
    }
    /* An operation runs in a Panda handler (or on behalf of one), which
     * must not wait; a write it started could never be waited for. */
    if (orca.in_op) {
        return orca_error(ORCA_ERR_STATE,
                          "%s: called from inside an "
                          "operation",
                          fn);
    }
    if (obj == NULL || obj->id >= orca.nobjects ||
        orca.objects[obj->id] != obj) {
        return orca_error(ORCA_ERR_INVAL, "%s: not an object", fn);
    }
    return ORCA_OK;
}

int orca_invoke(orca_object_t *obj, int op, const orca_value_t *args, int nargs,
                orca_value_t *result_p)
{
    int r = check_object(obj, "orca_invoke");
    if (r != ORCA_OK) {
        return r;
    }
    r = orca_signature_check(obj->type, op, args, nargs, "orca_invoke");
    if (r != ORCA_OK) {
        return r;
    }
    if (obj->state == NULL) {
        return orca_single_remote(obj, op, args, nargs, result_p);
    }
    if (obj->owner == ORCA_REPLICATED &&
        obj->type->ops[op].access == ORCA_WRITE) {
        return orca_replicated_write(obj, op, args, nargs, result_p);
    }
    /* Reads of a replica, and everything on the owner, run here. */
    r = orca_guard_wait(obj, op, args);
    if (r != ORCA_OK) {
        return r;
    }
    orca_apply(obj->type, op, obj->state, args, result_p);
    if (obj->type->ops[op].access == ORCA_WRITE) {
        orca_object_changed(obj);
    }
    return ORCA_OK;
}

int orca_sync(orca_object_t *obj)
{
    int r = check_object(obj, "orca_sync");
    if (r != ORCA_OK || obj->owner != ORCA_REPLICATED) {
        return r;
    }
    return orca_replicated_write(obj, ORCA_OP_SYNC, NULL, 0, NULL);
}
