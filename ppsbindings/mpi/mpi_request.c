/*
 * mpi_request.c - the point-to-point calls and their requests: the send
 * modes, receives, probes, waiting and testing, persistent requests,
 * cancelling, and buffered sends.
 *
 * A call checks its arguments, packs the data of a type that is not one
 * contiguous run, turns ranks of its communicator into world ranks and
 * starts the operation in mpi_p2p.c.  A request holds a reference to its
 * communicator and datatype until it is finished (waited or tested), when
 * a packed receive is unpacked and the source turned back into a rank of
 * the communicator.
 */
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "mpi_internal.h"

/* How many finished requests are kept for reuse. */
#define MPI_REQ_SPARE_MAX 64

struct lci_mpi_request *mpi_request_new(mpi_req_kind_t kind)
{
    struct lci_mpi_request *req = mpi->req_spare;
    if (req != NULL) {
        mpi->req_spare = req->next;
        mpi->nreq_spare--;
        memset(req, 0, sizeof *req);
    } else if ((req = calloc(1, sizeof *req)) == NULL) {
        lci_abort(MPI_ERR_INTERN, "MPI: no memory for a request");
    }
    req->kind = kind;
    return req;
}

void mpi_request_free(struct lci_mpi_request *req)
{
    if (mpi->nreq_spare >= MPI_REQ_SPARE_MAX) {
        free(req);
        return;
    }
    req->next = mpi->req_spare;
    mpi->req_spare = req;
    mpi->nreq_spare++;
}

void mpi_request_spares_free(void)
{
    while (mpi->req_spare != NULL) {
        struct lci_mpi_request *req = mpi->req_spare;
        mpi->req_spare = req->next;
        free(req);
    }
    mpi->nreq_spare = 0;
}

static void status_empty(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) {
        *status = (MPI_Status){.MPI_SOURCE = MPI_ANY_SOURCE,
                               .MPI_TAG = MPI_ANY_TAG,
                               .MPI_ERROR = MPI_SUCCESS};
    }
}

/* Lets go of what an operation held: unpacks a packed receive, turns its
 * source into a rank of its communicator. */
static void operation_end(struct lci_mpi_request *req)
{
    if (req->kind == MPI_REQ_RECV && !req->cancelled) {
        if (req->pack != NULL) {
            mpi_type_unpack_n(req->utype, req->ucount, req->pack,
                              req->status.lci_bytes, req->ubuf);
        }
        int src = req->status.MPI_SOURCE;
        if (src >= 0 && req->comm != NULL) {
            req->status.MPI_SOURCE = req->comm->rank_of[src];
        }
    }
    req->status.lci_cancelled = req->cancelled;
    free(req->pack);
    req->pack = NULL;
    free(req->spack);
    req->spack = NULL;
    if (req->utype != NULL) {
        mpi_type_release(req->utype);
        req->utype = NULL;
    }
    if (req->comm != NULL) {
        mpi_comm_release(req->comm);
        req->comm = NULL;
    }
}

static void request_destroy(struct lci_mpi_request *req)
{
    operation_end(req);
    if (req->init.comm != NULL) {
        mpi_comm_release(req->init.comm);
    }
    mpi_request_free(req);
}

/* Detaches a request nobody will wait for: freed once done. */
static void detach(struct lci_mpi_request *req, size_t bsend_bytes)
{
    mpi_detached_t *d = malloc(sizeof *d);
    if (d == NULL) {
        lci_abort(MPI_ERR_INTERN, "MPI: no memory for a request");
    }
    *d = (mpi_detached_t){
        .next = mpi->detached, .req = req, .bsend_bytes = bsend_bytes};
    mpi->detached = d;
    mpi->bsend_used += bsend_bytes;
}

void mpi_detached_reap(void)
{
    for (mpi_detached_t **pp = &mpi->detached; *pp != NULL;) {
        mpi_detached_t *d = *pp;
        if (d->req->done) {
            *pp = d->next;
            mpi->bsend_used -= d->bsend_bytes;
            request_destroy(d->req);
            free(d);
        } else {
            pp = &d->next;
        }
    }
}

/* ---- starting operations -------------------------------------------------- */

/* Points req at its data: the user's buffer if contiguous, else a packed
 * copy (packed now for a send). */
static int data_setup(const char *fn, struct lci_mpi_request *req, void *buf,
                      int count, const mpi_type_t *t, MPI_Datatype type,
                      int sending, void **data_p, size_t *bytes_p)
{
    size_t bytes = (size_t)count * t->size;
    const void *start = mpi_type_contig_start(t, buf, (size_t)count);
    mpi_type_hold(t);
    req->utype = (mpi_type_t *)(uintptr_t)t;
    req->utype_h = type;
    req->ubuf = buf;
    req->ucount = (size_t)count;
    if (start != NULL) {
        *data_p = (void *)(uintptr_t)start;
    } else {
        char *pack = malloc(bytes > 0 ? bytes : 1);
        if (pack == NULL) {
            return mpi_error(MPI_ERR_NO_MEM, "%s: no memory to pack %zu bytes",
                             fn, bytes);
        }
        if (sending) {
            mpi_type_pack(t, (size_t)count, buf, pack);
            req->spack = pack;
        } else {
            req->pack = pack;
        }
        *data_p = pack;
    }
    *bytes_p = bytes;
    return MPI_SUCCESS;
}

static int check_tag(const char *fn, int tag, int any_ok)
{
    if (tag < 0 && !(any_ok && tag == MPI_ANY_TAG)) {
        return mpi_error(MPI_ERR_TAG, "%s: tag %d; expected 0..%d%s", fn, tag,
                         MPI_TAG_UB_VALUE, any_ok ? " or MPI_ANY_TAG" : "");
    }
    return MPI_SUCCESS;
}

static int check_peer(const char *fn, const mpi_comm_t *c, int peer,
                      int any_ok)
{
    if (peer == MPI_PROC_NULL || (any_ok && peer == MPI_ANY_SOURCE) ||
        (peer >= 0 && peer < c->size)) {
        return MPI_SUCCESS;
    }
    return mpi_error(MPI_ERR_RANK, "%s: rank %d; expected 0..%d%s", fn, peer,
                     c->size - 1,
                     any_ok ? ", MPI_ANY_SOURCE or MPI_PROC_NULL"
                            : " or MPI_PROC_NULL");
}

/* What the checks of a send found. */
typedef struct {
    mpi_comm_t *c;
    const mpi_type_t *t;
    size_t bytes;
} send_checked_t;

/* The checks of every send: the communicator, the buffer, the peer and
 * the tag. */
static int send_checks(const char *fn, const void *buf, int count,
                       MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                       send_checked_t *k)
{
    int r = mpi_check_comm(fn, comm, &k->c);
    if (r == MPI_SUCCESS) {
        r = mpi_check_buffer(fn, buf, count, type, &k->t, &k->bytes);
    }
    if (r == MPI_SUCCESS) {
        r = check_peer(fn, k->c, dest, 0);
    }
    if (r == MPI_SUCCESS) {
        r = check_tag(fn, tag, 0);
    }
    return r;
}

/* Starts a send that passed send_checks (k) into req (zeroed, or a
 * persistent one being started). */
static int send_setup_checked(const char *fn, struct lci_mpi_request *req,
                              const send_checked_t *k, const void *buf,
                              int count, MPI_Datatype type, int dest, int tag,
                              mpi_mode_t mode)
{
    mpi_comm_t *c = k->c;
    size_t bytes = k->bytes;
    req->kind = MPI_REQ_SEND;
    req->done = 0;
    req->cancelled = 0;
    req->status = (MPI_Status){.MPI_SOURCE = c->rank, .MPI_TAG = tag};
    if (dest == MPI_PROC_NULL) {
        req->done = 1;
        return MPI_SUCCESS;
    }
    void *data = NULL;
    int r = data_setup(fn, req, (void *)(uintptr_t)buf, count, k->t, type, 1,
                       &data, &bytes);
    if (r != MPI_SUCCESS) {
        return r;
    }
    c->refs++;
    req->comm = c;
    if (mode == MPI_MODE_BUFFERED) {
        if (mpi->bsend_used + bytes + MPI_BSEND_OVERHEAD > mpi->bsend_size) {
            operation_end(req);
            return mpi_error(MPI_ERR_BUFFER,
                             "%s: %zu bytes do not fit in the attached buffer "
                             "(%zu of %zu bytes in use; MPI_Buffer_attach)",
                             fn, bytes + MPI_BSEND_OVERHEAD, mpi->bsend_used,
                             mpi->bsend_size);
        }
        /* The data goes from a copy of ours, as from the attached buffer. */
        if (req->spack == NULL) {
            req->spack = malloc(bytes > 0 ? bytes : 1);
            if (req->spack == NULL) {
                operation_end(req);
                return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
            }
            memcpy(req->spack, data, bytes);
            data = req->spack;
        }
    }
    return mpi_send_start(fn, req, c->ctx, c->group->world[dest], tag, data,
                          bytes,
                          mode == MPI_MODE_SYNC ? MPI_MODE_SYNC
                                                : MPI_MODE_STANDARD);
}

/* Checks a send and starts it into req. */
static int send_setup(const char *fn, struct lci_mpi_request *req,
                      const void *buf, int count, MPI_Datatype type, int dest,
                      int tag, MPI_Comm comm, mpi_mode_t mode)
{
    send_checked_t k;
    int r = send_checks(fn, buf, count, type, dest, tag, comm, &k);
    if (r != MPI_SUCCESS) {
        return r;
    }
    return send_setup_checked(fn, req, &k, buf, count, type, dest, tag, mode);
}

/* Posts a receive into req (zeroed, or a persistent one being started). */
static int recv_setup(const char *fn, struct lci_mpi_request *req, void *buf,
                      int count, MPI_Datatype type, int source, int tag,
                      MPI_Comm comm)
{
    mpi_comm_t *c;
    const mpi_type_t *t;
    size_t bytes;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS) {
        r = mpi_check_buffer(fn, buf, count, type, &t, &bytes);
    }
    if (r == MPI_SUCCESS) {
        r = check_peer(fn, c, source, 1);
    }
    if (r == MPI_SUCCESS) {
        r = check_tag(fn, tag, 1);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    req->kind = MPI_REQ_RECV;
    req->done = 0;
    req->cancelled = 0;
    req->status = (MPI_Status){0};
    if (source == MPI_PROC_NULL) {
        req->done = 1;
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        req->status.MPI_TAG = MPI_ANY_TAG;
        return MPI_SUCCESS;
    }
    void *data = NULL;
    r = data_setup(fn, req, buf, count, t, type, 0, &data, &bytes);
    if (r != MPI_SUCCESS) {
        return r;
    }
    c->refs++;
    req->comm = c;
    mpi_recv_start(req, c->ctx,
                   source == MPI_ANY_SOURCE ? MPI_ANY_SOURCE
                                            : c->group->world[source],
                   tag, data, bytes);
    return MPI_SUCCESS;
}

/* MPI_Send and the other blocking sends.  A standard or ready send of
 * contiguous data that goes eagerly is done once Panda has copied it: no
 * request to set up, wait for and free. */
static int send_blocking(const char *fn, const void *buf, int count,
                         MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                         mpi_mode_t mode)
{
    send_checked_t k;
    int r = send_checks(fn, buf, count, type, dest, tag, comm, &k);
    if (r != MPI_SUCCESS) {
        return r;
    }
    const void *data = mpi_type_contig_start(k.t, buf, (size_t)count);
    if ((mode == MPI_MODE_STANDARD || mode == MPI_MODE_READY) &&
        dest != MPI_PROC_NULL && data != NULL && k.bytes <= mpi->eager_max) {
        return mpi_send_eager(fn, k.c->ctx, k.c->group->world[dest], tag, data,
                              k.bytes);
    }
    struct lci_mpi_request *req = mpi_request_new(MPI_REQ_SEND);
    r = send_setup_checked(fn, req, &k, buf, count, type, dest, tag, mode);
    if (r == MPI_SUCCESS && mode == MPI_MODE_BUFFERED && !req->done) {
        detach(req, req->sbytes + MPI_BSEND_OVERHEAD);
        return MPI_SUCCESS;
    }
    if (r == MPI_SUCCESS) {
        r = mpi_request_wait(fn, req);
    }
    request_destroy(req);
    return r;
}

/* MPI_Isend and the other non-blocking sends. */
static int send_nonblocking(const char *fn, const void *buf, int count,
                            MPI_Datatype type, int dest, int tag,
                            MPI_Comm comm, mpi_mode_t mode,
                            MPI_Request *request)
{
    if (request == NULL) {
        return mpi_error(MPI_ERR_REQUEST, "%s: NULL request", fn);
    }
    struct lci_mpi_request *req = mpi_request_new(MPI_REQ_SEND);
    int r = send_setup(fn, req, buf, count, type, dest, tag, comm, mode);
    if (r != MPI_SUCCESS) {
        request_destroy(req);
        return r;
    }
    if (mode == MPI_MODE_BUFFERED && !req->done) {
        /* Complete at once for the program; the copy goes on alone. */
        detach(req, req->sbytes + MPI_BSEND_OVERHEAD);
        req = mpi_request_new(MPI_REQ_SEND);
        req->done = 1;
    }
    *request = req;
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Send", buf, count, datatype, dest, tag, comm,
                         MPI_MODE_STANDARD);
}

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Ssend", buf, count, datatype, dest, tag, comm,
                         MPI_MODE_SYNC);
}

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Rsend", buf, count, datatype, dest, tag, comm,
                         MPI_MODE_READY);
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Bsend", buf, count, datatype, dest, tag, comm,
                         MPI_MODE_BUFFERED);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Isend", buf, count, datatype, dest, tag,
                            comm, MPI_MODE_STANDARD, request);
}

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Issend", buf, count, datatype, dest, tag,
                            comm, MPI_MODE_SYNC, request);
}

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Irsend", buf, count, datatype, dest, tag,
                            comm, MPI_MODE_READY, request);
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Ibsend", buf, count, datatype, dest, tag,
                            comm, MPI_MODE_BUFFERED, request);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source,
               int tag, MPI_Comm comm, MPI_Request *request)
{
    if (request == NULL) {
        return mpi_error(MPI_ERR_REQUEST, "MPI_Irecv: NULL request");
    }
    struct lci_mpi_request *req = mpi_request_new(MPI_REQ_RECV);
    int r = recv_setup("MPI_Irecv", req, buf, count, datatype, source, tag,
                       comm);
    if (r != MPI_SUCCESS) {
        request_destroy(req);
        return r;
    }
    *request = req;
    return MPI_SUCCESS;
}

/* ---- finishing ------------------------------------------------------------ */

int mpi_request_wait(const char *fn, struct lci_mpi_request *req)
{
    while (!req->done) {
        int r = mpi_progress(fn, 1);
        if (r != MPI_SUCCESS) {
            return r;
        }
    }
    return MPI_SUCCESS;
}

/* Finishes a completed request: its status out, the request freed (or a
 * persistent one made inactive).  Returns its error. */
static int finish(MPI_Request *request, MPI_Status *status)
{
    struct lci_mpi_request *req = *request;
    int err = req->status.MPI_ERROR;
    if (err != MPI_SUCCESS && req->comm != NULL) {
        /* A failed request raises its error on its own communicator's
         * handler (MPI 3.1, 8.3), read before the operation lets go of
         * the communicator. */
        mpi->errhandler_now = req->comm->errhandler;
    }
    operation_end(req);
    err = req->status.MPI_ERROR;
    if (status != MPI_STATUS_IGNORE) {
        *status = req->status;
    }
    if (req->persistent) {
        req->active = 0;
    } else {
        mpi_request_free(req);
        *request = MPI_REQUEST_NULL;
    }
    return err;
}

/* A request that Wait and Test see as done at once: null, or persistent
 * and not started. */
static int inactive(MPI_Request req)
{
    return req == MPI_REQUEST_NULL || (req->persistent && !req->active);
}

static int finish_error(const char *fn, int err)
{
    if (err == MPI_ERR_TRUNCATE) {
        return mpi_error(err, "%s: the message was longer than the receive "
                              "buffer",
                         fn);
    }
    return err == MPI_SUCCESS ? MPI_SUCCESS
                              : mpi_error(err, "%s: the operation failed", fn);
}

/* MPI_Wait, and the waiting part of the blocking calls (fn names the
 * call in an error message). */
static int wait_as(const char *fn, MPI_Request *request, MPI_Status *status)
{
    int r = mpi_check_env(fn);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (request == NULL) {
        return mpi_error(MPI_ERR_REQUEST, "%s: NULL request", fn);
    }
    if (inactive(*request)) {
        status_empty(status);
        return MPI_SUCCESS;
    }
    r = mpi_request_wait(fn, *request);
    if (r != MPI_SUCCESS) {
        return r;
    }
    return finish_error(fn, finish(request, status));
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    return wait_as("MPI_Wait", request, status);
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    int r = mpi_check_env("MPI_Test");
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (request == NULL || flag == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Test: NULL argument");
    }
    if (inactive(*request)) {
        *flag = 1;
        status_empty(status);
        return MPI_SUCCESS;
    }
    if (!(*request)->done && (r = mpi_progress("MPI_Test", 0)) != MPI_SUCCESS) {
        return r;
    }
    *flag = (*request)->done;
    return *flag ? finish_error("MPI_Test", finish(request, status))
                 : MPI_SUCCESS;
}

static int check_array(const char *fn, int count, const MPI_Request reqs[])
{
    int r = mpi_check_env(fn);
    if (r == MPI_SUCCESS && (count < 0 || (count > 0 && reqs == NULL))) {
        r = mpi_error(MPI_ERR_ARG, "%s: %d requests at %p", fn, count,
                      (const void *)reqs);
    }
    return r;
}

static MPI_Status *status_at(MPI_Status statuses[], int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[],
                 MPI_Status array_of_statuses[])
{
    int r = check_array("MPI_Waitall", count, array_of_requests);
    if (r != MPI_SUCCESS) {
        return r;
    }
    int failed = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = status_at(array_of_statuses, i);
        if (inactive(array_of_requests[i])) {
            status_empty(st);
            continue;
        }
        r = mpi_request_wait("MPI_Waitall", array_of_requests[i]);
        if (r != MPI_SUCCESS) {
            return r;
        }
        int err = finish(&array_of_requests[i], st);
        failed |= err != MPI_SUCCESS;
    }
    if (failed) {
        /* Each status says which (when there are statuses). */
        return mpi_error(MPI_ERR_IN_STATUS, "MPI_Waitall: a request failed");
    }
    return MPI_SUCCESS;
}

/* The first done among the active requests (*index), MPI_UNDEFINED if
 * none is active; returns whether one is done. */
static int any_done(int count, MPI_Request reqs[], int *index)
{
    int active = 0;
    for (int i = 0; i < count; i++) {
        if (!inactive(reqs[i])) {
            active = 1;
            if (reqs[i]->done) {
                *index = i;
                return 1;
            }
        }
    }
    *index = MPI_UNDEFINED;
    return !active;
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
                 MPI_Status *status)
{
    int r = check_array("MPI_Waitany", count, array_of_requests);
    if (r == MPI_SUCCESS && index == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Waitany: NULL index");
    }
    while (r == MPI_SUCCESS && !any_done(count, array_of_requests, index)) {
        r = mpi_progress("MPI_Waitany", 1);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (*index == MPI_UNDEFINED) {
        status_empty(status);
        return MPI_SUCCESS;
    }
    return finish_error("MPI_Waitany",
                        finish(&array_of_requests[*index], status));
}

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index,
                 int *flag, MPI_Status *status)
{
    int r = check_array("MPI_Testany", count, array_of_requests);
    if (r == MPI_SUCCESS && (index == NULL || flag == NULL)) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Testany: NULL argument");
    }
    if (r == MPI_SUCCESS && !any_done(count, array_of_requests, index)) {
        r = mpi_progress("MPI_Testany", 0);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    *flag = any_done(count, array_of_requests, index);
    if (!*flag || *index == MPI_UNDEFINED) {
        status_empty(status);
        return MPI_SUCCESS;
    }
    return finish_error("MPI_Testany",
                        finish(&array_of_requests[*index], status));
}

/* Finishes every done active request; *outcount is how many, or
 * MPI_UNDEFINED if none is active. */
static int some_done(const char *fn, int count, MPI_Request reqs[],
                     int *outcount, int indices[], MPI_Status statuses[])
{
    int n = 0, active = 0, failed = 0;
    for (int i = 0; i < count; i++) {
        if (inactive(reqs[i])) {
            continue;
        }
        active = 1;
        if (reqs[i]->done) {
            indices[n] = i;
            failed |= finish(&reqs[i], status_at(statuses, n)) != MPI_SUCCESS;
            n++;
        }
    }
    *outcount = active ? n : MPI_UNDEFINED;
    return failed ? mpi_error(MPI_ERR_IN_STATUS, "%s: a request failed", fn)
                  : MPI_SUCCESS;
}

static int some_args(const char *fn, int count, MPI_Request reqs[],
                     int *outcount, int indices[])
{
    int r = check_array(fn, count, reqs);
    if (r == MPI_SUCCESS &&
        (outcount == NULL || (count > 0 && indices == NULL))) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL argument", fn);
    }
    return r;
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    const char *fn = "MPI_Waitsome";
    int index;
    int r = some_args(fn, incount, array_of_requests, outcount,
                      array_of_indices);
    while (r == MPI_SUCCESS && !any_done(incount, array_of_requests, &index)) {
        r = mpi_progress(fn, 1);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    return some_done(fn, incount, array_of_requests, outcount,
                     array_of_indices, array_of_statuses);
}

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    const char *fn = "MPI_Testsome";
    int r = some_args(fn, incount, array_of_requests, outcount,
                      array_of_indices);
    if (r == MPI_SUCCESS) {
        r = mpi_progress(fn, 0);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    return some_done(fn, incount, array_of_requests, outcount,
                     array_of_indices, array_of_statuses);
}

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[])
{
    int r = check_array("MPI_Testall", count, array_of_requests);
    if (r == MPI_SUCCESS && flag == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Testall: NULL flag");
    }
    if (r == MPI_SUCCESS) {
        r = mpi_progress("MPI_Testall", 0);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    for (int i = 0; i < count; i++) {
        if (!inactive(array_of_requests[i]) && !array_of_requests[i]->done) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return PMPI_Waitall(count, array_of_requests, array_of_statuses);
}

int PMPI_Request_get_status(MPI_Request request, int *flag,
                            MPI_Status *status)
{
    int r = mpi_check_env("MPI_Request_get_status");
    if (r == MPI_SUCCESS && flag == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Request_get_status: NULL flag");
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (inactive(request)) {
        *flag = 1;
        status_empty(status);
        return MPI_SUCCESS;
    }
    if (!request->done && (r = mpi_progress("MPI_Request_get_status", 0))) {
        return r;
    }
    *flag = request->done;
    if (*flag && status != MPI_STATUS_IGNORE) {
        /* The request stays: its status, as finishing would give it. */
        *status = request->status;
        int src = status->MPI_SOURCE;
        if (request->kind == MPI_REQ_RECV && src >= 0 && request->comm) {
            status->MPI_SOURCE = request->comm->rank_of[src];
        }
        status->lci_cancelled = request->cancelled;
    }
    return MPI_SUCCESS;
}

int PMPI_Request_free(MPI_Request *request)
{
    int r = mpi_check_env("MPI_Request_free");
    if (r == MPI_SUCCESS && (request == NULL || *request == MPI_REQUEST_NULL)) {
        r = mpi_error(MPI_ERR_REQUEST, "MPI_Request_free: a null request");
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    struct lci_mpi_request *req = *request;
    *request = MPI_REQUEST_NULL;
    if (req->done || (req->persistent && !req->active)) {
        request_destroy(req);
    } else {
        req->persistent = 0; /* freed when its operation is done */
        detach(req, 0);
    }
    return MPI_SUCCESS;
}

int PMPI_Cancel(MPI_Request *request)
{
    int r = mpi_check_env("MPI_Cancel");
    if (r == MPI_SUCCESS && (request == NULL || *request == MPI_REQUEST_NULL)) {
        r = mpi_error(MPI_ERR_REQUEST, "MPI_Cancel: a null request");
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    struct lci_mpi_request *req = *request;
    /* A receive still waiting for its message is taken back; a send has
     * gone (or is announced) and completes as usual. */
    if (req->kind == MPI_REQ_RECV && !req->done && mpi_recv_unpost(req)) {
        req->cancelled = 1;
        req->done = 1;
    }
    return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (status == NULL || flag == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Test_cancelled: NULL argument");
    }
    *flag = status->lci_cancelled;
    return MPI_SUCCESS;
}

/* ---- blocking receives, probes, send-receive ------------------------------- */

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm, MPI_Status *status)
{
    MPI_Request req;
    int r = PMPI_Irecv(buf, count, datatype, source, tag, comm, &req);
    if (r != MPI_SUCCESS) {
        return r;
    }
    return wait_as("MPI_Recv", &req, status);
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  int dest, int sendtag, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    MPI_Request reqs[2];
    int r = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm,
                       &reqs[0]);
    if (r != MPI_SUCCESS) {
        return r;
    }
    r = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm,
                   &reqs[1]);
    if (r != MPI_SUCCESS) {
        PMPI_Cancel(&reqs[0]);
        PMPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        return r;
    }
    MPI_Status st[2];
    r = PMPI_Waitall(2, reqs, st);
    if (status != MPI_STATUS_IGNORE) {
        *status = st[0];
    }
    return r == MPI_ERR_IN_STATUS ? st[0].MPI_ERROR : r;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype,
                          int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Status *status)
{
    const char *fn = "MPI_Sendrecv_replace";
    const mpi_type_t *t;
    size_t bytes;
    int r = mpi_check_comm(fn, comm, NULL);
    if (r == MPI_SUCCESS) {
        r = mpi_check_buffer(fn, buf, count, datatype, &t, &bytes);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    /* The data to send leaves the buffer first, packed. */
    char *copy = malloc(bytes > 0 ? bytes : 1);
    if (copy == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    mpi_type_pack(t, (size_t)count, buf, copy);
    if (bytes > (size_t)MPI_TAG_UB_VALUE) {
        free(copy);
        return mpi_error(MPI_ERR_COUNT, "%s: %zu bytes are too many", fn,
                         bytes);
    }
    r = PMPI_Sendrecv(copy, (int)bytes, MPI_BYTE, dest, sendtag, buf, count,
                      datatype, source, recvtag, comm, status);
    free(copy);
    return r;
}

static int probe_args(const char *fn, int source, int tag, MPI_Comm comm,
                      mpi_comm_t **c_p)
{
    int r = mpi_check_comm(fn, comm, c_p);
    if (r == MPI_SUCCESS) {
        r = check_peer(fn, *c_p, source, 1);
    }
    if (r == MPI_SUCCESS) {
        r = check_tag(fn, tag, 1);
    }
    return r;
}

/* Whether a message that a receive of (source, tag) on c would take has
 * arrived; its envelope into status. */
static int probe_once(const mpi_comm_t *c, int source, int tag,
                      MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        if (status != MPI_STATUS_IGNORE) {
            *status = (MPI_Status){.MPI_SOURCE = MPI_PROC_NULL,
                                   .MPI_TAG = MPI_ANY_TAG};
        }
        return 1;
    }
    const mpi_msg_t *m = mpi_probe_unexpected(
        c->ctx,
        source == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : c->group->world[source],
        tag);
    if (m == NULL) {
        return 0;
    }
    if (status != MPI_STATUS_IGNORE) {
        *status = (MPI_Status){.MPI_SOURCE = c->rank_of[m->src],
                               .MPI_TAG = m->tag,
                               .lci_bytes = m->len};
    }
    return 1;
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                MPI_Status *status)
{
    mpi_comm_t *c;
    int r = probe_args("MPI_Iprobe", source, tag, comm, &c);
    if (r == MPI_SUCCESS && flag == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Iprobe: NULL flag");
    }
    if (r == MPI_SUCCESS && !probe_once(c, source, tag, status)) {
        r = mpi_progress("MPI_Iprobe", 0);
    }
    if (r == MPI_SUCCESS) {
        *flag = probe_once(c, source, tag, status);
    }
    return r;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    mpi_comm_t *c;
    int r = probe_args("MPI_Probe", source, tag, comm, &c);
    while (r == MPI_SUCCESS && !probe_once(c, source, tag, status)) {
        r = mpi_progress("MPI_Probe", 1);
    }
    return r;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype,
                   int *count)
{
    const mpi_type_t *t = mpi_type_get(datatype);
    if (status == NULL || count == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Get_count: NULL argument");
    }
    if (t == NULL) {
        return mpi_error(MPI_ERR_TYPE, "MPI_Get_count: datatype %d names no "
                                       "type",
                         datatype);
    }
    if (t->size == 0) {
        *count = status->lci_bytes == 0 ? 0 : MPI_UNDEFINED;
    } else {
        *count = status->lci_bytes % t->size == 0
                     ? (int)(status->lci_bytes / t->size)
                     : MPI_UNDEFINED;
    }
    return MPI_SUCCESS;
}

/* ---- buffered sends --------------------------------------------------------- */

int PMPI_Buffer_attach(void *buffer, int size)
{
    int r = mpi_check_env("MPI_Buffer_attach");
    if (r == MPI_SUCCESS && (size < 0 || (size > 0 && buffer == NULL))) {
        r = mpi_error(MPI_ERR_BUFFER, "MPI_Buffer_attach: %d bytes at %p",
                      size, buffer);
    }
    if (r == MPI_SUCCESS && mpi->bsend_buf != NULL) {
        r = mpi_error(MPI_ERR_BUFFER, "MPI_Buffer_attach: a buffer is "
                                      "attached already");
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    mpi->bsend_buf = buffer;
    mpi->bsend_size = (size_t)size;
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    int r = mpi_check_env("MPI_Buffer_detach");
    if (r == MPI_SUCCESS && (buffer_addr == NULL || size == NULL)) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Buffer_detach: NULL argument");
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    /* Blocks until the buffered messages have gone. */
    while (mpi->bsend_used > 0) {
        mpi_detached_reap();
        if (mpi->bsend_used > 0 &&
            (r = mpi_progress("MPI_Buffer_detach", 1)) != MPI_SUCCESS) {
            return r;
        }
    }
    *(void **)buffer_addr = mpi->bsend_buf;
    *size = (int)mpi->bsend_size;
    mpi->bsend_buf = NULL;
    mpi->bsend_size = 0;
    return MPI_SUCCESS;
}

/* ---- persistent requests ------------------------------------------------------ */

static int persistent_init(const char *fn, mpi_req_kind_t kind,
                           mpi_mode_t mode, void *buf,
                           int count, MPI_Datatype type, int peer, int tag,
                           MPI_Comm comm, MPI_Request *request)
{
    mpi_comm_t *c;
    const mpi_type_t *t;
    size_t bytes;
    int r = mpi_check_comm(fn, comm, &c);
    if (r == MPI_SUCCESS && request == NULL) {
        r = mpi_error(MPI_ERR_REQUEST, "%s: NULL request", fn);
    }
    if (r == MPI_SUCCESS) {
        r = mpi_check_buffer(fn, buf, count, type, &t, &bytes);
    }
    if (r == MPI_SUCCESS) {
        r = check_peer(fn, c, peer, kind == MPI_REQ_RECV);
    }
    if (r == MPI_SUCCESS) {
        r = check_tag(fn, tag, kind == MPI_REQ_RECV);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    struct lci_mpi_request *req = mpi_request_new(kind);
    req->persistent = 1;
    req->mode = mode;
    req->init.buf = buf;
    req->init.count = count;
    req->init.type = type;
    req->init.peer = peer;
    req->init.tag = tag;
    c->refs++; /* the communicator stays while the request does */
    req->init.comm = c;
    *request = req;
    return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return persistent_init("MPI_Send_init", MPI_REQ_SEND,
                           MPI_MODE_STANDARD, (void *)(uintptr_t)buf, count,
                           datatype, dest, tag, comm, request);
}

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return persistent_init("MPI_Ssend_init", MPI_REQ_SEND,
                           MPI_MODE_SYNC, (void *)(uintptr_t)buf, count,
                           datatype, dest, tag, comm, request);
}

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return persistent_init("MPI_Rsend_init", MPI_REQ_SEND,
                           MPI_MODE_READY, (void *)(uintptr_t)buf, count,
                           datatype, dest, tag, comm, request);
}

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return persistent_init("MPI_Bsend_init", MPI_REQ_SEND,
                           MPI_MODE_BUFFERED, (void *)(uintptr_t)buf, count,
                           datatype, dest, tag, comm, request);
}

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Request *request)
{
    return persistent_init("MPI_Recv_init", MPI_REQ_RECV,
                           MPI_MODE_STANDARD, buf, count, datatype, source,
                           tag, comm, request);
}

int PMPI_Start(MPI_Request *request)
{
    const char *fn = "MPI_Start";
    int r = mpi_check_env(fn);
    if (r == MPI_SUCCESS && (request == NULL || *request == MPI_REQUEST_NULL ||
                             !(*request)->persistent)) {
        r = mpi_error(MPI_ERR_REQUEST, "%s: not a persistent request", fn);
    }
    if (r == MPI_SUCCESS && (*request)->active) {
        r = mpi_error(MPI_ERR_REQUEST, "%s: the request is active already",
                      fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    struct lci_mpi_request *req = *request;
    MPI_Comm comm = req->init.comm->handle;
    if (comm == MPI_COMM_NULL) {
        return mpi_error(MPI_ERR_COMM, "%s: the request's communicator was "
                                       "freed",
                         fn);
    }
    if (req->kind == MPI_REQ_RECV) {
        r = recv_setup(fn, req, req->init.buf, req->init.count,
                       req->init.type, req->init.peer, req->init.tag, comm);
    } else if (req->mode == MPI_MODE_BUFFERED) {
        /* A copy that goes on alone, as from MPI_Ibsend; the persistent
         * request is done at once. */
        MPI_Request alone = MPI_REQUEST_NULL;
        r = send_nonblocking(fn, req->init.buf, req->init.count,
                             req->init.type, req->init.peer, req->init.tag,
                             comm, MPI_MODE_BUFFERED, &alone);
        if (alone != MPI_REQUEST_NULL) {
            request_destroy(alone);
        }
        req->done = 1;
        req->status = (MPI_Status){.MPI_SOURCE = MPI_ANY_SOURCE,
                                   .MPI_TAG = req->init.tag};
    } else {
        r = send_setup(fn, req, req->init.buf, req->init.count,
                       req->init.type, req->init.peer, req->init.tag, comm,
                       req->mode);
    }
    if (r == MPI_SUCCESS) {
        req->active = 1;
    }
    return r;
}

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    int r = check_array("MPI_Startall", count, array_of_requests);
    for (int i = 0; r == MPI_SUCCESS && i < count; i++) {
        r = PMPI_Start(&array_of_requests[i]);
    }
    return r;
}

MPI_ALIAS(MPI_Send);
MPI_ALIAS(MPI_Ssend);
MPI_ALIAS(MPI_Rsend);
MPI_ALIAS(MPI_Bsend);
MPI_ALIAS(MPI_Isend);
MPI_ALIAS(MPI_Issend);
MPI_ALIAS(MPI_Irsend);
MPI_ALIAS(MPI_Ibsend);
MPI_ALIAS(MPI_Irecv);
MPI_ALIAS(MPI_Recv);
MPI_ALIAS(MPI_Sendrecv);
MPI_ALIAS(MPI_Sendrecv_replace);
MPI_ALIAS(MPI_Probe);
MPI_ALIAS(MPI_Iprobe);
MPI_ALIAS(MPI_Wait);
MPI_ALIAS(MPI_Waitall);
MPI_ALIAS(MPI_Waitany);
MPI_ALIAS(MPI_Waitsome);
MPI_ALIAS(MPI_Test);
MPI_ALIAS(MPI_Testall);
MPI_ALIAS(MPI_Testany);
MPI_ALIAS(MPI_Testsome);
MPI_ALIAS(MPI_Request_get_status);
MPI_ALIAS(MPI_Request_free);
MPI_ALIAS(MPI_Cancel);
MPI_ALIAS(MPI_Test_cancelled);
MPI_ALIAS(MPI_Get_count);
MPI_ALIAS(MPI_Buffer_attach);
MPI_ALIAS(MPI_Buffer_detach);
MPI_ALIAS(MPI_Send_init);
MPI_ALIAS(MPI_Ssend_init);
MPI_ALIAS(MPI_Rsend_init);
MPI_ALIAS(MPI_Bsend_init);
MPI_ALIAS(MPI_Recv_init);
MPI_ALIAS(MPI_Start);
MPI_ALIAS(MPI_Startall);
