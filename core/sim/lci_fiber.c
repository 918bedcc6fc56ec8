/*
 * lci_fiber.c - user-level contexts over Boost.Context's fcontext (see
 * lci_fiber.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lci_fiber.h"

#if defined(__SANITIZE_ADDRESS__)
#define LCI_FIBER_ASAN 1
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#else
#define LCI_FIBER_ASAN 0
#endif

/* Boost.Context's C interface (boost/context/detail/fcontext.hpp). */
typedef void *fcontext_t;
typedef struct {
    fcontext_t fctx;
    void *data;
} transfer_t;
transfer_t jump_fcontext(fcontext_t const to, void *vp);
fcontext_t make_fcontext(void *sp, size_t size, void (*fn)(transfer_t));

struct lci_fiber {
    fcontext_t ctx; /* saved registers while suspended */
    lci_fiber_func_t func;
    void *arg;
    char *map; /* guard page and stack; NULL for the thread's own */
    size_t map_size;
    const void *stack_bottom; /* lowest stack address, for AddressSanitizer */
    size_t stack_size;
    void *fake_stack; /* AddressSanitizer's, while suspended */
    int started;
};

static lci_fiber_t thread_fiber = {.started = 1};
/* The fiber being started: fcontext passes a new fiber only the one that
 * jumped to it. */
static lci_fiber_t *starting;

lci_fiber_t *lci_fiber_main(void)
{
    return &thread_fiber;
}

#if LCI_FIBER_ASAN
static void announce_leave(lci_fiber_t *from, lci_fiber_t *to, int last)
{
    __sanitizer_start_switch_fiber(last ? NULL : &from->fake_stack,
                                   to->stack_bottom, to->stack_size);
}

static void announce_arrive(lci_fiber_t *self, lci_fiber_t *from)
{
    const void *bottom;
    size_t size;
    __sanitizer_finish_switch_fiber(self->fake_stack, &bottom, &size);
    if (from == &thread_fiber && from->stack_bottom == NULL) {
        /* The thread's own stack, learnt on leaving it the first time. */
        from->stack_bottom = bottom;
        from->stack_size = size;
    }
}
#else
static void announce_leave(lci_fiber_t *from, lci_fiber_t *to, int last)
{
    (void)from, (void)to, (void)last;
}

static void announce_arrive(lci_fiber_t *self, lci_fiber_t *from)
{
    (void)self, (void)from;
}
#endif

/* What the fiber that jumped here left is its saved context. */
static lci_fiber_t *arrived(transfer_t t)
{
    lci_fiber_t *from = t.data;
    from->ctx = t.fctx;
    return from;
}

static void entry(transfer_t t)
{
    lci_fiber_t *self = starting;
    lci_fiber_t *from = arrived(t);
    self->fake_stack = NULL;
    announce_arrive(self, from);
    self->func(self->arg);
    abort(); /* func must end with lci_fiber_exit_to */
}

lci_fiber_t *lci_fiber_create(lci_fiber_func_t func, void *arg,
                              size_t stack_size)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t size = (stack_size + (size_t)page - 1) & ~((size_t)page - 1);
    lci_fiber_t *f = calloc(1, sizeof *f);
    if (f == NULL) {
        return NULL;
    }
    /* Reserved, not committed: pages are taken as the stack grows. */
    f->map_size = size + (size_t)page;
    f->map = mmap(NULL, f->map_size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1,
                  0);
    if (f->map == MAP_FAILED) {
        free(f);
        return NULL;
    }
    mprotect(f->map, (size_t)page, PROT_NONE); /* overflow faults here */
    f->stack_bottom = f->map + page;
    f->stack_size = size;
    f->func = func;
    f->arg = arg;
    f->ctx = make_fcontext(f->map + f->map_size, size, entry);
    return f;
}

static transfer_t jump(lci_fiber_t *from, lci_fiber_t *to)
{
    if (!to->started) {
        to->started = 1;
        starting = to; /* read by entry() */
    }
    return jump_fcontext(to->ctx, from);
}

void lci_fiber_switch(lci_fiber_t *from, lci_fiber_t *to)
{
    announce_leave(from, to, 0);
    lci_fiber_t *came = arrived(jump(from, to));
    announce_arrive(from, came);
}

void lci_fiber_exit_to(lci_fiber_t *from, lci_fiber_t *to)
{
    announce_leave(from, to, 1);
    jump(from, to);
    abort(); /* nothing switches back to a fiber that has ended */
}

void lci_fiber_keep_stack(lci_fiber_t *fiber)
{
#if LCI_FIBER_ASAN
    __lsan_register_root_region(fiber->stack_bottom, fiber->stack_size);
#else
    (void)fiber;
#endif
}

void lci_fiber_free(lci_fiber_t *fiber)
{
    if (fiber != NULL && fiber != &thread_fiber) {
        munmap(fiber->map, fiber->map_size);
        free(fiber);
    }
}
