/*
 * awari_build.h - the parallel retrograde analysis of apps/awari on the
 * Orca layer (paper section 6.1): every node holds the boards a hash gives
 * it, determines their values threshold by threshold (awari_db.h) and
 * tells the owners of their parents, found by unmoves, in aggregated
 * updates shipped by RPC to the owners' single-copy objects.  Finished
 * databases are replicated on every node.
 */
#ifndef AWARI_BUILD_H
#define AWARI_BUILD_H

#include <stdint.h>

#include "awari_board.h"

/* What one node did. */
typedef struct {
    uint64_t updates;  /* parent updates made (remote and local) */
    uint64_t remote;   /* of which shipped to other nodes */
    uint64_t messages; /* RPCs that carried them */
    uint64_t rounds;   /* termination rounds, every pass together */
} aw_build_stats_t;

/* Stops the run with Orca's message if r is an error (what: the call). */
void aw_orca_ok(int r, const char *what);

/* Orca's types and objects for the build; collective, after orca_init.
 * batch: updates per RPC at most. */
void aw_build_setup(int batch);

/* Builds db[1 .. stones] (db[0] is the empty board's) in the replicated
 * databases db (each allocated here); the last one is left on its owners
 * until aw_build_replicate.  Collective. */
void aw_build(int stones, int8_t **db, aw_build_stats_t *stats);

/* Replicates db[stones] on every node.  Collective. */
void aw_build_replicate(int stones, int8_t **db);

/* Collective: the sum of every node's x (one termination round). */
int64_t aw_build_sum(int64_t x);

/* The node holding board index of database n, and the boards one holds. */
int aw_owner(int n, uint32_t index);
uint32_t aw_owned(int n, int node);
/* The index of the k-th board node holds in database n. */
uint32_t aw_index_of(int n, int node, uint32_t k);

#endif /* AWARI_BUILD_H */
