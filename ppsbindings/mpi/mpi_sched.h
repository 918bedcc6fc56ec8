/*
 * mpi_sched.h - a collective operation as a schedule: rounds of messages
 * and local steps, run to the end by a blocking call or moved on by every
 * MPI call that makes progress (non-blocking collectives).
 *
 * A round's steps start in order: a local step (a copy, a reduction, an
 * unpack) runs at once, a send or receive is posted; the round ends when
 * its messages are done.  Every message goes on the communicator's
 * collective context with the tag of this collective call, so collectives
 * never match the program's receives, nor each other.
 */
#ifndef MPI_SCHED_H
#define MPI_SCHED_H

#include "mpi_internal.h"

typedef enum {
    MPI_STEP_SEND,
    MPI_STEP_RECV,
    MPI_STEP_COPY,
    MPI_STEP_REDUCE, /* dst = src op dst, count elements of the op's type */
    MPI_STEP_UNPACK, /* packed src into the user's dst, as type says */
    MPI_STEP_ROUND   /* the round ends when its messages are done */
} mpi_step_kind_t;

typedef struct {
    mpi_step_kind_t kind;
    int peer; /* world rank */
    const void *src;
    void *dst;
    size_t bytes;
    size_t count;
    const mpi_type_t *type; /* MPI_STEP_UNPACK (a reference held) */
} mpi_step_t;

typedef struct mpi_sched {
    struct mpi_sched *next; /* among the non-blocking ones under way */
    mpi_comm_t *comm;       /* a reference held */
    uint16_t ctx;
    int tag;
    mpi_step_t *steps;
    int nsteps, cap, pos;
    struct lci_mpi_request **round; /* the messages of the current round */
    int nround, round_cap;
    int waiting; /* at the end of a round, for its messages */
    MPI_Op op; /* reductions */
    const mpi_type_t *rtype;
    MPI_Datatype rtype_h;
    char **bufs; /* ours, freed at the end */
    int nbufs;
    int error;
    int done;
    struct lci_mpi_request *owner; /* non-blocking: the program's request */
} mpi_sched_t;

/* A schedule on c with the next collective tag; NULL out of memory. */
mpi_sched_t *mpi_sched_new(mpi_comm_t *c);
/* peer is a rank of the schedule's communicator. */
void mpi_sched_send(mpi_sched_t *s, int peer, const void *buf, size_t bytes);
void mpi_sched_recv(mpi_sched_t *s, int peer, void *buf, size_t bytes);
void mpi_sched_copy(mpi_sched_t *s, const void *src, void *dst, size_t bytes);
void mpi_sched_reduce(mpi_sched_t *s, const void *src, void *dst,
                      size_t count);
void mpi_sched_unpack(mpi_sched_t *s, const mpi_type_t *t, size_t count,
                      const void *packed, void *dst);
void mpi_sched_round(mpi_sched_t *s);
/* A buffer the schedule frees at its end; NULL out of memory (s->error). */
void *mpi_sched_buf(mpi_sched_t *s, size_t bytes);
/* The user's count elements of t at buf as packed bytes: buf itself if
 * they are one run, else a packed copy of the schedule's. */
const void *mpi_sched_packed(mpi_sched_t *s, const mpi_type_t *t,
                             const void *buf, size_t count);

/* Runs s to its end (a blocking collective) and frees it; returns its
 * error. */
int mpi_sched_run(const char *fn, mpi_sched_t *s);
/* Starts s as a non-blocking collective: *request completes with it. */
int mpi_sched_start(const char *fn, mpi_sched_t *s, MPI_Request *request);
void mpi_sched_free(mpi_sched_t *s);

#endif
