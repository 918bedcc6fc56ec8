/*
 * lci_decomp.h - a decomposition: one component per protocol framework and
 * the side (host library or NI firmware) each runs on.
 */
#ifndef LCI_DECOMP_H
#define LCI_DECOMP_H

#include <stddef.h>

#include "lci_policy.h"

typedef enum { LCI_PLACE_HOST = 0, LCI_PLACE_NI = 1 } lci_placement_t;

typedef struct {
    const char *name;        /* user-facing spelling, e.g. "rxno-mni" */
    const char *description; /* one line */
    uint32_t abi;            /* LCI_POLICY_ABI */
    const lci_rx_component_t *rx;
    lci_placement_t rx_place;
    const lci_mc_component_t *mc;
    lci_placement_t mc_place;
    const lci_fa_component_t *fa;
    lci_placement_t fa_place;
} lci_decomp_t;

/* The decomposition this process runs (set by lci_decomp_select). */
extern const lci_decomp_t *lci_decomp_active;

/* Looks a decomposition up by name; NULL if unknown. */
const lci_decomp_t *lci_decomp_find(const char *name);

/* Selects the named decomposition; on an unknown name writes a message
 * that lists the valid ones and returns LCI_ERR_CONFIG. */
lci_status_t lci_decomp_select(const char *name, char *err, size_t errlen);

size_t lci_decomp_count(void);
const lci_decomp_t *lci_decomp_at(size_t i);

#endif
