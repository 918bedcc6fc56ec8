/*
 * orca_error.c - status texts, the last error message, and the checks
 * every public call starts with.
 */
#include <stdarg.h>
#include <stdio.h>

#include "lci.h"
#include "orca_internal.h"

struct orca_state orca;

static char last_error[512];

const char *orca_strerror(int status)
{
    switch (status) {
    case ORCA_OK:
        return "success";
    case ORCA_ERR_INVAL:
        return "invalid argument";
    case ORCA_ERR_STATE:
        return "call not valid now";
    case ORCA_ERR_NOMEM:
        return "out of memory";
    case ORCA_ERR_SIGNATURE:
        return "arguments do not match the operation's signature";
    case ORCA_ERR_UNKNOWN_OP:
        return "no such operation";
    case ORCA_ERR_SIZE:
        return "too many operations or arguments";
    case ORCA_ERR_PANDA:
        return "Panda failed";
    default:
        return "unknown Orca status";
    }
}

const char *orca_last_error(void)
{
    return last_error;
}

int orca_error(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

/* Stops the whole run: the layer cannot go on consistently. */
void orca_fatal(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lci_abort(1, msg);
}

int orca_panda_error(int pan_status, const char *what)
{
    /* A blocking call from inside an operation or handler is the caller's
     * mistake, not Panda's. */
    int status = pan_status == PAN_ERR_STATE ? ORCA_ERR_STATE : ORCA_ERR_PANDA;
    return orca_error(status, "%s: %s (%s)", what, pan_strerror(pan_status),
                      pan_last_error());
}

int orca_check_usable(const char *fn)
{
    if (!orca.inited) {
        return orca_error(ORCA_ERR_STATE,
                          "%s: Orca is not initialised "
                          "(call orca_init first)",
                          fn);
    }
    return ORCA_OK;
}

const char *orca_vtype_name(orca_vtype_t type)
{
    switch (type) {
    case ORCA_VOID:
        return "void";
    case ORCA_INT32:
        return "int32";
    case ORCA_INT64:
        return "int64";
    case ORCA_DOUBLE:
        return "double";
    case ORCA_BYTES:
        return "bytes";
    default:
        return "an unknown type";
    }
}
