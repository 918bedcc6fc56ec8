/*
 * barnes.h - the paper's Barnes-Hut on CRL: the shared types of barnes.c
 * (main, time steps, check), barnes_tree.c (building the tree) and
 * barnes_force.c (walking it).
 *
 * Bodies and cells are small CRL regions.  A body region (88 bytes) holds
 * a body's state; a cell region (104 bytes) an oct-tree cell: its mass,
 * centre of mass and eight children (region ids of cells or bodies).
 * Positions are cut into a 2^21 lattice per dimension inside the step's
 * bounding cube; a cell at depth d has the key prefix of 3d bits (its
 * octants from the top) and side cube/2^d.
 */
#ifndef BARNES_H
#define BARNES_H

#include <stdint.h>

#include "crl.h"

#define MAXDEPTH 21 /* lattice bits per dimension: keys of 63 bits */

typedef struct {
    double pos[3], vel[3], acc[3], mass;
    uint32_t index; /* the body's number in the initial model */
    uint32_t pad;
} body_rgn_t; /* 88 bytes */

typedef struct {
    double mass, cm[3];
    rid_t child[8];    /* CRL_RID_NONE where the octant is empty */
    uint8_t depth;     /* of this cell; its children are one deeper */
    uint8_t body_mask; /* bit o: child o is a body, not a cell */
    uint16_t pad;
    uint32_t nbodies;
} cell_rgn_t; /* 104 bytes */

/* What a node tells every other about one piece of its part of the tree:
 * a cell that holds only its bodies, or one of its bodies. */
enum {
    ITEM_CELL = 1,
    ITEM_BODY = 2
};
typedef struct {
    uint64_t key; /* a cell's lowest key (prefix << 3 (MAXDEPTH - depth)),
                     a body's key */
    rid_t rid;
    double mass, cm[3]; /* a body's: its mass and position */
    int32_t depth;      /* a cell's; MAXDEPTH for a body */
    int32_t kind;
} item_t;

/* A cell of the top of the tree, built alike on every node from all
 * nodes' items.  A child ref is a top cell index (>= 0), an item
 * (-1 - item index) or empty (REF_NONE). */
#define REF_NONE INT32_MIN
typedef struct {
    double mass, cm[3];
    uint64_t prefix;
    int32_t depth;
    int32_t child[8];
} top_t;

/* One node's state. */
typedef struct {
    int me, n;
    long nbodies; /* in all */
    double theta, eps2, dt;

    /* My bodies: nb of them, global numbers first .. first + nb - 1. */
    long nb, first;
    double (*pos)[3], (*vel)[3], (*acc)[3], *mass;
    rid_t *rid;
    body_rgn_t **map;
    uint64_t *key;
    long *order; /* my bodies by key */

    /* This step's cube: lowest corner and side. */
    double lo[3], side;
    uint64_t *others; /* other nodes' keys, sorted (barnes_tree.c) */
    long nothers;

    /* Cell regions homed here, reused from step to step. */
    rid_t *pool;
    cell_rgn_t **pool_map;
    long pool_len, pool_cap, pool_used;

    /* Regions mapped on this node, by rid (open addressing). */
    rid_t *cache_rid;
    void **cache_ptr;
    long cache_cap, cache_len;

    /* The tree's top, and all nodes' items. */
    item_t *items;
    long nitems, items_cap;
    top_t *top;
    long ntop, top_cap;
    int32_t root; /* a ref */
} barnes_t;

/* barnes.c */
void barnes_fail(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));
void barnes_crl(crl_status_t st, const char *what);
void *barnes_alloc(size_t n, size_t size);

/* barnes_tree.c: computes the cube and keys, builds my part of the tree
 * in regions, exchanges the items and builds the top.  Collective. */
void barnes_build_tree(barnes_t *b);
double barnes_cell_side(const barnes_t *b, int depth);
/* The cube around lo..hi (with a margin), into b. */
void barnes_set_cube(barnes_t *b, const double lo[3], const double hi[3]);
/* A position's key in the cube b->lo, b->side. */
uint64_t barnes_key(const barnes_t *b, const double p[3]);

/* barnes_force.c: the acceleration of my body i (walking the tree). */
void barnes_force(barnes_t *b, long i, double acc[3]);
/* Maps a region once and keeps it mapped. */
void *barnes_map(barnes_t *b, rid_t rid);

#endif
