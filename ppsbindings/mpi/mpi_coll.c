/*
 * mpi_coll.c - collective operations on MPI_COMM_WORLD.
 *
 * MPI_Bcast is one Panda broadcast (LCI multicast: packets forwarded along
 * the tree).  MPI_Reduce gathers the contributions up a binomial tree (as
 * MPICH does: the root receives log2(size) messages, not size - 1), and
 * the root combines them in rank order 0..size-1 so that the result equals
 * a serial loop; MPI_Allreduce reduces to rank 0 and broadcasts.  Collectives
 * are called in the same order everywhere, and Panda keeps each sender's
 * messages in order, so the next message from a rank on a collective port
 * belongs to the current call.
 */
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "mpi_internal.h"

/* acc[i] = acc[i] op in[i] for n elements of type T. */
#define COMBINE(T)                                                             \
    do {                                                                       \
        T *a = acc;                                                            \
        const T *b = in;                                                       \
        for (size_t i = 0; i < n; i++) {                                       \
            switch (op) {                                                      \
            case MPI_SUM:                                                      \
                a[i] = (T)(a[i] + b[i]);                                       \
                break;                                                         \
            case MPI_PROD:                                                     \
                a[i] = (T)(a[i] * b[i]);                                       \
                break;                                                         \
            case MPI_MIN:                                                      \
                a[i] = b[i] < a[i] ? b[i] : a[i];                              \
                break;                                                         \
            default:                                                           \
                a[i] = b[i] > a[i] ? b[i] : a[i];                              \
                break;                                                         \
            }                                                                  \
        }                                                                      \
    } while (0)

static void combine(void *acc, const void *in, size_t n, MPI_Datatype type,
                    MPI_Op op)
{
    switch (type) {
    case MPI_CHAR:
        COMBINE(char);
        break;
    case MPI_SIGNED_CHAR:
    case MPI_INT8_T:
        COMBINE(signed char);
        break;
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
    case MPI_UINT8_T:
        COMBINE(unsigned char);
        break;
    case MPI_SHORT:
    case MPI_INT16_T:
        COMBINE(short);
        break;
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T:
        COMBINE(unsigned short);
        break;
    case MPI_INT:
    case MPI_INT32_T:
        COMBINE(int);
        break;
    case MPI_UNSIGNED:
    case MPI_UINT32_T:
        COMBINE(unsigned);
        break;
    case MPI_LONG:
        COMBINE(long);
        break;
    case MPI_UNSIGNED_LONG:
        COMBINE(unsigned long);
        break;
    case MPI_LONG_LONG_INT:
    case MPI_INT64_T:
        COMBINE(long long);
        break;
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T:
        COMBINE(unsigned long long);
        break;
    case MPI_FLOAT:
        COMBINE(float);
        break;
    case MPI_DOUBLE:
        COMBINE(double);
        break;
    case MPI_LONG_DOUBLE:
        COMBINE(long double);
        break;
    default:
        break; /* checked by the caller */
    }
}

static int check_root(const char *fn, int root)
{
    if (root < 0 || root >= mpi->size) {
        return mpi_error(MPI_ERR_ROOT, "%s: root %d; expected 0..%d", fn, root,
                         mpi->size - 1);
    }
    return MPI_SUCCESS;
}

int MPI_Barrier(MPI_Comm comm)
{
    int r = mpi_check("MPI_Barrier", comm);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (pan_barrier() != PAN_OK) {
        return mpi_error(MPI_ERR_OTHER, "MPI_Barrier: %s", pan_last_error());
    }
    return MPI_SUCCESS;
}

static char empty_bcast[1];

/* At a broadcast's first packet: straight into the buffer of the MPI_Bcast
 * this rank waits in, if it is that call's message (the oldest from the
 * root, of the expected length).  A message for a call still to come waits
 * in its packets (PAN_PLACE_LATER) until the call; if it cannot wait
 * longer, or has the wrong length, it is queued in a buffer of ours and
 * MPI_Bcast copies it. */
void *mpi_bcast_place(int src, const void *head, size_t head_len, size_t len,
                      size_t *skip_p, void *arg)
{
    (void)head_len;
    (void)arg;
    mpi_bcast_wait_t *w = &mpi->bcast_wait;
    int earlier =
        mpi->bcast_inflight[src] > 0 || mpi->bcast_from[src].head != NULL;
    int mine = !earlier && w->active && !w->placed && w->root == src;
    *skip_p = 0;
    if (mine && len == w->bytes) {
        w->placed = 1;
        return len > 0 ? w->buf : empty_bcast;
    }
    if (!mine && head != NULL) {
        return PAN_PLACE_LATER;
    }
    mpi->bcast_inflight[src]++; /* queued until its MPI_Bcast */
    if (len > MPI_BCAST_EARLY_MAX) {
        /* Not on the word of a header: Panda's buffer grows with what
         * arrives, and the handler copies it. */
        return NULL;
    }
    mpi_early_t *e = malloc(sizeof *e);
    char *buf = malloc(len > 0 ? len : 1);
    if (e == NULL || buf == NULL) {
        lci_abort(MPI_ERR_INTERN, "MPI: no memory for a broadcast");
    }
    /* ours, in arrival order (a root's broadcasts complete in order) */
    *e = (mpi_early_t){.next = NULL, .buf = buf};
    mpi_early_list_t *l = &mpi->bcast_early[src];
    *(l->head != NULL ? &l->tail->next : &l->head) = e;
    l->tail = e;
    return buf;
}

void mpi_bcast_arrived(int src, const void *data, size_t len, void *arg)
{
    (void)arg;
    mpi_bcast_wait_t *w = &mpi->bcast_wait;
    if (w->placed && !w->done && w->root == src &&
        (data == w->buf || data == empty_bcast)) {
        w->done = 1;
        return;
    }
    mpi->bcast_inflight[src]--;
    mpi_early_list_t *l = &mpi->bcast_early[src];
    if (l->head != NULL && l->head->buf == data) {
        mpi_early_t *e = l->head; /* our buffer: the queue takes it */
        l->head = e->next;
        free(e);
        mpi_queue_take(&mpi->bcast_from[src], src, 0, (char *)(uintptr_t)data,
                       len);
    } else {
        mpi_queue_copy(&mpi->bcast_from[src], src, 0, data, len);
    }
}

static int bcast_ready(void)
{
    const mpi_bcast_wait_t *w = &mpi->bcast_wait;
    return w->done || (!w->placed && mpi->bcast_from[w->root].head != NULL);
}

/* A non-root's part of MPI_Bcast. */
static int bcast_receive(void *buffer, size_t bytes, int root)
{
    mpi_bcast_wait_t *w = &mpi->bcast_wait;
    *w = (mpi_bcast_wait_t){
        .active = 1, .root = root, .buf = buffer, .bytes = bytes};
    while (!bcast_ready()) {
        if (pan_wait() < 0) {
            w->active = 0;
            return mpi_error(MPI_ERR_OTHER, "MPI_Bcast: %s", pan_last_error());
        }
    }
    w->active = 0;
    if (w->done) {
        return MPI_SUCCESS;
    }
    mpi_msg_t *m = mpi_queue_pop(&mpi->bcast_from[root]);
    size_t len = m->len;
    if (len == bytes && len > 0) {
        lci_copy(buffer, m->data, len);
    }
    free(m->data);
    free(m);
    if (len != bytes) {
        return mpi_error(MPI_ERR_TRUNCATE,
                         "MPI_Bcast: the root sent %zu "
                         "bytes, this rank expects %zu",
                         len, bytes);
    }
    return MPI_SUCCESS;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
              MPI_Comm comm)
{
    size_t bytes;
    int r = mpi_check("MPI_Bcast", comm);
    if (r == MPI_SUCCESS) {
        r = mpi_check_buffer("MPI_Bcast", buffer, count, datatype, &bytes);
    }
    if (r == MPI_SUCCESS) {
        r = check_root("MPI_Bcast", root);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (root != mpi->rank) {
        return bcast_receive(buffer, bytes, root);
    }
    pan_msg_t msg;
    pan_msg_init(&msg);
    pan_msg_push(&msg, buffer, bytes);
    if (pan_bcast(MPI_BCAST_PORT, &msg) != PAN_OK) {
        return mpi_error(MPI_ERR_OTHER, "MPI_Bcast: %s", pan_last_error());
    }
    return MPI_SUCCESS;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    size_t bytes;
    int r = mpi_check("MPI_Reduce", comm);
    const void *mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (r == MPI_SUCCESS) {
        r = mpi_check_buffer("MPI_Reduce", mine, count, datatype, &bytes);
    }
    if (r == MPI_SUCCESS) {
        r = check_root("MPI_Reduce", root);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (op != MPI_SUM && op != MPI_MIN && op != MPI_MAX && op != MPI_PROD) {
        return mpi_error(MPI_ERR_OP,
                         "MPI_Reduce: operation %d; offered are "
                         "MPI_SUM, MPI_MIN, MPI_MAX, MPI_PROD",
                         op);
    }
    if (root != mpi->rank && sendbuf == MPI_IN_PLACE) {
        return mpi_error(MPI_ERR_BUFFER, "MPI_Reduce: MPI_IN_PLACE is "
                                         "for the root only");
    }
    if (root == mpi->rank && recvbuf == NULL && count > 0) {
        return mpi_error(MPI_ERR_BUFFER, "MPI_Reduce: NULL receive buffer");
    }
    /* A binomial tree rooted at root, in ranks relative to it (v): my
     * block holds the contributions of my subtree, v .. v + span - 1, in
     * that order; it goes up to my parent once my children's are in. */
    int size = mpi->size, v = (mpi->rank - root + size) % size;
    int span = 1;
    while (span < size && !(v & span)) {
        span <<= 1;
    }
    span = v == 0 ? size : (span < size - v ? span : size - v);
    char *block = malloc((size_t)span * bytes + 1);
    if (block == NULL) {
        return mpi_error(MPI_ERR_INTERN, "MPI_Reduce: no memory");
    }
    memcpy(block, mine, bytes);
    for (int mask = 1; mask < size && r == MPI_SUCCESS; mask <<= 1) {
        if (v & mask) {
            pan_msg_t msg;
            pan_msg_init(&msg);
            pan_msg_push(&msg, block, (size_t)span * bytes);
            if (pan_send((v - mask + root) % size, MPI_REDUCE_PORT, &msg) !=
                PAN_OK) {
                r = mpi_error(MPI_ERR_OTHER, "MPI_Reduce: %s",
                              pan_last_error());
            }
            break;
        }
        int cv = v + mask;
        if (cv >= size) {
            continue;
        }
        int src = (cv + root) % size, n = mask < size - cv ? mask : size - cv;
        mpi_msg_t *m = NULL;
        r = mpi_queue_wait("MPI_Reduce", &mpi->reduce_from[src], &m);
        if (r == MPI_SUCCESS && m->len != (size_t)n * bytes) {
            r = mpi_error(MPI_ERR_TRUNCATE,
                          "MPI_Reduce: rank %d sent %zu bytes, %zu expected",
                          src, m->len, (size_t)n * bytes);
        }
        if (r == MPI_SUCCESS) {
            memcpy(block + (size_t)mask * bytes, m->data, m->len);
        }
        if (m != NULL) {
            free(m->data);
            free(m);
        }
    }
    /* The root combines every contribution in rank order 0..size-1. */
    if (r == MPI_SUCCESS && v == 0 && bytes > 0) {
        char *acc = malloc(bytes);
        if (acc == NULL) {
            free(block);
            return mpi_error(MPI_ERR_INTERN, "MPI_Reduce: no memory");
        }
        for (int src = 0; src < size; src++) {
            const char *in =
                block + (size_t)((src - root + size) % size) * bytes;
            if (src == 0) {
                memcpy(acc, in, bytes);
            } else {
                combine(acc, in, (size_t)count, datatype, op);
            }
        }
        memcpy(recvbuf, acc, bytes);
        free(acc);
    }
    free(block);
    return r;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    const void *mine = sendbuf;
    if (sendbuf == MPI_IN_PLACE && mpi->rank != 0) {
        mine = recvbuf; /* the contribution is in recvbuf everywhere */
    }
    int r = MPI_Reduce(mine, recvbuf, count, datatype, op, 0, comm);
    if (r != MPI_SUCCESS) {
        return r;
    }
    return MPI_Bcast(recvbuf, count, datatype, 0, comm);
}
