/*
 * lci_platform.c - the built-in platforms and choosing one by name (see
 * lci_platform.h).
 */
#include <stdio.h>
#include <string.h>

#include "lci_platform.h"

/* Every built-in platform, in the order they are listed to the user. */
static const lci_platform_ops_t *const builtin[] = {
    &lci_platform_sim,
    &lci_platform_live,
};
#define NBUILTIN (sizeof builtin / sizeof builtin[0])

const lci_platform_ops_t *lci_platform = &lci_platform_sim;

const lci_platform_ops_t *lci_platform_current(void)
{
    return lci_platform;
}

const lci_platform_ops_t *lci_platform_find(const char *name)
{
    for (size_t i = 0; i < NBUILTIN; i++) {
        if (name != NULL && strcmp(builtin[i]->name, name) == 0) {
            return builtin[i];
        }
    }
    return NULL;
}

void lci_platform_names(char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NBUILTIN && off < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 < NBUILTIN ? ", " : " or ";
        int n = snprintf(buf + off, len - off, "%s'%s' (%s)", sep,
                         builtin[i]->name, builtin[i]->description);
        off = n < 0 ? len : off + (size_t)n;
    }
}

/* Whether every slot of ops is filled and its ABI is this one. */
static int complete(const lci_platform_ops_t *p)
{
    return p->abi_version == LCI_PLATFORM_ABI_VERSION && p->name &&
           p->description && p->post && p->post_written && p->can_run_now &&
           p->event_seq &&
           p->trace &&
           p->wake && p->wake_arrival && p->transmit && p->attach &&
           p->start && p->sync && p->wait && p->exit && p->doorbell &&
           p->send_buffer_reused &&
           p->enter && p->leave && p->now && p->charge && p->compute &&
           p->stall && p->die && p->failed;
}

lci_status_t lci_platform_select(const char *name, char *err, size_t errlen)
{
    const lci_platform_ops_t *p = lci_platform_find(name);
    if (p == NULL) {
        char names[256];
        lci_platform_names(names, sizeof names);
        snprintf(err, errlen, "unknown platform '%s'; valid values are: %s",
                 name ? name : "", names);
        return LCI_ERR_CONFIG;
    }
    if (!complete(p)) {
        snprintf(err, errlen,
                 "platform '%s' is incomplete or of another ABI version",
                 name);
        return LCI_ERR_PLATFORM;
    }
    lci_platform = p;
    return LCI_OK;
}
