/*
 * lci_mc_tree.c - multicast forwarding along a binary spanning tree rooted
 * at the sender, packet by packet (not message by message).  The buffer is
 * shared by every transmission: one copy, one send per child.  Placed on
 * the NI (M_ni) it forwards from the receive buffer; placed on the host
 * (M_h) from a send buffer the host filled once.
 */
#include "lci_policy.h"
#include "lci_tree.h"

static uint32_t mc_tree_forward(lci_env_t *env, const lci_ni_group_t *g,
                                const uint16_t *members, uint32_t buf,
                                const lci_wire_hdr_t *hdr)
{
    int children[2];
    int n = lci_tree_children((int)g->nmembers,
                              (int)lci_mcast_member(hdr->aux), g->self,
                              children);
    for (int i = 0; i < n; i++) {
        lci_wire_hdr_t h = *hdr;
        h.dst = (uint16_t)(members == NULL ? (uint32_t)children[i]
                                           : members[children[i]]);
        env->ops->charge(env, LCI_COST_FORWARD);
        env->ops->send(env, buf, &h);
    }
    return n > 0 ? (uint32_t)n : 0;
}

const lci_mc_component_t lci_mc_tree_component = {
    .name = "tree",
    .description = "binary spanning tree rooted at the sender, per packet",
    .abi = LCI_POLICY_ABI,
    .ops = {.forward = mc_tree_forward},
};
