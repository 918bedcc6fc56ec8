/*
 * mg_node.c - a node of the search layer: start and stop, errors, the work
 * queue, and the LCI upcall that takes in jobs and termination messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mg_internal.h"

mg_node_t mg;

char mg_errbuf[512];

const char *mg_last_error(void)
{
    return mg_errbuf;
}

const char *mg_strerror(mg_status_t status)
{
    switch (status) {
    case MG_OK:
        return "success";
    case MG_ERR_INVAL:
        return "invalid argument";
    case MG_ERR_STATE:
        return "call not valid now";
    case MG_ERR_NOMEM:
        return "out of memory";
    case MG_ERR_LCI:
        return "LCI failed";
    }
    return "unknown search-layer status";
}

void mg_work_push(const mg_job_t *job)
{
    if (mg.nwork == mg.capwork) {
        size_t cap = mg.capwork ? 2 * mg.capwork : 1024;
        mg_job_t *w = realloc(mg.work, cap * sizeof *w);
        if (w == NULL) {
            mg_fatal("search layer: node %d: no memory for %zu queued jobs",
                     mg.rank, cap);
        }
        mg.work = w;
        mg.capwork = cap;
    }
    mg.work[mg.nwork++] = *job;
}

static void on_jobs(const lci_rpacket_t *p, const mg_msg_hdr_t *h)
{
    size_t bytes = (size_t)h->count * sizeof(mg_job_t);
    if (p->len != sizeof *h + bytes) {
        mg_fatal("search layer: node %d: %zu-byte packet from node %d for "
                 "%u jobs",
                 mg.rank, p->len, p->src, h->count);
    }
    const unsigned char *src = (const unsigned char *)p->data + sizeof *h;
    for (unsigned i = 0; i < h->count; i++) {
        mg_job_t job;
        /* Taking a job off the wire is a copy the receiver pays for. */
        lci_copy(&job, src + i * sizeof job, sizeof job);
        mg_work_push(&job);
    }
    mg.count -= h->count;
    mg.colour = MG_BLACK;
    mg.stats.jobs_received += h->count;
}

static lci_upcall_result_t mg_upcall(lci_rpacket_t *p, void *arg)
{
    (void)arg;
    mg_msg_hdr_t h;
    if (p->len < sizeof h) {
        mg_fatal("search layer: node %d: short packet (%zu bytes) from "
                 "node %d",
                 mg.rank, p->len, p->src);
    }
    memcpy(&h, p->data, sizeof h);
    switch ((mg_msg_type_t)h.type) {
    case MG_MSG_JOBS:
        on_jobs(p, &h);
        break;
    case MG_MSG_TOKEN:
        mg_term_on_token(&h);
        break;
    case MG_MSG_DONE:
        if (h.run != mg.run) {
            mg_fatal("search layer: node %d: end of run %u during run %u",
                     mg.rank, h.run, mg.run);
        }
        mg.done = 1;
        break;
    default:
        mg_fatal("search layer: node %d: unknown packet type %u from node %d",
                 mg.rank, h.type, p->src);
    }
    return LCI_UPCALL_RELEASE;
}

void mg_send_packet(int dest, const mg_msg_hdr_t *hdr, const void *payload,
                    size_t len)
{
    lci_packet_t *pkt;
    lci_status_t st = lci_packet_alloc(&pkt);
    if (st == LCI_OK) {
        st = lci_packet_write(pkt, 0, hdr, sizeof *hdr);
    }
    if (st == LCI_OK && len > 0) {
        st = lci_packet_write(pkt, sizeof *hdr, payload, len);
    }
    if (st == LCI_OK) {
        st = dest < 0 ? lci_broadcast(pkt, sizeof *hdr + len)
                      : lci_send(pkt, dest, sizeof *hdr + len);
    }
    if (st != LCI_OK) {
        mg_fatal("search layer: node %d: sending to node %d: %s", mg.rank, dest,
                 lci_last_error());
    }
    mg.stats.packets_sent++;
}

mg_status_t mg_init(int *argc, char ***argv, const mg_config_t *config)
{
    if (mg.started) {
        return mg_error(MG_ERR_STATE, "mg_init: called twice");
    }
    if (config == NULL || config->handler == NULL) {
        return mg_error(MG_ERR_INVAL, "mg_init: a configuration with a "
                                      "handler is required");
    }
    if (config->k < 1 || config->k > MG_K_MAX) {
        return mg_error(MG_ERR_INVAL,
                        "mg_init: k = %u jobs per message; expected 1..%d",
                        config->k, MG_K_MAX);
    }
    if (lci_init(argc, argv) != LCI_OK) {
        return mg_error(MG_ERR_LCI, "mg_init: lci_init: %s", lci_last_error());
    }
    memset(&mg, 0, sizeof mg);
    mg.rank = lci_rank();
    mg.size = lci_size();
    mg.k = config->k;
    mg.handler = config->handler;
    mg.arg = config->arg;
    mg.batch = calloc((size_t)mg.size * mg.k, sizeof *mg.batch);
    mg.nbatch = calloc((size_t)mg.size, sizeof *mg.nbatch);
    if (mg.batch == NULL || mg.nbatch == NULL) {
        return mg_error(MG_ERR_NOMEM, "mg_init: no memory for %d x %u jobs",
                        mg.size, mg.k);
    }
    mg_term_reset();
    if (lci_upcall_set(mg_upcall, NULL) != LCI_OK) {
        return mg_error(MG_ERR_LCI, "mg_init: %s", lci_last_error());
    }
    mg.started = 1;
    /* Nobody sends jobs before every node can take them. */
    if (lci_barrier() != LCI_OK) {
        return mg_error(MG_ERR_LCI, "mg_init: lci_barrier: %s",
                        lci_last_error());
    }
    return MG_OK;
}

mg_status_t mg_finalize(void)
{
    if (!mg.started) {
        return mg_error(MG_ERR_STATE, "mg_finalize: mg_init was not called");
    }
    if (mg.running) {
        return mg_error(MG_ERR_STATE, "mg_finalize: called from a handler");
    }
    free(mg.work);
    free(mg.batch);
    free(mg.nbatch);
    memset(&mg, 0, sizeof mg);
    if (lci_finalize() != LCI_OK) {
        return mg_error(MG_ERR_LCI, "mg_finalize: %s", lci_last_error());
    }
    return MG_OK;
}
