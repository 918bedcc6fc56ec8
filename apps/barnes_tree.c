/*
 * barnes_tree.c - building the shared oct-tree of one time step.
 *
 * Every node owns a fixed set of bodies (a run of the initial model in
 * space-filling-curve order, so nearby in space).  A step's tree is built
 * in three parts:
 *   1. the cube: kept from step to step (with a margin around the bodies)
 *      unless a body has left it (one reduction to find out, six more to
 *      make a new one); every node puts its bodies on the cube's lattice
 *      (Morton keys) and broadcasts its keys, so that every node knows
 *      which cells hold bodies of other nodes;
 *   2. every node builds the oct-tree of its own bodies in local memory
 *      (masses and centres of mass included) and cuts it into items: the
 *      largest cells that hold no other node's bodies and, where bodies
 *      of several nodes meet, single bodies.  Each item cell's subtree is
 *      written into cell regions homed on this node (reused from step to
 *      step); the items (rid, mass, centre of mass, depth, key) go to
 *      every node by broadcast;
 *   3. every node builds the top of the tree, the cells above the items,
 *      from all items, alike, in local memory.
 * The force phase then walks the top locally and the items' subtrees
 * through CRL: remote cells and bodies are read misses, cached until
 * their home rewrites them in a later step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "barnes.h"

/* Item messages: a fixed size, so that all nodes broadcast at once; each
 * says whose items it carries and how many that node has. */
#define ITEMS_PER_MSG 32
#define CUBE_MARGIN   1.5 /* the cube's side over the bodies' extent */
typedef struct {
    int32_t from, total, first, count;
    item_t item[ITEMS_PER_MSG];
} item_msg_t;

/* Key messages: a fixed size (one packet), for the same reason. */
#define KEYS_PER_MSG 100
typedef struct {
    int32_t from, total, first, count;
    uint64_t key[KEYS_PER_MSG];
} key_msg_t;

/* The local tree of my bodies, in memory. */
typedef struct {
    int32_t child[8]; /* lnode index, -1 if none */
    long body;        /* my body's index if a leaf, else -1 */
    long nbodies;     /* in the subtree */
    int depth;
    uint64_t prefix;
    double mass, cm[3];
} lnode_t;

typedef struct {
    lnode_t *v;
    long len, cap;
} ltree_t;

double barnes_cell_side(const barnes_t *b, int depth)
{
    return ldexp(b->side, -depth);
}

uint64_t barnes_key(const barnes_t *b, const double p[3])
{
    const double cells = (double)(1u << MAXDEPTH);
    uint32_t u[3];
    for (int k = 0; k < 3; k++) {
        double x = floor((p[k] - b->lo[k]) / b->side * cells);
        u[k] = x < 0 ? 0 : x >= cells ? (1u << MAXDEPTH) - 1 : (uint32_t)x;
    }
    uint64_t key = 0;
    for (int l = MAXDEPTH - 1; l >= 0; l--) {
        key = key << 3 | ((u[0] >> l & 1u) << 2) | ((u[1] >> l & 1u) << 1) |
              (u[2] >> l & 1u);
    }
    return key;
}

static const barnes_t *sort_ctx;
static int by_key(const void *pa, const void *pb)
{
    long a = *(const long *)pa, c = *(const long *)pb;
    uint64_t ka = sort_ctx->key[a], kc = sort_ctx->key[c];
    return ka < kc ? -1 : ka > kc ? 1 : (a > c) - (a < c);
}

void barnes_set_cube(barnes_t *b, const double lo[3], const double hi[3])
{
    double side = 0;
    for (int k = 0; k < 3; k++) {
        side = fmax(side, hi[k] - lo[k]);
    }
    b->side = side * CUBE_MARGIN + 1e-12;
    for (int k = 0; k < 3; k++) {
        b->lo[k] = (lo[k] + hi[k]) / 2 - b->side / 2;
    }
}

/* A new cube (collective) if a body has left the one we have. */
static void cube(barnes_t *b)
{
    double out = 0;
    for (long i = 0; i < b->nb; i++) {
        for (int k = 0; k < 3; k++) {
            double u = (b->pos[i][k] - b->lo[k]) / b->side;
            out = !(u >= 0 && u < 1) ? 1 : out;
        }
    }
    out = rgn_reduce_dmax(out);
    if (isnan(out)) {
        barnes_fail("a reduction failed: %s", crl_last_error());
    }
    if (out == 0) {
        return;
    }
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
        for (long i = 0; i < b->nb; i++) {
            lo[k] = fmin(lo[k], b->pos[i][k]);
            hi[k] = fmax(hi[k], b->pos[i][k]);
        }
        lo[k] = rgn_reduce_dmin(lo[k]);
        hi[k] = rgn_reduce_dmax(hi[k]);
        if (isnan(lo[k]) || isnan(hi[k])) {
            barnes_fail("a reduction failed: %s", crl_last_error());
        }
    }
    barnes_set_cube(b, lo, hi);
}

static int by_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, c = *(const uint64_t *)pb;
    return (a > c) - (a < c);
}

/* Every other node's keys, sorted, into b->others (for pure()). */
static void exchange_keys(barnes_t *b)
{
    if (b->others == NULL) {
        b->others = barnes_alloc((size_t)b->nbodies, sizeof *b->others);
    }
    b->nothers = 0;
    if (b->n == 1) {
        return;
    }
    key_msg_t *m = barnes_alloc(1, sizeof *m);
    long sent = 0;
    do {
        long k = b->nb - sent < KEYS_PER_MSG ? b->nb - sent : KEYS_PER_MSG;
        memset(m, 0, sizeof *m);
        m->from = b->me;
        m->total = (int32_t)b->nb;
        m->first = (int32_t)sent;
        m->count = (int32_t)k;
        for (long i = 0; i < k; i++) {
            m->key[i] = b->key[b->order[sent + i]];
        }
        barnes_crl(rgn_bcast_send(sizeof *m, m), "rgn_bcast_send");
        sent += k;
    } while (sent < b->nb);
    long *have = barnes_alloc((size_t)b->n, sizeof *have);
    long *total = barnes_alloc((size_t)b->n, sizeof *total);
    for (int q = 0; q < b->n; q++) {
        total[q] = -1;
    }
    int done = 1;
    while (done < b->n) {
        barnes_crl(rgn_bcast_recv(sizeof *m, m), "rgn_bcast_recv");
        int q = m->from;
        if (q < 0 || q >= b->n || q == b->me || m->count < 0 ||
            m->count > KEYS_PER_MSG ||
            b->nothers + m->count > b->nbodies - b->nb) {
            barnes_fail("a bad key message (from %d)", q);
        }
        total[q] = m->total;
        memcpy(b->others + b->nothers, m->key,
               (size_t)m->count * sizeof *m->key);
        b->nothers += m->count;
        have[q] += m->count;
        if (have[q] == total[q]) {
            done++;
        }
    }
    free(have);
    free(total);
    free(m);
    qsort(b->others, (size_t)b->nothers, sizeof *b->others, by_u64);
    /* Nobody sends items before everybody has the keys. */
    barnes_crl(rgn_barrier(), "rgn_barrier");
}

/* The cube, my keys, and everybody else's keys. */
static void cube_and_keys(barnes_t *b)
{
    cube(b);
    for (long i = 0; i < b->nb; i++) {
        b->key[i] = barnes_key(b, b->pos[i]);
        b->order[i] = i;
    }
    sort_ctx = b;
    qsort(b->order, (size_t)b->nb, sizeof *b->order, by_key);
    for (long i = 1; i < b->nb; i++) {
        if (b->key[b->order[i]] == b->key[b->order[i - 1]]) {
            barnes_fail("bodies %ld and %ld share a lattice point",
                        b->first + b->order[i - 1], b->first + b->order[i]);
        }
    }
    exchange_keys(b);
}

static long lnode_new(ltree_t *t)
{
    if (t->len == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->v = realloc(t->v, (size_t)t->cap * sizeof *t->v);
        if (t->v == NULL) {
            barnes_fail("out of memory for the local tree");
        }
    }
    lnode_t *c = &t->v[t->len];
    memset(c, 0, sizeof *c);
    for (int o = 0; o < 8; o++) {
        c->child[o] = -1;
    }
    c->body = -1;
    return t->len++;
}

/* The local tree over my bodies order[a..e) (all with key prefix `prefix'
 * of `depth' octants); returns its node. */
static long build_local(barnes_t *b, ltree_t *t, long a, long e, int depth,
                        uint64_t prefix)
{
    long me = lnode_new(t);
    t->v[me].depth = depth;
    t->v[me].prefix = prefix;
    t->v[me].nbodies = e - a;
    if (e - a == 1) {
        long i = b->order[a];
        t->v[me].body = i;
        t->v[me].mass = b->mass[i];
        memcpy(t->v[me].cm, b->pos[i], sizeof t->v[me].cm);
        return me;
    }
    int shift = 3 * (MAXDEPTH - depth - 1);
    double mass = 0, cm[3] = {0, 0, 0};
    long s = a;
    for (int o = 0; o < 8; o++) {
        long f = s;
        while (f < e && (int)(b->key[b->order[f]] >> shift & 7) == o) {
            f++;
        }
        if (f > s) {
            long c =
                build_local(b, t, s, f, depth + 1, prefix << 3 | (unsigned)o);
            t->v[me].child[o] = (int32_t)c;
            mass += t->v[c].mass;
            for (int k = 0; k < 3; k++) {
                cm[k] += t->v[c].mass * t->v[c].cm[k];
            }
        }
        s = f;
    }
    t->v[me].mass = mass;
    for (int k = 0; k < 3; k++) {
        t->v[me].cm[k] = cm[k] / mass;
    }
    return me;
}

/* True if no other node has a body in the cell. */
static int pure(const barnes_t *b, int depth, uint64_t prefix)
{
    int shift = 3 * (MAXDEPTH - depth);
    uint64_t lo = depth == 0 ? 0 : prefix << shift;
    uint64_t hi = depth == 0 ? (UINT64_C(1) << 63) - 1
                             : lo + ((UINT64_C(1) << shift) - 1);
    long l = 0, h = b->nothers; /* the first key >= lo */
    while (l < h) {
        long mid = l + (h - l) / 2;
        if (b->others[mid] < lo) {
            l = mid + 1;
        } else {
            h = mid;
        }
    }
    return l == b->nothers || b->others[l] > hi;
}

static long pool_take(barnes_t *b)
{
    if (b->pool_used == b->pool_len) {
        if (b->pool_len == b->pool_cap) {
            b->pool_cap = b->pool_cap ? 2 * b->pool_cap : 256;
            b->pool = realloc(b->pool, (size_t)b->pool_cap * sizeof *b->pool);
            b->pool_map =
                realloc(b->pool_map, (size_t)b->pool_cap * sizeof *b->pool_map);
            if (b->pool == NULL || b->pool_map == NULL) {
                barnes_fail("out of memory for the cell pool");
            }
        }
        rid_t r = rgn_create(sizeof(cell_rgn_t));
        if (r == CRL_RID_NONE) {
            barnes_fail("rgn_create: %s", crl_last_error());
        }
        b->pool[b->pool_len] = r;
        b->pool_map[b->pool_len] = barnes_map(b, r);
        b->pool_len++;
    }
    return b->pool_used++;
}

/* Writes the subtree of local node c into regions; returns its rid. */
static rid_t materialize(barnes_t *b, ltree_t *t, long c)
{
    if (t->v[c].body >= 0) {
        return b->rid[t->v[c].body];
    }
    cell_rgn_t cell = {.mass = t->v[c].mass,
                       .depth = (uint8_t)t->v[c].depth,
                       .nbodies = (uint32_t)t->v[c].nbodies};
    memcpy(cell.cm, t->v[c].cm, sizeof cell.cm);
    for (int o = 0; o < 8; o++) {
        long k = t->v[c].child[o];
        if (k >= 0) {
            cell.child[o] = materialize(b, t, k);
            if (t->v[k].body >= 0) {
                cell.body_mask |= (uint8_t)(1u << o);
            }
        }
    }
    long slot = pool_take(b);
    cell_rgn_t *p = b->pool_map[slot];
    barnes_crl(rgn_start_write(p), "rgn_start_write");
    *p = cell;
    barnes_crl(rgn_end_write(p), "rgn_end_write");
    return b->pool[slot];
}

static void item_add(barnes_t *b, const item_t *it)
{
    if (b->nitems == b->items_cap) {
        b->items_cap = b->items_cap ? 2 * b->items_cap : 1024;
        b->items = realloc(b->items, (size_t)b->items_cap * sizeof *b->items);
        if (b->items == NULL) {
            barnes_fail("out of memory for the items");
        }
    }
    b->items[b->nitems++] = *it;
}

/* Cuts my local tree into items (appended to b->items). */
static void cut(barnes_t *b, ltree_t *t, long c)
{
    lnode_t *v = &t->v[c];
    if (v->body >= 0 || pure(b, v->depth, v->prefix)) {
        item_t it = {.rid = CRL_RID_NONE, .mass = v->mass};
        memcpy(it.cm, v->cm, sizeof it.cm);
        if (v->body >= 0) {
            it.kind = ITEM_BODY;
            it.depth = MAXDEPTH;
            it.key = b->key[v->body];
            it.rid = b->rid[v->body];
        } else {
            it.kind = ITEM_CELL;
            it.depth = v->depth;
            it.key = v->depth == 0 ? 0 : v->prefix << 3 * (MAXDEPTH - v->depth);
            it.rid = materialize(b, t, c);
        }
        item_add(b, &it);
        return;
    }
    for (int o = 0; o < 8; o++) {
        if (t->v[c].child[o] >= 0) {
            cut(b, t, t->v[c].child[o]);
        }
    }
}

/* Everybody's items, in rank order, into b->items. */
static void exchange_items(barnes_t *b, long mine_first, long mine_count)
{
    if (b->n == 1) {
        return;
    }
    item_t *mine = barnes_alloc((size_t)(mine_count + 1), sizeof *mine);
    memcpy(mine, b->items + mine_first, (size_t)mine_count * sizeof *mine);
    item_msg_t *m = barnes_alloc(1, sizeof *m);
    long sent = 0;
    do {
        long k = mine_count - sent < ITEMS_PER_MSG ? mine_count - sent
                                                   : ITEMS_PER_MSG;
        memset(m, 0, sizeof *m);
        m->from = b->me;
        m->total = (int32_t)mine_count;
        m->first = (int32_t)sent;
        m->count = (int32_t)k;
        memcpy(m->item, mine + sent, (size_t)k * sizeof *mine);
        barnes_crl(rgn_bcast_send(sizeof *m, m), "rgn_bcast_send");
        sent += k;
    } while (sent < mine_count);

    /* Others' items arrive in any order of nodes; keep them per node. */
    item_t **per = barnes_alloc((size_t)b->n, sizeof *per);
    long *total = barnes_alloc((size_t)b->n, sizeof *total);
    long *have = barnes_alloc((size_t)b->n, sizeof *have);
    for (int q = 0; q < b->n; q++) {
        total[q] = -1;
    }
    int done = 1; /* nodes complete, me included */
    while (done < b->n) {
        barnes_crl(rgn_bcast_recv(sizeof *m, m), "rgn_bcast_recv");
        int q = m->from;
        if (q < 0 || q >= b->n || q == b->me || m->count < 0 ||
            m->count > ITEMS_PER_MSG || m->first < 0 ||
            m->first + m->count > m->total) {
            barnes_fail("a bad item message (from %d)", q);
        }
        if (total[q] < 0) {
            total[q] = m->total;
            per[q] = barnes_alloc((size_t)m->total + 1, sizeof *per[q]);
        }
        memcpy(per[q] + m->first, m->item, (size_t)m->count * sizeof *m->item);
        have[q] += m->count;
        if (have[q] == total[q]) {
            done++;
        }
    }
    b->nitems = 0;
    for (int q = 0; q < b->n; q++) {
        const item_t *src = q == b->me ? mine : per[q];
        long cnt = q == b->me ? mine_count : total[q];
        for (long i = 0; i < cnt; i++) {
            item_add(b, &src[i]);
        }
        if (q != b->me) {
            free(per[q]);
        }
    }
    free(per);
    free(total);
    free(have);
    free(mine);
    free(m);
}

static int32_t top_new(barnes_t *b, int depth, uint64_t prefix)
{
    if (b->ntop == b->top_cap) {
        b->top_cap = b->top_cap ? 2 * b->top_cap : 256;
        b->top = realloc(b->top, (size_t)b->top_cap * sizeof *b->top);
        if (b->top == NULL) {
            barnes_fail("out of memory for the top of the tree");
        }
    }
    top_t *c = &b->top[b->ntop];
    memset(c, 0, sizeof *c);
    c->depth = depth;
    c->prefix = prefix;
    for (int o = 0; o < 8; o++) {
        c->child[o] = REF_NONE;
    }
    return (int32_t)b->ntop++;
}

/* Puts item i below top cell c. */
static void top_insert(barnes_t *b, int32_t c, long i)
{
    const item_t *it = &b->items[i];
    for (;;) {
        int depth = b->top[c].depth;
        if (it->depth <= depth) {
            barnes_fail("item %ld (depth %d) overlaps another", i,
                        (int)it->depth);
        }
        int o = (int)(it->key >> 3 * (MAXDEPTH - depth - 1) & 7);
        int32_t ref = b->top[c].child[o];
        if (ref == REF_NONE) {
            b->top[c].child[o] = (int32_t)(-1 - i);
            return;
        }
        if (ref >= 0) {
            c = ref;
            continue;
        }
        /* An item is there: a new top cell takes both. */
        int32_t n = top_new(b, depth + 1, b->top[c].prefix << 3 | (unsigned)o);
        b->top[c].child[o] = n;
        top_insert(b, n, -1 - (long)ref);
        c = n;
    }
}

static void top_mass(barnes_t *b, int32_t c)
{
    double mass = 0, cm[3] = {0, 0, 0};
    for (int o = 0; o < 8; o++) {
        int32_t ref = b->top[c].child[o];
        if (ref == REF_NONE) {
            continue;
        }
        double m;
        const double *x;
        if (ref >= 0) {
            top_mass(b, ref);
            m = b->top[ref].mass;
            x = b->top[ref].cm;
        } else {
            m = b->items[-1 - ref].mass;
            x = b->items[-1 - ref].cm;
        }
        mass += m;
        for (int k = 0; k < 3; k++) {
            cm[k] += m * x[k];
        }
    }
    b->top[c].mass = mass;
    for (int k = 0; k < 3; k++) {
        b->top[c].cm[k] = cm[k] / mass;
    }
}

void barnes_build_tree(barnes_t *b)
{
    cube_and_keys(b);

    ltree_t t = {0};
    b->pool_used = 0;
    b->nitems = 0;
    if (b->nb > 0) {
        long root = build_local(b, &t, 0, b->nb, 0, 0);
        cut(b, &t, root);
    }
    free(t.v);
    exchange_items(b, 0, b->nitems);

    b->ntop = 0;
    if (b->nitems == 1 && b->items[0].depth == 0) {
        b->root = -1; /* one node's tree is all of it */
        return;
    }
    b->root = top_new(b, 0, 0);
    for (long i = 0; i < b->nitems; i++) {
        top_insert(b, b->root, i);
    }
    top_mass(b, b->root);
}
