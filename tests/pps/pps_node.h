/*
 * pps_node.h - what the Panda and MPI node programs share beyond
 * e2e_common.h: starting Panda and failing on a Panda error.
 */
#ifndef PPS_NODE_H
#define PPS_NODE_H

#include "../e2e/e2e_common.h"
#include "panda.h"

/* Fails unless r is PAN_OK (or a non-negative count), naming the call. */
static inline int pps_check(int r, const char *what)
{
    if (r < 0) {
        e2e_fail("%s returned %d (%s): %s", what, r, pan_strerror(r),
                 pan_last_error());
    }
    return r;
}

/* Starts Panda in the variant --mt asks for (single-threaded otherwise). */
static inline void pps_init(int *argc, char ***argv, const char *prog)
{
    pan_mode_t mode = e2e_opt_flag(*argc, *argv, "--mt") ? PAN_MT : PAN_ST;
    e2e_prog = prog;
    int r = pan_init(argc, argv, mode);
    if (r != PAN_OK) {
        fprintf(stderr, "%s: pan_init returned %d: %s\n", prog, r,
                pan_last_error());
        exit(1);
    }
}

/* ---- agreeing on an order --------------------------------------------
 * Each node folds what it delivered, in order, into a hash; node 0 fails
 * unless every node's hash equals its own.  Uses PPS_HASH_PORT. */

#define PPS_HASH_PORT 60

static uint64_t *pps_hashes;
static int pps_hashes_got;

static inline uint64_t pps_hash_step(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211ULL;
}

static void pps_got_hash(int src, const void *data, size_t len, void *arg)
{
    (void)arg;
    if (len != sizeof(uint64_t)) {
        e2e_fail("hash message of %zu bytes", len);
    }
    memcpy(&pps_hashes[src], data, sizeof(uint64_t));
    pps_hashes_got++;
}

/* Call after pan_init, before any node may send its hash. */
static inline void pps_hash_port_open(void)
{
    pps_hashes = e2e_calloc((size_t)pan_size(), sizeof(uint64_t));
    pps_check(pan_port_set(PPS_HASH_PORT, pps_got_hash, NULL), "pan_port_set");
}

static inline void pps_agree(uint64_t hash, const char *what)
{
    pan_msg_t msg;
    pan_msg_init(&msg);
    pps_check(pan_msg_push(&msg, &hash, sizeof hash), "pan_msg_push");
    pps_check(pan_send(0, PPS_HASH_PORT, &msg), "pan_send");
    if (pan_rank() == 0) {
        while (pps_hashes_got < pan_size()) {
            pps_check(pan_wait(), "pan_wait");
        }
        for (int i = 0; i < pan_size(); i++) {
            if (pps_hashes[i] != hash) {
                e2e_fail("node %d delivered %s in another order than node 0", i,
                         what);
            }
        }
    }
    free(pps_hashes);
}

#endif
