/*
 * lci_mcast_once.c - rxh-mni: a multicast packet reaches a host up to
 * twice, as the NI's early copy and as the parent host's reliable copy.
 * The root numbers its multicast packets per group (the high half of aux);
 * a receiver takes the first copy that comes in its root's order and drops
 * every other: a duplicate, or an early copy beyond one that was lost
 * (its reliable copy comes, in order).
 */
#include <stdlib.h>

#include "lci_host.h"

lci_status_t lci_mcast_once_init(uint32_t nnodes, uint32_t ngroups)
{
    lci_host->mcast_groups = ngroups;
    lci_host->mcast_out = calloc(ngroups, sizeof *lci_host->mcast_out);
    lci_host->mcast_in =
        calloc((size_t)nnodes * ngroups, sizeof *lci_host->mcast_in);
    if (lci_host->mcast_out == NULL || lci_host->mcast_in == NULL) {
        return lci_error(LCI_ERR_NOMEM, "lci_init: out of memory");
    }
    return LCI_OK;
}

void lci_mcast_once_fini(void)
{
    free(lci_host->mcast_out);
    free(lci_host->mcast_in);
    lci_host->mcast_out = NULL;
    lci_host->mcast_in = NULL;
}

uint16_t lci_mcast_once_number(uint16_t group)
{
    return lci_host->mcast_out[group % lci_host->mcast_groups]++;
}

int lci_mcast_once_take(const lci_wire_hdr_t *hdr)
{
    if (lci_host->mcast_in == NULL || hdr->type != LCI_PKT_MCAST) {
        return 1;
    }
    if (hdr->origin >= lci_host->size || hdr->group >= lci_host->mcast_groups) {
        return 0;
    }
    uint16_t *next = &lci_host->mcast_in[(size_t)hdr->origin *
                                             lci_host->mcast_groups +
                                         hdr->group];
    if (lci_mcast_seq(hdr->aux) != *next) {
        return 0;
    }
    (*next)++;
    return 1;
}
