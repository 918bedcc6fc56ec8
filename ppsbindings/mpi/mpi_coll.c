/*
 * mpi_coll.c - the collective operations.
 *
 * On MPI_COMM_WORLD, MPI_Bcast is one Panda broadcast (LCI multicast:
 * packets forwarded along the tree, by the host or the NI as the
 * decomposition places it), MPI_Barrier is LCI's barrier, and
 * MPI_Allreduce and MPI_Allgather end in such broadcasts.  Everything
 * else, and every collective on another communicator or non-blocking, is
 * a schedule (mpi_sched.c) of messages on the communicator's collective
 * context: binomial trees for broadcast and reduction, direct exchanges for
 * gather, scatter and all-to-all, a dissemination barrier, a chain for
 * scans.  Reductions combine in rank order 0..size-1, so floating-point
 * results equal a serial loop over the ranks, whatever the operation.
 */
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "mpi_internal.h"
#include "mpi_sched.h"

/* ---- argument checks ------------------------------------------------------ */

static int check_root(const char *fn, const mpi_comm_t *c, int root)
{
    if (root < 0 || root >= c->size) {
        return mpi_error(MPI_ERR_ROOT, "%s: root %d; expected 0..%d", fn, root,
                         c->size - 1);
    }
    return MPI_SUCCESS;
}

static int check_request(const char *fn, const MPI_Request *request)
{
    return request == NULL
               ? mpi_error(MPI_ERR_REQUEST, "%s: NULL request", fn)
               : MPI_SUCCESS;
}

/* The schedule of a collective on c; *s_p NULL out of memory. */
static int sched_begin(const char *fn, mpi_comm_t *c, mpi_sched_t **s_p)
{
    *s_p = mpi_sched_new(c);
    return *s_p != NULL ? MPI_SUCCESS
                        : mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
}

/* Runs s now, or starts it for request (non-blocking). */
static int sched_go(const char *fn, mpi_sched_t *s, MPI_Request *request)
{
    return request == NULL ? mpi_sched_run(fn, s)
                           : mpi_sched_start(fn, s, request);
}

static void sched_reduction(mpi_sched_t *s, MPI_Op op, const mpi_type_t *t,
                            MPI_Datatype type)
{
    mpi_type_hold(t);
    s->op = op;
    s->rtype = t;
    s->rtype_h = type;
}

/* The slot of block i in a buffer of blocks of count elements of t. */
static char *slot(void *buf, const mpi_type_t *t, size_t i, size_t count)
{
    return (char *)buf + (MPI_Aint)(i * count) * t->extent;
}

static char *slot_at(void *buf, const mpi_type_t *t, int displ)
{
    return (char *)buf + (MPI_Aint)displ * t->extent;
}

/* ---- schedule builders ---------------------------------------------------- */

/* Binomial broadcast of bytes packed at buf from root (relative ranks, as
 * MPICH: receive from the parent, then send to the children, largest
 * subtree first). */
static void build_bcast(mpi_sched_t *s, void *buf, size_t bytes, int root)
{
    int n = s->comm->size, v = (s->comm->rank - root + n) % n;
    int mask = 1;
    while (mask < n) {
        if (v & mask) {
            mpi_sched_recv(s, (v - mask + root) % n, buf, bytes);
            mpi_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (v + mask < n) {
            mpi_sched_send(s, (v + mask + root) % n, buf, bytes);
        }
    }
    mpi_sched_round(s);
}

/* Reduction of count elements (bytes packed) to root: the contributions go
 * up a binomial tree as blocks in relative rank order, and the root
 * combines them in rank order 0..size-1 into out (packed). */
static void build_reduce(mpi_sched_t *s, const void *mine, void *out,
                         size_t count, size_t bytes, int root)
{
    int n = s->comm->size, v = (s->comm->rank - root + n) % n;
    int span = 1;
    while (span < n && !(v & span)) {
        span <<= 1;
    }
    span = v == 0 ? n : (span < n - v ? span : n - v);
    char *block = mpi_sched_buf(s, (size_t)span * bytes);
    if (block == NULL) {
        return;
    }
    mpi_sched_copy(s, mine, block, bytes);
    int parent = -1;
    for (int mask = 1; mask < n; mask <<= 1) {
        if (v & mask) {
            parent = (v - mask + root) % n;
            break;
        }
        int cv = v + mask;
        if (cv < n) {
            int m = mask < n - cv ? mask : n - cv;
            mpi_sched_recv(s, (cv + root) % n, block + (size_t)mask * bytes,
                           (size_t)m * bytes);
        }
    }
    mpi_sched_round(s);
    if (parent >= 0) {
        mpi_sched_send(s, parent, block, (size_t)span * bytes);
        mpi_sched_round(s);
        return;
    }
    /* block of rank r is at relative position (r - root) mod n */
    char *acc = block + (size_t)((0 - root + n) % n) * bytes;
    for (int r = 1; r < n; r++) {
        char *x = block + (size_t)((r - root + n) % n) * bytes;
        mpi_sched_reduce(s, acc, x, count); /* x = acc op x */
        acc = x;
    }
    mpi_sched_copy(s, acc, out, bytes);
}

/* A dissemination barrier: in round k, a message to rank + 2^k and one
 * from rank - 2^k. */
static void build_barrier(mpi_sched_t *s)
{
    int n = s->comm->size, me = s->comm->rank;
    for (int d = 1; d < n; d <<= 1) {
        mpi_sched_recv(s, (me - d + n) % n, NULL, 0);
        mpi_sched_send(s, (me + d) % n, NULL, 0);
        mpi_sched_round(s);
    }
}

/* ---- MPI_Bcast on MPI_COMM_WORLD: LCI multicast --------------------------- */

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

/* A non-root's part of a broadcast on MPI_COMM_WORLD, into bytes packed. */
static int world_bcast_receive(const char *fn, void *buffer, size_t bytes,
                               int root)
{
    mpi_bcast_wait_t *w = &mpi->bcast_wait;
    *w = (mpi_bcast_wait_t){
        .active = 1, .root = root, .buf = buffer, .bytes = bytes};
    while (!bcast_ready()) {
        int r = mpi_progress(fn, 1);
        if (r != MPI_SUCCESS) {
            w->active = 0;
            return r;
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
                         "%s: the root sent %zu bytes, this rank expects %zu",
                         fn, len, bytes);
    }
    return MPI_SUCCESS;
}

static int world_bcast_send(const char *fn, const void *buffer, size_t bytes)
{
    pan_msg_t msg;
    pan_msg_init(&msg);
    pan_msg_push(&msg, buffer, bytes);
    if (pan_bcast(MPI_BCAST_PORT, &msg) != PAN_OK) {
        return mpi_error(MPI_ERR_OTHER, "%s: %s", fn, pan_last_error());
    }
    return MPI_SUCCESS;
}

/* A broadcast of count elements of t at buf on MPI_COMM_WORLD. */
static int world_bcast(const char *fn, void *buf, size_t count,
                       const mpi_type_t *t, int root)
{
    size_t bytes = count * t->size;
    void *start = (void *)(uintptr_t)mpi_type_contig_start(t, buf, count);
    void *packed = start != NULL ? start : malloc(bytes > 0 ? bytes : 1);
    if (packed == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    int r;
    if (root == mpi->rank) {
        if (start == NULL) {
            mpi_type_pack(t, count, buf, packed);
        }
        r = world_bcast_send(fn, packed, bytes);
    } else {
        r = world_bcast_receive(fn, packed, bytes, root);
        if (r == MPI_SUCCESS && start == NULL) {
            mpi_type_unpack(t, count, packed, buf);
        }
    }
    if (start == NULL) {
        free(packed);
    }
    return r;
}

static int is_world(const mpi_comm_t *c)
{
    return c->ctx == MPI_CTX_WORLD;
}

/* ---- barrier and broadcast ----------------------------------------------- */

static int barrier(const char *fn, MPI_Comm comm, MPI_Request *request)
{
    mpi_comm_t *c;
    mpi_sched_t *s;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS && request != NULL) {
        r = check_request(fn, request);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (request == NULL && is_world(c)) {
        if (pan_barrier() != PAN_OK) {
            return mpi_error(MPI_ERR_OTHER, "%s: %s", fn, pan_last_error());
        }
        return MPI_SUCCESS;
    }
    if ((r = sched_begin(fn, c, &s)) != MPI_SUCCESS) {
        return r;
    }
    build_barrier(s);
    return sched_go(fn, s, request);
}

int PMPI_Barrier(MPI_Comm comm)
{
    return barrier("MPI_Barrier", comm, NULL);
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    if (request == NULL) {
        return mpi_error(MPI_ERR_REQUEST, "MPI_Ibarrier: NULL request");
    }
    return barrier("MPI_Ibarrier", comm, request);
}

static int bcast(const char *fn, void *buffer, int count,
                 MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    mpi_comm_t *c;
    const mpi_type_t *t;
    size_t bytes;
    mpi_sched_t *s;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS) {
        r = mpi_check_buffer(fn, buffer, count, datatype, &t, &bytes);
    }
    if (r == MPI_SUCCESS) {
        r = check_root(fn, c, root);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (request == NULL && is_world(c)) {
        return world_bcast(fn, buffer, (size_t)count, t, root);
    }
    if ((r = sched_begin(fn, c, &s)) != MPI_SUCCESS) {
        return r;
    }
    void *packed = (void *)(uintptr_t)mpi_sched_packed(s, t, buffer,
                                                       (size_t)count);
    if (packed != NULL) {
        build_bcast(s, packed, bytes, root);
        if (packed != mpi_type_contig_start(t, buffer, (size_t)count) &&
            root != c->rank) {
            mpi_sched_unpack(s, t, (size_t)count, packed, buffer);
        }
    }
    return sched_go(fn, s, request);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm)
{
    return bcast("MPI_Bcast", buffer, count, datatype, root, comm, NULL);
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                MPI_Comm comm, MPI_Request *request)
{
    int r = check_request("MPI_Ibcast", request);
    return r != MPI_SUCCESS ? r
                            : bcast("MPI_Ibcast", buffer, count, datatype,
                                    root, comm, request);
}

/* ---- reductions -------------------------------------------------------- */

/* The checks of a reduction; *mine_p the contribution (recvbuf in place). */
static int reduction_args(const char *fn, const void *sendbuf, void *recvbuf,
                          int count, MPI_Datatype datatype, MPI_Op op,
                          mpi_comm_t *c, int root_here,
                          const mpi_type_t **t_p, size_t *bytes_p,
                          const void **mine_p)
{
    const void *mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int r = mpi_check_buffer(fn, mine, count, datatype, t_p, bytes_p);
    if (r == MPI_SUCCESS) {
        r = mpi_op_check(fn, op, *t_p);
    }
    if (r == MPI_SUCCESS && root_here && recvbuf == NULL && count > 0 &&
        (*t_p)->predefined) {
        r = mpi_error(MPI_ERR_BUFFER, "%s: NULL receive buffer", fn);
    }
    (void)c;
    *mine_p = mine;
    return r;
}

/* Reduce (all 0) or allreduce (all 1) as one schedule; the result is
 * unpacked into recvbuf where it is wanted. */
static int reduce_sched(const char *fn, const void *sendbuf, void *recvbuf,
                        int count, MPI_Datatype datatype, MPI_Op op, int root,
                        int all, mpi_comm_t *c, MPI_Request *request)
{
    const mpi_type_t *t;
    size_t bytes;
    const void *mine;
    mpi_sched_t *s;
    int r = reduction_args(fn, sendbuf, recvbuf, count, datatype, op, c,
                           all || root == c->rank, &t, &bytes, &mine);
    if (r == MPI_SUCCESS) {
        r = sched_begin(fn, c, &s);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    sched_reduction(s, op, t, datatype);
    const void *in = mpi_sched_packed(s, t, mine, (size_t)count);
    char *out = mpi_sched_buf(s, bytes);
    if (in != NULL && out != NULL) {
        build_reduce(s, in, out, (size_t)count, bytes, root);
        if (all) {
            build_bcast(s, out, bytes, root);
        }
        if (all || root == c->rank) {
            mpi_sched_unpack(s, t, (size_t)count, out, recvbuf);
        }
    }
    return sched_go(fn, s, request);
}

static int reduce(const char *fn, const void *sendbuf, void *recvbuf,
                  int count, MPI_Datatype datatype, MPI_Op op, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    mpi_comm_t *c;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS) {
        r = check_root(fn, c, root);
    }
    if (r == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && root != c->rank) {
        r = mpi_error(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is for the root only",
                      fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    return reduce_sched(fn, sendbuf, recvbuf, count, datatype, op, root, 0, c,
                        request);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    return reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root,
                  comm, NULL);
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    int r = check_request("MPI_Ireduce", request);
    return r != MPI_SUCCESS ? r
                            : reduce("MPI_Ireduce", sendbuf, recvbuf, count,
                                     datatype, op, root, comm, request);
}

static int allreduce(const char *fn, const void *sendbuf, void *recvbuf,
                     int count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Request *request)
{
    mpi_comm_t *c;
    int r = mpi_check_comm(fn, comm, &c);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (request != NULL || !is_world(c)) {
        return reduce_sched(fn, sendbuf, recvbuf, count, datatype, op, 0, 1, c,
                            request);
    }
    /* On MPI_COMM_WORLD: reduce to rank 0, then LCI multicast. */
    const void *mine = sendbuf;
    if (sendbuf == MPI_IN_PLACE && c->rank != 0) {
        mine = recvbuf; /* the contribution is in recvbuf everywhere */
    }
    r = reduce_sched(fn, mine, recvbuf, count, datatype, op, 0, 0, c, NULL);
    if (r != MPI_SUCCESS) {
        return r;
    }
    return world_bcast(fn, recvbuf, (size_t)count, mpi_type_get(datatype), 0);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op,
                     comm, NULL);
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request)
{
    int r = check_request("MPI_Iallreduce", request);
    return r != MPI_SUCCESS ? r
                            : allreduce("MPI_Iallreduce", sendbuf, recvbuf,
                                        count, datatype, op, comm, request);
}

/* Reduce-scatter: a reduction of the whole vector to rank 0, which sends
 * each rank its part (counts[i] elements). */
static int reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
                          const int counts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    mpi_comm_t *c;
    const mpi_type_t *t;
    size_t bytes;
    const void *mine;
    mpi_sched_t *s;
    int r = mpi_check_comm(fn, comm, &c);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (counts == NULL) {
        return mpi_error(MPI_ERR_ARG, "%s: NULL counts", fn);
    }
    long total = 0;
    for (int i = 0; i < c->size; i++) {
        if (counts[i] < 0) {
            return mpi_error(MPI_ERR_COUNT, "%s: count %d of rank %d", fn,
                             counts[i], i);
        }
        total += counts[i];
    }
    if (total > MPI_TAG_UB_VALUE) {
        return mpi_error(MPI_ERR_COUNT, "%s: %ld elements are too many", fn,
                         total);
    }
    r = reduction_args(fn, sendbuf, recvbuf, (int)total, datatype, op, c, 1,
                       &t, &bytes, &mine);
    if (r == MPI_SUCCESS) {
        r = sched_begin(fn, c, &s);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    sched_reduction(s, op, t, datatype);
    const void *in = mpi_sched_packed(s, t, mine, (size_t)total);
    char *out = mpi_sched_buf(s, bytes);
    if (in == NULL || out == NULL) {
        return sched_go(fn, s, request);
    }
    build_reduce(s, in, out, (size_t)total, bytes, 0);
    size_t mybytes = (size_t)counts[c->rank] * t->size;
    if (c->rank == 0) {
        size_t off = 0;
        for (int i = 0; i < c->size; i++) {
            size_t b = (size_t)counts[i] * t->size;
            if (i != 0) {
                mpi_sched_send(s, i, out + off, b);
            }
            off += b;
        }
        mpi_sched_round(s);
        mpi_sched_unpack(s, t, (size_t)counts[0], out, recvbuf);
    } else {
        char *part = mpi_sched_buf(s, mybytes);
        if (part != NULL) {
            mpi_sched_recv(s, 0, part, mybytes);
            mpi_sched_round(s);
            mpi_sched_unpack(s, t, (size_t)counts[c->rank], part, recvbuf);
        }
    }
    return sched_go(fn, s, request);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts,
                          datatype, op, comm, NULL);
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                         const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    int r = check_request("MPI_Ireduce_scatter", request);
    return r != MPI_SUCCESS
               ? r
               : reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf,
                                recvcounts, datatype, op, comm, request);
}

/* Reduce-scatter with one count for every rank (the schedule reads the
 * counts while it is built). */
static int reduce_scatter_block(const char *fn, const void *sendbuf,
                                void *recvbuf, int recvcount,
                                MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, MPI_Request *request)
{
    mpi_comm_t *c;
    int r = mpi_check_comm(fn, comm, &c);
    if (r != MPI_SUCCESS) {
        return r;
    }
    int *counts = malloc((size_t)c->size * sizeof *counts);
    if (counts == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    for (int i = 0; i < c->size; i++) {
        counts[i] = recvcount;
    }
    r = reduce_scatter(fn, sendbuf, recvbuf, counts, datatype, op, comm,
                       request);
    free(counts);
    return r;
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                              int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm)
{
    return reduce_scatter_block("MPI_Reduce_scatter_block", sendbuf, recvbuf,
                                recvcount, datatype, op, comm, NULL);
}

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                               int recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    int r = check_request("MPI_Ireduce_scatter_block", request);
    return r != MPI_SUCCESS
               ? r
               : reduce_scatter_block("MPI_Ireduce_scatter_block", sendbuf,
                                      recvbuf, recvcount, datatype, op, comm,
                                      request);
}

/* Inclusive (ex 0) or exclusive (ex 1) prefix reduction along the chain of
 * ranks: rank r gets x_0 op ... op x_r (x_(r-1) for the exclusive one). */
static int scan(const char *fn, const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int ex,
                MPI_Request *request)
{
    mpi_comm_t *c;
    const mpi_type_t *t;
    size_t bytes;
    const void *mine;
    mpi_sched_t *s;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS) {
        r = reduction_args(fn, sendbuf, recvbuf, count, datatype, op, c, 1, &t,
                           &bytes, &mine);
    }
    if (r == MPI_SUCCESS) {
        r = sched_begin(fn, c, &s);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    sched_reduction(s, op, t, datatype);
    const void *in = mpi_sched_packed(s, t, mine, (size_t)count);
    char *acc = mpi_sched_buf(s, bytes), *prev = mpi_sched_buf(s, bytes);
    if (in == NULL || acc == NULL || prev == NULL) {
        return sched_go(fn, s, request);
    }
    int me = c->rank, n = c->size;
    mpi_sched_copy(s, in, acc, bytes);
    if (me > 0) {
        mpi_sched_recv(s, me - 1, prev, bytes);
        mpi_sched_round(s);
        mpi_sched_reduce(s, prev, acc, (size_t)count); /* prev op mine */
        if (ex) {
            mpi_sched_unpack(s, t, (size_t)count, prev, recvbuf);
        }
    }
    if (me < n - 1) {
        mpi_sched_send(s, me + 1, acc, bytes);
        mpi_sched_round(s);
    }
    if (!ex) {
        mpi_sched_unpack(s, t, (size_t)count, acc, recvbuf);
    }
    return sched_go(fn, s, request);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, 0,
                NULL);
}

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request *request)
{
    int r = check_request("MPI_Iscan", request);
    return r != MPI_SUCCESS ? r
                            : scan("MPI_Iscan", sendbuf, recvbuf, count,
                                   datatype, op, comm, 0, request);
}

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return scan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, 1,
                NULL);
}

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request *request)
{
    int r = check_request("MPI_Iexscan", request);
    return r != MPI_SUCCESS ? r
                            : scan("MPI_Iexscan", sendbuf, recvbuf, count,
                                   datatype, op, comm, 1, request);
}

/* ---- gather and scatter ----------------------------------------------------- */

/* What the *v collectives share: counts and displacements per rank
 * (displacements in elements of the type), or one count for all. */
typedef struct {
    const int *counts, *displs;
    int count; /* when counts is NULL: every rank's */
} mpi_layout_t;

static int layout_count(const mpi_layout_t *l, int i)
{
    return l->counts != NULL ? l->counts[i] : l->count;
}

static char *layout_slot(const mpi_layout_t *l, void *buf, const mpi_type_t *t,
                         int i)
{
    return l->displs != NULL ? slot_at(buf, t, l->displs[i])
                             : slot(buf, t, (size_t)i, (size_t)l->count);
}

static int layout_check(const char *fn, const mpi_comm_t *c,
                        const mpi_layout_t *l)
{
    if (l->counts == NULL) {
        return l->count < 0 ? mpi_error(MPI_ERR_COUNT, "%s: count %d", fn,
                                        l->count)
                            : MPI_SUCCESS;
    }
    if (l->displs == NULL) {
        return mpi_error(MPI_ERR_ARG, "%s: NULL displacements", fn);
    }
    for (int i = 0; i < c->size; i++) {
        if (l->counts[i] < 0) {
            return mpi_error(MPI_ERR_COUNT, "%s: count %d for rank %d", fn,
                             l->counts[i], i);
        }
    }
    return MPI_SUCCESS;
}

/* Gather to root: the root receives each rank's packed block and unpacks
 * it into its slot. */
static int gather(const char *fn, const void *sendbuf, int sendcount,
                  MPI_Datatype sendtype, void *recvbuf, mpi_layout_t rl,
                  MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    mpi_comm_t *c;
    const mpi_type_t *st = NULL, *rt = NULL;
    mpi_sched_t *s;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS) {
        r = check_root(fn, c, root);
    }
    int at_root = r == MPI_SUCCESS && root == c->rank;
    int in_place = at_root && sendbuf == MPI_IN_PLACE;
    if (r == MPI_SUCCESS && !in_place) {
        r = mpi_type_check(fn, sendtype, &st);
        if (r == MPI_SUCCESS && sendcount < 0) {
            r = mpi_error(MPI_ERR_COUNT, "%s: send count %d", fn, sendcount);
        }
    }
    if (r == MPI_SUCCESS && at_root) {
        r = mpi_type_check(fn, recvtype, &rt);
        if (r == MPI_SUCCESS) {
            r = layout_check(fn, c, &rl);
        }
    }
    if (r == MPI_SUCCESS) {
        r = sched_begin(fn, c, &s);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    const void *mine =
        in_place ? NULL : mpi_sched_packed(s, st, sendbuf, (size_t)sendcount);
    if (!at_root) {
        if (mine != NULL || sendcount == 0) {
            mpi_sched_send(s, root, mine, (size_t)sendcount * st->size);
            mpi_sched_round(s);
        }
        return sched_go(fn, s, request);
    }
    char **tmp = mpi_sched_buf(s, (size_t)c->size * sizeof *tmp);
    if (tmp == NULL) {
        return sched_go(fn, s, request);
    }
    for (int i = 0; i < c->size; i++) {
        size_t n = (size_t)layout_count(&rl, i);
        tmp[i] = NULL;
        if (i == c->rank) {
            if (!in_place && mine != NULL) {
                mpi_sched_unpack(s, rt, n, mine,
                                 layout_slot(&rl, recvbuf, rt, i));
            }
        } else if ((tmp[i] = mpi_sched_buf(s, n * rt->size)) != NULL) {
            mpi_sched_recv(s, i, tmp[i], n * rt->size);
        }
    }
    mpi_sched_round(s);
    for (int i = 0; i < c->size; i++) {
        if (tmp[i] != NULL) {
            mpi_sched_unpack(s, rt, (size_t)layout_count(&rl, i), tmp[i],
                             layout_slot(&rl, recvbuf, rt, i));
        }
    }
    return sched_go(fn, s, request);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    return gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf,
                  (mpi_layout_t){.count = recvcount}, recvtype, root, comm,
                  NULL);
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    int r = check_request("MPI_Igather", request);
    return r != MPI_SUCCESS
               ? r
               : gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf,
                        (mpi_layout_t){.count = recvcount}, recvtype, root,
                        comm, request);
}

/* The per-rank layout of a v-form's root side: only the root reads the
 * counts, so the others may pass NULL. */
static mpi_layout_t root_layout(const int counts[], const int displs[])
{
    static const int none[1];
    return (mpi_layout_t){.counts = counts != NULL ? counts : none,
                          .displs = displs};
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf,
                  root_layout(recvcounts, displs), recvtype, root, comm,
                  NULL);
}

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    int r = check_request("MPI_Igatherv", request);
    return r != MPI_SUCCESS
               ? r
               : gather("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf,
                        root_layout(recvcounts, displs), recvtype, root, comm,
                        request);
}

/* Scatter from root: the root packs each rank's block and sends it. */
static int scatter(const char *fn, const void *sendbuf, mpi_layout_t sl,
                   MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    mpi_comm_t *c;
    const mpi_type_t *st = NULL, *rt = NULL;
    mpi_sched_t *s;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS) {
        r = check_root(fn, c, root);
    }
    int at_root = r == MPI_SUCCESS && root == c->rank;
    int in_place = at_root && recvbuf == MPI_IN_PLACE;
    if (r == MPI_SUCCESS && !in_place) {
        r = mpi_type_check(fn, recvtype, &rt);
        if (r == MPI_SUCCESS && recvcount < 0) {
            r = mpi_error(MPI_ERR_COUNT, "%s: receive count %d", fn,
                          recvcount);
        }
    }
    if (r == MPI_SUCCESS && at_root) {
        r = mpi_type_check(fn, sendtype, &st);
        if (r == MPI_SUCCESS) {
            r = layout_check(fn, c, &sl);
        }
    }
    if (r == MPI_SUCCESS) {
        r = sched_begin(fn, c, &s);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (!at_root) {
        size_t bytes = (size_t)recvcount * rt->size;
        char *tmp = mpi_sched_buf(s, bytes);
        if (tmp != NULL) {
            mpi_sched_recv(s, root, tmp, bytes);
            mpi_sched_round(s);
            mpi_sched_unpack(s, rt, (size_t)recvcount, tmp, recvbuf);
        }
        return sched_go(fn, s, request);
    }
    for (int i = 0; i < c->size; i++) {
        size_t n = (size_t)layout_count(&sl, i);
        const void *part = mpi_sched_packed(
            s, st, layout_slot(&sl, (void *)(uintptr_t)sendbuf, st, i), n);
        if (part == NULL) {
            break;
        }
        if (i != c->rank) {
            mpi_sched_send(s, i, part, n * st->size);
        } else if (!in_place) {
            mpi_sched_unpack(s, rt, (size_t)recvcount, part, recvbuf);
        }
    }
    mpi_sched_round(s);
    return sched_go(fn, s, request);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    return scatter("MPI_Scatter", sendbuf, (mpi_layout_t){.count = sendcount},
                   sendtype, recvbuf, recvcount, recvtype, root, comm, NULL);
}

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request)
{
    int r = check_request("MPI_Iscatter", request);
    return r != MPI_SUCCESS
               ? r
               : scatter("MPI_Iscatter", sendbuf,
                         (mpi_layout_t){.count = sendcount}, sendtype,
                         recvbuf, recvcount, recvtype, root, comm, request);
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[],
                  const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm)
{
    return scatter("MPI_Scatterv", sendbuf, root_layout(sendcounts, displs),
                   sendtype, recvbuf, recvcount, recvtype, root, comm, NULL);
}

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request *request)
{
    int r = check_request("MPI_Iscatterv", request);
    return r != MPI_SUCCESS
               ? r
               : scatter("MPI_Iscatterv", sendbuf,
                         root_layout(sendcounts, displs), sendtype, recvbuf,
                         recvcount, recvtype, root, comm, request);
}

/* ---- all-to-all exchanges ------------------------------------------------------ */

/* Every rank sends block i of its data to rank i and receives block j of
 * its result from rank j (all-to-all), or sends the same block to all
 * (allgather: sl NULL); types per peer (alltoallw) or one for all. */
typedef struct {
    const void *sendbuf;
    mpi_layout_t sl;
    const MPI_Datatype *stypes; /* alltoallw: per peer, byte displs */
    MPI_Datatype stype;
    int same_block; /* allgather: one block to everyone */
    void *recvbuf;
    mpi_layout_t rl;
    const MPI_Datatype *rtypes;
    MPI_Datatype rtype;
} mpi_exchange_t;

static int exchange_type(const char *fn, const MPI_Datatype *types,
                         MPI_Datatype type, int i, const mpi_type_t **t_p)
{
    return mpi_type_check(fn, types != NULL ? types[i] : type, t_p);
}

static char *exchange_slot(const mpi_layout_t *l, const MPI_Datatype *types,
                           void *buf, const mpi_type_t *t, int i)
{
    if (types != NULL) { /* alltoallw: displacements in bytes */
        return (char *)buf + l->displs[i];
    }
    return layout_slot(l, buf, t, i);
}

/* What goes to rank i, packed now: block i of the data (in place: of the
 * result buffer), or the one block of an allgather. */
static const void *exchange_part(const char *fn, mpi_sched_t *s,
                                 const mpi_exchange_t *x, int i,
                                 size_t *bytes_p)
{
    const mpi_type_t *t;
    const void *buf;
    size_t n;
    if (x->sendbuf == MPI_IN_PLACE) {
        exchange_type(fn, x->rtypes, x->rtype, i, &t);
        n = (size_t)layout_count(&x->rl, i);
        buf = exchange_slot(&x->rl, x->rtypes, x->recvbuf, t, i);
    } else {
        exchange_type(fn, x->stypes, x->stype, i, &t);
        n = (size_t)layout_count(&x->sl, i);
        buf = x->same_block ? x->sendbuf
                            : exchange_slot(&x->sl, x->stypes,
                                            (void *)(uintptr_t)x->sendbuf, t,
                                            i);
    }
    *bytes_p = n * t->size;
    return mpi_sched_packed(s, t, buf, n);
}

static int exchange(const char *fn, const mpi_exchange_t *x, MPI_Comm comm,
                    MPI_Request *request)
{
    mpi_comm_t *c;
    mpi_sched_t *s;
    int r = mpi_check_comm(fn, comm, &c);
    int in_place = x->sendbuf == MPI_IN_PLACE;
    if (r == MPI_SUCCESS && !in_place && !x->same_block) {
        r = layout_check(fn, c, &x->sl);
    }
    if (r == MPI_SUCCESS) {
        r = layout_check(fn, c, &x->rl);
    }
    for (int i = 0; r == MPI_SUCCESS && i < c->size; i++) {
        const mpi_type_t *t;
        r = exchange_type(fn, x->rtypes, x->rtype, i, &t);
        if (r == MPI_SUCCESS && !in_place && (!x->same_block || i == 0)) {
            r = exchange_type(fn, x->stypes, x->stype, i, &t);
        }
    }
    if (r == MPI_SUCCESS) {
        r = sched_begin(fn, c, &s);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    int n = c->size, me = c->rank;
    char **tmp = mpi_sched_buf(s, (size_t)n * sizeof *tmp);
    if (tmp == NULL) {
        return sched_go(fn, s, request);
    }
    /* what goes to rank i: packed now (in place: from the result buffer,
     * where this rank's own block is) */
    /* the same block to everyone (allgather) is packed once */
    size_t same_bytes = 0;
    const void *same =
        x->same_block ? exchange_part(fn, s, x, me, &same_bytes) : NULL;
    for (int i = 0; i < n; i++) {
        const mpi_type_t *rt;
        exchange_type(fn, x->rtypes, x->rtype, i, &rt);
        size_t rn = (size_t)layout_count(&x->rl, i);
        size_t pbytes = same_bytes;
        const void *part =
            x->same_block ? same : exchange_part(fn, s, x, i, &pbytes);
        if (part == NULL) {
            return sched_go(fn, s, request);
        }
        tmp[i] = NULL;
        if (i == me) {
            if (!in_place) {
                mpi_sched_unpack(
                    s, rt, rn, part,
                    exchange_slot(&x->rl, x->rtypes, x->recvbuf, rt, i));
            }
            continue;
        }
        tmp[i] = mpi_sched_buf(s, rn * rt->size);
        if (tmp[i] == NULL) {
            return sched_go(fn, s, request);
        }
        mpi_sched_recv(s, i, tmp[i], rn * rt->size);
        mpi_sched_send(s, i, part, pbytes);
    }
    mpi_sched_round(s);
    for (int i = 0; i < n; i++) {
        if (tmp[i] != NULL) {
            const mpi_type_t *rt;
            exchange_type(fn, x->rtypes, x->rtype, i, &rt);
            mpi_sched_unpack(
                s, rt, (size_t)layout_count(&x->rl, i), tmp[i],
                exchange_slot(&x->rl, x->rtypes, x->recvbuf, rt, i));
        }
    }
    return sched_go(fn, s, request);
}

/* MPI_Allgather on MPI_COMM_WORLD: every rank's block by LCI multicast. */
static int world_allgather(const char *fn, const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype)
{
    const mpi_type_t *st = NULL, *rt;
    int r = mpi_type_check(fn, recvtype, &rt);
    if (r == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
        r = mpi_type_check(fn, sendtype, &st);
    }
    if (r == MPI_SUCCESS && (recvcount < 0 || sendcount < 0)) {
        r = mpi_error(MPI_ERR_COUNT, "%s: a negative count", fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    char *own = slot(recvbuf, rt, (size_t)mpi->rank, (size_t)recvcount);
    if (sendbuf != MPI_IN_PLACE) {
        size_t bytes = (size_t)sendcount * st->size;
        char *packed = malloc(bytes > 0 ? bytes : 1);
        if (packed == NULL) {
            return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
        }
        mpi_type_pack(st, (size_t)sendcount, sendbuf, packed);
        if (bytes != (size_t)recvcount * rt->size) {
            free(packed);
            return mpi_error(MPI_ERR_TRUNCATE, "%s: send and receive sizes "
                                               "differ",
                             fn);
        }
        mpi_type_unpack(rt, (size_t)recvcount, packed, own);
        free(packed);
    }
    for (int root = 0; root < mpi->size && r == MPI_SUCCESS; root++) {
        r = world_bcast(fn, slot(recvbuf, rt, (size_t)root, (size_t)recvcount),
                        (size_t)recvcount, rt, root);
    }
    return r;
}

static int allgather(const char *fn, const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, mpi_layout_t rl,
                     MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    mpi_comm_t *c = mpi_comm_get(comm);
    if (c != NULL && is_world(c) && request == NULL && rl.counts == NULL &&
        mpi_check_comm(fn, comm, NULL) == MPI_SUCCESS) {
        return world_allgather(fn, sendbuf, sendcount, sendtype, recvbuf,
                               rl.count, recvtype);
    }
    mpi_exchange_t x = {.sendbuf = sendbuf,
                        .sl = {.count = sendcount},
                        .stype = sendtype,
                        .same_block = 1,
                        .recvbuf = recvbuf,
                        .rl = rl,
                        .rtype = recvtype};
    return exchange(fn, &x, comm, request);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    return allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf,
                     (mpi_layout_t){.count = recvcount}, recvtype, comm, NULL);
}

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    int r = check_request("MPI_Iallgather", request);
    return r != MPI_SUCCESS
               ? r
               : allgather("MPI_Iallgather", sendbuf, sendcount, sendtype,
                           recvbuf, (mpi_layout_t){.count = recvcount},
                           recvtype, comm, request);
}

/* MPI_Allgatherv and its non-blocking form (request NULL: blocking). */
static int allgatherv(const char *fn, const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    if (recvcounts == NULL) {
        return mpi_error(MPI_ERR_ARG, "%s: NULL counts", fn);
    }
    return allgather(fn, sendbuf, sendcount, sendtype, recvbuf,
                     (mpi_layout_t){.counts = recvcounts, .displs = displs},
                     recvtype, comm, request);
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                      recvcounts, displs, recvtype, comm, NULL);
}

int PMPI_Iallgatherv(const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    int r = check_request("MPI_Iallgatherv", request);
    return r != MPI_SUCCESS
               ? r
               : allgatherv("MPI_Iallgatherv", sendbuf, sendcount, sendtype,
                            recvbuf, recvcounts, displs, recvtype, comm,
                            request);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm)
{
    mpi_exchange_t x = {.sendbuf = sendbuf,
                        .sl = {.count = sendcount},
                        .stype = sendtype,
                        .recvbuf = recvbuf,
                        .rl = {.count = recvcount},
                        .rtype = recvtype};
    return exchange("MPI_Alltoall", &x, comm, NULL);
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *request)
{
    mpi_exchange_t x = {.sendbuf = sendbuf,
                        .sl = {.count = sendcount},
                        .stype = sendtype,
                        .recvbuf = recvbuf,
                        .rl = {.count = recvcount},
                        .rtype = recvtype};
    int r = check_request("MPI_Ialltoall", request);
    return r != MPI_SUCCESS ? r : exchange("MPI_Ialltoall", &x, comm, request);
}

/* MPI_Alltoallv and MPI_Alltoallw (one type, or a type per peer in
 * stypes/rtypes), blocking (request NULL) or not. */
static int alltoall_vw(const char *fn, const void *sendbuf,
                       const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, const MPI_Datatype sendtypes[],
                       void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype,
                       const MPI_Datatype recvtypes[], int typed,
                       MPI_Comm comm, MPI_Request *request)
{
    if (recvcounts == NULL || (typed && recvtypes == NULL) ||
        (sendbuf != MPI_IN_PLACE &&
         (sendcounts == NULL || (typed && sendtypes == NULL)))) {
        return mpi_error(MPI_ERR_ARG, "%s: NULL counts%s", fn,
                         typed ? " or types" : "");
    }
    mpi_exchange_t x = {.sendbuf = sendbuf,
                        .sl = {.counts = sendcounts, .displs = sdispls},
                        .stype = sendtype,
                        .stypes = sendtypes,
                        .recvbuf = recvbuf,
                        .rl = {.counts = recvcounts, .displs = rdispls},
                        .rtype = recvtype,
                        .rtypes = recvtypes};
    return exchange(fn, &x, comm, request);
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall_vw("MPI_Alltoallv", sendbuf, sendcounts, sdispls,
                       sendtype, NULL, recvbuf, recvcounts, rdispls, recvtype,
                       NULL, 0, comm, NULL);
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[],
                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    int r = check_request("MPI_Ialltoallv", request);
    return r != MPI_SUCCESS
               ? r
               : alltoall_vw("MPI_Ialltoallv", sendbuf, sendcounts, sdispls,
                             sendtype, NULL, recvbuf, recvcounts, rdispls,
                             recvtype, NULL, 0, comm, request);
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoall_vw("MPI_Alltoallw", sendbuf, sendcounts, sdispls,
                       MPI_DATATYPE_NULL, sendtypes, recvbuf, recvcounts,
                       rdispls, MPI_DATATYPE_NULL, recvtypes, 1, comm, NULL);
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[],
                    const int sdispls[], const MPI_Datatype sendtypes[],
                    void *recvbuf, const int recvcounts[], const int rdispls[],
                    const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    int r = check_request("MPI_Ialltoallw", request);
    return r != MPI_SUCCESS
               ? r
               : alltoall_vw("MPI_Ialltoallw", sendbuf, sendcounts, sdispls,
                             MPI_DATATYPE_NULL, sendtypes, recvbuf,
                             recvcounts, rdispls, MPI_DATATYPE_NULL,
                             recvtypes, 1, comm, request);
}

MPI_ALIAS(MPI_Barrier);
MPI_ALIAS(MPI_Ibarrier);
MPI_ALIAS(MPI_Bcast);
MPI_ALIAS(MPI_Ibcast);
MPI_ALIAS(MPI_Reduce);
MPI_ALIAS(MPI_Ireduce);
MPI_ALIAS(MPI_Allreduce);
MPI_ALIAS(MPI_Iallreduce);
MPI_ALIAS(MPI_Reduce_scatter);
MPI_ALIAS(MPI_Reduce_scatter_block);
MPI_ALIAS(MPI_Ireduce_scatter);
MPI_ALIAS(MPI_Ireduce_scatter_block);
MPI_ALIAS(MPI_Scan);
MPI_ALIAS(MPI_Iscan);
MPI_ALIAS(MPI_Exscan);
MPI_ALIAS(MPI_Iexscan);
MPI_ALIAS(MPI_Igatherv);
MPI_ALIAS(MPI_Iscatterv);
MPI_ALIAS(MPI_Iallgatherv);
MPI_ALIAS(MPI_Ialltoallv);
MPI_ALIAS(MPI_Ialltoallw);
MPI_ALIAS(MPI_Gather);
MPI_ALIAS(MPI_Igather);
MPI_ALIAS(MPI_Gatherv);
MPI_ALIAS(MPI_Scatter);
MPI_ALIAS(MPI_Iscatter);
MPI_ALIAS(MPI_Scatterv);
MPI_ALIAS(MPI_Allgather);
MPI_ALIAS(MPI_Iallgather);
MPI_ALIAS(MPI_Allgatherv);
MPI_ALIAS(MPI_Alltoall);
MPI_ALIAS(MPI_Ialltoall);
MPI_ALIAS(MPI_Alltoallv);
MPI_ALIAS(MPI_Alltoallw);
