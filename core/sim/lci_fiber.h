/*
 * lci_fiber.h - user-level contexts: a stack and saved registers each,
 * switched without the kernel.  Boost.Context's fcontext does the switch
 * (its C entry points: make_fcontext, jump_fcontext), in a few
 * nanoseconds; under AddressSanitizer every switch is announced to it.
 * One thread only.
 */
#ifndef LCI_FIBER_H
#define LCI_FIBER_H

#include <stddef.h>

typedef struct lci_fiber lci_fiber_t;
typedef void (*lci_fiber_func_t)(void *arg);

/* The calling thread's own context, to switch away from and back to. */
lci_fiber_t *lci_fiber_main(void);

/* A fiber that will run func(arg) on a stack of stack_size bytes (plus a
 * guard page) when first switched to.  func must never return: it ends
 * with lci_fiber_exit_to.  NULL if memory is short. */
lci_fiber_t *lci_fiber_create(lci_fiber_func_t func, void *arg,
                              size_t stack_size);

/* Switches from the running fiber from to fiber to; returns when some
 * fiber switches back to from. */
void lci_fiber_switch(lci_fiber_t *from, lci_fiber_t *to);

/* Switches from the running fiber from to fiber to for the last time:
 * from will never run again. */
void lci_fiber_exit_to(lci_fiber_t *from, lci_fiber_t *to)
    __attribute__((noreturn));

/* Keeps what a fiber's stack points to alive for leak checkers: a fiber
 * stopped for good (a node killed by fault injection) still holds its
 * memory, as a killed process's is held until the system takes it back.
 * The fiber must then never be freed. */
void lci_fiber_keep_stack(lci_fiber_t *fiber);

/* Frees a fiber that will never run again (not the running one). */
void lci_fiber_free(lci_fiber_t *fiber);

#endif
