/*
 * mpi_node.h - a check for the MPI node programs, which use only mpi.h
 * and the C library (as an existing MPI program would).
 */
#ifndef MPI_NODE_H
#define MPI_NODE_H

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

/* On a false condition: says what failed, on which rank, and stops the
 * run through MPI_Abort. */
#define MPI_NODE_CHECK(cond, ...)                                              \
    do {                                                                       \
        if (!(cond)) {                                                         \
            int rank_ = -1;                                                    \
            MPI_Comm_rank(MPI_COMM_WORLD, &rank_);                             \
            fprintf(stderr, "%s: rank %d: FAILED: ", __FILE__, rank_);         \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

#endif
