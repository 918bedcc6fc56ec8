/*
 * mpi_topo.c - Cartesian process topologies (MPI 3.1 chapter 7): a
 * communicator made by MPI_Cart_create carries its grid (dims, periods),
 * ranks are laid out row-major (the last dimension varies fastest), and
 * the queries turn coordinates into ranks and back.  No reordering: rank
 * r of the old communicator is rank r of the grid, which MPI allows.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* A grid of ndims dimensions (periods as 0 or 1); NULL if out of memory. */
static mpi_cart_t *cart_new(int ndims, const int dims[], const int periods[])
{
    mpi_cart_t *c = malloc(sizeof *c);
    size_t n = (size_t)(ndims > 0 ? ndims : 1);
    int *d = malloc(n * sizeof *d), *p = malloc(n * sizeof *p);
    if (c == NULL || d == NULL || p == NULL) {
        free(c);
        free(d);
        free(p);
        return NULL;
    }
    for (int i = 0; i < ndims; i++) {
        d[i] = dims[i];
        p[i] = periods[i] != 0;
    }
    *c = (mpi_cart_t){.ndims = ndims, .dims = d, .periods = p};
    return c;
}

mpi_cart_t *mpi_cart_copy(const mpi_cart_t *cart)
{
    return cart != NULL ? cart_new(cart->ndims, cart->dims, cart->periods)
                        : NULL;
}

void mpi_cart_free(mpi_cart_t *cart)
{
    if (cart != NULL) {
        free(cart->dims);
        free(cart->periods);
        free(cart);
    }
}

/* The communicator's grid, or an MPI_ERR_TOPOLOGY error. */
static int cart_of(const char *fn, MPI_Comm comm, mpi_comm_t **c_p)
{
    int r = mpi_check_comm(fn, comm, c_p);
    if (r == MPI_SUCCESS && (*c_p)->cart == NULL) {
        r = mpi_error(MPI_ERR_TOPOLOGY, "%s: the communicator has no "
                                        "Cartesian topology",
                      fn);
    }
    return r;
}

/* ---- MPI_Dims_create ---------------------------------------------------- */

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    const char *fn = "MPI_Dims_create";
    int r = mpi_check_env(fn);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (nnodes < 1 || ndims < 0 || (ndims > 0 && dims == NULL)) {
        return mpi_error(MPI_ERR_DIMS, "%s: %d nodes in %d dimensions", fn,
                         nnodes, ndims);
    }
    long fixed = 1;
    int free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0) {
            return mpi_error(MPI_ERR_DIMS, "%s: dims[%d] is %d", fn, i,
                             dims[i]);
        }
        if (dims[i] > 0) {
            fixed *= dims[i];
        } else {
            free_dims++;
        }
    }
    if (nnodes % fixed != 0 || (free_dims == 0 && fixed != nnodes)) {
        return mpi_error(MPI_ERR_DIMS, "%s: the fixed dimensions (product "
                                       "%ld) do not divide %d nodes",
                         fn, fixed, nnodes);
    }
    if (free_dims == 0) {
        return MPI_SUCCESS;
    }
    /* The prime factors of what is left, largest first, each to the
     * smallest free dimension so far: as even a grid as there is. */
    int *out = malloc((size_t)free_dims * sizeof *out);
    if (out == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    for (int k = 0; k < free_dims; k++) {
        out[k] = 1;
    }
    int left = (int)(nnodes / fixed);
    int primes[32], np = 0;
    for (int p = 2; (long)p * p <= left; p++) {
        while (left % p == 0) {
            primes[np++] = p;
            left /= p;
        }
    }
    if (left > 1) {
        primes[np++] = left;
    }
    for (int i = np - 1; i >= 0; i--) {
        int smallest = 0;
        for (int k = 1; k < free_dims; k++) {
            if (out[k] < out[smallest]) {
                smallest = k;
            }
        }
        out[smallest] *= primes[i];
    }
    /* Non-increasing, as the standard asks. */
    for (int a = 0; a < free_dims; a++) {
        for (int b = a + 1; b < free_dims; b++) {
            if (out[b] > out[a]) {
                int t = out[a];
                out[a] = out[b];
                out[b] = t;
            }
        }
    }
    for (int i = 0, k = 0; i < ndims; i++) {
        if (dims[i] == 0) {
            dims[i] = out[k++];
        }
    }
    free(out);
    return MPI_SUCCESS;
}

/* ---- making grids --------------------------------------------------------- */

/* Gives the communicator *newcomm the grid (which it takes), or frees the
 * grid when this rank got no communicator. */
static int attach(const char *fn, MPI_Comm *newcomm, mpi_cart_t *grid)
{
    if (*newcomm == MPI_COMM_NULL) {
        mpi_cart_free(grid);
        return MPI_SUCCESS;
    }
    if (grid == NULL) {
        PMPI_Comm_free(newcomm);
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    mpi_comm_get(*newcomm)->cart = grid;
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                     const int periods[], int reorder, MPI_Comm *comm_cart)
{
    const char *fn = "MPI_Cart_create";
    mpi_comm_t *c;
    int r = mpi_check_comm(fn, comm_old, &c);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (comm_cart == NULL || ndims < 0 ||
        (ndims > 0 && (dims == NULL || periods == NULL))) {
        return mpi_error(MPI_ERR_ARG, "%s: NULL argument or %d dimensions",
                         fn, ndims);
    }
    long cells = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 1) {
            return mpi_error(MPI_ERR_DIMS, "%s: dims[%d] is %d", fn, i,
                             dims[i]);
        }
        cells *= dims[i];
        if (cells > c->size) {
            break;
        }
    }
    if (cells > c->size) {
        return mpi_error(MPI_ERR_ARG, "%s: a grid of more than %d processes "
                                      "on a communicator of %d",
                         fn, c->size, c->size);
    }
    (void)reorder; /* ranks stay where they are */
    r = PMPI_Comm_split(comm_old, c->rank < cells ? 0 : MPI_UNDEFINED,
                        c->rank, comm_cart);
    if (r != MPI_SUCCESS) {
        return r;
    }
    return attach(fn, comm_cart, cart_new(ndims, dims, periods));
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    const char *fn = "MPI_Cart_sub";
    mpi_comm_t *c;
    int r = cart_of(fn, comm, &c);
    if (r == MPI_SUCCESS && (newcomm == NULL ||
                             (c->cart->ndims > 0 && remain_dims == NULL))) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL argument", fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    const mpi_cart_t *g = c->cart;
    /* Ranks that agree on the dropped coordinates share a subgrid; row
     * major order of the kept ones is the order of the old ranks. */
    int color = 0, rest = c->rank;
    for (int i = g->ndims - 1, stride = 1; i >= 0; i--) {
        int coord = rest % g->dims[i];
        rest /= g->dims[i];
        if (!remain_dims[i]) {
            color += coord * stride;
            stride *= g->dims[i];
        }
    }
    r = PMPI_Comm_split(comm, color, c->rank, newcomm);
    if (r != MPI_SUCCESS) {
        return r;
    }
    /* The subgrid: the parent's grid less its dropped dimensions. */
    mpi_cart_t *sub = cart_new(g->ndims, g->dims, g->periods);
    if (sub != NULL) {
        int kept = 0;
        for (int i = 0; i < g->ndims; i++) {
            if (remain_dims[i]) {
                sub->dims[kept] = g->dims[i];
                sub->periods[kept] = g->periods[i];
                kept++;
            }
        }
        sub->ndims = kept;
    }
    return attach(fn, newcomm, sub);
}

/* ---- queries ----------------------------------------------------------------- */

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    mpi_comm_t *c;
    int r = mpi_check_comm("MPI_Topo_test", comm, &c);
    if (r == MPI_SUCCESS && status == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Topo_test: NULL status");
    }
    if (r == MPI_SUCCESS) {
        *status = c->cart != NULL ? MPI_CART : MPI_UNDEFINED;
    }
    return r;
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    mpi_comm_t *c;
    int r = cart_of("MPI_Cartdim_get", comm, &c);
    if (r == MPI_SUCCESS && ndims == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Cartdim_get: NULL ndims");
    }
    if (r == MPI_SUCCESS) {
        *ndims = c->cart->ndims;
    }
    return r;
}

/* rank's coordinates in grid g, row major. */
static void coords_of(const mpi_cart_t *g, int rank, int coords[])
{
    for (int i = g->ndims - 1; i >= 0; i--) {
        coords[i] = rank % g->dims[i];
        rank /= g->dims[i];
    }
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    const char *fn = "MPI_Cart_coords";
    mpi_comm_t *c;
    int r = cart_of(fn, comm, &c);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (rank < 0 || rank >= c->size) {
        return mpi_error(MPI_ERR_RANK, "%s: rank %d; expected 0..%d", fn, rank,
                         c->size - 1);
    }
    if (maxdims < c->cart->ndims || (c->cart->ndims > 0 && coords == NULL)) {
        return mpi_error(MPI_ERR_ARG, "%s: room for %d coordinates, the grid "
                                      "has %d",
                         fn, maxdims, c->cart->ndims);
    }
    coords_of(c->cart, rank, coords);
    return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
                  int coords[])
{
    const char *fn = "MPI_Cart_get";
    mpi_comm_t *c;
    int r = cart_of(fn, comm, &c);
    if (r != MPI_SUCCESS) {
        return r;
    }
    const mpi_cart_t *g = c->cart;
    if (maxdims < g->ndims ||
        (g->ndims > 0 && (dims == NULL || periods == NULL || coords == NULL))) {
        return mpi_error(MPI_ERR_ARG, "%s: room for %d dimensions, the grid "
                                      "has %d",
                         fn, maxdims, g->ndims);
    }
    memcpy(dims, g->dims, (size_t)g->ndims * sizeof *dims);
    memcpy(periods, g->periods, (size_t)g->ndims * sizeof *periods);
    coords_of(g, c->rank, coords);
    return MPI_SUCCESS;
}

/* The rank at coords (wrapped in periodic dimensions); -1 if a coordinate
 * lies outside a non-periodic one. */
static int rank_at(const mpi_cart_t *g, const int coords[])
{
    int rank = 0;
    for (int i = 0; i < g->ndims; i++) {
        int x = coords[i], d = g->dims[i];
        if (g->periods[i]) {
            x = ((x % d) + d) % d;
        } else if (x < 0 || x >= d) {
            return -1;
        }
        rank = rank * d + x;
    }
    return rank;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    const char *fn = "MPI_Cart_rank";
    mpi_comm_t *c;
    int r = cart_of(fn, comm, &c);
    if (r == MPI_SUCCESS &&
        (rank == NULL || (c->cart->ndims > 0 && coords == NULL))) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL argument", fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    int at = rank_at(c->cart, coords);
    if (at < 0) {
        return mpi_error(MPI_ERR_ARG, "%s: coordinates outside a "
                                      "non-periodic dimension",
                         fn);
    }
    *rank = at;
    return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                    int *rank_dest)
{
    const char *fn = "MPI_Cart_shift";
    mpi_comm_t *c;
    int r = cart_of(fn, comm, &c);
    if (r == MPI_SUCCESS && (rank_source == NULL || rank_dest == NULL)) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL argument", fn);
    }
    if (r == MPI_SUCCESS &&
        (direction < 0 || direction >= c->cart->ndims)) {
        r = mpi_error(MPI_ERR_DIMS, "%s: direction %d; the grid has %d "
                                    "dimensions",
                      fn, direction, c->cart->ndims);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    const mpi_cart_t *g = c->cart;
    int *at = malloc((size_t)g->ndims * sizeof *at);
    if (at == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    coords_of(g, c->rank, at);
    int mine = at[direction];
    at[direction] = mine + disp;
    int dest = rank_at(g, at);
    at[direction] = mine - disp;
    int source = rank_at(g, at);
    free(at);
    *rank_dest = dest < 0 ? MPI_PROC_NULL : dest;
    *rank_source = source < 0 ? MPI_PROC_NULL : source;
    return MPI_SUCCESS;
}

MPI_ALIAS(MPI_Dims_create);
MPI_ALIAS(MPI_Cart_create);
MPI_ALIAS(MPI_Cart_sub);
MPI_ALIAS(MPI_Topo_test);
MPI_ALIAS(MPI_Cartdim_get);
MPI_ALIAS(MPI_Cart_coords);
MPI_ALIAS(MPI_Cart_get);
MPI_ALIAS(MPI_Cart_rank);
MPI_ALIAS(MPI_Cart_shift);
