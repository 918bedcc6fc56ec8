/*
 * good_module.c - test module lci_decomp_test-good.so: complete and of the
 * current ABI, so lci_decomp_select must accept it.
 */
#include "stub_module.h"

static const lci_rx_component_t good_rx = {
    .name = "stub-rx",
    .description = "test stub",
    .abi = LCI_POLICY_ABI,
    .ops = STUB_RX_OPS,
};

const lci_decomp_t lci_decomp_module = {
    .name = "test-good",
    .description = "test module: complete, current ABI",
    .abi = LCI_POLICY_ABI,
    .rx = &good_rx,
    .rx_place = LCI_PLACE_NI,
    .mc = &stub_mc,
    .mc_place = LCI_PLACE_HOST,
    .fa = &stub_fa,
    .fa_place = LCI_PLACE_NI,
};
