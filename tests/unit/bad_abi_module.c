/*
 * bad_abi_module.c - test module lci_decomp_test-bad-abi.so: complete, but
 * built for another policy ABI, so lci_decomp_select must reject it.
 */
#include "stub_module.h"

static const lci_rx_component_t bad_abi_rx = {
    .name = "stub-rx",
    .description = "test stub",
    .abi = LCI_POLICY_ABI,
    .ops = STUB_RX_OPS,
};

const lci_decomp_t lci_decomp_module = {
    .name = "test-bad-abi",
    .description = "test module: built for the next policy ABI",
    .abi = LCI_POLICY_ABI + 1,
    .rx = &bad_abi_rx,
    .rx_place = LCI_PLACE_NI,
    .mc = &stub_mc,
    .mc_place = LCI_PLACE_HOST,
    .fa = &stub_fa,
    .fa_place = LCI_PLACE_NI,
};
