/* lci_status.c - status texts and the last error message. */
#include <stdarg.h>
#include <stdio.h>

#include "lci_host.h"

const char *lci_strerror(lci_status_t status)
{
    switch (status) {
    case LCI_OK:
        return "success";
    case LCI_INPROGRESS:
        return "operation in progress";
    case LCI_AGAIN:
        return "no resource available now, try again";
    case LCI_ERR_INVAL:
        return "invalid argument";
    case LCI_ERR_RANK:
        return "rank out of range";
    case LCI_ERR_SIZE:
        return "length exceeds the packet capacity";
    case LCI_ERR_STATE:
        return "call not valid in the current state";
    case LCI_ERR_NOMEM:
        return "out of host memory";
    case LCI_ERR_CONFIG:
        return "invalid configuration";
    case LCI_ERR_UNSUPPORTED:
        return "not supported by this decomposition";
    case LCI_ERR_PROTOCOL:
        return "protocol assumption violated";
    case LCI_ERR_PLATFORM:
        return "platform failure";
    case LCI_ERR_DEADLOCK:
        return "deadlock: every node waits and nothing is in flight";
    case LCI_ERR_GROUP:
        return "unknown or malformed multicast group";
    case LCI_ERR_UNREACHABLE:
        return "destination unreachable";
    }
    return "unknown status code";
}

const char *lci_last_error(void)
{
    return lci_host->last_error;
}

lci_status_t lci_error(lci_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lci_host->last_error, sizeof lci_host->last_error, fmt, ap);
    va_end(ap);
    return status;
}
