/*
 * mpi_type.h - datatypes inside the MPI layer: every datatype, predefined
 * or derived, as the list of contiguous pieces one element is made of.
 *
 * A message always travels packed (the pieces one after the other); a
 * send packs unless its data is one piece already, a receive unpacks
 * unless its buffer is.  Reductions work on packed data of one basic type
 * (or one of the pair types of MPI_MAXLOC and MPI_MINLOC).
 */
#ifndef MPI_TYPE_H
#define MPI_TYPE_H

#include <stddef.h>

#include "mpi.h"

/* One contiguous piece of an element: disp bytes from its start. */
typedef struct {
    MPI_Aint disp;
    size_t len;
    size_t esize; /* of the basic elements in it (MPI_Get_elements) */
} mpi_seg_t;

typedef struct mpi_type {
    int refs; /* derived: its handle and the operations under way */
    int committed;
    int predefined;
    size_t size;          /* bytes of data in one element */
    MPI_Aint lb, extent;  /* where the next element starts: lb + extent */
    MPI_Aint true_lb, true_ub; /* the bytes the data really spans */
    size_t align;         /* the largest alignment of a basic type in it */
    MPI_Datatype basic;   /* the one basic type of every piece, or
                             MPI_DATATYPE_NULL if mixed */
    size_t nseg;
    mpi_seg_t *seg;       /* in type-map order, neighbours merged */
    const char *name;     /* predefined: its MPI name */
} mpi_type_t;

/* Fills the table of predefined types (MPI_Init; once per process). */
void mpi_types_init(void);

/* The type behind a handle, or NULL for one that names no type. */
const mpi_type_t *mpi_type_get(MPI_Datatype type);

/* MPI_SUCCESS, or the error (with fn's name) for a handle that names no
 * type, or a derived one not committed. */
int mpi_type_check(const char *fn, MPI_Datatype type, const mpi_type_t **t_p);

/* The bytes count elements of t start at, if they are one contiguous run
 * from buf (else NULL). */
const void *mpi_type_contig_start(const mpi_type_t *t, const void *buf,
                                  size_t count);

/* Copies count elements of t between a user buffer and a packed one. */
void mpi_type_pack(const mpi_type_t *t, size_t count, const void *in,
                   void *packed);
void mpi_type_unpack(const mpi_type_t *t, size_t count, const void *packed,
                     void *out);
/* The same, but of no more than n packed bytes (a shorter message). */
void mpi_type_unpack_n(const mpi_type_t *t, size_t count, const void *packed,
                       size_t n, void *out);

/* Elements of basic type whole in n packed bytes of t (MPI_Get_elements). */
size_t mpi_type_elements(const mpi_type_t *t, size_t n);

/* Frees the node's derived types (MPI_Finalize). */
void mpi_types_free(void);

#endif
