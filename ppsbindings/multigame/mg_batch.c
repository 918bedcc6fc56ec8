/*
 * mg_batch.c - submitting jobs: a job for this node goes on its own work
 * queue; a job for another owner waits in that owner's batch until k jobs
 * are there (or the node runs out of work), then leaves as one message.
 */
#include "mg_internal.h"

static uint64_t mix(uint64_t key)
{
    /* splitmix64's finaliser: neighbouring keys land on unrelated nodes. */
    key = (key ^ (key >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    key = (key ^ (key >> 27)) * UINT64_C(0x94D049BB133111EB);
    return key ^ (key >> 31);
}

int mg_owner(uint64_t key)
{
    if (!mg.started) {
        return -1;
    }
    return (int)(mix(key) % (uint64_t)mg.size);
}

void mg_batch_send(int dest)
{
    unsigned n = mg.nbatch[dest];
    const mg_job_t *jobs = mg.batch + (size_t)dest * mg.k;
    size_t per_packet =
        (lci_packet_capacity() - sizeof(mg_msg_hdr_t)) / sizeof(mg_job_t);
    if (n == 0) {
        return;
    }
    /* A poll inside a send only queues arriving jobs (handlers run from
     * mg_run), so nothing adds to this batch while it leaves. */
    mg.nbatch[dest] = 0;
    mg.batched -= n;
    for (unsigned off = 0; off < n; off += (unsigned)per_packet) {
        unsigned c = n - off < per_packet ? n - off : (unsigned)per_packet;
        mg_msg_hdr_t h = {
            .type = MG_MSG_JOBS, .count = (uint16_t)c, .run = mg.run};
        mg_send_packet(dest, &h, jobs + off, c * sizeof(mg_job_t));
        /* Counted when it leaves: a node is passive only with nothing
         * left to send, so the token always sees the sum. */
        mg.count += c;
    }
    mg.stats.jobs_sent += n;
    mg.stats.msgs_sent++;
}

void mg_batch_flush_all(void)
{
    for (int d = 0; d < mg.size && mg.batched > 0; d++) {
        mg_batch_send(d);
    }
}

mg_status_t mg_submit(const mg_job_t *job)
{
    if (!mg.started) {
        return mg_error(MG_ERR_STATE, "mg_submit: mg_init was not called");
    }
    if (job == NULL) {
        return mg_error(MG_ERR_INVAL, "mg_submit: NULL job");
    }
    int owner = mg_owner(job->key);
    if (owner == mg.rank) {
        mg_work_push(job);
        mg.stats.jobs_local++;
        return MG_OK;
    }
    mg.batch[(size_t)owner * mg.k + mg.nbatch[owner]++] = *job;
    mg.batched++;
    if (mg.nbatch[owner] == mg.k) {
        mg.stats.full_msgs++;
        mg_batch_send(owner);
    }
    return MG_OK;
}
