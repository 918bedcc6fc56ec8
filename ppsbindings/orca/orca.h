/*
 * orca.h - an Orca-like shared-object layer on Panda (paper section 5.3).
 *
 * Processes communicate only by invoking operations on shared objects.
 * An object type has a name, a state of fixed size and operations; each
 * operation is an ordinary C function whose first parameter points to the
 * object's state, for example
 *
 *     int64_t counter_add(int64_t *self, int64_t delta);
 *
 * registered with its signature (argument types, result type) and whether
 * it only reads the state or also writes it.  An invocation marshals the
 * arguments into a Panda message; the node that executes it unmarshals
 * them and calls the function through libffi, then returns the typed
 * result to the invoker.
 *
 * An object lives in one of two ways, chosen when it is created:
 *   replicated   every node holds a copy.  Read operations run on the local
 *                copy.  Write operations go to every node by Panda's
 *                totally-ordered broadcast, so every copy applies them in
 *                the same order; the invoker blocks until its own write
 *                has been applied locally and returns that application's
 *                result.
 *   single-copy  the object lives on its owner node.  The owner runs its
 *                operations locally; every other node ships them by Panda
 *                RPC and waits for the result.
 *
 * Threads.  Orca runs on Panda-MT (pan_init with PAN_MT): several threads
 * made with pan_thread_create may invoke operations at once, each blocking
 * only itself.  Panda-MT runs one thread at a time, so operations never run
 * concurrently with each other and need no locks.  (Panda-ST works too; an
 * invocation then polls while it waits.)  Operations run inside Panda
 * handlers and must not call Orca or block.
 *
 * Every node registers the same types and operations and creates the same
 * objects in the same order (objects are numbered by creation).  A node
 * whose registration differs from the invoker's answers an RPC with
 * ORCA_ERR_SIGNATURE or ORCA_ERR_UNKNOWN_OP; a replica that cannot apply a
 * write stops the run, since the copies would diverge.
 *
 * Errors: functions return ORCA_OK (0), a non-negative number where said,
 * or a negative orca_status_t, and leave a message for orca_last_error().
 */
#ifndef ORCA_H
#define ORCA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ORCA_OK = 0,
    ORCA_ERR_INVAL = -1,      /* bad argument (NULL, owner out of range) */
    ORCA_ERR_STATE = -2,      /* not valid now (not initialised, handler) */
    ORCA_ERR_NOMEM = -3,      /* host memory exhausted */
    ORCA_ERR_SIGNATURE = -4,  /* arguments do not match the signature */
    ORCA_ERR_UNKNOWN_OP = -5, /* no such operation */
    ORCA_ERR_SIZE = -6,       /* too many operations or arguments */
    ORCA_ERR_PANDA = -7       /* Panda failed; see orca_last_error() */
} orca_status_t;

/* What an argument or a result is.  An ORCA_BYTES argument is passed to
 * the operation's function as two parameters, (const void *data, size_t
 * len); the bytes are valid until the function returns. */
typedef enum {
    ORCA_VOID = 0, /* results only: nothing */
    ORCA_INT32 = 1,
    ORCA_INT64 = 2,
    ORCA_DOUBLE = 3,
    ORCA_BYTES = 4 /* arguments only */
} orca_vtype_t;

/* A typed value: an argument of an invocation or its result. */
typedef struct {
    orca_vtype_t type;
    union {
        int32_t i32;
        int64_t i64;
        double f64;
        struct {
            const void *data;
            size_t len;
        } bytes;
    } u;
} orca_value_t;

static inline orca_value_t orca_int32(int32_t v)
{
    orca_value_t x = {.type = ORCA_INT32, .u.i32 = v};
    return x;
}

static inline orca_value_t orca_int64(int64_t v)
{
    orca_value_t x = {.type = ORCA_INT64, .u.i64 = v};
    return x;
}

static inline orca_value_t orca_double(double v)
{
    orca_value_t x = {.type = ORCA_DOUBLE, .u.f64 = v};
    return x;
}

static inline orca_value_t orca_bytes(const void *data, size_t len)
{
    orca_value_t x = {.type = ORCA_BYTES, .u.bytes = {data, len}};
    return x;
}

typedef enum {
    ORCA_READ = 0, /* only reads the state */
    ORCA_WRITE = 1 /* may change the state */
} orca_access_t;

/* An operation's function, cast to a common type for registration; it is
 * called with the registered signature, never through this type. */
typedef void (*orca_func_t)(void);
#define ORCA_FUNC(f) ((orca_func_t)(f))

#define ORCA_MAX_ARGS   8    /* arguments per operation */
#define ORCA_MAX_OPS    32   /* operations per type */
#define ORCA_REPLICATED (-1) /* the owner of a replicated object */

typedef struct orca_type orca_type_t;
typedef struct orca_object orca_object_t;

/* A static text for a status code. */
const char *orca_strerror(int status);

/* The last error this node reported, with details, or "". */
const char *orca_last_error(void);

/* Starts the layer on an initialised Panda (pan_init). */
int orca_init(void);

/* Collective: waits until every node called it, then frees every type and
 * object.  Call before pan_end. */
int orca_end(void);

/* A new object type whose states are state_size bytes, set up by init
 * (zeroed when init is NULL). */
int orca_type_create(const char *name, size_t state_size,
                     void (*init)(void *state), orca_type_t **type_p);

/* Adds an operation: func takes a pointer to the state, then one
 * parameter per argument type (two for ORCA_BYTES), and returns result.
 * Returns the operation's number (0, 1, ... in order of definition). */
int orca_op_define(orca_type_t *type, const char *name, orca_access_t access,
                   orca_func_t func, orca_vtype_t result, int nargs,
                   const orca_vtype_t *args);

/* Gives operation op a guard: a function with the operation's parameters
 * that returns int32_t, nonzero when the operation may run.  An invocation
 * whose guard is false waits until a write to the object makes it true
 * (Orca's guarded operations); waiting invocations are tested again after
 * every write, oldest first.  A guard only reads the state. */
int orca_op_guard(orca_type_t *type, int op, orca_func_t guard);

/* The number of the operation called name, or ORCA_ERR_UNKNOWN_OP. */
int orca_op_find(const orca_type_t *type, const char *name);

/* Collective: creates an object of the given type, replicated on every
 * node (owner ORCA_REPLICATED) or stored on node owner.  Returns once
 * every node has created it. */
int orca_object_create(orca_type_t *type, int owner, orca_object_t **obj_p);

/* Collective: frees the object once every node called it (so after every
 * node stopped invoking it). */
int orca_object_free(orca_object_t *obj);

/* Invokes operation op on obj with nargs arguments and waits for it.  The
 * argument types must match the signature (ORCA_ERR_SIGNATURE otherwise).
 * The result, typed as the signature says, goes to *result_p (may be
 * NULL). */
int orca_invoke(orca_object_t *obj, int op, const orca_value_t *args, int nargs,
                orca_value_t *result_p);

/* For a replicated object: waits until the local copy has applied every
 * write ordered before this call anywhere (an empty write); after a
 * barrier, every node then reads the same state.  Does nothing for a
 * single-copy object. */
int orca_sync(orca_object_t *obj);

#ifdef __cplusplus
}
#endif
#endif /* ORCA_H */
