/*
 * mpi_type.c - predefined and derived datatypes (see mpi_type.h).
 *
 * A derived type is built once, at its constructor, as the flat list of
 * the contiguous pieces of one element; packing walks that list.  The
 * predefined types are one process-wide table, the same for every node;
 * derived types belong to the node that made them (MPI state is
 * node-local).
 */
#include <limits.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "mpi_internal.h"
#include "mpi_type.h"

/* Handles of derived types start here; below are the predefined ones. */
#define MPI_TYPE_FIRST_DERIVED 64

/* ---- predefined types ------------------------------------------------ */

struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct short_int { short v; int i; };
struct long_double_int { long double v; int i; };
struct two_int { int v; int i; };

static mpi_seg_t basic_seg[MPI_TYPE_FIRST_DERIVED][2];
static mpi_type_t predefined[MPI_TYPE_FIRST_DERIVED];

static void define_basic(MPI_Datatype h, const char *name, size_t size,
                         size_t align)
{
    mpi_type_t *t = &predefined[h];
    basic_seg[h][0] = (mpi_seg_t){.disp = 0, .len = size, .esize = size};
    *t = (mpi_type_t){.committed = 1,
                      .predefined = 1,
                      .size = size,
                      .lb = 0,
                      .extent = (MPI_Aint)size,
                      .true_lb = 0,
                      .true_ub = (MPI_Aint)size,
                      .align = align,
                      .basic = h,
                      .nseg = 1,
                      .seg = basic_seg[h],
                      .name = name};
}

/* A value-index pair of MPI_MAXLOC/MINLOC: the value, then an int at
 * index_at, extent whole (C's struct layout). */
static void define_pair(MPI_Datatype h, const char *name, size_t vsize,
                        size_t index_at, size_t extent, size_t align)
{
    mpi_type_t *t = &predefined[h];
    define_basic(h, name, vsize + sizeof(int), align);
    if (index_at == vsize) {
        basic_seg[h][0].esize = sizeof(int) < vsize ? sizeof(int) : vsize;
    } else {
        basic_seg[h][0] = (mpi_seg_t){.disp = 0, .len = vsize, .esize = vsize};
        basic_seg[h][1] = (mpi_seg_t){
            .disp = (MPI_Aint)index_at, .len = sizeof(int), .esize = sizeof(int)};
        t->nseg = 2;
    }
    t->extent = (MPI_Aint)extent;
    t->true_ub = (MPI_Aint)(index_at + sizeof(int));
}

#define BASIC(h, type) define_basic(h, #h, sizeof(type), alignof(type))
#define PAIR(h, st)                                                            \
    define_pair(h, #h, sizeof(((struct st *)0)->v), offsetof(struct st, i),   \
                sizeof(struct st), alignof(struct st))

void mpi_types_init(void)
{
    if (predefined[MPI_BYTE].committed) {
        return; /* once per process, however many nodes it runs */
    }
    BASIC(MPI_CHAR, char);
    BASIC(MPI_SIGNED_CHAR, signed char);
    BASIC(MPI_UNSIGNED_CHAR, unsigned char);
    BASIC(MPI_BYTE, unsigned char);
    BASIC(MPI_SHORT, short);
    BASIC(MPI_UNSIGNED_SHORT, unsigned short);
    BASIC(MPI_INT, int);
    BASIC(MPI_UNSIGNED, unsigned);
    BASIC(MPI_LONG, long);
    BASIC(MPI_UNSIGNED_LONG, unsigned long);
    BASIC(MPI_LONG_LONG_INT, long long);
    BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    BASIC(MPI_FLOAT, float);
    BASIC(MPI_DOUBLE, double);
    BASIC(MPI_LONG_DOUBLE, long double);
    BASIC(MPI_INT8_T, int8_t);
    BASIC(MPI_INT16_T, int16_t);
    BASIC(MPI_INT32_T, int32_t);
    BASIC(MPI_INT64_T, int64_t);
    BASIC(MPI_UINT8_T, uint8_t);
    BASIC(MPI_UINT16_T, uint16_t);
    BASIC(MPI_UINT32_T, uint32_t);
    BASIC(MPI_UINT64_T, uint64_t);
    BASIC(MPI_WCHAR, wchar_t);
    BASIC(MPI_C_BOOL, _Bool);
    BASIC(MPI_AINT, MPI_Aint);
    BASIC(MPI_OFFSET, MPI_Offset);
    BASIC(MPI_COUNT, MPI_Count);
    BASIC(MPI_PACKED, unsigned char);
    PAIR(MPI_FLOAT_INT, float_int);
    PAIR(MPI_DOUBLE_INT, double_int);
    PAIR(MPI_LONG_INT, long_int);
    PAIR(MPI_SHORT_INT, short_int);
    PAIR(MPI_LONG_DOUBLE_INT, long_double_int);
    PAIR(MPI_2INT, two_int);
}

/* ---- lookup ---------------------------------------------------------- */

const mpi_type_t *mpi_type_get(MPI_Datatype type)
{
    if (type > 0 && type < MPI_TYPE_FIRST_DERIVED) {
        return predefined[type].committed ? &predefined[type] : NULL;
    }
    int i = type - MPI_TYPE_FIRST_DERIVED;
    if (type < MPI_TYPE_FIRST_DERIVED || i >= mpi->ntypes) {
        return NULL;
    }
    return mpi->types[i];
}

int mpi_type_check(const char *fn, MPI_Datatype type, const mpi_type_t **t_p)
{
    const mpi_type_t *t = mpi_type_get(type);
    if (t == NULL) {
        return mpi_error(MPI_ERR_TYPE, "%s: datatype %d names no type", fn,
                         type);
    }
    if (!t->committed) {
        return mpi_error(MPI_ERR_TYPE,
                         "%s: datatype %d is not committed "
                         "(MPI_Type_commit)",
                         fn, type);
    }
    *t_p = t;
    return MPI_SUCCESS;
}

/* ---- packing --------------------------------------------------------- */

const void *mpi_type_contig_start(const mpi_type_t *t, const void *buf,
                                  size_t count)
{
    if (t->nseg == 1 && (count <= 1 || (MPI_Aint)t->size == t->extent)) {
        return (const char *)buf + t->seg[0].disp;
    }
    if (t->nseg == 0 || count == 0) {
        return buf; /* no data */
    }
    return NULL;
}

void mpi_type_pack(const mpi_type_t *t, size_t count, const void *in,
                   void *packed)
{
    const char *base = in;
    char *out = packed;
    for (size_t e = 0; e < count; e++, base += t->extent) {
        for (size_t k = 0; k < t->nseg; k++) {
            memcpy(out, base + t->seg[k].disp, t->seg[k].len);
            out += t->seg[k].len;
        }
    }
}

void mpi_type_unpack_n(const mpi_type_t *t, size_t count, const void *packed,
                       size_t n, void *out)
{
    char *base = out;
    const char *in = packed;
    for (size_t e = 0; e < count && n > 0; e++, base += t->extent) {
        for (size_t k = 0; k < t->nseg && n > 0; k++) {
            size_t len = t->seg[k].len < n ? t->seg[k].len : n;
            memcpy(base + t->seg[k].disp, in, len);
            in += len;
            n -= len;
        }
    }
}

void mpi_type_unpack(const mpi_type_t *t, size_t count, const void *packed,
                     void *out)
{
    mpi_type_unpack_n(t, count, packed, count * t->size, out);
}

size_t mpi_type_elements(const mpi_type_t *t, size_t n)
{
    size_t per = 0;
    for (size_t k = 0; k < t->nseg; k++) {
        per += t->seg[k].len / t->seg[k].esize;
    }
    size_t whole = t->size > 0 ? n / t->size : 0;
    size_t count = whole * per, rest = t->size > 0 ? n % t->size : 0;
    for (size_t k = 0; k < t->nseg && rest > 0; k++) {
        size_t take = rest < t->seg[k].len ? rest : t->seg[k].len;
        count += take / t->seg[k].esize;
        rest -= take;
    }
    return count;
}

/* ---- building derived types ------------------------------------------ */

/* A type under construction. */
typedef struct {
    mpi_type_t *t;
    size_t cap;
    int any;       /* a block seen: lb/ub are set */
    MPI_Aint lb, ub;
    int err;
} builder_t;

static int builder_start(builder_t *b)
{
    b->t = calloc(1, sizeof *b->t);
    b->cap = 0;
    b->any = 0;
    b->lb = b->ub = 0;
    b->err = b->t == NULL;
    if (b->t != NULL) {
        b->t->basic = MPI_DATATYPE_NULL;
        b->t->align = 1;
    }
    return b->err ? MPI_ERR_INTERN : MPI_SUCCESS;
}

static void add_piece(builder_t *b, MPI_Aint disp, size_t len, size_t esize)
{
    mpi_type_t *t = b->t;
    if (len == 0 || b->err) {
        return;
    }
    if (t->nseg > 0) {
        mpi_seg_t *last = &t->seg[t->nseg - 1];
        if (last->disp + (MPI_Aint)last->len == disp && last->esize == esize) {
            last->len += len;
            t->size += len;
            return;
        }
    }
    if (t->nseg == b->cap) {
        size_t cap = b->cap > 0 ? 2 * b->cap : 4;
        mpi_seg_t *seg = realloc(t->seg, cap * sizeof *seg);
        if (seg == NULL) {
            b->err = 1;
            return;
        }
        t->seg = seg;
        b->cap = cap;
    }
    t->seg[t->nseg++] = (mpi_seg_t){.disp = disp, .len = len, .esize = esize};
    t->size += len;
}

/* Appends n consecutive elements of old, the first at disp. */
static void add_block(builder_t *b, const mpi_type_t *old, MPI_Aint disp,
                      size_t n)
{
    if (n == 0) {
        return;
    }
    /* Element e spans [d + lb, d + lb + extent) with d = disp + e * extent,
     * its data [d + true_lb, d + true_ub); the first and the last element
     * bound the block whatever the extent's sign. */
    MPI_Aint last = (MPI_Aint)(n - 1) * old->extent;
    MPI_Aint first_lb = disp + old->lb, last_lb = disp + last + old->lb;
    MPI_Aint lo = first_lb < last_lb ? first_lb : last_lb;
    MPI_Aint hi = (first_lb > last_lb ? first_lb : last_lb) + old->extent;
    if (!b->any || lo < b->lb) {
        b->lb = lo;
    }
    if (!b->any || hi > b->ub) {
        b->ub = hi;
    }
    if (old->size > 0) {
        MPI_Aint tlo = disp + (last < 0 ? last : 0) + old->true_lb;
        MPI_Aint thi = disp + (last > 0 ? last : 0) + old->true_ub;
        if (b->t->size == 0 || tlo < b->t->true_lb) {
            b->t->true_lb = tlo;
        }
        if (b->t->size == 0 || thi > b->t->true_ub) {
            b->t->true_ub = thi;
        }
    }
    b->any = 1;
    if (old->align > b->t->align) {
        b->t->align = old->align;
    }
    if (b->t->size == 0 && b->t->nseg == 0) {
        b->t->basic = old->basic;
    } else if (b->t->basic != old->basic) {
        b->t->basic = MPI_DATATYPE_NULL;
    }
    for (size_t e = 0; e < n; e++) {
        for (size_t k = 0; k < old->nseg; k++) {
            add_piece(b, disp + (MPI_Aint)e * old->extent + old->seg[k].disp,
                      old->seg[k].len, old->seg[k].esize);
        }
    }
}

/* Gives the finished type a handle.  pad: round the extent up to the
 * largest alignment inside (as C lays out a struct). */
static int builder_finish(const char *fn, builder_t *b, int pad,
                          MPI_Datatype *newtype)
{
    mpi_type_t *t = b->t;
    if (b->err) {
        if (t != NULL) {
            free(t->seg);
        }
        free(t);
        return mpi_error(MPI_ERR_INTERN, "%s: no memory", fn);
    }
    t->lb = b->lb;
    t->extent = b->ub - b->lb;
    if (pad && t->align > 1 && t->extent % (MPI_Aint)t->align != 0) {
        t->extent += (MPI_Aint)t->align - t->extent % (MPI_Aint)t->align;
    }
    if (t->nseg == 0) {
        t->true_lb = t->true_ub = 0;
    }
    int slot = -1;
    for (int i = 0; i < mpi->ntypes; i++) {
        if (mpi->types[i] == NULL) {
            slot = i;
            break;
        }
    }
    if (slot < 0) {
        if (mpi->ntypes >= INT_MAX - MPI_TYPE_FIRST_DERIVED) {
            slot = -2;
        } else {
            mpi_type_t **types =
                realloc(mpi->types, (size_t)(mpi->ntypes + 1) * sizeof *types);
            if (types != NULL) {
                mpi->types = types;
                slot = mpi->ntypes++;
            }
        }
    }
    if (slot < 0) {
        free(t->seg);
        free(t);
        return mpi_error(MPI_ERR_INTERN, "%s: no memory for a datatype", fn);
    }
    t->refs = 1; /* the handle's */
    mpi->types[slot] = t;
    *newtype = MPI_TYPE_FIRST_DERIVED + slot;
    return MPI_SUCCESS;
}

/* The checks every constructor makes of its old type and result. */
static int old_type(const char *fn, MPI_Datatype oldtype,
                    MPI_Datatype *newtype, const mpi_type_t **old_p)
{
    int r = mpi_check_env(fn);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (newtype == NULL) {
        return mpi_error(MPI_ERR_ARG, "%s: NULL newtype", fn);
    }
    /* An old type need not be committed to build with it. */
    *old_p = mpi_type_get(oldtype);
    if (*old_p == NULL) {
        return mpi_error(MPI_ERR_TYPE, "%s: datatype %d names no type", fn,
                         oldtype);
    }
    return MPI_SUCCESS;
}

static int check_count(const char *fn, int count, const void *arrays_ok)
{
    if (count < 0) {
        return mpi_error(MPI_ERR_COUNT, "%s: count %d is negative", fn, count);
    }
    if (count > 0 && arrays_ok == NULL) {
        return mpi_error(MPI_ERR_ARG, "%s: NULL array for %d blocks", fn,
                         count);
    }
    return MPI_SUCCESS;
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype,
                         MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_contiguous";
    const mpi_type_t *old;
    builder_t b;
    int r = old_type(fn, oldtype, newtype, &old);
    if (r == MPI_SUCCESS) {
        r = check_count(fn, count, "");
    }
    if (r != MPI_SUCCESS || (r = builder_start(&b)) != MPI_SUCCESS) {
        return r == MPI_ERR_INTERN ? mpi_error(r, "%s: no memory", fn) : r;
    }
    add_block(&b, old, 0, (size_t)count);
    return builder_finish(fn, &b, 0, newtype);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_hvector";
    const mpi_type_t *old;
    builder_t b;
    int r = old_type(fn, oldtype, newtype, &old);
    if (r == MPI_SUCCESS) {
        r = check_count(fn, count, "");
    }
    if (r == MPI_SUCCESS && blocklength < 0) {
        r = mpi_error(MPI_ERR_ARG, "%s: block length %d is negative", fn,
                      blocklength);
    }
    if (r != MPI_SUCCESS || (r = builder_start(&b)) != MPI_SUCCESS) {
        return r == MPI_ERR_INTERN ? mpi_error(r, "%s: no memory", fn) : r;
    }
    for (int i = 0; i < count; i++) {
        add_block(&b, old, (MPI_Aint)i * stride, (size_t)blocklength);
    }
    return builder_finish(fn, &b, 0, newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride,
                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const mpi_type_t *old = mpi_type_get(oldtype);
    MPI_Aint extent = old != NULL ? old->extent : 0;
    return PMPI_Type_create_hvector(count, blocklength,
                                    (MPI_Aint)stride * extent, oldtype,
                                    newtype);
}

int PMPI_Type_create_hindexed(int count, const int blocklengths[],
                              const MPI_Aint displacements[],
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_hindexed";
    const mpi_type_t *old;
    builder_t b;
    int r = old_type(fn, oldtype, newtype, &old);
    if (r == MPI_SUCCESS) {
        r = check_count(fn, count, blocklengths);
    }
    if (r == MPI_SUCCESS) {
        r = check_count(fn, count, displacements);
    }
    for (int i = 0; r == MPI_SUCCESS && i < count; i++) {
        if (blocklengths[i] < 0) {
            r = mpi_error(MPI_ERR_ARG, "%s: block length %d of block %d is "
                                       "negative",
                          fn, blocklengths[i], i);
        }
    }
    if (r != MPI_SUCCESS || (r = builder_start(&b)) != MPI_SUCCESS) {
        return r == MPI_ERR_INTERN ? mpi_error(r, "%s: no memory", fn) : r;
    }
    for (int i = 0; i < count; i++) {
        add_block(&b, old, displacements[i], (size_t)blocklengths[i]);
    }
    return builder_finish(fn, &b, 0, newtype);
}

/* Displacements in elements of old, as bytes. */
static MPI_Aint *scaled(int count, const int displs[], MPI_Datatype oldtype)
{
    const mpi_type_t *old = mpi_type_get(oldtype);
    MPI_Aint *d = malloc((size_t)(count > 0 ? count : 1) * sizeof *d);
    if (d == NULL || displs == NULL) {
        return d;
    }
    for (int i = 0; i < count; i++) {
        d[i] = (MPI_Aint)displs[i] * (old != NULL ? old->extent : 0);
    }
    return d;
}

int PMPI_Type_indexed(int count, const int blocklengths[],
                      const int displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    if (count < 0 || (count > 0 && displacements == NULL)) {
        return PMPI_Type_create_hindexed(count, blocklengths, NULL, oldtype,
                                         newtype);
    }
    MPI_Aint *d = scaled(count, displacements, oldtype);
    if (d == NULL) {
        return mpi_error(MPI_ERR_INTERN, "MPI_Type_indexed: no memory");
    }
    int r = PMPI_Type_create_hindexed(count, blocklengths, d, oldtype, newtype);
    free(d);
    return r;
}

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint displacements[],
                                    MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    int *lens = malloc((size_t)(count > 0 ? count : 1) * sizeof *lens);
    if (lens == NULL) {
        return mpi_error(MPI_ERR_INTERN, "MPI_Type_create_hindexed_block: "
                                         "no memory");
    }
    for (int i = 0; i < count; i++) {
        lens[i] = blocklength;
    }
    int r = PMPI_Type_create_hindexed(count, lens, displacements, oldtype,
                                      newtype);
    free(lens);
    return r;
}

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (count < 0 || (count > 0 && displacements == NULL)) {
        return PMPI_Type_create_hindexed_block(count, blocklength, NULL,
                                               oldtype, newtype);
    }
    MPI_Aint *d = scaled(count, displacements, oldtype);
    if (d == NULL) {
        return mpi_error(MPI_ERR_INTERN, "MPI_Type_create_indexed_block: "
                                         "no memory");
    }
    int r = PMPI_Type_create_hindexed_block(count, blocklength, d, oldtype,
                                            newtype);
    free(d);
    return r;
}

int PMPI_Type_create_struct(int count, const int blocklengths[],
                            const MPI_Aint displacements[],
                            const MPI_Datatype types[], MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_struct";
    int r = mpi_check_env(fn);
    if (r == MPI_SUCCESS && newtype == NULL) {
        r = mpi_error(MPI_ERR_ARG, "%s: NULL newtype", fn);
    }
    if (r == MPI_SUCCESS) {
        r = check_count(fn, count, blocklengths);
    }
    if (r == MPI_SUCCESS) {
        r = check_count(fn, count, displacements);
    }
    if (r == MPI_SUCCESS) {
        r = check_count(fn, count, types);
    }
    for (int i = 0; r == MPI_SUCCESS && i < count; i++) {
        if (blocklengths[i] < 0) {
            r = mpi_error(MPI_ERR_ARG, "%s: block length %d of block %d is "
                                       "negative",
                          fn, blocklengths[i], i);
        } else if (mpi_type_get(types[i]) == NULL) {
            r = mpi_error(MPI_ERR_TYPE, "%s: type %d of block %d names no "
                                        "type",
                          fn, types[i], i);
        }
    }
    builder_t b;
    if (r != MPI_SUCCESS || (r = builder_start(&b)) != MPI_SUCCESS) {
        return r == MPI_ERR_INTERN ? mpi_error(r, "%s: no memory", fn) : r;
    }
    for (int i = 0; i < count; i++) {
        add_block(&b, mpi_type_get(types[i]), displacements[i],
                  (size_t)blocklengths[i]);
    }
    return builder_finish(fn, &b, 1, newtype);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb,
                             MPI_Aint extent, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_resized";
    const mpi_type_t *old;
    builder_t b;
    int r = old_type(fn, oldtype, newtype, &old);
    if (r != MPI_SUCCESS || (r = builder_start(&b)) != MPI_SUCCESS) {
        return r == MPI_ERR_INTERN ? mpi_error(r, "%s: no memory", fn) : r;
    }
    add_block(&b, old, 0, 1);
    b.lb = lb;
    b.ub = lb + extent;
    return builder_finish(fn, &b, 0, newtype);
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_dup";
    const mpi_type_t *old;
    builder_t b;
    int r = old_type(fn, oldtype, newtype, &old);
    if (r != MPI_SUCCESS || (r = builder_start(&b)) != MPI_SUCCESS) {
        return r == MPI_ERR_INTERN ? mpi_error(r, "%s: no memory", fn) : r;
    }
    add_block(&b, old, 0, 1);
    b.lb = old->lb;
    b.ub = old->lb + old->extent;
    r = builder_finish(fn, &b, 0, newtype);
    if (r == MPI_SUCCESS && old->committed) {
        mpi->types[*newtype - MPI_TYPE_FIRST_DERIVED]->committed = 1;
    }
    return r;
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    int r = mpi_check_env("MPI_Type_commit");
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (datatype == NULL || mpi_type_get(*datatype) == NULL) {
        return mpi_error(MPI_ERR_TYPE, "MPI_Type_commit: no such datatype");
    }
    if (*datatype >= MPI_TYPE_FIRST_DERIVED) {
        mpi->types[*datatype - MPI_TYPE_FIRST_DERIVED]->committed = 1;
    }
    return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype *datatype)
{
    int r = mpi_check_env("MPI_Type_free");
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (datatype == NULL || mpi_type_get(*datatype) == NULL) {
        return mpi_error(MPI_ERR_TYPE, "MPI_Type_free: no such datatype");
    }
    if (*datatype < MPI_TYPE_FIRST_DERIVED) {
        return mpi_error(MPI_ERR_TYPE, "MPI_Type_free: %s is predefined",
                         predefined[*datatype].name);
    }
    /* Operations under way hold references: the type goes with the last. */
    mpi_type_t **slot = &mpi->types[*datatype - MPI_TYPE_FIRST_DERIVED];
    mpi_type_t *t = *slot;
    *slot = NULL;
    mpi_type_release(t);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

void mpi_type_hold(const mpi_type_t *t)
{
    if (!t->predefined) {
        ((mpi_type_t *)(uintptr_t)t)->refs++;
    }
}

void mpi_type_release(const mpi_type_t *t)
{
    mpi_type_t *m = (mpi_type_t *)(uintptr_t)t;
    if (!t->predefined && --m->refs == 0) {
        free(m->seg);
        free(m);
    }
}

void mpi_types_free(void)
{
    for (int i = 0; i < mpi->ntypes; i++) {
        if (mpi->types[i] != NULL) {
            mpi_type_release(mpi->types[i]);
        }
    }
    free(mpi->types);
    mpi->types = NULL;
    mpi->ntypes = 0;
}

/* ---- queries --------------------------------------------------------- */

static int query(const char *fn, MPI_Datatype datatype, const void *out,
                 const mpi_type_t **t_p)
{
    *t_p = mpi_type_get(datatype);
    if (*t_p == NULL) {
        return mpi_error(MPI_ERR_TYPE, "%s: datatype %d names no type", fn,
                         datatype);
    }
    if (out == NULL) {
        return mpi_error(MPI_ERR_ARG, "%s: NULL result", fn);
    }
    return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    const mpi_type_t *t;
    int r = query("MPI_Type_size", datatype, size, &t);
    if (r == MPI_SUCCESS) {
        *size = t->size > INT_MAX ? MPI_UNDEFINED : (int)t->size;
    }
    return r;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    const mpi_type_t *t;
    int r = query("MPI_Type_size_x", datatype, size, &t);
    if (r == MPI_SUCCESS) {
        *size = (MPI_Count)t->size;
    }
    return r;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb,
                         MPI_Aint *extent)
{
    const mpi_type_t *t;
    int r = query("MPI_Type_get_extent", datatype, lb, &t);
    if (r == MPI_SUCCESS && extent == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Type_get_extent: NULL extent");
    }
    if (r == MPI_SUCCESS) {
        *lb = t->lb;
        *extent = t->extent;
    }
    return r;
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                              MPI_Aint *true_extent)
{
    const mpi_type_t *t;
    int r = query("MPI_Type_get_true_extent", datatype, true_lb, &t);
    if (r == MPI_SUCCESS && true_extent == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Type_get_true_extent: NULL extent");
    }
    if (r == MPI_SUCCESS) {
        *true_lb = t->true_lb;
        *true_extent = t->true_ub - t->true_lb;
    }
    return r;
}

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    const mpi_type_t *t;
    int r = query("MPI_Type_get_name", datatype, type_name, &t);
    if (r == MPI_SUCCESS && resultlen == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Type_get_name: NULL resultlen");
    }
    if (r == MPI_SUCCESS) {
        const char *name = t->name != NULL ? t->name : "";
        size_t n = strlen(name);
        if (n >= MPI_MAX_OBJECT_NAME) {
            n = MPI_MAX_OBJECT_NAME - 1;
        }
        memcpy(type_name, name, n);
        type_name[n] = '\0';
        *resultlen = (int)n;
    }
    return r;
}

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    if (address == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Get_address: NULL address");
    }
    *address = (MPI_Aint)(intptr_t)location;
    return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype,
                      int *count)
{
    const mpi_type_t *t;
    int r = query("MPI_Get_elements", datatype, count, &t);
    if (r == MPI_SUCCESS && status == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Get_elements: NULL status");
    }
    if (r == MPI_SUCCESS) {
        size_t n = mpi_type_elements(t, status->lci_bytes);
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    }
    return r;
}

/* ---- MPI_Pack and MPI_Unpack ------------------------------------------ */

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
                   int *size)
{
    const mpi_type_t *t;
    int r = mpi_check_comm("MPI_Pack_size", comm, NULL);
    if (r == MPI_SUCCESS) {
        r = query("MPI_Pack_size", datatype, size, &t);
    }
    if (r == MPI_SUCCESS && incount < 0) {
        r = mpi_error(MPI_ERR_COUNT, "MPI_Pack_size: count %d is negative",
                      incount);
    }
    if (r == MPI_SUCCESS) {
        size_t n = (size_t)incount * t->size;
        *size = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    }
    return r;
}

static int pack_args(const char *fn, int count, MPI_Datatype datatype,
                     int outsize, const int *position, MPI_Comm comm,
                     const mpi_type_t **t_p, size_t *bytes_p)
{
    int r = mpi_check_comm(fn, comm, NULL);
    if (r == MPI_SUCCESS) {
        r = mpi_type_check(fn, datatype, t_p);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (count < 0) {
        return mpi_error(MPI_ERR_COUNT, "%s: count %d is negative", fn, count);
    }
    if (position == NULL || *position < 0 || *position > outsize) {
        return mpi_error(MPI_ERR_ARG, "%s: position outside 0..%d", fn,
                         outsize);
    }
    *bytes_p = (size_t)count * (*t_p)->size;
    if (*bytes_p > (size_t)(outsize - *position)) {
        return mpi_error(MPI_ERR_TRUNCATE,
                         "%s: %zu bytes do not fit in the %d left", fn,
                         *bytes_p, outsize - *position);
    }
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
              void *outbuf, int outsize, int *position, MPI_Comm comm)
{
    const mpi_type_t *t;
    size_t bytes;
    int r = pack_args("MPI_Pack", incount, datatype, outsize, position, comm,
                      &t, &bytes);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (bytes > 0 && (inbuf == NULL || outbuf == NULL)) {
        return mpi_error(MPI_ERR_BUFFER, "MPI_Pack: NULL buffer");
    }
    mpi_type_pack(t, (size_t)incount, inbuf, (char *)outbuf + *position);
    *position += (int)bytes;
    return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
                int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    const mpi_type_t *t;
    size_t bytes;
    int r = pack_args("MPI_Unpack", outcount, datatype, insize, position, comm,
                      &t, &bytes);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (bytes > 0 && (inbuf == NULL || outbuf == NULL)) {
        return mpi_error(MPI_ERR_BUFFER, "MPI_Unpack: NULL buffer");
    }
    mpi_type_unpack(t, (size_t)outcount, (const char *)inbuf + *position,
                    outbuf);
    *position += (int)bytes;
    return MPI_SUCCESS;
}
MPI_ALIAS(MPI_Type_contiguous);
MPI_ALIAS(MPI_Type_create_hvector);
MPI_ALIAS(MPI_Type_vector);
MPI_ALIAS(MPI_Type_create_hindexed);
MPI_ALIAS(MPI_Type_indexed);
MPI_ALIAS(MPI_Type_create_hindexed_block);
MPI_ALIAS(MPI_Type_create_indexed_block);
MPI_ALIAS(MPI_Type_create_struct);
MPI_ALIAS(MPI_Type_create_resized);
MPI_ALIAS(MPI_Type_dup);
MPI_ALIAS(MPI_Type_commit);
MPI_ALIAS(MPI_Type_free);
MPI_ALIAS(MPI_Type_size);
MPI_ALIAS(MPI_Type_size_x);
MPI_ALIAS(MPI_Type_get_extent);
MPI_ALIAS(MPI_Type_get_true_extent);
MPI_ALIAS(MPI_Type_get_name);
MPI_ALIAS(MPI_Get_address);
MPI_ALIAS(MPI_Get_elements);
MPI_ALIAS(MPI_Pack_size);
MPI_ALIAS(MPI_Pack);
MPI_ALIAS(MPI_Unpack);
