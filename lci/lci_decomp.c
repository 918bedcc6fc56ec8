/*
 * lci_decomp.c - the registry of decompositions: every built-in one is a
 * line in this table, and nowhere else.
 */
#include <stdio.h>
#include <string.h>

#include "lci_decomp.h"

static const lci_decomp_t decomp_rxno_mni = {
    .name = "rxno-mni",
    .description = "no retransmission (NI credits), multicast forwarded by "
                   "the NI",
    .abi = LCI_POLICY_ABI,
    .rx = &lci_rx_none_component,
    .rx_place = LCI_PLACE_NI,
    .mc = &lci_mc_tree_component,
    .mc_place = LCI_PLACE_NI,
    .fa = &lci_fa_ni_component,
    .fa_place = LCI_PLACE_NI,
};

static const lci_decomp_t decomp_rxno_mh = {
    .name = "rxno-mh",
    .description = "no retransmission (NI credits), multicast forwarded by "
                   "the hosts",
    .abi = LCI_POLICY_ABI,
    .rx = &lci_rx_none_component,
    .rx_place = LCI_PLACE_NI,
    .mc = &lci_mc_tree_component,
    .mc_place = LCI_PLACE_HOST,
    .fa = &lci_fa_ni_component,
    .fa_place = LCI_PLACE_NI,
};

static const lci_decomp_t decomp_rxni_mni = {
    .name = "rxni-mni",
    .description = "go-back-N between NIs, multicast forwarded by the NI",
    .abi = LCI_POLICY_ABI,
    .rx = &lci_rx_gbn_component,
    .rx_place = LCI_PLACE_NI,
    .mc = &lci_mc_tree_component,
    .mc_place = LCI_PLACE_NI,
    .fa = &lci_fa_ni_component,
    .fa_place = LCI_PLACE_NI,
};

static const lci_decomp_t decomp_rxni_mh = {
    .name = "rxni-mh",
    .description = "go-back-N between NIs, multicast forwarded by the hosts",
    .abi = LCI_POLICY_ABI,
    .rx = &lci_rx_gbn_component,
    .rx_place = LCI_PLACE_NI,
    .mc = &lci_mc_tree_component,
    .mc_place = LCI_PLACE_HOST,
    .fa = &lci_fa_ni_component,
    .fa_place = LCI_PLACE_NI,
};

static const lci_decomp_t decomp_rxh_mh = {
    .name = "rxh-mh",
    .description = "go-back-N between host processes, multicast forwarded "
                   "and fetch-and-add served by the hosts",
    .abi = LCI_POLICY_ABI,
    .rx = &lci_rx_gbn_component,
    .rx_place = LCI_PLACE_HOST,
    .mc = &lci_mc_tree_component,
    .mc_place = LCI_PLACE_HOST,
    .fa = &lci_fa_ni_component,
    .fa_place = LCI_PLACE_HOST,
};

static const lci_decomp_t *const builtin[] = {
    &decomp_rxno_mni,
    &decomp_rxno_mh,
    &decomp_rxni_mni,
    &decomp_rxni_mh,
    &decomp_rxh_mh,
};

const lci_decomp_t *lci_decomp_active = &decomp_rxno_mni;

size_t lci_decomp_count(void)
{
    return sizeof builtin / sizeof builtin[0];
}

const lci_decomp_t *lci_decomp_at(size_t i)
{
    return i < lci_decomp_count() ? builtin[i] : NULL;
}

const lci_decomp_t *lci_decomp_find(const char *name)
{
    for (size_t i = 0; i < lci_decomp_count(); i++) {
        if (strcmp(builtin[i]->name, name) == 0) {
            return builtin[i];
        }
    }
    return NULL;
}

lci_status_t lci_decomp_select(const char *name, char *err, size_t errlen)
{
    const lci_decomp_t *d = lci_decomp_find(name);
    if (d == NULL || d->abi != LCI_POLICY_ABI) {
        size_t off = (size_t)snprintf(err, errlen,
                                      "unknown decomposition '%s'; valid "
                                      "values are:",
                                      name);
        for (size_t i = 0; i < lci_decomp_count() && off < errlen; i++) {
            off += (size_t)snprintf(err + off, errlen - off, "%s %s",
                                    i ? "," : "", builtin[i]->name);
        }
        return LCI_ERR_CONFIG;
    }
    lci_decomp_active = d;
    return LCI_OK;
}
