/*
 * pan_internal.h - Panda's private state, wire header and the functions its
 * files share.  Never installed.
 */
#ifndef PAN_INTERNAL_H
#define PAN_INTERNAL_H

#include <stdint.h>

#include "lci.h"
#include "panda.h"

/* What a packet (one fragment of a message) carries. */
enum pan_kind {
    PAN_K_ONEWAY = 1, /* port message */
    PAN_K_BCAST,      /* unordered broadcast, port */
    PAN_K_OBCAST,     /* totally-ordered broadcast, port, tag = sequence */
    PAN_K_REQ,        /* RPC request, service, tag = call id */
    PAN_K_REP,        /* RPC reply, tag = call id */
    PAN_K_BARRIER_IN, /* a node reached the barrier (to node 0) */
    PAN_K_BARRIER_OUT /* everyone reached it (from node 0) */
};

/* Panda's header in front of every fragment.  Every fragment carries it
 * whole; the receiver reads len and the rest from the first. */
typedef struct {
    uint8_t kind;
    uint8_t first; /* 1 on the first fragment of a message */
    uint16_t port; /* port or service */
    uint32_t len;  /* length of the whole message */
    uint64_t tag;  /* call id or sequence number */
} pan_wire_hdr_t;
_Static_assert(sizeof(pan_wire_hdr_t) == 16, "pan_wire_hdr_t is 16 bytes");

/* A complete message waiting for its handler. */
typedef struct pan_delivery {
    struct pan_delivery *next;
    pan_wire_hdr_t hdr;
    int src;
    char *buf;  /* hdr.len bytes: malloc'd (NULL when empty) or placed */
    int placed; /* buf belongs to the port's placement, not to Panda */
} pan_delivery_t;

/* A message being put together from one sender's fragments. */
typedef struct {
    pan_wire_hdr_t hdr;
    int active;
    size_t got;  /* message bytes seen */
    size_t skip; /* leading bytes a placement does not store */
    int placed;
    char *buf;
    size_t cap; /* bytes of buf, when it is Panda's own */
    /* Packets kept in LCI's buffers because a placement said "later":
     * from the first packet of the message it waits for on. */
    lci_rpacket_t **held;
    int nheld, held_cap;
} pan_reasm_t;

/* Threads waiting for something, first come first woken. */
struct pan_cond {
    struct pan_thread *head, *tail;
};

/* Panda-MT's threads: one runs at a time (see panda.h). */
struct pan_thread {
    lci_thread_t *lt;  /* LCI's thread: one of the node's runs at a time */
    int runnable;      /* in the run queue or running */
    int finished;      /* func returned */
    void *(*func)(void *);
    void *arg;
    void *result;
    struct pan_thread *next; /* run queue or a condition's waiters */
    struct pan_cond joiners;
};

struct pan_rpc_ticket {
    int src;
    uint64_t id;
};

/* An RPC this node waits for. */
typedef struct pan_call {
    struct pan_call *next;
    uint64_t id;
    int done;
    char *reply;
    size_t reply_len;
    struct pan_cond cond;
} pan_call_t;

typedef struct {
    pan_recv_func_t func;
    void *arg;
    pan_place_func_t place;
    void *place_arg;
} pan_port_t;

typedef struct {
    pan_rpc_func_t func;
    void *arg;
} pan_service_t;

struct pan_state {
    int inited;
    pan_mode_t mode;
    int rank, size;
    size_t frag_cap; /* payload bytes per packet after the header */
    int in_handler;
    pan_port_t ports[PAN_NPORTS];
    pan_service_t services[PAN_NSERVICES];
    pan_reasm_t *uni, *mc;  /* by sender */
    int holding;            /* paths with held packets */
    lci_rpacket_t **unkept; /* taken in inside LCI's upcall, to release */
    int nunkept, unkept_cap;
    pan_delivery_t *dq_head, **dq_tail;
    pan_delivery_t *spare; /* delivery records to reuse (pan_delivery_new) */
    uint64_t handled; /* handlers run so far */
    /* RPC */
    uint64_t next_call;
    pan_call_t *calls;
    /* totally-ordered broadcast */
    uint64_t next_seq;        /* next sequence number to deliver */
    pan_delivery_t *holdback; /* early arrivals, sorted by sequence */
    /* barrier */
    uint64_t barrier_in, barrier_out, barrier_epoch;
    struct pan_cond barrier_cond;
    /* Panda-MT */
    struct pan_thread *current;
    struct pan_thread *runq_head, *runq_tail;
    struct pan_thread main_thread;
    struct pan_cond handled_cond;
    int intr_on;
    char last_error[512]; /* pan_last_error() */
};

/* This node's Panda: a node-local block (lci_node_local), so it follows
 * the running node where several nodes share one process.  Hidden: the
 * library reaches it directly, not through its global offset table. */
extern __attribute__((visibility("hidden"))) struct pan_state *pan;

#define PAN_SEQUENCER                                                          \
    0 /* node whose F&A variable hands out sequence numbers                    \
       */
#define PAN_SEQ_VAR 0

/* pan_core.c */
int pan_error(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int pan_lci_error(lci_status_t st, const char *what);
int pan_check_usable(const char *fn);

/* pan_frag.c: fragmentation. */
int pan_frag_send(int dest, const pan_wire_hdr_t *hdr, const pan_msg_t *msg);
int pan_frag_bcast(const pan_wire_hdr_t *hdr, const pan_msg_t *msg);
char *pan_frag_flatten(const pan_msg_t *msg);

/* pan_reasm.c: reassembly, placement and held packets. */
lci_upcall_result_t pan_reasm_upcall(lci_rpacket_t *packet, void *arg);
int pan_reasm_init(void);
void pan_reasm_fini(void);
void pan_reasm_retry(void);

/* pan_dispatch.c: complete messages to their handlers. */
void pan_complete(const pan_wire_hdr_t *hdr, int src, char *buf);
void pan_complete_placed(const pan_wire_hdr_t *hdr, int src, char *buf);
/* A delivery record, reused from those handled before (no allocation per
 * message once the queue has run at its usual depth); aborts when out of
 * memory.  pan_delivery_free gives one back. */
pan_delivery_t *pan_delivery_new(void);
void pan_delivery_free(pan_delivery_t *d);

void pan_enqueue(const pan_wire_hdr_t *hdr, int src, char *buf, int placed);
int pan_dispatch(void);
int pan_block_until(struct pan_cond *cond, int (*done)(void *), void *arg);
void pan_dispatch_fini(void);

/* pan_rpc.c */
void pan_rpc_replied(const pan_wire_hdr_t *hdr, char *buf);
void pan_rpc_request(int src, const pan_wire_hdr_t *hdr, char *buf);

/* pan_obcast.c */
void pan_obcast_arrived(const pan_wire_hdr_t *hdr, int src, char *buf);
void pan_obcast_fini(void);

/* pan_thread.c */
int pan_mt_init(void);
void pan_mt_fini(void);
void pan_mt_wake(struct pan_thread *t);
void pan_cond_wake_all(struct pan_cond *cond);
int pan_cond_wait_internal(struct pan_cond *cond);

#endif /* PAN_INTERNAL_H */
