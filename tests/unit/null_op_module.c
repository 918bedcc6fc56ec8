/*
 * null_op_module.c - test module lci_decomp_test-null-op.so: current ABI,
 * but its rx component leaves the timer op NULL, so lci_decomp_select must
 * reject it, naming the op.
 */
#include "stub_module.h"

static const lci_rx_component_t null_op_rx = {
    .name = "stub-rx-no-timer",
    .description = "test stub without a timer op",
    .abi = LCI_POLICY_ABI,
    .ops =
        {
            .state_size = stub_state_size,
            .timers = stub_timers,
            .init = stub_init,
            .send = stub_send,
            .accept = stub_accept,
            .released = stub_released,
            .handled = stub_handled,
            .timer = NULL,
            .pending = stub_pending,
        },
};

const lci_decomp_t lci_decomp_module = {
    .name = "test-null-op",
    .description = "test module: rx op 'timer' missing",
    .abi = LCI_POLICY_ABI,
    .rx = &null_op_rx,
    .rx_place = LCI_PLACE_NI,
    .mc = &stub_mc,
    .mc_place = LCI_PLACE_HOST,
    .fa = &stub_fa,
    .fa_place = LCI_PLACE_NI,
};
