/*
 * mpi_internal.h - the MPI layer's private state and what its files share.
 * Never installed.
 *
 * The files, one idea each:
 *   mpi_env.c      start, stop, errors, time, thread levels, memory;
 *   mpi_comm.c     communicators, their context ids and attributes;
 *   mpi_group.c    groups of ranks;
 *   mpi_type.c     datatypes: every type as the pieces of one element;
 *   mpi_op.c       reduction operations, predefined and the user's;
 *   mpi_p2p.c      messages between two ranks: matching, eager, rendezvous;
 *   mpi_request.c  requests: wait, test, persistent, cancel, buffered sends;
 *   mpi_sched.c    collectives as schedules of rounds of messages;
 *   mpi_coll.c     the collectives, blocking and non-blocking;
 *   mpi_handle.c   the rendezvous ids on the wire.
 */
#ifndef MPI_INTERNAL_H
#define MPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "mpi.h"
#include "mpi_type.h"
#include "panda.h"

/* The MPI_* names are weak aliases of the PMPI_* functions, defined in
 * the same file (a profiling tool may define MPI_* itself). */
#define MPI_ALIAS(name)                                                        \
    extern __typeof__(P##name) name __attribute__((weak, alias("P" #name)))

/* Panda ports the MPI layer owns. */
#define MPI_PT2PT_PORT 40 /* messages between two ranks, header in front */
#define MPI_BCAST_PORT 41 /* MPI_Bcast on MPI_COMM_WORLD: LCI multicast */
#define MPI_CTS_PORT   43 /* clear-to-send: a large message may come */

/* Messages up to mpi->eager_max bytes go at once (eager); larger ones are
 * announced and sent when the receiver has a buffer for them (rendezvous),
 * so that they land in place however far the sender runs ahead.  The
 * limit is MPI_EAGER_MIN, or a window of MPI_EAGER_PACKETS packets where
 * that is more: with packets sized for a modern machine (16 KiB on the
 * live platform) a 64 KiB message goes without a round trip; with the
 * paper's 1 and 2 KiB packets the limit stays 16 KiB. */
#define MPI_EAGER_MIN 16384
#define MPI_EAGER_PACKETS 8

/* Context ids: each communicator has two, point-to-point (even) and
 * collective (odd), so that a collective's messages never match a
 * receive of the program's. */
#define MPI_CTX_WORLD 0
#define MPI_CTX_SELF  2
#define MPI_CTX_FIRST 4
#define MPI_CTX_MAX   0xfffe

/* Tags on a collective context: the collective's sequence number on its
 * communicator; the agreement of MPI_Comm_create_group has its own. */
#define MPI_TAG_COLL_MASK   0x3fffffff
#define MPI_TAG_CREATE_GROUP 0x40000000

/* What a point-to-point message starts with. */
enum {
    MPI_WIRE_EAGER = 1,
    MPI_WIRE_RTS = 2,  /* announcement of a large message */
    MPI_WIRE_DATA = 3, /* the data of an announced message */
    MPI_WIRE_SYNC = 4  /* announcement of a synchronous send, any size */
};
typedef struct {
    int32_t tag;
    uint16_t ctx;
    uint16_t kind; /* MPI_WIRE_* */
    uint64_t id;   /* RTS: the send request; DATA: the receive request */
    uint64_t len;  /* RTS: the length of the data to come */
} mpi_wire_hdr_t;

/* An eager message carries only tag, context and kind. */
#define MPI_WIRE_EAGER_HDR offsetof(mpi_wire_hdr_t, id)

/* ---- communicators and groups ------------------------------------------ */

typedef struct mpi_group {
    int refs; /* handles and communicators that hold it */
    int size;
    int *world; /* world rank of each member */
    int rank;   /* this node's place, or MPI_UNDEFINED */
} mpi_group_t;

typedef struct mpi_attr {
    struct mpi_attr *next;
    int keyval;
    void *value;
} mpi_attr_t;

typedef struct mpi_keyval {
    int in_use;
    MPI_Comm_copy_attr_function *copy;
    MPI_Comm_delete_attr_function *del;
    void *extra;
} mpi_keyval_t;

/* A Cartesian topology (mpi_topo.c): dims[ndims], periods[ndims]. */
typedef struct mpi_cart {
    int ndims;
    int *dims, *periods;
} mpi_cart_t;

typedef struct mpi_comm {
    int refs;     /* its handle, and requests under way */
    int handle;   /* MPI_COMM_NULL once freed */
    uint16_t ctx; /* point to point; ctx + 1: collectives */
    int rank, size;
    mpi_group_t *group; /* members in rank order (group->world) */
    int *rank_of;       /* by world rank: the rank here, or -1 */
    uint32_t coll_seq;  /* collective calls so far: their tag */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    mpi_attr_t *attrs;
    mpi_cart_t *cart; /* its Cartesian topology, or NULL */
} mpi_comm_t;

/* ---- messages and requests --------------------------------------------- */

/* A message that arrived before its receive was posted. */
typedef struct mpi_msg {
    struct mpi_msg *next;
    int src; /* world rank */
    int tag;
    uint16_t ctx;
    size_t len; /* of data; for an announcement, of the data to come */
    char *data;
    int rts;         /* an announcement (no data) */
    uint64_t rts_id; /* the sender's request */
} mpi_msg_t;

/* First in, first out. */
typedef struct {
    mpi_msg_t *head, **tail;
} mpi_queue_t;

typedef enum {
    MPI_REQ_SEND,
    MPI_REQ_RECV,
    MPI_REQ_COLL, /* a non-blocking collective: its schedule */
} mpi_req_kind_t;

/* Send modes of MPI_Send, MPI_Ssend, MPI_Rsend, MPI_Bsend. */
typedef enum {
    MPI_MODE_STANDARD,
    MPI_MODE_SYNC,
    MPI_MODE_READY,
    MPI_MODE_BUFFERED
} mpi_mode_t;

struct mpi_sched;

struct lci_mpi_request {
    struct lci_mpi_request *next; /* in the posted-receive list */
    mpi_req_kind_t kind;
    int done;
    int persistent; /* made by *_init: inactive when done, until started */
    int active;     /* a persistent request started and not yet waited */
    int freed;      /* MPI_Request_free'd under way: freed at completion */
    int cancelled;
    int internal;   /* a schedule's: the schedule owns it */
    mpi_comm_t *comm;
    uint16_t ctx;
    int source, tag; /* receive: world rank or MPI_ANY_SOURCE */
    MPI_Status status; /* MPI_SOURCE as a world rank until finished */
    /* the user's buffer, and whether data goes through a packed copy */
    void *ubuf;
    size_t ucount;
    mpi_type_t *utype; /* a reference held while under way */
    MPI_Datatype utype_h;
    /* receive: where the data lands (the user's buffer, or pack) */
    void *buf;
    size_t cap;
    char *pack; /* ours: unpacked into ubuf, freed at completion */
    size_t want; /* a large receive: the bytes it asked the sender for */
    /* send */
    mpi_mode_t mode;
    const void *sbuf;
    size_t sbytes;
    int dest; /* world rank */
    char *spack; /* ours: the packed data, freed when sent */
    /* a non-blocking collective */
    struct mpi_sched *sched;
    /* a persistent request: what each MPI_Start starts again */
    struct {
        mpi_comm_t *comm; /* a reference while the request exists */
        void *buf;
        int count;
        MPI_Datatype type;
        int peer; /* rank in comm */
        int tag;
    } init;
};

/* Where a message from another rank is being put together, from its first
 * packet until its handler runs (one list per sender, in arrival order). */
typedef struct mpi_placed {
    struct mpi_placed *next;
    struct lci_mpi_request *req; /* the receive it matched, or NULL */
    char *buf;                   /* req's buffer, or one of our own */
    int tag;
    uint16_t ctx;
    uint32_t kind;   /* MPI_WIRE_* */
    uint64_t rts_id; /* an announcement's send request */
    size_t rts_len;  /* and its length */
} mpi_placed_t;

typedef struct {
    mpi_placed_t *head, **tail;
} mpi_placed_list_t;

/* The MPI_Bcast on MPI_COMM_WORLD a rank waits in, so that the data lands
 * in place. */
typedef struct {
    int active;
    int root;
    void *buf;
    size_t bytes;
    int placed; /* the message is being put together in buf */
    int done;
} mpi_bcast_wait_t;

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

/* A user's reduction operation (MPI_Op_create). */
typedef struct {
    MPI_User_function *fn;
    int commute;
} mpi_user_op_t;

/* A request nobody will wait for (MPI_Request_free under way, a buffered
 * send's), freed when done; a buffered send's bytes count against the
 * attached buffer until then. */
typedef struct mpi_detached {
    struct mpi_detached *next;
    struct lci_mpi_request *req;
    size_t bsend_bytes;
} mpi_detached_t;

struct mpi_state {
    int inited, finalized;
    int thread_level;
    int rank, size; /* in MPI_COMM_WORLD */
    size_t eager_max; /* the largest message sent eagerly */
    MPI_Errhandler errhandler_now; /* of the communicator of the call */
    /* handles */
    mpi_comm_t **comms;
    int ncomms;
    mpi_group_t **groups;
    int ngroups;
    mpi_type_t **types;
    int ntypes;
    mpi_user_op_t *ops;
    int nops;
    mpi_keyval_t *keyvals;
    int nkeyvals;
    uint16_t next_ctx; /* the next context id this node has not used */
    /* point to point */
    struct lci_mpi_request *posted, **posted_tail;
    mpi_queue_t unexpected;
    mpi_placed_list_t *placed; /* by sender */
    mpi_handles_t handles;
    /* Finished requests and placements kept for reuse: no allocation per
     * message on the fast path (a few dozen at most are kept). */
    struct lci_mpi_request *req_spare;
    mpi_placed_t *placed_spare;
    int nreq_spare, nplaced_spare;
    /* requests nobody waits for; buffered sends */
    mpi_detached_t *detached;
    char *bsend_buf;
    size_t bsend_size, bsend_used;
    /* MPI_Bcast on MPI_COMM_WORLD */
    mpi_bcast_wait_t bcast_wait;
    int *bcast_inflight;           /* by root: before their MPI_Bcast */
    mpi_early_list_t *bcast_early; /* by root: those in buffers of ours */
    mpi_queue_t *bcast_from;       /* by root */
    /* non-blocking collectives under way */
    struct mpi_sched *scheds;
    char last_error[MPI_MAX_ERROR_STRING];
};

/* This node's MPI: a node-local block (lci_node_local), so it follows the
 * running node where several nodes share one process.  Hidden: the
 * library reaches it directly, not through its global offset table. */
extern __attribute__((visibility("hidden"))) struct mpi_state *mpi;

/* ---- errors and checks (mpi_env.c) ------------------------------------- */

/* Records the message; fatal unless the error handler of the call's
 * communicator is MPI_ERRORS_RETURN.  Returns code. */
int mpi_error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* MPI_SUCCESS, or the error for a call before MPI_Init or after
 * MPI_Finalize.  Errors from here on go to MPI_COMM_WORLD's handler. */
int mpi_check_env(const char *fn);

/* As mpi_check_env, and comm names a communicator (*c_p, if c_p).
 * Errors from here on go to comm's handler. */
int mpi_check_comm(const char *fn, MPI_Comm comm, mpi_comm_t **c_p);

/* Checks count, type and buffer; *t_p the type, *bytes_p the packed
 * length. */
int mpi_check_buffer(const char *fn, const void *buf, int count,
                     MPI_Datatype type, const mpi_type_t **t_p,
                     size_t *bytes_p);

/* Runs Panda's handlers once (waiting for one if wait) and moves the
 * non-blocking collectives on. */
int mpi_progress(const char *fn, int wait);

/* ---- communicators and groups (mpi_comm.c, mpi_group.c) ---------------- */

mpi_comm_t *mpi_comm_get(MPI_Comm comm);
/* Makes MPI_COMM_WORLD and MPI_COMM_SELF (MPI_Init). */
int mpi_comms_init(void);
void mpi_comms_free(void);
void mpi_comm_release(mpi_comm_t *c);

/* Cartesian topologies (mpi_topo.c): a copy of cart (NULL if cart is NULL
 * or there is no memory: check cart first), and freeing one. */
mpi_cart_t *mpi_cart_copy(const mpi_cart_t *cart);
void mpi_cart_free(mpi_cart_t *cart);

mpi_group_t *mpi_group_get(MPI_Group group);
/* A new group of n world ranks (taken), with one reference. */
mpi_group_t *mpi_group_new(int n, int *world);
void mpi_group_release(mpi_group_t *g);
/* MPI_IDENT, MPI_SIMILAR (same members, another order) or MPI_UNEQUAL. */
int mpi_group_compare(const mpi_group_t *a, const mpi_group_t *b);
/* A handle for g (which it takes). */
int mpi_group_handle(const char *fn, mpi_group_t *g, MPI_Group *group);
void mpi_groups_free(void);

/* ---- types and operations (mpi_type.c, mpi_op.c) ------------------------ */

void mpi_type_hold(const mpi_type_t *t);
void mpi_type_release(const mpi_type_t *t);

/* MPI_SUCCESS, or the error for an operation that does not apply to t. */
int mpi_op_check(const char *fn, MPI_Op op, const mpi_type_t *t);
/* inout[i] = in[i] op inout[i] for count elements of t, both packed. */
void mpi_op_apply(MPI_Op op, const mpi_type_t *t, MPI_Datatype type,
                  size_t count, const void *in, void *inout);
void mpi_ops_free(void);

/* ---- point to point (mpi_p2p.c) ---------------------------------------- */

/* Sends bytes of contiguous data at once (eager, bytes <= eager_max) to
 * world rank dest, with no request: done when it returns. */
int mpi_send_eager(const char *fn, uint16_t ctx, int dest, int tag,
                   const void *data, size_t bytes);
/* Starts a send of bytes contiguous bytes to world rank dest on context
 * ctx; req (zeroed by the caller, kind set) completes when the data has
 * gone (eager: at once).  Panda copies eager data before returning. */
int mpi_send_start(const char *fn, struct lci_mpi_request *req, uint16_t ctx,
                   int dest, int tag, const void *buf, size_t bytes,
                   mpi_mode_t mode);
/* Posts a receive into cap contiguous bytes at buf from world rank source
 * (or MPI_ANY_SOURCE) on context ctx. */
void mpi_recv_start(struct lci_mpi_request *req, uint16_t ctx, int source,
                    int tag, void *buf, size_t cap);
/* Takes req out of the posted receives; 0 if it was not there (matched). */
int mpi_recv_unpost(struct lci_mpi_request *req);
/* The oldest unexpected message that a receive of (ctx, source, tag)
 * would take, or NULL. */
const mpi_msg_t *mpi_probe_unexpected(uint16_t ctx, int source, int tag);

void mpi_p2p_arrived(int src, const void *data, size_t len, void *arg);
void *mpi_p2p_place(int src, const void *head, size_t head_len, size_t len,
                    size_t *skip_p, void *arg);
void mpi_p2p_cts_arrived(int src, const void *data, size_t len, void *arg);

/* The id of req for the wire, and req back from an id (taking it: an id
 * is good once).  An id that names no waiting request stops the run. */
uint64_t mpi_handle_of(struct lci_mpi_request *req);
struct lci_mpi_request *mpi_handle_take(uint64_t id, int src);
void mpi_handles_free(void);

/* ---- requests (mpi_request.c) ------------------------------------------ */

struct lci_mpi_request *mpi_request_new(mpi_req_kind_t kind);
/* Gives back a request mpi_request_new made (its operation ended). */
void mpi_request_free(struct lci_mpi_request *req);
/* Frees the requests kept for reuse (MPI_Finalize). */
void mpi_request_spares_free(void);
/* Frees the placements kept for reuse (MPI_Finalize, mpi_p2p.c). */
void mpi_placed_spares_free(void);
/* Waits until req is done (running handlers and schedules). */
int mpi_request_wait(const char *fn, struct lci_mpi_request *req);
/* Frees the detached requests that are done. */
void mpi_detached_reap(void);


/* ---- collectives (mpi_sched.c, mpi_coll.c) ----------------------------- */

/* Moves every non-blocking collective under way on; 1 if one finished. */
int mpi_sched_progress(void);
void mpi_sched_free_all(void);

void mpi_bcast_arrived(int src, const void *data, size_t len, void *arg);
void *mpi_bcast_place(int src, const void *head, size_t head_len, size_t len,
                      size_t *skip_p, void *arg);

/* ---- queues (mpi_env.c) ------------------------------------------------ */

void mpi_queue_init(mpi_queue_t *q);
void mpi_queue_push(mpi_queue_t *q, mpi_msg_t *m);
mpi_msg_t *mpi_queue_pop(mpi_queue_t *q);
/* Queues a message whose buffer (malloc'd, or NULL when empty) passes to
 * the queue. */
void mpi_queue_take(mpi_queue_t *q, int src, int tag, char *data, size_t len);
/* Queues a copy (charged) of data as a message from src. */
void mpi_queue_copy(mpi_queue_t *q, int src, int tag, const void *data,
                    size_t len);
void mpi_queue_free(mpi_queue_t *q);

#endif /* MPI_INTERNAL_H */
