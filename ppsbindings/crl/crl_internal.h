/*
 * crl_internal.h - CRL's private state, shared by its source files.
 *
 *   crl_node.c    node state, start/stop, errors, the LCI upcall
 *   crl_msg.c     sending control messages and fragmented region data
 *   crl_region.c  the region tables, create/delete/map/unmap
 *   crl_home.c    the home's directory: queues requests, invalidates, grants
 *   crl_remote.c  sections and flush; a copy's replies and invalidations
 *   crl_coll.c    barrier, broadcast, reductions
 *
 * Single-threaded, but re-entrant through LCI: sending may poll, and a
 * poll runs the upcall.  So every CRL call that changes protocol state
 * runs between crl_enter() and crl_leave(); a packet that arrives in
 * between is kept and handled by crl_leave(), in arrival order.
 */
#ifndef CRL_INTERNAL_H
#define CRL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "crl.h"
#include "crl_proto.h"
#include "lci.h"

#define CRL_REGION_MAGIC 0x4352524eu

typedef enum {
    CRL_COPY_INVALID = 0,
    CRL_COPY_SHARED,
    CRL_COPY_EXCLUSIVE
} crl_copy_t;

typedef enum {
    CRL_WANT_NONE = 0,
    CRL_WANT_READ,
    CRL_WANT_WRITE
} crl_want_t;

/* A request the home could not serve yet. */
typedef struct {
    int node;
    crl_want_t want;
} crl_request_t;

/* The home's view of a region's copies. */
typedef struct {
    uint64_t *sharers;  /* bit per node: a remote shared copy */
    uint64_t *inv_sent; /* bit per node: invalidated, not yet acknowledged */
    int owner;          /* remote node with the exclusive copy, or -1 */
    int acks_pending;   /* invalidations of the current round not answered */
    uint32_t data_got;  /* bytes of a returning exclusive copy so far */
    crl_request_t *queue;
    size_t qhead, qlen, qcap;
} crl_dir_t;

typedef struct crl_region {
    uint32_t magic;
    rid_t rid;
    int home;
    uint32_t size;
    int map_count;
    int deleted;
    int readers;       /* this node's open read sections */
    int writer;        /* this node has a write section open */
    crl_copy_t copy;   /* a remote copy's state (the home uses dir) */
    crl_want_t want;   /* the access this node waits for */
    int granted;       /* the awaited access was granted */
    int inv_deferred;  /* an invalidation waits for the section to end */
    uint32_t data_got; /* bytes of the awaited data reply so far */
    crl_dir_t *dir;    /* at the home only */
    _Alignas(16) unsigned char data[];
} crl_region_t;

typedef struct crl_outgoing crl_outgoing_t;

/* One received broadcast message, complete or being filled. */
typedef struct crl_bcast_msg {
    struct crl_bcast_msg *next;
    uint32_t len, got;
    unsigned char data[];
} crl_bcast_msg_t;

typedef struct {
    int started;
    int owns_lci; /* crl_init started LCI, so crl_finalize stops it */
    int rank, size;
    int busy;      /* depth of crl_enter() */
    int in_upcall; /* handling a packet inside LCI's upcall */
    /* packets handlers could not send at once (crl_msg.c) */
    crl_outgoing_t *outbox_head, *outbox_tail;
    /* packets kept while busy, in arrival order */
    lci_rpacket_t **deferred;
    size_t dhead, dlen, dcap;
    /* regions by home and creation index */
    crl_region_t ***table;
    uint32_t *table_len;
    uint32_t next_index;
    int delete_acks; /* copies an rgn_delete still waits to see dropped */
    /* an rgn_map waiting for the home's answer */
    rid_t map_rid;
    uint32_t map_size;
    int map_done;
    /* broadcasts: per root the one being filled, then a FIFO of done ones */
    crl_bcast_msg_t **bcast_filling;
    crl_bcast_msg_t *bcast_head, *bcast_tail;
    int bcast_ready; /* complete messages in the FIFO */
    /* reductions: node 0 collects a round's values by parity */
    uint32_t reduce_seq;
    double *reduce_vals[2];
    uint32_t reduce_ops[2];
    int reduce_count[2];
    uint32_t reduce_done_seq;
    int reduce_done;
    /* barrier: node 0 counts arrivals by epoch parity */
    uint32_t barrier_epoch;
    int barrier_arrivals[2];
    uint32_t barrier_released;
    double reduce_result;
    crl_stats_t stats;
} crl_node_t;

/* Hidden: the library reaches it directly, not through its global offset
 * table. */
extern __attribute__((visibility("hidden"))) crl_node_t crl;

/* ---- crl_node.c ----------------------------------------------------- */

crl_status_t crl_error(crl_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A protocol step that cannot fail in a correct run failed: stop the run. */
void crl_fatal(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
crl_status_t crl_check_started(const char *fn);
void crl_enter(void);
void crl_leave(void);
/* Polls (outside any CRL state change) until done(arg), sending what the
 * outbox holds before each wait. */
crl_status_t crl_wait(int (*done)(const void *arg), const void *arg,
                      const char *what);
/* crl_wait until *flag becomes nonzero. */
crl_status_t crl_wait_flag(const volatile int *flag, const char *what);

/* ---- crl_msg.c ------------------------------------------------------ */

void crl_send_ctl(int dest, crl_msg_type_t type, rid_t rid, uint32_t size);
void crl_send_data(int dest, crl_msg_type_t type, rid_t rid, const void *data,
                   uint32_t size);
/* Sends hdr + payload (one packet) to dest, or to every other node if
 * dest < 0; inside the upcall it may go to the outbox instead. */
void crl_send_packet(int dest, const crl_msg_hdr_t *hdr, const void *payload,
                     uint32_t len);
/* Sends what the outbox holds (outside the upcall only). */
void crl_outbox_drain(void);

/* ---- crl_region.c --------------------------------------------------- */

int crl_rid_home(rid_t rid);
crl_region_t *crl_region_lookup(rid_t rid);
/* The region behind a pointer rgn_map returned, or NULL (error set).  A
 * pointer that is not one is caught by the magic number in front of the
 * data, which reads the bytes before it: pass only rgn_map's pointers. */
crl_region_t *crl_region_of(void *rgn, const char *fn);
void crl_region_on_map_req(int src, const crl_msg_hdr_t *h);
void crl_region_on_map_rep(const crl_msg_hdr_t *h);
void crl_region_on_delete(int src, const crl_msg_hdr_t *h);
void crl_region_free_all(void);
/* Bit helpers for the per-node bitmaps. */
static inline int crl_bit_get(const uint64_t *bits, int i)
{
    return (int)((bits[i / 64] >> (i % 64)) & 1u);
}
static inline void crl_bit_set(uint64_t *bits, int i)
{
    bits[i / 64] |= UINT64_C(1) << (i % 64);
}
static inline void crl_bit_clear(uint64_t *bits, int i)
{
    bits[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

/* ---- crl_home.c ----------------------------------------------------- */

crl_dir_t *crl_dir_new(void);
void crl_dir_free(crl_dir_t *dir);
/* No request is queued and no invalidation is outstanding. */
int crl_dir_idle(const crl_region_t *r);
/* The home's own start: grants at once (returns 1) or queues the request
 * behind earlier ones (returns 0; r->granted is set later). */
int crl_home_start(crl_region_t *r, crl_want_t want);
/* Serves queued requests as far as the region's state allows. */
void crl_home_serve(crl_region_t *r);
void crl_home_on_request(int src, const crl_msg_hdr_t *h);
void crl_home_on_ack(int src, const crl_msg_hdr_t *h, const void *data,
                     uint32_t len);

/* ---- crl_remote.c --------------------------------------------------- */

void crl_remote_on_reply(const crl_msg_hdr_t *h, const void *data,
                         uint32_t len);
void crl_remote_on_inv(const crl_msg_hdr_t *h);

/* ---- crl_coll.c ----------------------------------------------------- */

void crl_coll_on_bcast(int src, const crl_msg_hdr_t *h, const void *data,
                       uint32_t len);
void crl_coll_on_reduce_in(int src, const crl_msg_hdr_t *h, const void *data,
                           uint32_t len);
void crl_coll_on_reduce_out(const crl_msg_hdr_t *h, const void *data,
                            uint32_t len);
void crl_coll_on_barrier(int src, const crl_msg_hdr_t *h);
void crl_coll_free(void);

#endif
