/*
 * orca_internal.h - Orca's private state and the functions its files
 * share.  Never installed.
 */
#ifndef ORCA_INTERNAL_H
#define ORCA_INTERNAL_H

#include <stdint.h>

#include <ffi.h>

#include "orca.h"
#include "orca_proto.h"
#include "panda.h"

/* One operation: its signature and the libffi call interface made from
 * it (the state pointer, then each argument; two for bytes). */
typedef struct {
    char *name;
    orca_access_t access;
    orca_func_t func;
    orca_vtype_t result;
    int nargs;
    orca_vtype_t args[ORCA_MAX_ARGS];
    ffi_cif cif;
    ffi_type *ffi_args[1 + 2 * ORCA_MAX_ARGS];
    orca_func_t guard; /* NULL: none */
    ffi_cif guard_cif; /* the same parameters, an int32 result */
} orca_op_t;

struct orca_type {
    struct orca_type *next; /* all types, to free them */
    char *name;
    size_t state_size;
    void (*init)(void *state);
    int nops;
    orca_op_t ops[ORCA_MAX_OPS];
};

/* An invocation that arrived while its guard was false, kept marshalled
 * until a write to its object makes the guard true. */
typedef struct orca_waiting {
    struct orca_waiting *next;
    int src;
    pan_rpc_ticket_t *ticket; /* a single-copy request; NULL: a write */
    size_t len;
    char data[]; /* the invocation as it arrived */
} orca_waiting_t;

struct orca_object {
    uint32_t id;
    int owner; /* a node, or ORCA_REPLICATED */
    orca_type_t *type;
    void *state; /* NULL on nodes that do not hold it */
    /* guards */
    orca_waiting_t *waiting, **waiting_tail;
    int retrying;        /* orca_object_changed is running */
    pan_cond_t *changed; /* Panda-MT: threads whose guard was false */
};

/* An invocation of a replicated write waiting for its local application. */
typedef struct orca_pending {
    struct orca_pending *next;
    uint64_t invocation;
    int done;
    int status;
    orca_value_t result;
} orca_pending_t;

struct orca_state {
    int inited;
    orca_type_t *types;
    orca_object_t **objects; /* by id; NULL once freed */
    uint32_t nobjects, cap_objects;
    uint64_t next_invocation;
    orca_pending_t *pending;
    int in_op; /* an operation's function is running */
};

/* Hidden: the library reaches it directly, not through its global offset
 * table. */
extern __attribute__((visibility("hidden"))) struct orca_state orca;

/* orca_error.c */
int orca_error(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void orca_fatal(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
int orca_panda_error(int pan_status, const char *what);
int orca_check_usable(const char *fn);
const char *orca_vtype_name(orca_vtype_t type);

/* orca_object.c: the object of a number, NULL once freed. */
orca_object_t *orca_object_by_id(uint32_t id);

/* orca_type.c */
void orca_types_free(void);

/* orca_apply.c: checking a signature and calling an operation. */
int orca_signature_check(const orca_type_t *type, int op,
                         const orca_value_t *args, int nargs, const char *fn);
int orca_apply(const orca_type_t *type, int op, void *state,
               const orca_value_t *args, orca_value_t *result_p);
int orca_guard_holds(const orca_type_t *type, int op, void *state,
                     const orca_value_t *args);

/* orca_guard.c: invocations waiting for their guards. */
int orca_guard_wait(orca_object_t *obj, int op, const orca_value_t *args);
void orca_guard_defer(orca_object_t *obj, int src, pan_rpc_ticket_t *ticket,
                      const void *data, size_t len);
void orca_object_changed(orca_object_t *obj);
void orca_guard_drop_all(orca_object_t *obj);

/* orca_marshal.c */
typedef struct {
    orca_wire_call_t hdr;
    uint64_t slots[ORCA_MAX_ARGS];
} orca_call_head_t;
int orca_marshal_call(orca_call_head_t *head, pan_msg_t *msg, uint32_t object,
                      uint16_t op, uint64_t invocation,
                      const orca_value_t *args, int nargs);
int orca_unmarshal_call(const void *data, size_t len, orca_wire_call_t *hdr_p,
                        orca_value_t *args);
void orca_value_to_slot(const orca_value_t *v, uint64_t *slot);
void orca_value_from_slot(orca_vtype_t type, uint64_t slot, orca_value_t *v);

/* orca_replicated.c and orca_single.c: invoking and executing. */
int orca_replicated_write(orca_object_t *obj, int op, const orca_value_t *args,
                          int nargs, orca_value_t *result_p);
void orca_replicated_arrived(int src, const void *data, size_t len, void *arg);
int orca_single_remote(orca_object_t *obj, int op, const orca_value_t *args,
                       int nargs, orca_value_t *result_p);
void orca_single_request(int src, const void *req, size_t len,
                         pan_rpc_ticket_t *ticket, void *arg);
void orca_single_reply(pan_rpc_ticket_t *ticket, int src, int status,
                       const orca_value_t *result);
void orca_replicated_done(uint64_t invocation, const orca_value_t *result);

#endif /* ORCA_INTERNAL_H */
