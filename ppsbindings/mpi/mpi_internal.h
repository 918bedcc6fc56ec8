/*
 * mpi_internal.h - the MPI subset's private state and shared helpers.
 * Never installed.
 */
#ifndef MPI_INTERNAL_H
#define MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mpi.h"
#include "panda.h"

/* Panda ports the MPI layer owns. */
#define MPI_PT2PT_PORT  40 /* point-to-point messages, tag in front */
#define MPI_BCAST_PORT  41 /* MPI_Bcast data, from the root */
#define MPI_REDUCE_PORT 42 /* MPI_Reduce contributions, to the root */
#define MPI_CTS_PORT    43 /* clear-to-send: a large message may come */

/* Messages up to this many bytes go at once (eager); larger ones are
 * announced and sent when the receiver has a buffer for them (rendezvous),
 * so that they land in place however far the sender runs ahead. */
#define MPI_EAGER_MAX 16384

/* What a point-to-point message starts with. */
enum {
    MPI_WIRE_EAGER = 1,
    MPI_WIRE_RTS = 2,
    MPI_WIRE_DATA = 3
};
typedef struct {
    int32_t tag;
    uint32_t kind; /* MPI_WIRE_* */
    uint64_t id;   /* RTS: the send request; DATA: the receive request */
    uint64_t len;  /* RTS: the length of the data to come */
} mpi_wire_hdr_t;

/* An eager message carries only tag and kind. */
#define MPI_WIRE_EAGER_HDR offsetof(mpi_wire_hdr_t, id)

/* A message that arrived before its receive was posted, or collective
 * data waiting for its call. */
typedef struct mpi_msg {
    struct mpi_msg *next;
    int src;
    int tag;
    size_t len; /* of data; for an announcement, of the data to come */
    char *data;
    int rts;         /* an announcement of a large message (no data) */
    uint64_t rts_id; /* the sender's request */
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
    uint32_t kind;   /* MPI_WIRE_* */
    uint64_t rts_id; /* an announcement's send request */
    size_t rts_len;  /* and its length */
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
    size_t want; /* a large receive: the bytes it asked the sender for */
    /* a large send waiting for its clear-to-send */
    const void *sbuf;
    size_t sbytes;
    int dest;
};

/* A broadcast that came before its MPI_Bcast, in a buffer of ours. */
#define MPI_BCAST_EARLY_MAX (1u << 20) /* larger: in Panda's, then copied */
typedef struct mpi_early {
    struct mpi_early *next;
    char *buf;
} mpi_early_t;
typedef struct {
    mpi_early_t *head, *tail;
} mpi_early_list_t;

/* Request ids on the wire (mpi_handle.c). */
#define MPI_HANDLE_NONE UINT32_MAX
typedef struct {
    struct lci_mpi_request *req; /* NULL: free */
    uint32_t gen;                /* bumped when the slot is taken */
    uint32_t next_free;
} mpi_handle_slot_t;
typedef struct {
    mpi_handle_slot_t *slot;
    uint32_t cap, free_head;
} mpi_handles_t;

struct mpi_state {
    int inited, finalized;
    int rank, size;
    MPI_Errhandler errhandler;
    struct lci_mpi_request *posted, **posted_tail;
    mpi_queue_t unexpected;
    mpi_placed_list_t *placed; /* by sender */
    mpi_bcast_wait_t bcast_wait;
    int *bcast_inflight;      /* by root: broadcasts before their MPI_Bcast */
    mpi_early_list_t *bcast_early; /* by root: those in buffers of ours */
    mpi_queue_t *bcast_from;  /* by root */
    mpi_queue_t *reduce_from; /* by contributing rank */
    mpi_handles_t handles;
    char last_error[MPI_MAX_ERROR_STRING];
};

/* This node's MPI: a node-local block (lci_node_local), so it follows the
 * running node where several nodes share one process. */
extern struct mpi_state *mpi;

/* Records the message; fatal unless MPI_ERRORS_RETURN is set.  Returns
 * code. */
int mpi_error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* MPI_SUCCESS, or the error for a call before MPI_Init / after
 * MPI_Finalize or on a communicator other than MPI_COMM_WORLD. */
int mpi_check(const char *fn, MPI_Comm comm);

/* The id of req for the wire, and req back from an id (taking it: an id
 * is good once).  An id that names no waiting request stops the run. */
uint64_t mpi_handle_of(struct lci_mpi_request *req);
struct lci_mpi_request *mpi_handle_take(uint64_t id, int src);
void mpi_handles_free(void);

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
void mpi_p2p_cts_arrived(int src, const void *data, size_t len, void *arg);

/* mpi_coll.c */
void mpi_bcast_arrived(int src, const void *data, size_t len, void *arg);
void *mpi_bcast_place(int src, const void *head, size_t head_len, size_t len,
                      size_t *skip_p, void *arg);

/* Queues a message whose buffer (malloc'd, or NULL when empty) passes to
 * the queue. */
void mpi_queue_take(mpi_queue_t *q, int src, int tag, char *data, size_t len);

#endif /* MPI_INTERNAL_H */
