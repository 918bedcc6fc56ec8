/*
 * panda.h - Panda, a communication library for parallel-programming systems
 * (paper section 5.1), built on LCI.
 *
 * Panda offers a message type made of I/O vectors, one-way messages, RPC
 * (request, handler, reply), unordered broadcast and totally-ordered
 * broadcast.  Messages of any size are cut into LCI packets and put back
 * together at the receiver.  Senders' data is copied straight from the I/O
 * vectors into NI send buffers (lci_packet_write); receivers copy each
 * packet once into the reassembled message (lci_copy, charged).
 *
 * Two variants, chosen at pan_init():
 *   PAN_ST  single-threaded: no locks, network interrupts off; messages are
 *           received only when the program calls Panda (pan_poll, pan_wait,
 *           or while pan_rpc_call waits for its reply).
 *   PAN_MT  multi-threaded: threads made with pan_thread_create block in
 *           pan_rpc_call / pan_cond_wait / pan_thread_join.  While a thread
 *           runs, network interrupts are on; when every thread is blocked
 *           the layer turns them off and polls (lci_poll_wait).
 *
 * Panda-MT runs one thread at a time: a thread keeps running until it
 * blocks in a Panda call (or calls pan_yield), and the next runnable thread
 * is the one that became runnable first.  So code between Panda calls needs
 * no lock, and a run under lci-run is as deterministic as a single-threaded
 * one.  Do not call Panda from threads not made by pan_thread_create (or
 * the thread that called pan_init).
 *
 * Handlers.  Every kind of incoming message goes to a handler registered
 * for its port (one-way and broadcast) or service (RPC).  Handlers run in
 * the thread that is polling, outside LCI's upcall, one at a time, in
 * arrival order (totally-ordered broadcasts in sequence-number order).
 * A handler may send, broadcast, reply and signal conditions, but must not
 * block: pan_rpc_call, pan_wait, pan_cond_wait, pan_thread_join and
 * pan_barrier return PAN_ERR_STATE from a handler.  A request handler that
 * cannot answer at once keeps its ticket and replies later, from any
 * thread.  The data passed to a handler is valid until it returns.
 *
 * Errors: functions return PAN_OK (0) or a negative pan_status_t and leave a
 * message for pan_last_error().  LCI failures are returned as PAN_ERR_LCI
 * with LCI's message.
 */
#ifndef PANDA_H
#define PANDA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    PAN_OK = 0,
    PAN_ERR_INVAL = -1, /* bad argument (NULL, port or rank out of range) */
    PAN_ERR_STATE = -2, /* not valid now (not initialised, in a handler) */
    PAN_ERR_NOMEM = -3, /* host memory exhausted */
    PAN_ERR_SIZE = -4,  /* message too large or too many I/O vectors */
    PAN_ERR_LCI = -5,   /* the LCI layer failed; see pan_last_error() */
    PAN_ERR_BUSY = -6   /* a handler is already registered there */
} pan_status_t;

typedef enum {
    PAN_ST = 0, /* single-threaded: no locks, polling only */
    PAN_MT = 1  /* multi-threaded: blocking threads, interrupts or polling */
} pan_mode_t;

/* A static text for a status code. */
const char *pan_strerror(int status);

/* The last error this node reported, with details, or "". */
const char *pan_last_error(void);

/* ---- life cycle ----------------------------------------------------- */

/* Starts LCI (lci_init) and Panda in the given variant.  Collective. */
int pan_init(int *argc, char ***argv, pan_mode_t mode);

/* Collective: waits, still serving handlers, until every node called it,
 * then stops Panda and LCI.  In PAN_MT every other thread must have been
 * joined first. */
int pan_end(void);

/* Collective: waits, still serving handlers, until every node called it. */
int pan_barrier(void);

int pan_rank(void); /* this node, 0 .. pan_size()-1 */
int pan_size(void); /* number of nodes */
pan_mode_t pan_mode(void);

/* ---- messages: I/O vectors ------------------------------------------ */

#define PAN_MSG_MAX_IOV 16

/* A message to send: up to PAN_MSG_MAX_IOV pieces of client memory, sent
 * in order as one message.  Panda never keeps the pointers past the send
 * call, so the memory can be reused as soon as the call returns. */
typedef struct pan_msg {
    int iovcnt;
    size_t len; /* sum of the pieces */
    struct iovec iov[PAN_MSG_MAX_IOV];
} pan_msg_t;

/* Empties msg. */
void pan_msg_init(pan_msg_t *msg);

/* Appends len bytes at data (not copied).  PAN_ERR_SIZE when full. */
int pan_msg_push(pan_msg_t *msg, const void *data, size_t len);

/* ---- ports: one-way messages and broadcasts ------------------------- */

#define PAN_NPORTS 64 /* ports 0 .. PAN_NPORTS-1 */

/* Receives a one-way message or a broadcast sent to a port.  src is the
 * sending node. */
typedef void (*pan_recv_func_t)(int src, const void *data, size_t len,
                                void *arg);

/* Registers (or with func NULL removes) the handler of a port.  Messages
 * arriving for a port without handler are held until one is set. */
int pan_port_set(int port, pan_recv_func_t func, void *arg);

/* Chooses where a message arriving on a port is put together, so that a
 * receiver that already knows the destination gets the data with one copy
 * (paper 5.1: packets wait until they can be copied to the destination the
 * receiver names).  Called from LCI's upcall when the first packet of a
 * message from another node arrives -- it must not call Panda -- with the
 * first head_len bytes of the message and its whole length len.  Returns
 * the buffer for the message's bytes from *skip_p on (len - *skip_p bytes;
 * *skip_p is 0 unless set, for a header the function has read from head),
 * or NULL to let Panda allocate.  The port's handler then gets that buffer
 * and len - *skip_p as its data; Panda never frees a placed buffer.
 * Messages a node sends to itself are not placed.
 *
 * Returning PAN_PLACE_LATER keeps the message's packets, and those of later
 * messages of that sender on the same path, in LCI's receive buffers, and
 * asks again each time the program polls or waits in Panda.  When more than
 * PAN_PLACE_HOLD packets wait on a path, Panda asks a last time with head
 * NULL and head_len 0; then PAN_PLACE_LATER counts as NULL. */
typedef void *(*pan_place_func_t)(int src, const void *head, size_t head_len,
                                  size_t len, size_t *skip_p, void *arg);

#define PAN_PLACE_LATER ((void *)(uintptr_t)1)
#define PAN_PLACE_HOLD  256

/* Registers (or with func NULL removes) the placement of a port. */
int pan_port_place_set(int port, pan_place_func_t func, void *arg);

/* One-way message to node dest (dest may be this node).  Messages from one
 * node to another arrive in the order sent.  Returns when msg's memory may
 * be reused. */
int pan_send(int dest, int port, const pan_msg_t *msg);

/* Unordered broadcast to every node but this one, by LCI multicast (each
 * packet forwarded along the tree, not the whole message).  Broadcasts
 * from one node arrive in the order sent; broadcasts from different nodes
 * arrive in any order. */
int pan_bcast(int port, const pan_msg_t *msg);

/* Totally-ordered broadcast to every node, this one included: takes the
 * next global sequence number from the sequencer (node 0) with an LCI
 * fetch-and-add, then broadcasts.  Every node delivers totally-ordered
 * broadcasts (of all ports) in sequence-number order, holding back those
 * that arrive early.  The local delivery happens at a later poll, in turn. */
int pan_obcast(int port, const pan_msg_t *msg);

/* ---- RPC ------------------------------------------------------------ */

#define PAN_NSERVICES 64 /* services 0 .. PAN_NSERVICES-1 */

/* What a request handler answers through; opaque. */
typedef struct pan_rpc_ticket pan_rpc_ticket_t;

/* Receives a request from node src.  Must pass ticket to pan_rpc_reply
 * exactly once, now or later. */
typedef void (*pan_rpc_func_t)(int src, const void *req, size_t len,
                               pan_rpc_ticket_t *ticket, void *arg);

/* Registers (or with func NULL removes) the handler of a service. */
int pan_rpc_set(int service, pan_rpc_func_t func, void *arg);

/* Sends the reply of a request and frees the ticket. */
int pan_rpc_reply(pan_rpc_ticket_t *ticket, const pan_msg_t *reply);

/* Sends a request to service on node dest and waits for the reply.  The
 * reply is returned in *reply_p (malloc'd, release with free(); NULL for
 * an empty reply) and its length in *reply_len_p.  PAN_ST polls while it
 * waits; PAN_MT blocks the calling thread. */
int pan_rpc_call(int dest, int service, const pan_msg_t *req, void **reply_p,
                 size_t *reply_len_p);

/* ---- progress ------------------------------------------------------- */

/* Takes in what has arrived and runs the handlers of complete messages.
 * Returns the number of handlers run (>= 0) or a negative pan_status_t. */
int pan_poll(void);

/* Like pan_poll(), but waits until at least one handler ran.  In PAN_MT
 * the thread blocks until a handler ran (on any thread). */
int pan_wait(void);

/* ---- threads (PAN_MT only; PAN_ERR_STATE in PAN_ST) ------------------ */

typedef struct pan_thread pan_thread_t;
typedef struct pan_cond pan_cond_t;

/* Starts func(arg) in a new thread; it first runs when the current thread
 * blocks or yields. */
int pan_thread_create(pan_thread_t **thread_p, void *(*func)(void *),
                      void *arg);

/* Waits for the thread to end; its result in *result_p (may be NULL). */
int pan_thread_join(pan_thread_t *thread, void **result_p);

/* Lets the other runnable threads run, and runs handlers. */
int pan_yield(void);

/* Conditions: since one thread runs at a time, test the predicate and call
 * pan_cond_wait without any mutex.  A signal with no waiter is lost. */
int pan_cond_create(pan_cond_t **cond_p);
int pan_cond_free(pan_cond_t *cond);
int pan_cond_wait(pan_cond_t *cond);
int pan_cond_signal(pan_cond_t *cond);    /* wakes the longest waiter */
int pan_cond_broadcast(pan_cond_t *cond); /* wakes every waiter */

#ifdef __cplusplus
}
#endif
#endif /* PANDA_H */
