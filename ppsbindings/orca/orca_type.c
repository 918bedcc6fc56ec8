/*
 * orca_type.c - object types and their operations: names, signatures and
 * the libffi call interface prepared once per operation.
 */
#include <stdlib.h>
#include <string.h>

#include "orca_internal.h"

int orca_type_create(const char *name, size_t state_size,
                     void (*init)(void *state), orca_type_t **type_p)
{
    int r = orca_check_usable("orca_type_create");
    if (r != ORCA_OK) {
        return r;
    }
    if (name == NULL || type_p == NULL) {
        return orca_error(ORCA_ERR_INVAL, "orca_type_create: NULL argument");
    }
    if (state_size == 0) {
        return orca_error(ORCA_ERR_INVAL,
                          "orca_type_create: type %s has a "
                          "state of 0 bytes",
                          name);
    }
    orca_type_t *t = calloc(1, sizeof *t);
    char *copy = strdup(name);
    if (t == NULL || copy == NULL) {
        free(t);
        free(copy);
        return orca_error(ORCA_ERR_NOMEM, "orca_type_create: no memory");
    }
    t->name = copy;
    t->state_size = state_size;
    t->init = init;
    t->next = orca.types;
    orca.types = t;
    *type_p = t;
    return ORCA_OK;
}

/* The libffi type of a scalar argument or result. */
static ffi_type *ffi_type_of(orca_vtype_t type)
{
    switch (type) {
    case ORCA_VOID:
        return &ffi_type_void;
    case ORCA_INT32:
        return &ffi_type_sint32;
    case ORCA_INT64:
        return &ffi_type_sint64;
    case ORCA_DOUBLE:
        return &ffi_type_double;
    default:
        return NULL;
    }
}

static ffi_type *ffi_type_size_t(void)
{
    return sizeof(size_t) == 8 ? &ffi_type_uint64 : &ffi_type_uint32;
}

static int check_signature(const orca_type_t *type, const char *name,
                           orca_vtype_t result, int nargs,
                           const orca_vtype_t *args)
{
    if (result != ORCA_VOID && result != ORCA_INT32 && result != ORCA_INT64 &&
        result != ORCA_DOUBLE) {
        return orca_error(ORCA_ERR_INVAL,
                          "orca_op_define: %s.%s returns %s; "
                          "expected void, int32, int64 or double",
                          type->name, name, orca_vtype_name(result));
    }
    if (nargs < 0 || nargs > ORCA_MAX_ARGS) {
        return orca_error(ORCA_ERR_SIZE,
                          "orca_op_define: %s.%s has %d "
                          "arguments; expected 0..%d",
                          type->name, name, nargs, ORCA_MAX_ARGS);
    }
    if (nargs > 0 && args == NULL) {
        return orca_error(ORCA_ERR_INVAL,
                          "orca_op_define: %s.%s: NULL "
                          "argument types",
                          type->name, name);
    }
    for (int i = 0; i < nargs; i++) {
        if (args[i] < ORCA_INT32 || args[i] > ORCA_BYTES) {
            return orca_error(ORCA_ERR_INVAL,
                              "orca_op_define: argument %d "
                              "of %s.%s is %s; expected int32, int64, "
                              "double or bytes",
                              i + 1, type->name, name,
                              orca_vtype_name(args[i]));
        }
    }
    return ORCA_OK;
}

int orca_op_define(orca_type_t *type, const char *name, orca_access_t access,
                   orca_func_t func, orca_vtype_t result, int nargs,
                   const orca_vtype_t *args)
{
    int r = orca_check_usable("orca_op_define");
    if (r != ORCA_OK) {
        return r;
    }
    if (type == NULL || name == NULL || func == NULL) {
        return orca_error(ORCA_ERR_INVAL, "orca_op_define: NULL argument");
    }
    if (access != ORCA_READ && access != ORCA_WRITE) {
        return orca_error(ORCA_ERR_INVAL,
                          "orca_op_define: %s.%s: access "
                          "%d; expected ORCA_READ or ORCA_WRITE",
                          type->name, name, (int)access);
    }
    if (orca_op_find(type, name) >= 0) {
        return orca_error(ORCA_ERR_INVAL,
                          "orca_op_define: %s already has "
                          "an operation %s",
                          type->name, name);
    }
    if (type->nops == ORCA_MAX_OPS) {
        return orca_error(ORCA_ERR_SIZE,
                          "orca_op_define: %s has %d "
                          "operations already",
                          type->name, ORCA_MAX_OPS);
    }
    r = check_signature(type, name, result, nargs, args);
    if (r != ORCA_OK) {
        return r;
    }
    orca_op_t *op = &type->ops[type->nops];
    memset(op, 0, sizeof *op);
    unsigned nffi = 0;
    op->ffi_args[nffi++] = &ffi_type_pointer; /* the state */
    for (int i = 0; i < nargs; i++) {
        op->args[i] = args[i];
        if (args[i] == ORCA_BYTES) {
            op->ffi_args[nffi++] = &ffi_type_pointer;
            op->ffi_args[nffi++] = ffi_type_size_t();
        } else {
            op->ffi_args[nffi++] = ffi_type_of(args[i]);
        }
    }
    if (ffi_prep_cif(&op->cif, FFI_DEFAULT_ABI, nffi, ffi_type_of(result),
                     op->ffi_args) != FFI_OK) {
        return orca_error(ORCA_ERR_INVAL,
                          "orca_op_define: libffi cannot "
                          "call %s.%s",
                          type->name, name);
    }
    op->name = strdup(name);
    if (op->name == NULL) {
        return orca_error(ORCA_ERR_NOMEM, "orca_op_define: no memory");
    }
    op->access = access;
    op->func = func;
    op->result = result;
    op->nargs = nargs;
    return type->nops++;
}

int orca_op_find(const orca_type_t *type, const char *name)
{
    if (type == NULL || name == NULL) {
        return orca_error(ORCA_ERR_INVAL, "orca_op_find: NULL argument");
    }
    for (int i = 0; i < type->nops; i++) {
        if (strcmp(type->ops[i].name, name) == 0) {
            return i;
        }
    }
    return orca_error(ORCA_ERR_UNKNOWN_OP,
                      "orca_op_find: type %s has no "
                      "operation %s",
                      type->name, name);
}

void orca_types_free(void)
{
    while (orca.types != NULL) {
        orca_type_t *t = orca.types;
        orca.types = t->next;
        for (int i = 0; i < t->nops; i++) {
            free(t->ops[i].name);
        }
        free(t->name);
        free(t);
    }
}
