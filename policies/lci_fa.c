/*
 * lci_fa.c - the fetch-and-add server: applies a request to a variable and
 * replies from the request's own buffer (no copy).
 */
#include <string.h>

#include "lci_decomp.h"
#include "lci_fw.h"

static void fa_serve(lci_ni_t *ni, uint32_t buf)
{
    lci_wire_hdr_t *hdr = lci_ni_buf_hdr(ni, buf);
    lci_fa_msg_t msg;
    if (hdr->len != sizeof msg) {
        ni->counters.drops_malformed++;
        return;
    }
    memcpy(&msg, hdr + 1, sizeof msg);
    if (msg.var >= ni->nfa) {
        ni->counters.drops_malformed++;
        return;
    }
    lci_fw_charge(ni, lci_prof()->ni_fa_ns);
    int64_t *var = lci_ni_fa(ni, msg.var);
    int64_t old = *var;
    *var = (int64_t)((uint64_t)old + (uint64_t)msg.value); /* wraps, no UB */
    msg.value = old;
    memcpy(hdr + 1, &msg, sizeof msg);
    lci_wire_hdr_t reply = *hdr;
    reply.type = LCI_PKT_FA_REP;
    reply.dst = hdr->origin;
    reply.origin = (uint16_t)ni->node;
    reply.len = sizeof msg;
    lci_fw_send(ni, buf, &reply);
}

const lci_fa_component_t lci_fa_ni_component = {
    .name = "fa",
    .description = "fetch-and-add server on NI-resident variables",
    .abi = LCI_POLICY_ABI,
    .ops = {.serve = fa_serve},
};
