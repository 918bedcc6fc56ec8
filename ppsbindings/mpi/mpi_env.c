/*
 * mpi_env.c - MPI's environment: start and stop, ranks, errors, time,
 * datatypes and the message queues the other files share.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lci.h"
#include "mpi_internal.h"

static struct mpi_state mpi_initial = {.errhandler = MPI_ERRORS_ARE_FATAL};
struct mpi_state *mpi = &mpi_initial;

int mpi_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mpi->last_error, sizeof mpi->last_error, fmt, ap);
    va_end(ap);
    if (mpi->errhandler == MPI_ERRORS_RETURN) {
        return code;
    }
    if (!mpi->inited || mpi->finalized) {
        fprintf(stderr, "MPI error: %s\n", mpi->last_error);
        exit(code);
    }
    lci_abort(code, mpi->last_error);
}

int mpi_check(const char *fn, MPI_Comm comm)
{
    if (!mpi->inited) {
        return mpi_error(MPI_ERR_OTHER, "%s: MPI_Init has not been called", fn);
    }
    if (mpi->finalized) {
        return mpi_error(MPI_ERR_OTHER, "%s: called after MPI_Finalize", fn);
    }
    if (comm != MPI_COMM_WORLD) {
        return mpi_error(MPI_ERR_COMM,
                         "%s: communicator %d; only "
                         "MPI_COMM_WORLD is offered",
                         fn, comm);
    }
    return MPI_SUCCESS;
}

size_t mpi_type_size(MPI_Datatype type)
{
    switch (type) {
    case MPI_CHAR:
    case MPI_SIGNED_CHAR:
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
    case MPI_INT8_T:
    case MPI_UINT8_T:
        return 1;
    case MPI_SHORT:
    case MPI_UNSIGNED_SHORT:
    case MPI_INT16_T:
    case MPI_UINT16_T:
        return sizeof(short);
    case MPI_INT:
    case MPI_UNSIGNED:
    case MPI_INT32_T:
    case MPI_UINT32_T:
        return sizeof(int);
    case MPI_LONG:
    case MPI_UNSIGNED_LONG:
        return sizeof(long);
    case MPI_LONG_LONG_INT:
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_INT64_T:
    case MPI_UINT64_T:
        return sizeof(long long);
    case MPI_FLOAT:
        return sizeof(float);
    case MPI_DOUBLE:
        return sizeof(double);
    case MPI_LONG_DOUBLE:
        return sizeof(long double);
    default:
        return 0;
    }
}

int mpi_check_buffer(const char *fn, const void *buf, int count,
                     MPI_Datatype type, size_t *bytes_p)
{
    size_t size = mpi_type_size(type);
    if (size == 0) {
        return mpi_error(MPI_ERR_TYPE, "%s: unknown datatype %d", fn, type);
    }
    if (count < 0) {
        return mpi_error(MPI_ERR_COUNT, "%s: count %d is negative", fn, count);
    }
    if (buf == NULL && count > 0) {
        return mpi_error(MPI_ERR_BUFFER, "%s: NULL buffer for %d elements", fn,
                         count);
    }
    *bytes_p = size * (size_t)count;
    return MPI_SUCCESS;
}

/* ---- queues ----------------------------------------------------------- */

void mpi_queue_init(mpi_queue_t *q)
{
    q->head = NULL;
    q->tail = &q->head;
}

void mpi_queue_push(mpi_queue_t *q, mpi_msg_t *m)
{
    m->next = NULL;
    *q->tail = m;
    q->tail = &m->next;
}

mpi_msg_t *mpi_queue_pop(mpi_queue_t *q)
{
    mpi_msg_t *m = q->head;
    if (m != NULL) {
        q->head = m->next;
        if (q->head == NULL) {
            q->tail = &q->head;
        }
    }
    return m;
}

void mpi_queue_take(mpi_queue_t *q, int src, int tag, char *data, size_t len)
{
    mpi_msg_t *m = malloc(sizeof *m);
    if (m == NULL) {
        lci_abort(MPI_ERR_INTERN, "MPI: no memory to queue a message");
    }
    m->src = src;
    m->tag = tag;
    m->len = len;
    m->data = data;
    m->rts = 0;
    m->rts_id = 0;
    mpi_queue_push(q, m);
}

void mpi_queue_copy(mpi_queue_t *q, int src, int tag, const void *data,
                    size_t len)
{
    char *copy = len > 0 ? malloc(len) : NULL;
    if (copy == NULL && len > 0) {
        lci_abort(MPI_ERR_INTERN, "MPI: no memory to queue a message");
    }
    if (len > 0) {
        lci_copy(copy, data, len);
    }
    mpi_queue_take(q, src, tag, copy, len);
}

void mpi_queue_free(mpi_queue_t *q)
{
    mpi_msg_t *m;
    while ((m = mpi_queue_pop(q)) != NULL) {
        free(m->data);
        free(m);
    }
}

int mpi_queue_wait(const char *fn, mpi_queue_t *q, mpi_msg_t **m_p)
{
    while (q->head == NULL) {
        int r = pan_wait();
        if (r < 0) {
            return mpi_error(MPI_ERR_OTHER, "%s: %s", fn, pan_last_error());
        }
    }
    *m_p = mpi_queue_pop(q);
    return MPI_SUCCESS;
}

static void reduce_arrived(int src, const void *data, size_t len, void *arg)
{
    (void)arg;
    mpi_queue_copy(&mpi->reduce_from[src], src, 0, data, len);
}

/* ---- environment ------------------------------------------------------ */

int MPI_Init(int *argc, char ***argv)
{
    if (lci_node_local((void **)&mpi, sizeof *mpi) != LCI_OK) {
        return mpi_error(MPI_ERR_INTERN, "MPI_Init: %s", lci_last_error());
    }
    if (mpi->inited) {
        return mpi_error(MPI_ERR_OTHER, "MPI_Init: called twice");
    }
    if (pan_init(argc, argv, PAN_ST) != PAN_OK) {
        return mpi_error(MPI_ERR_OTHER, "MPI_Init: %s", pan_last_error());
    }
    mpi->rank = pan_rank();
    mpi->size = pan_size();
    mpi->posted = NULL;
    mpi->posted_tail = &mpi->posted;
    mpi_queue_init(&mpi->unexpected);
    mpi->placed = malloc((size_t)mpi->size * sizeof *mpi->placed);
    mpi->bcast_inflight = calloc((size_t)mpi->size, sizeof(int));
    mpi->bcast_early = calloc((size_t)mpi->size, sizeof *mpi->bcast_early);
    mpi->bcast_from = malloc((size_t)mpi->size * sizeof *mpi->bcast_from);
    mpi->reduce_from = malloc((size_t)mpi->size * sizeof *mpi->reduce_from);
    if (mpi->placed == NULL || mpi->bcast_inflight == NULL ||
        mpi->bcast_early == NULL ||
        mpi->bcast_from == NULL || mpi->reduce_from == NULL) {
        return mpi_error(MPI_ERR_INTERN, "MPI_Init: no memory");
    }
    for (int i = 0; i < mpi->size; i++) {
        mpi_queue_init(&mpi->bcast_from[i]);
        mpi_queue_init(&mpi->reduce_from[i]);
        mpi->placed[i].head = NULL;
        mpi->placed[i].tail = &mpi->placed[i].head;
    }
    if (pan_port_set(MPI_PT2PT_PORT, mpi_p2p_arrived, NULL) != PAN_OK ||
        pan_port_place_set(MPI_PT2PT_PORT, mpi_p2p_place, NULL) != PAN_OK ||
        pan_port_set(MPI_CTS_PORT, mpi_p2p_cts_arrived, NULL) != PAN_OK ||
        pan_port_set(MPI_BCAST_PORT, mpi_bcast_arrived, NULL) != PAN_OK ||
        pan_port_place_set(MPI_BCAST_PORT, mpi_bcast_place, NULL) != PAN_OK ||
        pan_port_set(MPI_REDUCE_PORT, reduce_arrived, NULL) != PAN_OK) {
        return mpi_error(MPI_ERR_INTERN, "MPI_Init: %s", pan_last_error());
    }
    mpi->inited = 1;
    return MPI_SUCCESS;
}

int MPI_Initialized(int *flag)
{
    if (flag == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Initialized: NULL flag");
    }
    *flag = mpi->inited;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
    if (flag == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Finalized: NULL flag");
    }
    *flag = mpi->finalized;
    return MPI_SUCCESS;
}

int MPI_Finalize(void)
{
    int r = mpi_check("MPI_Finalize", MPI_COMM_WORLD);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (mpi->posted != NULL) {
        return mpi_error(MPI_ERR_REQUEST, "MPI_Finalize: a receive is still "
                                          "posted (wait for it first)");
    }
    if (pan_end() != PAN_OK) {
        return mpi_error(MPI_ERR_OTHER, "MPI_Finalize: %s", pan_last_error());
    }
    mpi_queue_free(&mpi->unexpected);
    for (int i = 0; i < mpi->size; i++) {
        mpi_queue_free(&mpi->bcast_from[i]);
        mpi_queue_free(&mpi->reduce_from[i]);
    }
    free(mpi->placed);
    free(mpi->bcast_inflight);
    free(mpi->bcast_early); /* empty: every broadcast was taken */
    free(mpi->bcast_from);
    free(mpi->reduce_from);
    mpi_handles_free();
    mpi->finalized = 1;
    return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm; /* every communicator stops the whole run */
    char msg[64];
    snprintf(msg, sizeof msg, "MPI_Abort called with error code %d", errorcode);
    if (!mpi->inited || mpi->finalized) {
        fprintf(stderr, "%s\n", msg);
        exit(errorcode != 0 ? errorcode : 1);
    }
    lci_abort(errorcode != 0 ? errorcode : 1, msg);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    int r = mpi_check("MPI_Comm_rank", comm);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (rank == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Comm_rank: NULL rank");
    }
    *rank = mpi->rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    int r = mpi_check("MPI_Comm_size", comm);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (size == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Comm_size: NULL size");
    }
    *size = mpi->size;
    return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    if (comm != MPI_COMM_WORLD) {
        return mpi_error(MPI_ERR_COMM, "MPI_Comm_set_errhandler: only "
                                       "MPI_COMM_WORLD is offered");
    }
    if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN) {
        return mpi_error(MPI_ERR_ARG,
                         "MPI_Comm_set_errhandler: %d; expected "
                         "MPI_ERRORS_ARE_FATAL or "
                         "MPI_ERRORS_RETURN",
                         errhandler);
    }
    mpi->errhandler = errhandler;
    return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    static const char *const names[] = {
        "success",           "invalid buffer",   "invalid count",
        "invalid datatype",  "invalid tag",      "invalid communicator",
        "invalid rank",      "invalid request",  "invalid root",
        "invalid operation", "invalid argument", "message truncated",
        "other error",       "internal error"};
    if (string == NULL || resultlen == NULL) {
        return MPI_ERR_ARG;
    }
    const char *name = errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE
                           ? names[errorcode]
                           : "unknown error code";
    /* The last error's own message says more, when it is of this code. */
    int n = snprintf(string, MPI_MAX_ERROR_STRING, "%s%s%s", name,
                     mpi->last_error[0] != '\0' ? ": " : "", mpi->last_error);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    if (name == NULL || resultlen == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Get_processor_name: NULL argument");
    }
    int n = snprintf(name, MPI_MAX_PROCESSOR_NAME, "lci-node-%d", mpi->rank);
    *resultlen = n < MPI_MAX_PROCESSOR_NAME ? n : MPI_MAX_PROCESSOR_NAME - 1;
    return MPI_SUCCESS;
}

double MPI_Wtime(void)
{
    return lci_wtime();
}

double MPI_Wtick(void)
{
    return 1e-9; /* the simulator's clock counts nanoseconds */
}
