/*
 * lci_node_local.c - per-node state blocks (see lci_node_local.h).
 *
 * Each registered slot is a library's pointer to its state.  With one node
 * per process the slot keeps pointing at the library's static block and
 * nothing is allocated; with several, every node gets a copy and a switch
 * costs one store per slot, which is what lets the fiber engine hand the
 * turn on in tens of nanoseconds.
 */
#include <stdlib.h>
#include <string.h>

#include "lci_host.h"
#include "lci_node_local.h"

#define LCI_NODE_LOCAL_MAX 16
#define LCI_NODE_LOCAL_ALIGN 64 /* a block per cache line boundary */

typedef struct {
    void **slot;
    size_t stride;
    char *blocks;  /* nnodes blocks, or NULL with one node per process */
    void *initial; /* the library's static block */
} node_local_t;

static node_local_t locals[LCI_NODE_LOCAL_MAX];
static unsigned nlocals;
static uint32_t local_nodes = 1;
static uint32_t local_current;

void lci_node_local_setup(uint32_t nnodes)
{
    local_nodes = nnodes > 0 ? nnodes : 1;
    local_current = 0;
}

lci_status_t lci_node_local(void **slot_p, size_t size)
{
    if (slot_p == NULL || *slot_p == NULL || size == 0) {
        return lci_error(LCI_ERR_INVAL,
                         "lci_node_local: a slot pointing at the library's "
                         "initial state and a nonzero size are needed");
    }
    size_t stride = (size + LCI_NODE_LOCAL_ALIGN - 1) &
                    ~(size_t)(LCI_NODE_LOCAL_ALIGN - 1);
    for (unsigned i = 0; i < nlocals; i++) {
        if (locals[i].slot == slot_p) {
            if (locals[i].stride != stride) {
                return lci_error(LCI_ERR_INVAL,
                                 "lci_node_local: the slot was registered "
                                 "with another size");
            }
            return LCI_OK;
        }
    }
    if (nlocals == LCI_NODE_LOCAL_MAX) {
        return lci_error(LCI_ERR_NOMEM,
                         "lci_node_local: more than %d libraries keep "
                         "per-node state",
                         LCI_NODE_LOCAL_MAX);
    }
    char *blocks = NULL;
    void *initial = *slot_p;
    if (local_nodes > 1) {
        blocks = aligned_alloc(LCI_NODE_LOCAL_ALIGN, stride * local_nodes);
        if (blocks == NULL) {
            return lci_error(LCI_ERR_NOMEM,
                             "lci_node_local: no memory for %u blocks of "
                             "%zu bytes",
                             local_nodes, size);
        }
        for (uint32_t k = 0; k < local_nodes; k++) {
            memcpy(blocks + k * stride, *slot_p, size);
        }
        *slot_p = blocks + local_current * stride;
    }
    locals[nlocals++] = (node_local_t){slot_p, stride, blocks, initial};
    return LCI_OK;
}

void lci_node_local_switch(uint32_t node)
{
    local_current = node;
    for (unsigned i = 0; i < nlocals; i++) {
        if (locals[i].blocks != NULL) {
            *locals[i].slot = locals[i].blocks + node * locals[i].stride;
        }
    }
}

void lci_node_local_teardown(void)
{
    for (unsigned i = 0; i < nlocals; i++) {
        *locals[i].slot = locals[i].initial;
        free(locals[i].blocks);
    }
    nlocals = 0;
}
