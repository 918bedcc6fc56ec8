/* fuzz_lci_stub.c - one LCI node, in process, for fuzzing the layers above
 * LCI (tests/fuzz/fuzz_pps.c): the packets a harness hands to
 * fuzz_lci_deliver() reach the client's upcall as if from the network;
 * what the client sends goes nowhere; lci_abort (a client's loud stop on
 * a protocol violation) returns to the harness's fuzz_lci_recover point;
 * fuzz_lci_reset() gives the client fresh node-local state, as a new
 * node would have. */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_lci_stub.h"
#include "lci.h"

#define CAPACITY 1024
#define MAX_LOCALS 8

jmp_buf fuzz_lci_recover;

struct lci_packet {
    unsigned char data[CAPACITY];
};

static lci_upcall_func_t upcall;
static void *upcall_arg;
static struct {
    void **slot;
    void *initial;
} locals[MAX_LOCALS];
static int nlocals;

void fuzz_lci_reset(void)
{
    for (int i = 0; i < nlocals; i++) {
        if (*locals[i].slot != locals[i].initial) {
            free(*locals[i].slot);
        }
        *locals[i].slot = locals[i].initial; /* the next init copies it */
    }
    upcall = NULL;
}

int fuzz_lci_deliver(int src, int group, const void *data, size_t len)
{
    if (upcall == NULL) {
        return -1;
    }
    lci_rpacket_t *p = malloc(sizeof *p);
    void *copy = malloc(len > 0 ? len : 1);
    if (p == NULL || copy == NULL) {
        abort();
    }
    memcpy(copy, data, len);
    *p = (lci_rpacket_t){
        .data = copy, .len = len, .src = src, .group = group};
    if (upcall(p, upcall_arg) == LCI_UPCALL_RELEASE) {
        lci_release(p);
    }
    return 0;
}

lci_status_t lci_node_local(void **slot_p, size_t size)
{
    int i = 0;
    while (i < nlocals && locals[i].slot != slot_p) {
        i++;
    }
    if (i == nlocals) {
        if (nlocals == MAX_LOCALS) {
            abort();
        }
        locals[nlocals].slot = slot_p;
        locals[nlocals].initial = *slot_p;
        nlocals++;
    }
    if (*slot_p == locals[i].initial) {
        void *block = malloc(size);
        if (block == NULL) {
            abort();
        }
        memcpy(block, locals[i].initial, size);
        *slot_p = block;
    }
    return LCI_OK;
}

void lci_abort(int code, const char *message)
{
    (void)code;
    (void)message;
    longjmp(fuzz_lci_recover, 1);
}

lci_status_t lci_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return LCI_OK;
}

lci_status_t lci_finalize(void)
{
    return LCI_OK;
}

int lci_rank(void)
{
    return 0;
}

int lci_size(void)
{
    return FUZZ_LCI_NODES;
}

double lci_wtime(void)
{
    return 0.0;
}

const char *lci_strerror(lci_status_t status)
{
    (void)status;
    return "stub";
}

const char *lci_last_error(void)
{
    return "";
}

size_t lci_packet_capacity(void)
{
    return CAPACITY;
}

lci_status_t lci_packet_alloc(lci_packet_t **packet_p)
{
    *packet_p = malloc(sizeof **packet_p);
    return *packet_p != NULL ? LCI_OK : LCI_ERR_NOMEM;
}

lci_status_t lci_packet_write(lci_packet_t *packet, size_t offset,
                              const void *src, size_t len)
{
    if (offset > CAPACITY || len > CAPACITY - offset) {
        abort(); /* the client wrote past what it was told */
    }
    memcpy(packet->data + offset, src, len);
    return LCI_OK;
}

lci_status_t lci_packet_writev(lci_packet_t *packet, size_t offset,
                               const struct iovec *pieces, int n)
{
    for (int i = 0; i < n; i++) {
        lci_packet_write(packet, offset, pieces[i].iov_base,
                         pieces[i].iov_len);
        offset += pieces[i].iov_len;
    }
    return LCI_OK;
}

lci_status_t lci_packet_free(lci_packet_t *packet)
{
    free(packet);
    return LCI_OK;
}

lci_status_t lci_send(lci_packet_t *packet, int dest, size_t len)
{
    if (dest < 0 || dest >= FUZZ_LCI_NODES || len > CAPACITY) {
        abort();
    }
    free(packet);
    return LCI_OK;
}

lci_status_t lci_sendv(int dest, const struct iovec *pieces, int n)
{
    lci_packet_t *packet;
    lci_status_t st = lci_packet_alloc(&packet);
    if (st == LCI_OK) {
        size_t len = 0;
        for (int i = 0; i < n; i++) {
            len += pieces[i].iov_len;
        }
        lci_packet_writev(packet, 0, pieces, n);
        st = lci_send(packet, dest, len);
    }
    return st;
}

lci_status_t lci_broadcast(lci_packet_t *packet, size_t len)
{
    return lci_send(packet, 0, len);
}

lci_status_t lci_upcall_set(lci_upcall_func_t func, void *arg)
{
    upcall = func;
    upcall_arg = arg;
    return LCI_OK;
}

lci_status_t lci_release(lci_rpacket_t *packet)
{
    free((void *)packet->data);
    free(packet);
    return LCI_OK;
}

int lci_poll(void)
{
    return 0;
}

int lci_poll_wait(void)
{
    longjmp(fuzz_lci_recover, 2); /* nothing more will come */
}

lci_status_t lci_copy(void *dst, const void *src, size_t len)
{
    memmove(dst, src, len);
    return LCI_OK;
}

lci_status_t lci_intr_enable(void)
{
    return LCI_OK;
}

lci_status_t lci_intr_disable(void)
{
    return LCI_OK;
}

lci_status_t lci_fetch_add(int node, unsigned var, int64_t add,
                           int64_t *old_p)
{
    (void)node;
    (void)var;
    (void)add;
    *old_p = 0;
    return LCI_OK;
}

/* Panda-MT's threads: the harness runs Panda-ST, which never makes one. */
lci_thread_t *lci_thread_self(void)
{
    return NULL;
}

lci_status_t lci_thread_create(lci_thread_t **thread_p,
                               void (*func)(void *arg), void *arg)
{
    (void)thread_p;
    (void)func;
    (void)arg;
    return LCI_ERR_UNSUPPORTED;
}

lci_status_t lci_thread_switch(lci_thread_t *to)
{
    (void)to;
    abort();
}

void lci_thread_exit_to(lci_thread_t *to)
{
    (void)to;
    abort();
}

lci_status_t lci_thread_free(lci_thread_t *thread)
{
    (void)thread;
    return LCI_OK;
}
