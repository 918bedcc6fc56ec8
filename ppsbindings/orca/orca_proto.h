/*
 * orca_proto.h - what Orca puts in Panda messages.
 *
 * An invocation (RPC request or ordered broadcast) is
 *     orca_wire_call_t | one 8-byte slot per argument | bytes arguments
 * A slot holds an int32 (first 4 bytes), an int64, a double, or the
 * length of a bytes argument, whose data follow after the last slot, in
 * argument order.  Every invocation names the argument types, so the
 * executing node checks them against its own registration.
 *
 * An RPC reply is orca_wire_result_t, followed, when status is not
 * ORCA_OK, by the executing node's error message.
 */
#ifndef ORCA_PROTO_H
#define ORCA_PROTO_H

#include <stdint.h>

#include "orca.h"

/* Panda port of replicated writes and service of single-copy operations. */
#define ORCA_PAN_PORT    48
#define ORCA_PAN_SERVICE 48

/* The operation number of orca_sync's empty write. */
#define ORCA_OP_SYNC 0xffffu

typedef struct {
    uint32_t object; /* object number, by creation order */
    uint16_t op;     /* operation number or ORCA_OP_SYNC */
    uint8_t nargs;   /* argument slots that follow */
    uint8_t reserved;
    uint64_t invocation;          /* the invoker's number for it */
    uint8_t types[ORCA_MAX_ARGS]; /* orca_vtype_t of each argument */
} orca_wire_call_t;
_Static_assert(sizeof(orca_wire_call_t) == 24, "orca_wire_call_t is 24 bytes");

typedef struct {
    int32_t status; /* orca_status_t of the execution */
    uint8_t type;   /* orca_vtype_t of value */
    uint8_t reserved[3];
    uint64_t value; /* int32, int64 or double, as in an argument slot */
} orca_wire_result_t;
_Static_assert(sizeof(orca_wire_result_t) == 16,
               "orca_wire_result_t is 16 bytes");

#endif /* ORCA_PROTO_H */
