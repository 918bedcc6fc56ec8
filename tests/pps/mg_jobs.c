/*
 * mg_jobs.c - the search layer processes every job exactly once, on its
 * key's owner, and mg_run returns only when all are done.
 *
 * Usage: lci-run -n N ./mg_jobs [-k JOBS_PER_MSG] [--roots R] [--gens G]
 *                               [--fanout F] [--runs X]
 *
 * Every node submits R root jobs; a job of generation g < G submits F
 * children (default 2), numbered like an F-ary heap, so the job ids of all
 * nodes are exactly 0 .. N*R*T - 1 (T jobs a tree) and each id's key (a
 * hash of it) names its owner.  Handlers compute for an uneven while, so
 * nodes finish at different times and jobs are still in flight when some
 * node runs dry; with F = 1 each root is a chain of G+1 jobs hopping from
 * node to node, so most nodes are idle most of the time while a job is on
 * the wire: the case a termination detector must not get wrong.
 * After mg_run every node checks its own record: each id it owns was
 * processed once, and no other id reached it.  Node 0 also checks that
 * the processed counts of all nodes add up to the number of jobs.  With
 * --runs X the whole search is repeated X times with the same layer.
 */
#include <inttypes.h>

#include "e2e_common.h"
#include "mg.h"

typedef struct {
    uint64_t tree;  /* jobs per root: 1 + F + ... + F^G */
    uint64_t total; /* jobs in all */
    unsigned gens, fanout;
    uint8_t *seen; /* per job id */
    uint64_t processed;
} jobs_t;

static uint64_t key_of(uint64_t id)
{
    return id * UINT64_C(0x9E3779B97F4A7C15) + 12345;
}

static void submit(uint64_t id, unsigned gen)
{
    mg_job_t job = {.key = key_of(id)};
    memcpy(job.data, &id, sizeof id);
    job.data[8] = (unsigned char)gen;
    if (mg_submit(&job) != MG_OK) {
        e2e_fail("mg_submit: %s", mg_last_error());
    }
}

static void handle(const mg_job_t *job, void *arg)
{
    jobs_t *js = arg;
    uint64_t id;
    memcpy(&id, job->data, sizeof id);
    unsigned gen = job->data[8];
    if (id >= js->total || job->key != key_of(id)) {
        e2e_fail("job with id %" PRIu64 " and key %" PRIx64 " is not one "
                 "that was submitted",
                 id, job->key);
    }
    if (mg_owner(job->key) != lci_rank()) {
        e2e_fail("job %" PRIu64 " belongs to node %d", id, mg_owner(job->key));
    }
    if (js->seen[id]) {
        e2e_fail("job %" PRIu64 " processed twice", id);
    }
    js->seen[id] = 1;
    js->processed++;
    lci_compute((double)(id % 13) * 2e-6);
    if (gen < js->gens) {
        /* Heap numbering inside the root's tree: the children of h are
         * F*h+1 .. F*h+F. */
        uint64_t root = id / js->tree, h = id % js->tree;
        for (unsigned c = 1; c <= js->fanout; c++) {
            submit(root * js->tree + js->fanout * h + c, gen + 1);
        }
    }
}

int main(int argc, char **argv)
{
    jobs_t js = {0};
    long k = e2e_opt_long(argc, argv, "-k", 4);
    long roots = e2e_opt_long(argc, argv, "--roots", 10);
    long gens = e2e_opt_long(argc, argv, "--gens", 4);
    long fanout = e2e_opt_long(argc, argv, "--fanout", 2);
    long runs = e2e_opt_long(argc, argv, "--runs", 1);
    e2e_prog = "mg_jobs";
    if (roots < 0 || gens < 0 || gens > 60 || fanout < 1 || fanout > 4 ||
        runs < 1) {
        fprintf(stderr, "mg_jobs: expected --roots >= 0, --gens 0..60, "
                        "--fanout 1..4, --runs >= 1\n");
        return 2;
    }
    mg_config_t cfg = {.k = (unsigned)k, .handler = handle, .arg = &js};
    mg_status_t st = mg_init(&argc, &argv, &cfg);
    if (st != MG_OK) {
        fprintf(stderr, "mg_jobs: mg_init: %s\n", mg_last_error());
        return 2;
    }
    int me = lci_rank(), n = lci_size();
    js.gens = (unsigned)gens;
    js.fanout = (unsigned)fanout;
    js.tree = 0;
    for (uint64_t level = 0, width = 1; level <= (uint64_t)gens;
         level++, width *= (uint64_t)fanout) {
        js.tree += width;
    }
    if ((uint64_t)n * (uint64_t)roots * js.tree > (UINT64_C(1) << 26)) {
        e2e_fail("%" PRIu64 " jobs a tree x %ld roots x %d nodes is too "
                 "many",
                 js.tree, roots, n);
    }
    js.total = (uint64_t)n * (uint64_t)roots * js.tree;
    js.seen = e2e_calloc(js.total, 1);
    int64_t base = 0, sum = 0;
    if (me == 0) {
        e2e_check(lci_fetch_add(0, 0, 0, &base), "lci_fetch_add");
    }
    uint64_t msgs = 0, full = 0;
    for (long run = 0; run < runs; run++) {
        memset(js.seen, 0, js.total);
        js.processed = 0;
        for (long r = 0; r < roots; r++) {
            submit((uint64_t)(me * roots + r) * js.tree, 0);
        }
        mg_stats_t s;
        if (mg_run(&s) != MG_OK) {
            e2e_fail("mg_run: %s", mg_last_error());
        }
        if (s.jobs_processed != js.processed) {
            e2e_fail("mg_run counted %" PRIu64 " jobs, the handler %" PRIu64,
                     s.jobs_processed, js.processed);
        }
        msgs += s.msgs_sent;
        full += s.full_msgs;
        for (uint64_t id = 0; id < js.total; id++) {
            int mine = mg_owner(key_of(id)) == me;
            if (js.seen[id] != mine) {
                e2e_fail("run %ld: job %" PRIu64 " (owner %d) %s", run, id,
                         mg_owner(key_of(id)),
                         mine ? "was never processed: mg_run returned early"
                              : "reached the wrong node");
            }
        }
        int64_t old;
        e2e_check(lci_fetch_add(0, 0, (int64_t)js.processed, &old),
                  "lci_fetch_add");
    }
    e2e_check(lci_barrier(), "lci_barrier");
    if (me == 0) {
        e2e_check(lci_fetch_add(0, 0, 0, &sum), "lci_fetch_add");
        if ((uint64_t)(sum - base) != js.total * (uint64_t)runs) {
            e2e_fail("nodes processed %" PRId64 " jobs, expected %" PRIu64,
                     sum - base, js.total * (uint64_t)runs);
        }
        printf("mg_jobs: %d nodes, k %ld, %ld run(s) of %" PRIu64
               " jobs, each processed once on its owner; node 0 sent %" PRIu64
               " messages (%" PRIu64 " full): OK\n",
               n, k, runs, js.total, msgs, full);
    }
    free(js.seen);
    if (mg_finalize() != MG_OK) {
        e2e_fail("mg_finalize: %s", mg_last_error());
    }
    return 0;
}
