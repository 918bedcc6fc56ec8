/*
 * mpi_subarray.c - MPI_Type_create_subarray: a block of an n-dimensional
 * array, built from the constructors the layer has (a contiguous row of
 * the innermost dimension, an hvector per outer one, one block at the
 * start's offset) and resized to the whole array, so that consecutive
 * elements of the type are consecutive arrays, as the standard says.
 */
#include <stdlib.h>

#include "mpi_internal.h"

/* The checks of the standard: every dimension at least 1 and the block
 * inside the array. */
static int check(const char *fn, int ndims, const int sizes[],
                 const int subsizes[], const int starts[], int order)
{
    if (ndims < 1 || sizes == NULL || subsizes == NULL || starts == NULL) {
        return mpi_error(MPI_ERR_ARG, "%s: %d dimensions or a NULL array", fn,
                         ndims);
    }
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
        return mpi_error(MPI_ERR_ARG, "%s: order %d; expected MPI_ORDER_C or "
                                      "MPI_ORDER_FORTRAN",
                         fn, order);
    }
    for (int i = 0; i < ndims; i++) {
        if (sizes[i] < 1 || subsizes[i] < 1 || subsizes[i] > sizes[i] ||
            starts[i] < 0 || starts[i] > sizes[i] - subsizes[i]) {
            return mpi_error(MPI_ERR_ARG, "%s: dimension %d: size %d, "
                                          "subsize %d, start %d",
                             fn, i, sizes[i], subsizes[i], starts[i]);
        }
    }
    return MPI_SUCCESS;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[],
                              const int array_of_starts[], int order,
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_subarray";
    int r = mpi_check_env(fn);
    if (r == MPI_SUCCESS) {
        r = check(fn, ndims, array_of_sizes, array_of_subsizes,
                  array_of_starts, order);
    }
    if (r == MPI_SUCCESS && newtype == NULL) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL newtype", fn);
    }
    MPI_Aint lb, extent;
    if (r == MPI_SUCCESS) {
        r = PMPI_Type_get_extent(oldtype, &lb, &extent);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    /* Dimension k from the innermost (fastest varying) outwards. */
#define DIM(arr, k) ((arr)[order == MPI_ORDER_C ? ndims - 1 - (k) : (k)])
    MPI_Datatype cur;
    r = PMPI_Type_contiguous(DIM(array_of_subsizes, 0), oldtype, &cur);
    MPI_Aint stride = extent, offset = DIM(array_of_starts, 0) * extent;
    for (int k = 1; k < ndims && r == MPI_SUCCESS; k++) {
        stride *= DIM(array_of_sizes, k - 1);
        offset += DIM(array_of_starts, k) * stride;
        MPI_Datatype outer;
        r = PMPI_Type_create_hvector(DIM(array_of_subsizes, k), 1, stride,
                                     cur, &outer);
        PMPI_Type_free(&cur);
        cur = outer;
    }
    MPI_Aint whole = stride * DIM(array_of_sizes, ndims - 1);
#undef DIM
    if (r != MPI_SUCCESS) {
        return r;
    }
    int one = 1;
    MPI_Datatype placed;
    r = PMPI_Type_create_hindexed(1, &one, &offset, cur, &placed);
    PMPI_Type_free(&cur);
    if (r != MPI_SUCCESS) {
        return r;
    }
    r = PMPI_Type_create_resized(placed, 0, whole, newtype);
    PMPI_Type_free(&placed);
    return r;
}

MPI_ALIAS(MPI_Type_create_subarray);
