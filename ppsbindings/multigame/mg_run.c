/*
 * mg_run.c - the search loop: take a job, run its handler, and now and
 * then poll for jobs from other nodes; with no work left, send what waits
 * in the batches, then take part in termination detection, waiting for
 * packets while passive.
 */
#include <string.h>

#include "mg_internal.h"

/* Jobs between polls while busy: incoming jobs and the token move on
 * without a poll per job. */
#define MG_POLL_EVERY 16

static int ran_since_poll; /* handlers ran since the last poll */

static mg_status_t poll_once(int wait)
{
    if (!wait && ran_since_poll) {
        /* The host was busy with handlers, not spinning on an empty ring
         * (under --compute zero their work takes no time, and the
         * simulator would fast-forward a second empty poll to the next
         * arrival while work is queued here). */
        lci_compute(0.0);
    }
    ran_since_poll = 0;
    int n = wait ? lci_poll_wait() : lci_poll();
    if (n < 0) {
        return mg_error(MG_ERR_LCI, "mg_run: %s: %s",
                        wait ? "lci_poll_wait" : "lci_poll", lci_last_error());
    }
    return MG_OK;
}

static mg_status_t work(void)
{
    unsigned since_poll = 0;
    while (mg.nwork > 0) {
        mg_job_t job = mg.work[--mg.nwork];
        mg.handler(&job, mg.arg);
        mg.stats.jobs_processed++;
        ran_since_poll = 1;
        if (++since_poll == MG_POLL_EVERY) {
            since_poll = 0;
            mg_status_t st = poll_once(0);
            if (st != MG_OK) {
                return st;
            }
        }
    }
    return MG_OK;
}

mg_status_t mg_run(mg_stats_t *stats_p)
{
    if (!mg.started) {
        return mg_error(MG_ERR_STATE, "mg_run: mg_init was not called");
    }
    if (mg.running) {
        return mg_error(MG_ERR_STATE, "mg_run: called from a handler");
    }
    mg.running = 1;
    mg_status_t st = MG_OK;
    while (!mg.done) {
        st = work();
        if (st != MG_OK) {
            break;
        }
        mg_batch_flush_all();
        st = poll_once(0);
        if (st != MG_OK) {
            break;
        }
        if (mg.nwork > 0) {
            continue;
        }
        /* Passive: no work, nothing waiting to be sent. */
        if (mg.size == 1) {
            break;
        }
        mg_term_passive();
        if (!mg.done) {
            st = poll_once(1);
            if (st != MG_OK) {
                break;
            }
        }
    }
    mg.running = 0;
    if (st != MG_OK) {
        return st;
    }
    if (stats_p != NULL) {
        *stats_p = mg.stats;
    }
    memset(&mg.stats, 0, sizeof mg.stats);
    mg.run++;
    mg_term_reset();
    /* Everybody has left this run before anybody submits for the next. */
    if (lci_barrier() != LCI_OK) {
        return mg_error(MG_ERR_LCI, "mg_run: lci_barrier: %s",
                        lci_last_error());
    }
    return MG_OK;
}
