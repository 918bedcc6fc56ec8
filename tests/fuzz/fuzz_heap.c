/* fuzz_heap.c - every malloc, calloc, realloc and free of the objects
 * linked into fuzz_pps (the harness, the LCI stub, Panda, MPI) comes here
 * (the link wraps them: -Wl,--wrap=malloc,...), and each live block is on
 * one list.  An input that Panda or MPI stops halfway (lci_abort) leaves
 * a node's state behind, which a real node would give back when its
 * process ends; here fuzz_heap_reset() gives it back before the next
 * input, so a long `make fuzz` runs in bounded memory instead of growing
 * by a few kilobytes an input until libFuzzer's limit stops it.  The
 * sanitizers and libFuzzer's own allocations are not wrapped (they are not
 * in the objects the link wraps), and ASan still sees every block. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_heap.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

/* A block's header: its place on the list, padded so that what follows
 * keeps malloc's alignment. */
typedef union fuzz_block {
    struct {
        union fuzz_block *prev, *next;
    } link;
    max_align_t align;
} fuzz_block_t;

static fuzz_block_t live = {.link = {&live, &live}};

static void *take(fuzz_block_t *b)
{
    b->link.prev = &live;
    b->link.next = live.link.next;
    live.link.next->link.prev = b;
    live.link.next = b;
    return b + 1;
}

static void drop(fuzz_block_t *b)
{
    b->link.prev->link.next = b->link.next;
    b->link.next->link.prev = b->link.prev;
}

void *__wrap_malloc(size_t size)
{
    if (size > SIZE_MAX - sizeof(fuzz_block_t)) {
        return NULL;
    }
    fuzz_block_t *b = __real_malloc(sizeof *b + size);
    return b != NULL ? take(b) : NULL;
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (size != 0 && n > (SIZE_MAX - sizeof(fuzz_block_t)) / size) {
        return NULL;
    }
    fuzz_block_t *b = __real_calloc(1, sizeof *b + n * size);
    return b != NULL ? take(b) : NULL;
}

void *__wrap_realloc(void *p, size_t size)
{
    if (p == NULL) {
        return __wrap_malloc(size);
    }
    if (size > SIZE_MAX - sizeof(fuzz_block_t)) {
        return NULL;
    }
    fuzz_block_t *b = (fuzz_block_t *)p - 1;
    drop(b);
    fuzz_block_t *moved = __real_realloc(b, sizeof *b + size);
    if (moved == NULL) {
        take(b); /* the old block stands */
        return NULL;
    }
    return take(moved);
}

void __wrap_free(void *p)
{
    if (p != NULL) {
        fuzz_block_t *b = (fuzz_block_t *)p - 1;
        drop(b);
        __real_free(b);
    }
}

void fuzz_heap_reset(void)
{
    while (live.link.next != &live) {
        fuzz_block_t *b = live.link.next;
        drop(b);
        __real_free(b);
    }
}
