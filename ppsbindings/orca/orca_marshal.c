/*
 * orca_marshal.c - invocations into Panda messages and back (layout in
 * orca_proto.h).  Bytes arguments go into the message as I/O vectors of
 * their own, so Panda copies them once, straight into NI packets.
 */
#include <string.h>

#include "orca_internal.h"

void orca_value_to_slot(const orca_value_t *v, uint64_t *slot)
{
    *slot = 0;
    switch (v->type) {
    case ORCA_INT32:
        memcpy(slot, &v->u.i32, sizeof v->u.i32);
        break;
    case ORCA_INT64:
        memcpy(slot, &v->u.i64, sizeof v->u.i64);
        break;
    case ORCA_DOUBLE:
        memcpy(slot, &v->u.f64, sizeof v->u.f64);
        break;
    case ORCA_BYTES:
        *slot = (uint64_t)v->u.bytes.len;
        break;
    default:
        break;
    }
}

/* For ORCA_BYTES only the length is set; the caller points at the data. */
void orca_value_from_slot(orca_vtype_t type, uint64_t slot, orca_value_t *v)
{
    memset(v, 0, sizeof *v);
    v->type = type;
    switch (type) {
    case ORCA_INT32:
        memcpy(&v->u.i32, &slot, sizeof v->u.i32);
        break;
    case ORCA_INT64:
        memcpy(&v->u.i64, &slot, sizeof v->u.i64);
        break;
    case ORCA_DOUBLE:
        memcpy(&v->u.f64, &slot, sizeof v->u.f64);
        break;
    case ORCA_BYTES:
        v->u.bytes.len = (size_t)slot;
        break;
    default:
        break;
    }
}

int orca_marshal_call(orca_call_head_t *head, pan_msg_t *msg, uint32_t object,
                      uint16_t op, uint64_t invocation,
                      const orca_value_t *args, int nargs)
{
    memset(head, 0, sizeof *head);
    head->hdr.object = object;
    head->hdr.op = op;
    head->hdr.nargs = (uint8_t)nargs;
    head->hdr.invocation = invocation;
    for (int i = 0; i < nargs; i++) {
        head->hdr.types[i] = (uint8_t)args[i].type;
        orca_value_to_slot(&args[i], &head->slots[i]);
    }
    pan_msg_init(msg);
    int r = pan_msg_push(msg, head,
                         sizeof head->hdr + (size_t)nargs * sizeof(uint64_t));
    for (int i = 0; i < nargs && r == PAN_OK; i++) {
        if (args[i].type == ORCA_BYTES && args[i].u.bytes.len > 0) {
            r = pan_msg_push(msg, args[i].u.bytes.data, args[i].u.bytes.len);
        }
    }
    return r == PAN_OK ? ORCA_OK : orca_panda_error(r, "marshalling");
}

int orca_unmarshal_call(const void *data, size_t len, orca_wire_call_t *hdr_p,
                        orca_value_t *args)
{
    const char *p = data;
    if (len < sizeof *hdr_p) {
        return orca_error(ORCA_ERR_INVAL, "an invocation of %zu bytes", len);
    }
    memcpy(hdr_p, p, sizeof *hdr_p);
    int nargs = hdr_p->nargs;
    size_t off = sizeof *hdr_p + (size_t)nargs * sizeof(uint64_t);
    if (nargs > ORCA_MAX_ARGS || len < off) {
        return orca_error(ORCA_ERR_INVAL,
                          "an invocation of %zu bytes with "
                          "%d arguments",
                          len, nargs);
    }
    for (int i = 0; i < nargs; i++) {
        uint64_t slot;
        memcpy(&slot, p + sizeof *hdr_p + (size_t)i * sizeof slot, sizeof slot);
        orca_vtype_t type = (orca_vtype_t)hdr_p->types[i];
        if (type < ORCA_INT32 || type > ORCA_BYTES) {
            return orca_error(ORCA_ERR_INVAL, "argument %d has type code %d",
                              i + 1, (int)type);
        }
        orca_value_from_slot(type, slot, &args[i]);
        if (type == ORCA_BYTES) {
            if (args[i].u.bytes.len > len - off) {
                return orca_error(ORCA_ERR_INVAL,
                                  "argument %d of %zu bytes "
                                  "overruns the message",
                                  i + 1, args[i].u.bytes.len);
            }
            args[i].u.bytes.data = p + off;
            off += args[i].u.bytes.len;
        }
    }
    if (off != len) {
        return orca_error(ORCA_ERR_INVAL,
                          "an invocation with %zu bytes "
                          "left over",
                          len - off);
    }
    return ORCA_OK;
}
