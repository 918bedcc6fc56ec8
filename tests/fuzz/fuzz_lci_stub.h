/* fuzz_lci_stub.h - one LCI node in process, for fuzzing what runs above
 * LCI (see fuzz_lci_stub.c). */
#ifndef FUZZ_LCI_STUB_H
#define FUZZ_LCI_STUB_H

#include <setjmp.h>
#include <stddef.h>

#define FUZZ_LCI_NODES 4

/* Where lci_abort (1) and a wait for packets that will never come (2)
 * return to. */
extern jmp_buf fuzz_lci_recover;

/* Hands a packet to the client's upcall as if node src had sent it
 * (group -1: unicast).  -1 if no upcall is set. */
int fuzz_lci_deliver(int src, int group, const void *data, size_t len);

/* Fresh node-local state for the next input. */
void fuzz_lci_reset(void);

#endif
