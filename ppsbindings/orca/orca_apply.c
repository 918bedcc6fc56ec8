/*
 * orca_apply.c - checking an invocation against an operation's signature
 * and calling the operation's C function through libffi.
 */
#include "orca_internal.h"

int orca_signature_check(const orca_type_t *type, int op,
                         const orca_value_t *args, int nargs, const char *fn)
{
    if (op < 0 || op >= type->nops) {
        return orca_error(ORCA_ERR_UNKNOWN_OP,
                          "%s: type %s has no operation "
                          "number %d (it has %d)",
                          fn, type->name, op, type->nops);
    }
    const orca_op_t *o = &type->ops[op];
    if (nargs != o->nargs) {
        return orca_error(ORCA_ERR_SIGNATURE,
                          "%s: %s.%s takes %d "
                          "argument(s), got %d",
                          fn, type->name, o->name, o->nargs, nargs);
    }
    if (nargs > 0 && args == NULL) {
        return orca_error(ORCA_ERR_INVAL, "%s: NULL arguments", fn);
    }
    for (int i = 0; i < nargs; i++) {
        if (args[i].type != o->args[i]) {
            return orca_error(ORCA_ERR_SIGNATURE,
                              "%s: argument %d of %s.%s "
                              "is %s, got %s",
                              fn, i + 1, type->name, o->name,
                              orca_vtype_name(o->args[i]),
                              orca_vtype_name(args[i].type));
        }
    }
    return ORCA_OK;
}

/* libffi's argument vector for o: pointers to the state pointer and to
 * each argument (to its data and length for bytes). */
static void ffi_values(const orca_op_t *o, void *const *state_p,
                       const orca_value_t *args, void **avalues)
{
    unsigned n = 0;
    avalues[n++] = (void *)state_p;
    for (int i = 0; i < o->nargs; i++) {
        switch (o->args[i]) {
        case ORCA_INT32:
            avalues[n++] = (void *)&args[i].u.i32;
            break;
        case ORCA_INT64:
            avalues[n++] = (void *)&args[i].u.i64;
            break;
        case ORCA_DOUBLE:
            avalues[n++] = (void *)&args[i].u.f64;
            break;
        default: /* ORCA_BYTES */
            avalues[n++] = (void *)&args[i].u.bytes.data;
            avalues[n++] = (void *)&args[i].u.bytes.len;
            break;
        }
    }
}

int orca_guard_holds(const orca_type_t *type, int op, void *state,
                     const orca_value_t *args)
{
    const orca_op_t *o = &type->ops[op];
    if (o->guard == NULL) {
        return 1;
    }
    void *avalues[1 + 2 * ORCA_MAX_ARGS];
    ffi_values(o, &state, args, avalues);
    ffi_arg rv = 0;
    orca.in_op = 1;
    ffi_call((ffi_cif *)&o->guard_cif, o->guard, &rv, avalues);
    orca.in_op = 0;
    return (int32_t)rv != 0;
}

int orca_apply(const orca_type_t *type, int op, void *state,
               const orca_value_t *args, orca_value_t *result_p)
{
    const orca_op_t *o = &type->ops[op];
    void *avalues[1 + 2 * ORCA_MAX_ARGS];
    ffi_values(o, &state, args, avalues);
    /* libffi widens integer results narrower than a register to ffi_arg. */
    union {
        ffi_arg narrow;
        int64_t i64;
        double f64;
    } rv = {0};
    orca.in_op = 1;
    ffi_call((ffi_cif *)&o->cif, o->func, &rv, avalues);
    orca.in_op = 0;
    orca_value_t res = {.type = o->result};
    switch (o->result) {
    case ORCA_INT32:
        res.u.i32 = (int32_t)rv.narrow;
        break;
    case ORCA_INT64:
        res.u.i64 = rv.i64;
        break;
    case ORCA_DOUBLE:
        res.u.f64 = rv.f64;
        break;
    default:
        break;
    }
    if (result_p != NULL) {
        *result_p = res;
    }
    return ORCA_OK;
}
