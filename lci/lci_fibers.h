/*
 * lci_fibers.h - what the fiber engine's program (lci-fibers) tells the
 * functions it takes over from the C library on the nodes' behalf
 * (lci_fibers_interpose.c).
 */
#ifndef LCI_FIBERS_H
#define LCI_FIBERS_H

/* The rank of the node whose code runs now, or -1 in the engine's own. */
int lci_fibers_running(void);

/* The running node's program ends with code: its exit handlers run, its
 * output is flushed, and the turn passes on. */
void lci_fibers_node_exit(int code) __attribute__((noreturn));

/* Registers an exit handler of the running node's program; 0 or -1. */
int lci_fibers_node_atexit(void (*func)(void *), void *arg);

#endif
