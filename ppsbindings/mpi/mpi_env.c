/*
 * mpi_env.c - MPI's environment: start and stop, ranks, errors, time,
 * datatypes and the message queues the other files share.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "lci.h"
#include "mpi_internal.h"
#include "mpi_sched.h"

static struct mpi_state mpi_initial = {.errhandler_now = MPI_ERRORS_ARE_FATAL};
struct mpi_state *mpi = &mpi_initial;

int mpi_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mpi->last_error, sizeof mpi->last_error, fmt, ap);
    va_end(ap);
    if (mpi->errhandler_now == MPI_ERRORS_RETURN) {
        return code;
    }
    if (!mpi->inited || mpi->finalized) {
        fprintf(stderr, "MPI error: %s\n", mpi->last_error);
        exit(code);
    }
    lci_abort(code, mpi->last_error);
}

/* The error handler of MPI_COMM_WORLD, for calls of no communicator. */
static MPI_Errhandler world_errhandler(void)
{
    mpi_comm_t *w = mpi->inited && !mpi->finalized
                        ? mpi_comm_get(MPI_COMM_WORLD)
                        : NULL;
    return w != NULL ? w->errhandler : MPI_ERRORS_ARE_FATAL;
}

int mpi_check_env(const char *fn)
{
    mpi->errhandler_now = world_errhandler();
    if (!mpi->inited) {
        return mpi_error(MPI_ERR_OTHER, "%s: MPI_Init has not been called", fn);
    }
    if (mpi->finalized) {
        return mpi_error(MPI_ERR_OTHER, "%s: called after MPI_Finalize", fn);
    }
    return MPI_SUCCESS;
}

int mpi_check_comm(const char *fn, MPI_Comm comm, mpi_comm_t **c_p)
{
    int r = mpi_check_env(fn);
    if (r != MPI_SUCCESS) {
        return r;
    }
    mpi_comm_t *c = mpi_comm_get(comm);
    if (c == NULL) {
        return mpi_error(MPI_ERR_COMM, "%s: communicator %d names none", fn,
                         comm);
    }
    mpi->errhandler_now = c->errhandler;
    if (c_p != NULL) {
        *c_p = c;
    }
    return MPI_SUCCESS;
}

int mpi_check_buffer(const char *fn, const void *buf, int count,
                     MPI_Datatype type, const mpi_type_t **t_p,
                     size_t *bytes_p)
{
    int r = mpi_type_check(fn, type, t_p);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (count < 0) {
        return mpi_error(MPI_ERR_COUNT, "%s: count %d is negative", fn, count);
    }
    /* A derived type may address absolute memory (MPI_BOTTOM). */
    if (buf == NULL && count > 0 && (*t_p)->predefined && (*t_p)->size > 0) {
        return mpi_error(MPI_ERR_BUFFER, "%s: NULL buffer for %d elements", fn,
                         count);
    }
    *bytes_p = (*t_p)->size * (size_t)count;
    return MPI_SUCCESS;
}

int mpi_progress(const char *fn, int wait)
{
    if (mpi_sched_progress()) {
        return MPI_SUCCESS; /* something moved: the caller looks again */
    }
    int r = wait ? pan_wait() : pan_poll();
    if (r < 0) {
        return mpi_error(MPI_ERR_OTHER, "%s: %s", fn, pan_last_error());
    }
    mpi_sched_progress();
    mpi_detached_reap();
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
    *m = (mpi_msg_t){.src = src, .tag = tag, .len = len, .data = data};
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


/* ---- environment ------------------------------------------------------ */

static int init(const char *fn, int *argc, char ***argv, int level)
{
    if (lci_node_local((void **)&mpi, sizeof *mpi) != LCI_OK) {
        return mpi_error(MPI_ERR_INTERN, "%s: %s", fn, lci_last_error());
    }
    if (mpi->inited) {
        return mpi_error(MPI_ERR_OTHER, "%s: called twice", fn);
    }
    if (pan_init(argc, argv, PAN_ST) != PAN_OK) {
        return mpi_error(MPI_ERR_OTHER, "%s: %s", fn, pan_last_error());
    }
    mpi_types_init();
    mpi->thread_level = level;
    mpi->rank = pan_rank();
    mpi->size = pan_size();
    mpi->eager_max = MPI_EAGER_PACKETS * lci_packet_capacity();
    if (mpi->eager_max < MPI_EAGER_MIN) {
        mpi->eager_max = MPI_EAGER_MIN;
    }
    mpi->posted = NULL;
    mpi->posted_tail = &mpi->posted;
    mpi_queue_init(&mpi->unexpected);
    mpi->placed = malloc((size_t)mpi->size * sizeof *mpi->placed);
    mpi->bcast_inflight = calloc((size_t)mpi->size, sizeof(int));
    mpi->bcast_early = calloc((size_t)mpi->size, sizeof *mpi->bcast_early);
    mpi->bcast_from = malloc((size_t)mpi->size * sizeof *mpi->bcast_from);
    if (mpi->placed == NULL || mpi->bcast_inflight == NULL ||
        mpi->bcast_early == NULL || mpi->bcast_from == NULL ||
        mpi_comms_init() != MPI_SUCCESS) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    for (int i = 0; i < mpi->size; i++) {
        mpi_queue_init(&mpi->bcast_from[i]);
        mpi->placed[i].head = NULL;
        mpi->placed[i].tail = &mpi->placed[i].head;
    }
    if (pan_port_set(MPI_PT2PT_PORT, mpi_p2p_arrived, NULL) != PAN_OK ||
        pan_port_place_set(MPI_PT2PT_PORT, mpi_p2p_place, NULL) != PAN_OK ||
        pan_port_set(MPI_CTS_PORT, mpi_p2p_cts_arrived, NULL) != PAN_OK ||
        pan_port_set(MPI_BCAST_PORT, mpi_bcast_arrived, NULL) != PAN_OK ||
        pan_port_place_set(MPI_BCAST_PORT, mpi_bcast_place, NULL) != PAN_OK) {
        return mpi_error(MPI_ERR_INTERN, "%s: %s", fn, pan_last_error());
    }
    mpi->inited = 1;
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    return init("MPI_Init", argc, argv, MPI_THREAD_SINGLE);
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (provided == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Init_thread: NULL provided");
    }
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
        return mpi_error(MPI_ERR_ARG,
                         "MPI_Init_thread: required level %d; expected "
                         "MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE",
                         required);
    }
    /* Calls from one thread at a time are safe (Panda-ST under the hood);
     * concurrent calls are not: MULTIPLE is not offered. */
    int level =
        required < MPI_THREAD_SERIALIZED ? required : MPI_THREAD_SERIALIZED;
    int r = init("MPI_Init_thread", argc, argv, level);
    if (r == MPI_SUCCESS) {
        *provided = level;
    }
    return r;
}

int PMPI_Query_thread(int *provided)
{
    int r = mpi_check_env("MPI_Query_thread");
    if (r == MPI_SUCCESS && provided == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Query_thread: NULL provided");
    }
    if (r == MPI_SUCCESS) {
        *provided = mpi->thread_level;
    }
    return r;
}

int PMPI_Is_thread_main(int *flag)
{
    int r = mpi_check_env("MPI_Is_thread_main");
    if (r == MPI_SUCCESS && flag == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Is_thread_main: NULL flag");
    }
    if (r == MPI_SUCCESS) {
        /* A node's program runs on its main thread (lci_thread_* threads
         * are its own; MPI is called from the main one). */
        *flag = 1;
    }
    return r;
}

int PMPI_Initialized(int *flag)
{
    if (flag == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Initialized: NULL flag");
    }
    *flag = mpi->inited;
    return MPI_SUCCESS;
}

int PMPI_Finalized(int *flag)
{
    if (flag == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Finalized: NULL flag");
    }
    *flag = mpi->finalized;
    return MPI_SUCCESS;
}

int PMPI_Finalize(void)
{
    int r = mpi_check_env("MPI_Finalize");
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (mpi->posted != NULL) {
        return mpi_error(MPI_ERR_REQUEST, "MPI_Finalize: a receive is still "
                                          "posted (wait for it first)");
    }
    if (mpi->scheds != NULL) {
        return mpi_error(MPI_ERR_REQUEST, "MPI_Finalize: a non-blocking "
                                          "collective is under way");
    }
    /* Buffered and freed sends still under way go out first. */
    while (mpi->detached != NULL) {
        mpi_detached_reap();
        if (mpi->detached != NULL &&
            (r = mpi_progress("MPI_Finalize", 1)) != MPI_SUCCESS) {
            return r;
        }
    }
    if (pan_end() != PAN_OK) {
        return mpi_error(MPI_ERR_OTHER, "MPI_Finalize: %s", pan_last_error());
    }
    mpi_queue_free(&mpi->unexpected);
    for (int i = 0; i < mpi->size; i++) {
        mpi_queue_free(&mpi->bcast_from[i]);
    }
    free(mpi->placed);
    mpi_request_spares_free();
    mpi_placed_spares_free();
    free(mpi->bcast_inflight);
    free(mpi->bcast_early); /* empty: every broadcast was taken */
    free(mpi->bcast_from);
    mpi_handles_free();
    mpi_comms_free();
    mpi_groups_free();
    mpi_types_free();
    mpi_ops_free();
    mpi->finalized = 1;
    return MPI_SUCCESS;
}

int PMPI_Abort(MPI_Comm comm, int errorcode)
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

int PMPI_Get_version(int *version, int *subversion)
{
    if (version == NULL || subversion == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Get_version: NULL argument");
    }
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (version == NULL || resultlen == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Get_library_version: NULL "
                                      "argument");
    }
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "LCI MPI %s (MPI %d.%d subset on Panda-ST and LCI)",
                     PACKAGE_VERSION, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING
                     ? n
                     : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    (void)info;
    if (size < 0 || baseptr == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Alloc_mem: size %ld or NULL "
                                      "baseptr",
                         (long)size);
    }
    void *p = malloc(size > 0 ? (size_t)size : 1);
    if (p == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "MPI_Alloc_mem: no memory for %ld "
                                         "bytes",
                         (long)size);
    }
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int PMPI_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}

static const char *const error_names[] = {
    "success",
    "invalid buffer",
    "invalid count",
    "invalid datatype",
    "invalid tag",
    "invalid communicator",
    "invalid rank",
    "invalid request",
    "invalid root",
    "invalid operation",
    "invalid argument",
    "message truncated",
    "other error",
    "internal error",
    "invalid group",
    "invalid topology",
    "invalid dimensions",
    "unknown error",
    "error in a status",
    "pending request",
    "invalid keyval",
    "out of memory",
    "invalid info",
    "unsupported operation",
};

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (string == NULL || resultlen == NULL) {
        return MPI_ERR_ARG;
    }
    const char *name = errorcode >= 0 && errorcode <= MPI_ERR_LASTCODE
                           ? error_names[errorcode]
                           : "unknown error code";
    /* The last error's own message says more. */
    int n = snprintf(string, MPI_MAX_ERROR_STRING, "%s%s%s", name,
                     mpi->last_error[0] != '\0' ? ": " : "", mpi->last_error);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (errorclass == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Error_class: NULL errorclass");
    }
    if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE) {
        return mpi_error(MPI_ERR_ARG, "MPI_Error_class: %d is no error code",
                         errorcode);
    }
    *errorclass = errorcode; /* every code is its own class */
    return MPI_SUCCESS;
}

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (name == NULL || resultlen == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Get_processor_name: NULL argument");
    }
    int n = snprintf(name, MPI_MAX_PROCESSOR_NAME, "lci-node-%d", mpi->rank);
    *resultlen = n < MPI_MAX_PROCESSOR_NAME ? n : MPI_MAX_PROCESSOR_NAME - 1;
    return MPI_SUCCESS;
}

double PMPI_Wtime(void)
{
    return lci_wtime();
}

double PMPI_Wtick(void)
{
    return 1e-9; /* the clocks count nanoseconds */
}

MPI_ALIAS(MPI_Init);
MPI_ALIAS(MPI_Init_thread);
MPI_ALIAS(MPI_Query_thread);
MPI_ALIAS(MPI_Is_thread_main);
MPI_ALIAS(MPI_Initialized);
MPI_ALIAS(MPI_Finalized);
MPI_ALIAS(MPI_Finalize);
MPI_ALIAS(MPI_Abort);
MPI_ALIAS(MPI_Get_version);
MPI_ALIAS(MPI_Get_library_version);
MPI_ALIAS(MPI_Alloc_mem);
MPI_ALIAS(MPI_Free_mem);
MPI_ALIAS(MPI_Error_string);
MPI_ALIAS(MPI_Error_class);
MPI_ALIAS(MPI_Get_processor_name);
MPI_ALIAS(MPI_Wtime);
MPI_ALIAS(MPI_Wtick);
