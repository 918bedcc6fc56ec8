/*
 * mpi_group.c - groups: ordered sets of world ranks.
 *
 * A group is a list of world ranks with a reference count: its handle
 * holds one, and so does every communicator made from it.  MPI_GROUP_EMPTY
 * is a static group of none.
 */
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "mpi_internal.h"

/* Handles of groups made here start at this. */
#define MPI_GROUP_FIRST 2

static mpi_group_t empty_group = {.refs = 1, .size = 0, .rank = MPI_UNDEFINED};

mpi_group_t *mpi_group_get(MPI_Group group)
{
    if (group == MPI_GROUP_EMPTY) {
        return &empty_group;
    }
    int i = group - MPI_GROUP_FIRST;
    if (group < MPI_GROUP_FIRST || i >= mpi->ngroups) {
        return NULL;
    }
    return mpi->groups[i];
}

mpi_group_t *mpi_group_new(int n, int *world)
{
    mpi_group_t *g = malloc(sizeof *g);
    if (g == NULL) {
        free(world);
        return NULL;
    }
    *g = (mpi_group_t){.refs = 1, .size = n, .world = world,
                       .rank = MPI_UNDEFINED};
    for (int i = 0; i < n; i++) {
        if (world[i] == mpi->rank) {
            g->rank = i;
        }
    }
    return g;
}

void mpi_group_release(mpi_group_t *g)
{
    if (g != &empty_group && --g->refs == 0) {
        free(g->world);
        free(g);
    }
}

int mpi_group_handle(const char *fn, mpi_group_t *g, MPI_Group *group)
{
    if (g == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory for a group", fn);
    }
    if (g->size == 0) {
        mpi_group_release(g);
        *group = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    int slot = -1;
    for (int i = 0; i < mpi->ngroups && slot < 0; i++) {
        if (mpi->groups[i] == NULL) {
            slot = i;
        }
    }
    if (slot < 0) {
        mpi_group_t **groups =
            realloc(mpi->groups, (size_t)(mpi->ngroups + 1) * sizeof *groups);
        if (groups == NULL) {
            mpi_group_release(g);
            return mpi_error(MPI_ERR_NO_MEM, "%s: no memory for a group", fn);
        }
        mpi->groups = groups;
        slot = mpi->ngroups++;
    }
    mpi->groups[slot] = g;
    *group = MPI_GROUP_FIRST + slot;
    return MPI_SUCCESS;
}

void mpi_groups_free(void)
{
    for (int i = 0; i < mpi->ngroups; i++) {
        if (mpi->groups[i] != NULL) {
            mpi_group_release(mpi->groups[i]);
        }
    }
    free(mpi->groups);
    mpi->groups = NULL;
    mpi->ngroups = 0;
}

static int group_arg(const char *fn, MPI_Group group, mpi_group_t **g_p)
{
    int r = mpi_check_env(fn);
    if (r != MPI_SUCCESS) {
        return r;
    }
    *g_p = mpi_group_get(group);
    if (*g_p == NULL) {
        return mpi_error(MPI_ERR_GROUP, "%s: group %d names no group", fn,
                         group);
    }
    return MPI_SUCCESS;
}

/* The position of world rank w in g, or MPI_UNDEFINED. */
static int position(const mpi_group_t *g, int w)
{
    for (int i = 0; i < g->size; i++) {
        if (g->world[i] == w) {
            return i;
        }
    }
    return MPI_UNDEFINED;
}

int mpi_group_compare(const mpi_group_t *a, const mpi_group_t *b)
{
    if (a->size != b->size) {
        return MPI_UNEQUAL;
    }
    int same_order = 1;
    for (int i = 0; i < a->size; i++) {
        if (a->world[i] != b->world[i]) {
            same_order = 0;
        }
        if (position(b, a->world[i]) == MPI_UNDEFINED) {
            return MPI_UNEQUAL;
        }
    }
    return same_order ? MPI_IDENT : MPI_SIMILAR;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    mpi_group_t *g;
    int r = group_arg("MPI_Group_size", group, &g);
    if (r == MPI_SUCCESS && size == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Group_size: NULL size");
    }
    if (r == MPI_SUCCESS) {
        *size = g->size;
    }
    return r;
}

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    mpi_group_t *g;
    int r = group_arg("MPI_Group_rank", group, &g);
    if (r == MPI_SUCCESS && rank == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Group_rank: NULL rank");
    }
    if (r == MPI_SUCCESS) {
        *rank = g->rank;
    }
    return r;
}

/* Checks that ranks[0..n) are distinct ranks of g. */
static int check_ranks(const char *fn, const mpi_group_t *g, int n,
                       const int ranks[])
{
    if (n < 0 || n > g->size || (n > 0 && ranks == NULL)) {
        return mpi_error(MPI_ERR_ARG, "%s: %d ranks of a group of %d", fn, n,
                         g->size);
    }
    char *seen = calloc((size_t)g->size + 1, 1);
    if (seen == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    int r = MPI_SUCCESS;
    for (int i = 0; i < n && r == MPI_SUCCESS; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size) {
            r = mpi_error(MPI_ERR_RANK, "%s: rank %d; expected 0..%d", fn,
                          ranks[i], g->size - 1);
        } else if (seen[ranks[i]]++) {
            r = mpi_error(MPI_ERR_RANK, "%s: rank %d given twice", fn,
                          ranks[i]);
        }
    }
    free(seen);
    return r;
}

static int *ranks_new(int n)
{
    return malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[],
                    MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_incl";
    mpi_group_t *g;
    int r = group_arg(fn, group, &g);
    if (r == MPI_SUCCESS) {
        r = check_ranks(fn, g, n, ranks);
    }
    if (r == MPI_SUCCESS && newgroup == NULL) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL newgroup", fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    int *world = ranks_new(n);
    if (world != NULL) {
        for (int i = 0; i < n; i++) {
            world[i] = g->world[ranks[i]];
        }
    }
    return mpi_group_handle(fn, world ? mpi_group_new(n, world) : NULL,
                            newgroup);
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[],
                    MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_excl";
    mpi_group_t *g;
    int r = group_arg(fn, group, &g);
    if (r == MPI_SUCCESS) {
        r = check_ranks(fn, g, n, ranks);
    }
    if (r == MPI_SUCCESS && newgroup == NULL) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL newgroup", fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    char *out = calloc((size_t)g->size + 1, 1);
    int *world = ranks_new(g->size - n);
    if (out == NULL || world == NULL) {
        free(out);
        free(world);
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    for (int i = 0; i < n; i++) {
        out[ranks[i]] = 1;
    }
    int k = 0;
    for (int i = 0; i < g->size; i++) {
        if (!out[i]) {
            world[k++] = g->world[i];
        }
    }
    free(out);
    return mpi_group_handle(fn, mpi_group_new(k, world), newgroup);
}

/* Union (op 0), intersection (1), difference (2), in the standard's order:
 * group1's members first, in their order. */
static int set_op(const char *fn, int op, MPI_Group group1, MPI_Group group2,
                  MPI_Group *newgroup)
{
    mpi_group_t *a, *b;
    int r = group_arg(fn, group1, &a);
    if (r == MPI_SUCCESS) {
        r = group_arg(fn, group2, &b);
    }
    if (r == MPI_SUCCESS && newgroup == NULL) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL newgroup", fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    int *world = ranks_new(a->size + b->size);
    if (world == NULL) {
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    int k = 0;
    for (int i = 0; i < a->size; i++) {
        int in_b = position(b, a->world[i]) != MPI_UNDEFINED;
        if (op == 0 || (op == 1 && in_b) || (op == 2 && !in_b)) {
            world[k++] = a->world[i];
        }
    }
    for (int i = 0; op == 0 && i < b->size; i++) {
        if (position(a, b->world[i]) == MPI_UNDEFINED) {
            world[k++] = b->world[i];
        }
    }
    return mpi_group_handle(fn, mpi_group_new(k, world), newgroup);
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_union", 0, group1, group2, newgroup);
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2,
                            MPI_Group *newgroup)
{
    return set_op("MPI_Group_intersection", 1, group1, group2, newgroup);
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2,
                          MPI_Group *newgroup)
{
    return set_op("MPI_Group_difference", 2, group1, group2, newgroup);
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                               MPI_Group group2, int ranks2[])
{
    const char *fn = "MPI_Group_translate_ranks";
    mpi_group_t *a, *b;
    int r = group_arg(fn, group1, &a);
    if (r == MPI_SUCCESS) {
        r = group_arg(fn, group2, &b);
    }
    if (r == MPI_SUCCESS && (n < 0 || (n > 0 && (!ranks1 || !ranks2)))) {
        r = mpi_error(MPI_ERR_ARG, "%s: %d ranks, or NULL arrays", fn, n);
    }
    for (int i = 0; r == MPI_SUCCESS && i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
        } else if (ranks1[i] < 0 || ranks1[i] >= a->size) {
            r = mpi_error(MPI_ERR_RANK, "%s: rank %d; expected 0..%d", fn,
                          ranks1[i], a->size - 1);
        } else {
            ranks2[i] = position(b, a->world[ranks1[i]]);
        }
    }
    return r;
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    const char *fn = "MPI_Group_compare";
    mpi_group_t *a, *b;
    int r = group_arg(fn, group1, &a);
    if (r == MPI_SUCCESS) {
        r = group_arg(fn, group2, &b);
    }
    if (r == MPI_SUCCESS && result == NULL) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL result", fn);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    *result = mpi_group_compare(a, b);
    return MPI_SUCCESS;
}

int PMPI_Group_free(MPI_Group *group)
{
    const char *fn = "MPI_Group_free";
    mpi_group_t *g;
    int r = group == NULL ? mpi_error(MPI_ERR_ARG, "%s: NULL group", fn)
                          : group_arg(fn, *group, &g);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (*group != MPI_GROUP_EMPTY) {
        mpi->groups[*group - MPI_GROUP_FIRST] = NULL;
        mpi_group_release(g);
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

MPI_ALIAS(MPI_Group_size);
MPI_ALIAS(MPI_Group_rank);
MPI_ALIAS(MPI_Group_incl);
MPI_ALIAS(MPI_Group_excl);
MPI_ALIAS(MPI_Group_union);
MPI_ALIAS(MPI_Group_intersection);
MPI_ALIAS(MPI_Group_difference);
MPI_ALIAS(MPI_Group_translate_ranks);
MPI_ALIAS(MPI_Group_compare);
MPI_ALIAS(MPI_Group_free);
