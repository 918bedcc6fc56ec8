/*
 * mg_internal.h - the search layer's private state.
 *
 *   mg_node.c   start/stop, errors, the work queue, the LCI upcall
 *   mg_batch.c  mg_submit: per-owner aggregation up to k jobs a message
 *   mg_term.c   Safra's termination detection on a token ring
 *   mg_run.c    the loop that processes jobs until termination
 */
#ifndef MG_INTERNAL_H
#define MG_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "lci.h"
#include "mg.h"
#include "mg_proto.h"

typedef struct {
    int started;
    int running;
    int rank, size;
    unsigned k;
    mg_handler_func_t handler;
    void *arg;
    /* the work queue: a stack, so a search goes depth first */
    mg_job_t *work;
    size_t nwork, capwork;
    /* per owner: jobs waiting to be sent (k slots each) */
    mg_job_t *batch;
    unsigned *nbatch;
    size_t batched; /* jobs waiting in all batches */
    /* termination (Safra) */
    uint32_t run;       /* runs finished so far */
    int64_t count;      /* jobs sent minus jobs received, this run */
    mg_colour_t colour; /* black: received jobs since passing the token */
    int has_token;
    mg_colour_t token_colour;
    int64_t token_q;
    int done;
    mg_stats_t stats;
} mg_node_t;

/* Hidden: the library reaches them directly, not through its global
 * offset table. */
extern __attribute__((visibility("hidden"))) mg_node_t mg;

extern __attribute__((visibility("hidden"))) char mg_errbuf[512];
/* Records why a call failed (for mg_last_error) and yields its status. */
#define mg_error(status, ...)                                                  \
    (snprintf(mg_errbuf, sizeof mg_errbuf, __VA_ARGS__), (status))
/* A step that cannot fail in a correct run failed: stop the run. */
#define mg_fatal(...)                                                          \
    (snprintf(mg_errbuf, sizeof mg_errbuf, __VA_ARGS__),                       \
     lci_abort(1, mg_errbuf))
void mg_work_push(const mg_job_t *job);

/* Sends the jobs waiting for owner dest as one message. */
void mg_batch_send(int dest);
/* Sends every partly filled message (a node with no work does). */
void mg_batch_flush_all(void);

/* Sends one packet: header + payload, to dest (or to all if dest < 0). */
void mg_send_packet(int dest, const mg_msg_hdr_t *hdr, const void *payload,
                    size_t len);

/* Called by a passive node: forwards the token it holds, or at node 0
 * decides termination or starts a new wave. */
void mg_term_passive(void);
void mg_term_on_token(const mg_msg_hdr_t *h);
void mg_term_reset(void);

#endif
