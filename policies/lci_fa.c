/*
 * lci_fa.c - the fetch-and-add server: applies a request to a variable and
 * replies from the request's own buffer (no copy).
 */
#include <string.h>

#include "lci_decomp.h"
#include "lci_fw.h"

static int fa_apply(int64_t *vars, uint32_t nvars, lci_fa_msg_t *msg,
                    size_t len)
{
    if (len != sizeof *msg || msg->var >= nvars) {
        return 0;
    }
    int64_t old = vars[msg->var];
    /* Wraps around like the hardware would, without signed overflow. */
    vars[msg->var] = (int64_t)((uint64_t)old + (uint64_t)msg->value);
    msg->value = old;
    return 1;
}

static void fa_serve(lci_ni_t *ni, uint32_t buf)
{
    lci_wire_hdr_t *hdr = lci_ni_buf_hdr(ni, buf);
    lci_fa_msg_t msg;
    memset(&msg, 0, sizeof msg);
    memcpy(&msg, hdr + 1, hdr->len < sizeof msg ? hdr->len : sizeof msg);
    if (!fa_apply(lci_ni_fa(ni, 0), ni->nfa, &msg, hdr->len)) {
        ni->counters.drops_malformed++;
        return;
    }
    lci_fw_charge(ni, "fa", lci_prof()->ni_fa_ns);
    memcpy(hdr + 1, &msg, sizeof msg);
    lci_wire_hdr_t reply = *hdr;
    reply.type = LCI_PKT_FA_REP;
    reply.dst = hdr->origin;
    reply.origin = (uint16_t)ni->node;
    reply.len = sizeof msg;
    lci_fw_send(ni, buf, &reply);
}

const lci_fa_component_t lci_fa_component = {
    .name = "fa",
    .description = "fetch-and-add server (NI-resident or host-resident "
                   "variables)",
    .abi = LCI_POLICY_ABI,
    .ops = {.apply = fa_apply, .serve = fa_serve},
};
