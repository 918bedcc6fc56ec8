/*
 * panda_mt.c - node program: Panda-MT with several threads per node.
 *
 * Usage: lci-run -n N ./panda_mt --mt [-t THREADS] [-k CALLS] [--compute-us U]
 *
 * Each of THREADS worker threads makes CALLS RPCs to other nodes, half to a
 * service that replies at once and half to one whose handler hands its
 * ticket to a server thread that replies later, and sends a
 * totally-ordered broadcast after each call.  Every reply is checked; every
 * node folds the order of the broadcasts it delivered into a hash, and
 * node 0 fails unless all hashes equal its own.  With --compute-us each
 * worker computes U microseconds (lci_compute) after each call, so
 * requests arrive while a thread runs and are taken by interrupts.
 */
#include "pps_node.h"

#define OBCAST_PORT 2
#define MAX_PENDING 1024

struct req {
    int32_t node, thread, call;
};

static int nthreads, ncalls;
static long compute_us;
static int obcast_got;
static uint64_t order_hash = 1469598103934665603ULL;

/* Tickets the deferring handler passes to the server thread. */
static pan_rpc_ticket_t *pending[MAX_PENDING];
static struct req pending_req[MAX_PENDING];
static int npending, stopping;
static pan_cond_t *work;

static void reply_to(pan_rpc_ticket_t *ticket, const struct req *r)
{
    int32_t answer = r->node * 1000000 + r->thread * 1000 + r->call;
    pan_msg_t msg;
    pan_msg_init(&msg);
    pps_check(pan_msg_push(&msg, &answer, sizeof answer), "pan_msg_push");
    pps_check(pan_rpc_reply(ticket, &msg), "pan_rpc_reply");
}

static void serve_now(int src, const void *data, size_t len,
                      pan_rpc_ticket_t *ticket, void *arg)
{
    (void)arg;
    struct req r;
    if (len != sizeof r) {
        e2e_fail("request of %zu bytes from %d", len, src);
    }
    memcpy(&r, data, sizeof r);
    reply_to(ticket, &r);
}

static void serve_later(int src, const void *data, size_t len,
                        pan_rpc_ticket_t *ticket, void *arg)
{
    (void)arg;
    if (len != sizeof(struct req) || npending == MAX_PENDING) {
        e2e_fail("request of %zu bytes from %d, %d pending", len, src,
                 npending);
    }
    memcpy(&pending_req[npending], data, sizeof(struct req));
    pending[npending++] = ticket;
    pps_check(pan_cond_signal(work), "pan_cond_signal");
}

static void *server(void *arg)
{
    (void)arg;
    for (;;) {
        while (npending == 0 && !stopping) {
            pps_check(pan_cond_wait(work), "pan_cond_wait");
        }
        if (npending == 0) {
            return NULL;
        }
        /* Oldest first. */
        pan_rpc_ticket_t *t = pending[0];
        struct req r = pending_req[0];
        npending--;
        memmove(pending, pending + 1, (size_t)npending * sizeof *pending);
        memmove(pending_req, pending_req + 1,
                (size_t)npending * sizeof *pending_req);
        reply_to(t, &r);
    }
}

static void got_obcast(int src, const void *data, size_t len, void *arg)
{
    (void)arg;
    struct req r;
    if (len != sizeof r) {
        e2e_fail("broadcast of %zu bytes from %d", len, src);
    }
    memcpy(&r, data, sizeof r);
    if (r.node != src) {
        e2e_fail("broadcast from %d says it is from %d", src, (int)r.node);
    }
    obcast_got++;
    order_hash = pps_hash_step(
        order_hash, (uint64_t)(r.node * 1000000 + r.thread * 1000 + r.call));
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    int me = pan_rank(), n = pan_size();
    for (int c = 0; c < ncalls; c++) {
        struct req r = {me, t, c};
        int dest = (me + 1 + t + c) % n;
        pan_msg_t msg;
        pan_msg_init(&msg);
        pps_check(pan_msg_push(&msg, &r, sizeof r), "pan_msg_push");
        void *rep;
        size_t rep_len;
        pps_check(pan_rpc_call(dest, c % 2, &msg, &rep, &rep_len),
                  "pan_rpc_call");
        int32_t answer;
        if (rep_len != sizeof answer) {
            e2e_fail("reply of %zu bytes", rep_len);
        }
        memcpy(&answer, rep, sizeof answer);
        free(rep);
        if (answer != me * 1000000 + t * 1000 + c) {
            e2e_fail("thread %d call %d: wrong answer %d", t, c, (int)answer);
        }
        pps_check(pan_obcast(OBCAST_PORT, &msg), "pan_obcast");
        if (compute_us > 0) {
            e2e_check(lci_compute((double)compute_us * 1e-6), "lci_compute");
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pps_init(&argc, &argv, "panda_mt");
    if (pan_mode() != PAN_MT) {
        e2e_fail("run with --mt");
    }
    nthreads = (int)e2e_opt_long(argc, argv, "-t", 3);
    ncalls = (int)e2e_opt_long(argc, argv, "-k", 10);
    compute_us = e2e_opt_long(argc, argv, "--compute-us", 0);
    int n = pan_size();
    pps_check(pan_cond_create(&work), "pan_cond_create");
    pps_check(pan_rpc_set(0, serve_now, NULL), "pan_rpc_set");
    pps_check(pan_rpc_set(1, serve_later, NULL), "pan_rpc_set");
    pps_check(pan_port_set(OBCAST_PORT, got_obcast, NULL), "pan_port_set");
    pps_hash_port_open();
    pps_check(pan_barrier(), "pan_barrier");

    pan_thread_t *srv;
    pps_check(pan_thread_create(&srv, server, NULL), "pan_thread_create");
    pan_thread_t **workers = e2e_calloc((size_t)nthreads, sizeof *workers);
    for (int t = 0; t < nthreads; t++) {
        pps_check(pan_thread_create(&workers[t], worker, (void *)(intptr_t)t),
                  "pan_thread_create");
    }
    for (int t = 0; t < nthreads; t++) {
        pps_check(pan_thread_join(workers[t], NULL), "pan_thread_join");
    }
    while (obcast_got < n * nthreads * ncalls) {
        pps_check(pan_wait(), "pan_wait");
    }
    pps_agree(order_hash, "the totally-ordered broadcasts");
    /* Other nodes may still call this node's deferring service until they
     * reach the barrier, so the server thread stops only after it. */
    pps_check(pan_barrier(), "pan_barrier");
    stopping = 1;
    pps_check(pan_cond_signal(work), "pan_cond_signal");
    pps_check(pan_thread_join(srv, NULL), "pan_thread_join");
    pps_check(pan_cond_free(work), "pan_cond_free");
    pps_check(pan_end(), "pan_end");
    free(workers);
    return 0;
}
