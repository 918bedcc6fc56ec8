/*
 * mg.h - a Multigame-like distributed search layer on LCI.
 *
 * Multigame (Romein et al.) searches game trees in parallel and caches
 * positions in a hash table spread over the nodes.  To work on a position
 * whose table entry lives elsewhere, a node sends a small job descriptor
 * to the entry's owner and goes on with other work; the owner looks the
 * entry up and continues the job.  This layer provides exactly that:
 *
 *   - a job is 32 bytes: a 64-bit key that names the table entry, and 24
 *     bytes for the application;
 *   - mg_submit() sends a job to its key's owner (a hash of the key modulo
 *     the number of nodes); jobs to the same owner are aggregated, up to k
 *     per message (k is a configuration value, e.g. 4 or 64); a job for
 *     this node goes straight to its own work queue;
 *   - mg_run() processes jobs, calling the handler once per job on the
 *     owner node; handlers may submit new jobs; a node with no work flushes
 *     its partly filled messages;
 *   - mg_run() returns on every node when no node has work and no job is
 *     in flight, found by Safra's token-ring termination detection
 *     (counts of jobs sent and received, node colours), not by a barrier.
 *
 * Single-threaded; jobs are received by polling.  A program that uses this
 * layer leaves LCI's upcall to it.
 */
#ifndef MG_H
#define MG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MG_OK = 0,
    MG_ERR_INVAL = -1, /* bad argument (NULL, k out of range) */
    MG_ERR_STATE = -2, /* not valid now (not initialised, nested run) */
    MG_ERR_NOMEM = -3,
    MG_ERR_LCI = -4 /* LCI failed underneath (see mg_last_error) */
} mg_status_t;

#define MG_JOB_BYTES 32
#define MG_K_MAX     4096

/* A job descriptor: the table entry it is for, and the application's
 * bytes. */
typedef struct {
    uint64_t key;
    unsigned char data[24];
} mg_job_t;

_Static_assert(sizeof(mg_job_t) == MG_JOB_BYTES, "a job is 32 bytes");

/* Runs on the key's owner, once per job.  May call mg_submit(). */
typedef void (*mg_handler_func_t)(const mg_job_t *job, void *arg);

typedef struct {
    unsigned k;                /* jobs per message, 1 .. MG_K_MAX */
    mg_handler_func_t handler; /* required */
    void *arg;                 /* passed to the handler */
} mg_config_t;

typedef struct {
    uint64_t jobs_processed; /* handler calls on this node */
    uint64_t jobs_local;     /* submitted here for this node */
    uint64_t jobs_sent;      /* submitted here for other nodes */
    uint64_t jobs_received;  /* from other nodes */
    uint64_t msgs_sent;      /* aggregated messages */
    uint64_t packets_sent;   /* their packets */
    uint64_t full_msgs;      /* messages sent because k jobs were waiting */
    uint64_t token_waves;    /* termination waves started (node 0) */
} mg_stats_t;

/* Starts LCI (lci_init removes --lci-* options from argv) and the layer.
 * Collective: returns when every node has started. */
mg_status_t mg_init(int *argc, char ***argv, const mg_config_t *config);
mg_status_t mg_finalize(void);

const char *mg_strerror(mg_status_t status);
const char *mg_last_error(void);

/* The node that owns key's table entry, or -1 before mg_init. */
int mg_owner(uint64_t key);

/* Queues a job for its key's owner.  Before mg_run, and from handlers. */
mg_status_t mg_submit(const mg_job_t *job);

/* Processes jobs until global termination (collective).  Returns with
 * every job submitted anywhere processed exactly once; the nodes then
 * meet in a barrier, so mg_run may be called again.  stats_p (may be
 * NULL) gets this run's counts. */
mg_status_t mg_run(mg_stats_t *stats_p);

#ifdef __cplusplus
}
#endif
#endif /* MG_H */
