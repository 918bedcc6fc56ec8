/*
 * stub_module.h - components for the test modules of test_decomp: every op
 * set, each a stub that does nothing (the modules are loaded and checked,
 * never run).  Each test module includes this and exports one descriptor,
 * lci_decomp_module, built from these components or a broken copy.
 */
#ifndef LCI_STUB_MODULE_H
#define LCI_STUB_MODULE_H

#include "lci_decomp.h"

static inline size_t stub_state_size(const lci_rx_params_t *p)
{
    return 8;
}

static inline uint32_t stub_timers(const lci_rx_params_t *p)
{
    return 0;
}

static inline void stub_init(void *state, const lci_rx_params_t *p)
{
}

static inline void stub_send(void *state, lci_env_t *env, uint32_t buf,
                             lci_wire_hdr_t *hdr)
{
}

static inline int stub_accept(void *state, lci_env_t *env, uint32_t buf,
                              const lci_wire_hdr_t *hdr, uint32_t hw_status)
{
    return 0;
}

static inline void stub_released(void *state, lci_env_t *env, uint32_t peer)
{
}

static inline void stub_handled(void *state, lci_env_t *env, uint32_t peer)
{
}

static inline void stub_timer(void *state, lci_env_t *env, uint32_t id)
{
}

static inline uint32_t stub_pending(const void *state)
{
    return 0;
}

static inline uint32_t stub_forward(lci_env_t *env, const lci_ni_group_t *g,
                                    const uint16_t *members, uint32_t buf,
                                    const lci_wire_hdr_t *hdr)
{
    return 0;
}

static inline void stub_serve(lci_ni_t *ni, uint32_t buf)
{
}

static inline int stub_apply(int64_t *vars, uint32_t nvars, lci_fa_msg_t *msg,
                             size_t len)
{
    (void)vars, (void)nvars, (void)msg, (void)len;
    return 0;
}

#define STUB_RX_OPS                                                            \
    {                                                                          \
        .state_size = stub_state_size, .timers = stub_timers,                  \
        .init = stub_init, .send = stub_send, .accept = stub_accept,           \
        .released = stub_released, .handled = stub_handled,                    \
        .timer = stub_timer,                                                   \
        .pending = stub_pending,                                               \
    }

static const lci_mc_component_t stub_mc = {
    .name = "stub-mc",
    .description = "test stub",
    .abi = LCI_POLICY_ABI,
    .ops = {.forward = stub_forward},
};

static const lci_fa_component_t stub_fa = {
    .name = "stub-fa",
    .description = "test stub",
    .abi = LCI_POLICY_ABI,
    .ops = {.apply = stub_apply, .serve = stub_serve},
};

extern const lci_decomp_t lci_decomp_module;

#endif
