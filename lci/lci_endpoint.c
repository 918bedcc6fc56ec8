/*
 * lci_endpoint.c - endpoints: several receivers on one node, each with its
 * own upcall (lci.h).  Endpoint 0 is the node's default (lci_upcall_set);
 * the others live in a table of the node's host state, numbered in the
 * order they are opened, so SPMD programs agree on the numbers.
 */
#include "lci_host.h"

lci_status_t lci_endpoint_open(lci_endpoint_t **ep_p,
                               lci_upcall_func_t upcall, void *arg)
{
    LCI_CHECK_INIT();
    if (ep_p == NULL || upcall == NULL) {
        return lci_error(LCI_ERR_INVAL, "lci_endpoint_open: %s is NULL",
                         ep_p == NULL ? "ep_p" : "upcall");
    }
    for (uint16_t id = 1; id < LCI_MAX_ENDPOINTS; id++) {
        struct lci_endpoint *ep = &lci_host->endpoints[id];
        if (!ep->open) {
            *ep = (struct lci_endpoint){
                .id = id, .open = 1, .upcall = upcall, .arg = arg};
            *ep_p = ep;
            return LCI_OK;
        }
    }
    return lci_error(LCI_ERR_NOMEM,
                     "lci_endpoint_open: all %d endpoints of this node are "
                     "open",
                     LCI_MAX_ENDPOINTS - 1);
}

lci_endpoint_t *lci_endpoint_default(void)
{
    if (!lci_host || !lci_host->inited) {
        return NULL;
    }
    struct lci_endpoint *ep = &lci_host->endpoints[0];
    ep->id = 0;
    ep->open = 1; /* its upcall is lci_upcall_set's */
    return ep;
}

/* The endpoint behind a handle from lci_endpoint_open or
 * lci_endpoint_default, or NULL. */
static struct lci_endpoint *open_endpoint(const lci_endpoint_t *ep)
{
    if (ep == NULL || ep < &lci_host->endpoints[0] ||
        ep >= &lci_host->endpoints[LCI_MAX_ENDPOINTS] || !ep->open) {
        return NULL;
    }
    return &lci_host->endpoints[ep->id];
}

lci_status_t lci_endpoint_close(lci_endpoint_t *ep)
{
    LCI_CHECK_INIT();
    struct lci_endpoint *e = open_endpoint(ep);
    if (e == NULL || e->id == 0) {
        return lci_error(LCI_ERR_INVAL,
                         "lci_endpoint_close: %s",
                         e == NULL ? "not an open endpoint"
                                   : "the default endpoint stays open");
    }
    e->open = 0;
    e->upcall = NULL;
    return LCI_OK;
}

int lci_endpoint_id(const lci_endpoint_t *ep)
{
    return ep != NULL ? ep->id : -1;
}

lci_status_t lci_endpoint_send(lci_endpoint_t *ep, lci_packet_t *packet,
                               int dest, int dest_ep, size_t len)
{
    LCI_CHECK_INIT();
    const struct lci_endpoint *e = open_endpoint(ep);
    /* As with lci_send, a packet handed over is LCI's even on an error. */
    if (e == NULL) {
        lci_packet_free(packet);
        return lci_error(LCI_ERR_INVAL,
                         "lci_endpoint_send: not an open endpoint");
    }
    if (dest_ep < 0 || dest_ep >= LCI_MAX_ENDPOINTS) {
        lci_packet_free(packet);
        return lci_error(LCI_ERR_INVAL,
                         "lci_endpoint_send: endpoint %d is not one of "
                         "0..%d",
                         dest_ep, LCI_MAX_ENDPOINTS - 1);
    }
    return lci_host_send_to(__func__, packet, dest, (uint16_t)dest_ep, e->id,
                            len);
}

lci_upcall_func_t lci_host_endpoint_upcall(uint16_t id, void **arg_p)
{
    if (id == 0) {
        *arg_p = lci_host->upcall_arg;
        return lci_host->upcall;
    }
    if (id >= LCI_MAX_ENDPOINTS || !lci_host->endpoints[id].open) {
        return NULL;
    }
    *arg_p = lci_host->endpoints[id].arg;
    return lci_host->endpoints[id].upcall;
}
