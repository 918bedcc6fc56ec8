/* lci_place.c - placement glue shared by both sides. */
#include "lci_place.h"

void lci_rx_params_from_config(const lci_config_t *cfg,
                               const lci_profile_t *prof, lci_rx_params_t *p)
{
    p->nnodes = cfg->nnodes;
    p->nbufs = cfg->nsend + cfg->nrecv;
    p->window = cfg->window;
    p->max_retries = cfg->max_retries;
    p->rto_ns = cfg->rto_ns;
    p->ack_delay_ns = cfg->ack_delay_ns;
    p->nsend = cfg->nsend;
    p->frames = cfg->ep_frames;
    p->fault_ns = (uint64_t)prof->ni_ep_fault_ns;
}
