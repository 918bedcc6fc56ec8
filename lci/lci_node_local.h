/*
 * lci_node_local.h - per-node state blocks of the libraries a node links
 * (LCI's own, Panda's, MPI's; lci_node_local() in lci.h), switched by an
 * engine that runs several nodes in one process.
 */
#ifndef LCI_NODE_LOCAL_H
#define LCI_NODE_LOCAL_H

#include <stdint.h>

/* The engine runs nnodes nodes in this process (default 1: a node is a
 * process).  Call before any node registers a block. */
void lci_node_local_setup(uint32_t nnodes);

/* Points every registered slot at node's block. */
void lci_node_local_switch(uint32_t node);

/* Releases every block (after the last node has finished). */
void lci_node_local_teardown(void);

#endif
