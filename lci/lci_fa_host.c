/* lci_fa_host.c - remote fetch-and-add, as an RPC to the variable's home. */
#include "lci_host.h"
#include "lci_policy.h"

static int fa_replied(void *arg)
{
    (void)arg;
    return lci_host->fa_done;
}

lci_status_t lci_fetch_add(int node, unsigned var, int64_t add, int64_t *old_p)
{
    LCI_CHECK_INIT();
    if (old_p == NULL) {
        return lci_error(LCI_ERR_INVAL, "lci_fetch_add: NULL old_p");
    }
    if (node < 0 || (uint32_t)node >= lci_host->size) {
        return lci_error(LCI_ERR_RANK,
                         "lci_fetch_add: node %d is not a rank of 0..%u",
                         node, lci_host->size - 1);
    }
    if (var >= lci_seg()->cfg.nfa) {
        return lci_error(LCI_ERR_INVAL,
                         "lci_fetch_add: variable %u; each node has %u (0..%u)",
                         var, lci_seg()->cfg.nfa, lci_seg()->cfg.nfa - 1);
    }
    if (lci_host->in_upcall) {
        return lci_error(LCI_ERR_STATE,
                         "lci_fetch_add: cannot wait for the reply inside an "
                         "upcall");
    }
    lci_packet_t *packet;
    lci_status_t st = lci_host_packet_get(&packet, 1);
    if (st != LCI_OK) {
        lci_host_leave();
        return st;
    }
    lci_fa_msg_t msg = {.var = var, .token = ++lci_host->fa_token, .value = add};
    lci_host_leave();
    st = lci_packet_write(packet, 0, &msg, sizeof msg);
    if (st != LCI_OK) {
        return st;
    }
    lci_host_enter();
    lci_host->fa_done = 0;
    lci_host_submit(packet, LCI_PKT_FA_REQ, (uint16_t)node, sizeof msg, 0);
    lci_host_wait_until(fa_replied, NULL);
    *old_p = lci_host->fa_result;
    lci_host_leave();
    return LCI_OK;
}
