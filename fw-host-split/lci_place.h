/*
 * lci_place.h - placement: running a policy on the NI (this file's
 * environment) or in the host library.
 */
#ifndef LCI_PLACE_H
#define LCI_PLACE_H

#include "lci_config.h"
#include "lci_env.h"
#include "lci_ni.h"
#include "lci_profile.h"

/* The rx module's parameters for a run configuration. */
void lci_rx_params_from_config(const lci_config_t *cfg,
                               const lci_profile_t *prof, lci_rx_params_t *p);

/* The environment of policies placed on NI ni (valid while a firmware
 * handler of ni runs). */
lci_env_t lci_place_ni_env(lci_ni_t *ni);

/* The rx module's state on NI ni. */
static inline void *lci_place_ni_rx_state(lci_ni_t *ni)
{
    return LCI_NI_AT(ni, ni->off_rx_state, void);
}

#endif
