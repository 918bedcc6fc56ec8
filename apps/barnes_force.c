/*
 * barnes_force.c - the force phase: a body's acceleration from a walk of
 * the shared tree, from the root.
 *
 * The top of the tree is in local memory; below it every cell and body is
 * a CRL region, read with rgn_start_read/rgn_end_read (a miss the first
 * time this node reads it in a step; then cached until its home rewrites
 * it).  A cell far enough away counts as one mass at its centre of mass:
 * it is accepted if the distance exceeds side / theta plus the centre of
 * mass's offset from the cell's centre, and the body is not inside it
 * (Barnes and Hut's opening criterion as Barnes 1994 refines it);
 * otherwise the walk opens it.
 * Interactions are softened: m * dx / (|dx|^2 + eps^2)^(3/2).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "barnes.h"

static uint64_t hash_rid(rid_t r)
{
    uint64_t x = r * UINT64_C(0x9e3779b97f4a7c15);
    return x ^ (x >> 29);
}

static void cache_grow(barnes_t *b)
{
    long cap = b->cache_cap ? 2 * b->cache_cap : 4096;
    rid_t *rids = barnes_alloc((size_t)cap, sizeof *rids);
    void **ptrs = barnes_alloc((size_t)cap, sizeof *ptrs);
    for (long i = 0; i < b->cache_cap; i++) {
        if (b->cache_rid[i] != CRL_RID_NONE) {
            long j = (long)(hash_rid(b->cache_rid[i]) & (uint64_t)(cap - 1));
            while (rids[j] != CRL_RID_NONE) {
                j = (j + 1) & (cap - 1);
            }
            rids[j] = b->cache_rid[i];
            ptrs[j] = b->cache_ptr[i];
        }
    }
    free(b->cache_rid);
    free(b->cache_ptr);
    b->cache_rid = rids;
    b->cache_ptr = ptrs;
    b->cache_cap = cap;
}

void *barnes_map(barnes_t *b, rid_t rid)
{
    if (2 * (b->cache_len + 1) > b->cache_cap) {
        cache_grow(b);
    }
    long j = (long)(hash_rid(rid) & (uint64_t)(b->cache_cap - 1));
    while (b->cache_rid[j] != CRL_RID_NONE) {
        if (b->cache_rid[j] == rid) {
            return b->cache_ptr[j];
        }
        j = (j + 1) & (b->cache_cap - 1);
    }
    void *p = rgn_map(rid);
    if (p == NULL) {
        barnes_fail("rgn_map: %s", crl_last_error());
    }
    b->cache_rid[j] = rid;
    b->cache_ptr[j] = p;
    b->cache_len++;
    return p;
}

typedef struct {
    barnes_t *b;
    long i; /* my body */
    const double *pos;
    double acc[3];
} walk_t;

static void interact(walk_t *w, double mass, const double x[3])
{
    double d[3], r2 = w->b->eps2;
    for (int k = 0; k < 3; k++) {
        d[k] = x[k] - w->pos[k];
        r2 += d[k] * d[k];
    }
    double inv = 1.0 / sqrt(r2);
    double f = mass * inv * inv * inv;
    for (int k = 0; k < 3; k++) {
        w->acc[k] += f * d[k];
    }
}

/* True if the cell (depth, prefix, centre of mass cm) may count as one
 * mass for my body: my body is not inside it and is farther from the
 * centre of mass than side / theta plus the centre of mass's offset from
 * the cell's centre (Barnes 1994: bounds the error of lopsided cells). */
static int accept(const walk_t *w, int depth, uint64_t prefix,
                  const double cm[3])
{
    const barnes_t *b = w->b;
    if (depth == 0 || b->key[w->i] >> 3 * (MAXDEPTH - depth) == prefix) {
        return 0; /* my body is inside */
    }
    uint32_t u[3] = {0, 0, 0}; /* the cell's lattice position */
    for (int l = 0; l < depth; l++) {
        for (int k = 0; k < 3; k++) {
            u[k] |= (uint32_t)(prefix >> (3 * l + 2 - k) & 1) << l;
        }
    }
    double s = barnes_cell_side(b, depth), d2 = 0, off2 = 0;
    for (int k = 0; k < 3; k++) {
        double d = cm[k] - w->pos[k];
        double o = cm[k] - (b->lo[k] + ((double)u[k] + 0.5) * s);
        d2 += d * d;
        off2 += o * o;
    }
    double need = s / b->theta + sqrt(off2);
    return d2 > need * need;
}

static void walk_rid(walk_t *w, rid_t rid, int is_body, int depth,
                     uint64_t prefix);

static void open_cell(walk_t *w, const cell_rgn_t *c, uint64_t prefix)
{
    for (int o = 0; o < 8; o++) {
        if (c->child[o] != CRL_RID_NONE) {
            walk_rid(w, c->child[o], c->body_mask >> o & 1, c->depth + 1,
                     prefix << 3 | (unsigned)o);
        }
    }
}

static void read_cell(walk_t *w, rid_t rid, int depth, cell_rgn_t *out)
{
    cell_rgn_t *p = barnes_map(w->b, rid);
    barnes_crl(rgn_start_read(p), "rgn_start_read");
    *out = *p;
    barnes_crl(rgn_end_read(p), "rgn_end_read");
    if (out->depth != depth || !(out->mass > 0)) {
        barnes_fail("cell region 0x%llx has depth %d and mass %g, expected "
                    "depth %d",
                    (unsigned long long)rid, out->depth, out->mass, depth);
    }
}

static void walk_rid(walk_t *w, rid_t rid, int is_body, int depth,
                     uint64_t prefix)
{
    if (is_body) {
        if (rid == w->b->rid[w->i]) {
            return;
        }
        body_rgn_t *p = barnes_map(w->b, rid);
        barnes_crl(rgn_start_read(p), "rgn_start_read");
        double mass = p->mass, x[3] = {p->pos[0], p->pos[1], p->pos[2]};
        barnes_crl(rgn_end_read(p), "rgn_end_read");
        interact(w, mass, x);
        return;
    }
    cell_rgn_t c;
    read_cell(w, rid, depth, &c);
    if (accept(w, depth, prefix, c.cm)) {
        interact(w, c.mass, c.cm);
    } else {
        open_cell(w, &c, prefix);
    }
}

static void walk_ref(walk_t *w, int32_t ref)
{
    barnes_t *b = w->b;
    if (ref >= 0) {
        const top_t *t = &b->top[ref];
        if (accept(w, t->depth, t->prefix, t->cm)) {
            interact(w, t->mass, t->cm);
            return;
        }
        for (int o = 0; o < 8; o++) {
            if (t->child[o] != REF_NONE) {
                walk_ref(w, t->child[o]);
            }
        }
        return;
    }
    const item_t *it = &b->items[-1 - ref];
    if (it->kind == ITEM_BODY) {
        if (it->rid != b->rid[w->i]) {
            interact(w, it->mass, it->cm);
        }
        return;
    }
    uint64_t prefix =
        it->depth == 0 ? 0 : it->key >> 3 * (MAXDEPTH - it->depth);
    if (accept(w, it->depth, prefix, it->cm)) {
        interact(w, it->mass, it->cm);
        return;
    }
    cell_rgn_t c;
    read_cell(w, it->rid, it->depth, &c);
    open_cell(w, &c, prefix);
}

void barnes_force(barnes_t *b, long i, double acc[3])
{
    walk_t w = {.b = b, .i = i, .pos = b->pos[i]};
    walk_ref(&w, b->root);
    memcpy(acc, w.acc, sizeof w.acc);
}
