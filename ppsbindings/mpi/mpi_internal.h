/*
 * mpi_internal.h - the MPI subset's private state and shared helpers.
 * Never installed.
 */
#ifndef MPI_INTERNAL_H
#define MPI_INTERNAL_H

#include <stdint.h>

#include "mpi.h"
#include "panda.h"

/* Panda ports the MPI layer owns. */
#define MPI_PT2PT_PORT  40 /* point-to-point messages, tag in front */
#define MPI_BCAST_PORT  41 /* MPI_Bcast data, from the root */
#define MPI_REDUCE_PORT 42 /* MPI_Reduce contributions, to the root */

/* A message that arrived before its receive was posted, or collective
 * data waiting for its call. */
typedef struct mpi_msg {
    struct mpi_msg *next;
    int src;
    int tag;
    size_t len;
    char *data;
} mpi_msg_t;

/* First in, first out. */
typedef struct {
    mpi_msg_t *head, **tail;
} mpi_queue_t;

/* Where a message from another rank is being put together, from its first
 * packet until its handler runs (one list per sender, in arrival order). */
typedef struct mpi_placed {
    struct mpi_placed *next;
    struct lci_mpi_request *req; /* the receive it matched, or NULL */
    char *buf;                   /* req's buffer, or one of our own */
    int tag;
} mpi_placed_t;

typedef struct {
    mpi_placed_t *head, **tail;
} mpi_placed_list_t;

/* The MPI_Bcast a rank waits in, so that the data lands in place. */
typedef struct {
    int active;
    int root;
    void *buf;
    size_t bytes;
    int placed; /* the message is being put together in buf */
    int done;
} mpi_bcast_wait_t;

struct lci_mpi_request {
    struct lci_mpi_request *next; /* in the posted-receive list */
    int done;
    void *buf;
    size_t cap;
    int source, tag;
    MPI_Status status;
};

struct mpi_state {
    int inited, finalized;
    int rank, size;
    MPI_Errhandler errhandler;
    struct lci_mpi_request *posted, **posted_tail;
    mpi_queue_t unexpected;
    mpi_placed_list_t *placed; /* by sender */
    mpi_bcast_wait_t bcast_wait;
    int *bcast_inflight;      /* by root: broadcasts Panda keeps, unhandled */
    mpi_queue_t *bcast_from;  /* by root */
    mpi_queue_t *reduce_from; /* by contributing rank */
};

extern struct mpi_state mpi;

/* Records the message; fatal unless MPI_ERRORS_RETURN is set.  Returns
 * code. */
int mpi_error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* MPI_SUCCESS, or the error for a call before MPI_Init / after
 * MPI_Finalize or on a communicator other than MPI_COMM_WORLD. */
int mpi_check(const char *fn, MPI_Comm comm);

/* Bytes of one element, or 0 for an unknown type. */
size_t mpi_type_size(MPI_Datatype type);

/* Checks count and type, and gives the length in bytes. */
int mpi_check_buffer(const char *fn, const void *buf, int count,
                     MPI_Datatype type, size_t *bytes_p);

void mpi_queue_init(mpi_queue_t *q);
void mpi_queue_push(mpi_queue_t *q, mpi_msg_t *m);
mpi_msg_t *mpi_queue_pop(mpi_queue_t *q);
/* Queues a copy (charged) of data as a message from src. */
void mpi_queue_copy(mpi_queue_t *q, int src, int tag, const void *data,
                    size_t len);
void mpi_queue_free(mpi_queue_t *q);

/* Waits (running Panda's handlers) until q holds a message; pops it. */
int mpi_queue_wait(const char *fn, mpi_queue_t *q, mpi_msg_t **m_p);

/* mpi_p2p.c */
void mpi_p2p_arrived(int src, const void *data, size_t len, void *arg);
void *mpi_p2p_place(int src, const void *head, size_t head_len, size_t len,
                    size_t *skip_p, void *arg);

/* mpi_coll.c */
void mpi_bcast_arrived(int src, const void *data, size_t len, void *arg);
void *mpi_bcast_place(int src, const void *head, size_t head_len, size_t len,
                      size_t *skip_p, void *arg);

/* Queues a message whose buffer (malloc'd, or NULL when empty) passes to
 * the queue. */
void mpi_queue_take(mpi_queue_t *q, int src, int tag, char *data, size_t len);

#endif /* MPI_INTERNAL_H */
