/*
 * lci_mc_tree.c - multicast forwarding along a binary spanning tree rooted
 * at the sender, packet by packet.  The buffer is shared by every
 * transmission: one copy, one transmit request per child.
 */
#include "lci_decomp.h"
#include "lci_fw.h"
#include "lci_tree.h"

static uint32_t mc_tree_forward(lci_ni_t *ni, uint32_t buf,
                                const lci_wire_hdr_t *hdr)
{
    const lci_ni_group_t *g = lci_ni_group(ni, hdr->group);
    int children[2];
    int n = lci_tree_children((int)g->nmembers, (int)hdr->aux, g->self,
                              children);
    for (int i = 0; i < n; i++) {
        lci_wire_hdr_t h = *hdr;
        h.dst = (uint16_t)(hdr->group == 0
                               ? (uint32_t)children[i]
                               : lci_ni_group_members(ni, g)[children[i]]);
        lci_fw_charge(ni, lci_prof()->ni_mcast_fwd_ns);
        lci_fw_send(ni, buf, &h);
    }
    return n > 0 ? (uint32_t)n : 0;
}

const lci_mc_component_t lci_mc_tree_component = {
    .name = "tree",
    .description = "binary spanning tree rooted at the sender, per packet",
    .abi = LCI_POLICY_ABI,
    .ops = {.forward = mc_tree_forward},
};
