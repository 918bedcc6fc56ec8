/* fuzz_heap.h - the fuzz_pps harness's heap: what the layers above LCI
 * allocate for one input, dropped whole before the next (fuzz_heap.c). */
#ifndef FUZZ_HEAP_H
#define FUZZ_HEAP_H

/* Frees every block allocated since the last reset and not freed yet. */
void fuzz_heap_reset(void);

#endif
