/*
 * mpi_op.c - reduction operations: the predefined ones on packed data of
 * one basic type, and the user's (MPI_Op_create) on data laid out as their
 * datatype says.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "lci.h"
#include "mpi_internal.h"

/* Handles of user operations start here. */
#define MPI_OP_FIRST_USER 32

typedef enum {
    CLASS_NONE,
    CLASS_INT,
    CLASS_FLOAT,
    CLASS_LOGICAL,
    CLASS_BYTE,
    CLASS_PAIR
} type_class_t;

static type_class_t class_of(MPI_Datatype basic)
{
    switch (basic) {
    case MPI_CHAR:
    case MPI_SIGNED_CHAR:
    case MPI_UNSIGNED_CHAR:
    case MPI_SHORT:
    case MPI_UNSIGNED_SHORT:
    case MPI_INT:
    case MPI_UNSIGNED:
    case MPI_LONG:
    case MPI_UNSIGNED_LONG:
    case MPI_LONG_LONG_INT:
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_INT8_T:
    case MPI_INT16_T:
    case MPI_INT32_T:
    case MPI_INT64_T:
    case MPI_UINT8_T:
    case MPI_UINT16_T:
    case MPI_UINT32_T:
    case MPI_UINT64_T:
    case MPI_WCHAR:
    case MPI_AINT:
    case MPI_OFFSET:
    case MPI_COUNT:
        return CLASS_INT;
    case MPI_FLOAT:
    case MPI_DOUBLE:
    case MPI_LONG_DOUBLE:
        return CLASS_FLOAT;
    case MPI_C_BOOL:
        return CLASS_LOGICAL;
    case MPI_BYTE:
    case MPI_PACKED:
        return CLASS_BYTE;
    case MPI_FLOAT_INT:
    case MPI_DOUBLE_INT:
    case MPI_LONG_INT:
    case MPI_SHORT_INT:
    case MPI_LONG_DOUBLE_INT:
    case MPI_2INT:
        return CLASS_PAIR;
    default:
        return CLASS_NONE;
    }
}

static const mpi_user_op_t *user_op(MPI_Op op)
{
    int i = op - MPI_OP_FIRST_USER;
    if (op < MPI_OP_FIRST_USER || i >= mpi->nops || mpi->ops[i].fn == NULL) {
        return NULL;
    }
    return &mpi->ops[i];
}

int mpi_op_check(const char *fn, MPI_Op op, const mpi_type_t *t)
{
    if (user_op(op) != NULL) {
        return MPI_SUCCESS;
    }
    type_class_t k = class_of(t->basic);
    int ok;
    switch (op) {
    case MPI_SUM:
    case MPI_PROD:
    case MPI_MIN:
    case MPI_MAX:
        ok = k == CLASS_INT || k == CLASS_FLOAT;
        break;
    case MPI_LAND:
    case MPI_LOR:
    case MPI_LXOR:
        ok = k == CLASS_INT || k == CLASS_LOGICAL;
        break;
    case MPI_BAND:
    case MPI_BOR:
    case MPI_BXOR:
        ok = k == CLASS_INT || k == CLASS_BYTE;
        break;
    case MPI_MAXLOC:
    case MPI_MINLOC:
        ok = k == CLASS_PAIR;
        break;
    default:
        return mpi_error(MPI_ERR_OP, "%s: operation %d is not a reduction "
                                     "operation",
                         fn, op);
    }
    if (!ok) {
        return mpi_error(MPI_ERR_OP, "%s: operation %d does not apply to the "
                                     "datatype's elements",
                         fn, op);
    }
    return MPI_SUCCESS;
}

/* b[i] = a[i] op b[i], n elements of arithmetic type T. */
#define ARITH(T)                                                               \
    do {                                                                       \
        const T *a = in;                                                       \
        T *b = inout;                                                          \
        for (size_t i = 0; i < n; i++) {                                       \
            switch (op) {                                                      \
            case MPI_SUM:                                                      \
                b[i] = (T)(a[i] + b[i]);                                       \
                break;                                                         \
            case MPI_PROD:                                                     \
                b[i] = (T)(a[i] * b[i]);                                       \
                break;                                                         \
            case MPI_MIN:                                                      \
                b[i] = a[i] < b[i] ? a[i] : b[i];                              \
                break;                                                         \
            case MPI_MAX:                                                      \
                b[i] = a[i] > b[i] ? a[i] : b[i];                              \
                break;                                                         \
            case MPI_LAND:                                                     \
                b[i] = (T)(a[i] && b[i]);                                      \
                break;                                                         \
            case MPI_LOR:                                                      \
                b[i] = (T)(a[i] || b[i]);                                      \
                break;                                                         \
            case MPI_LXOR:                                                     \
                b[i] = (T)(!a[i] != !b[i]);                                    \
                break;                                                         \
            default:                                                           \
                break;                                                         \
            }                                                                  \
        }                                                                      \
    } while (0)

/* The same with the bitwise operations, for integer T. */
#define INTEGER(T)                                                             \
    do {                                                                       \
        if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) {               \
            const T *a = in;                                                   \
            T *b = inout;                                                      \
            for (size_t i = 0; i < n; i++) {                                   \
                b[i] = (T)(op == MPI_BAND ? (a[i] & b[i])                      \
                           : op == MPI_BOR ? (a[i] | b[i])                     \
                                           : (a[i] ^ b[i]));                   \
            }                                                                  \
        } else {                                                               \
            ARITH(T);                                                          \
        }                                                                      \
    } while (0)

/* MPI_MAXLOC/MINLOC on packed (value, int) pairs of value type T: the
 * better value, and on a tie the smaller index. */
#define PAIR(T)                                                                \
    do {                                                                       \
        const char *a = in;                                                    \
        char *b = inout;                                                       \
        size_t w = sizeof(T) + sizeof(int);                                    \
        for (size_t i = 0; i < n; i++, a += w, b += w) {                       \
            T va, vb;                                                          \
            int ia, ib;                                                        \
            memcpy(&va, a, sizeof va);                                         \
            memcpy(&vb, b, sizeof vb);                                         \
            memcpy(&ia, a + sizeof(T), sizeof ia);                             \
            memcpy(&ib, b + sizeof(T), sizeof ib);                             \
            int a_wins = op == MPI_MAXLOC ? va > vb : va < vb;                 \
            if (a_wins || (va == vb && ia < ib)) {                             \
                memcpy(b, a, w);                                               \
            }                                                                  \
        }                                                                      \
    } while (0)

static void apply_basic(MPI_Op op, MPI_Datatype basic, size_t n,
                        const void *in, void *inout)
{
    switch (basic) {
    case MPI_CHAR:
        INTEGER(char);
        break;
    case MPI_SIGNED_CHAR:
    case MPI_INT8_T:
        INTEGER(signed char);
        break;
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
    case MPI_PACKED:
    case MPI_UINT8_T:
        INTEGER(unsigned char);
        break;
    case MPI_SHORT:
    case MPI_INT16_T:
        INTEGER(short);
        break;
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T:
        INTEGER(unsigned short);
        break;
    case MPI_INT:
    case MPI_INT32_T:
        INTEGER(int);
        break;
    case MPI_UNSIGNED:
    case MPI_UINT32_T:
        INTEGER(unsigned);
        break;
    case MPI_LONG:
        INTEGER(long);
        break;
    case MPI_UNSIGNED_LONG:
        INTEGER(unsigned long);
        break;
    case MPI_LONG_LONG_INT:
    case MPI_INT64_T:
    case MPI_OFFSET:
    case MPI_COUNT:
        INTEGER(long long);
        break;
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T:
        INTEGER(unsigned long long);
        break;
    case MPI_AINT:
        INTEGER(MPI_Aint);
        break;
    case MPI_WCHAR:
        INTEGER(wchar_t);
        break;
    case MPI_C_BOOL: /* 0 or 1 in a byte: the logical operations only */
        INTEGER(unsigned char);
        break;
    case MPI_FLOAT:
        ARITH(float);
        break;
    case MPI_DOUBLE:
        ARITH(double);
        break;
    case MPI_LONG_DOUBLE:
        ARITH(long double);
        break;
    case MPI_FLOAT_INT:
        PAIR(float);
        break;
    case MPI_DOUBLE_INT:
        PAIR(double);
        break;
    case MPI_LONG_INT:
        PAIR(long);
        break;
    case MPI_SHORT_INT:
        PAIR(short);
        break;
    case MPI_LONG_DOUBLE_INT:
        PAIR(long double);
        break;
    case MPI_2INT:
        PAIR(int);
        break;
    default:
        break; /* mpi_op_check refused it */
    }
}

/* A user's function sees the data laid out as its datatype says: packed
 * data of any other layout is unpacked around the call. */
static void apply_user(const mpi_user_op_t *u, const mpi_type_t *t,
                       MPI_Datatype type, size_t count, const void *in,
                       void *inout)
{
    int n = (int)count;
    if (t->nseg <= 1 && (t->nseg == 0 || t->seg[0].disp == 0) &&
        (count <= 1 || (MPI_Aint)t->size == t->extent)) {
        u->fn((void *)(uintptr_t)in, inout, &n, &type);
        return;
    }
    MPI_Aint span = (MPI_Aint)(count - 1) * t->extent + t->true_ub - t->true_lb;
    char *a = malloc((size_t)span + 1), *b = malloc((size_t)span + 1);
    if (a == NULL || b == NULL) {
        lci_abort(MPI_ERR_NO_MEM, "MPI: no memory for a user reduction");
    }
    mpi_type_unpack(t, count, in, a - t->true_lb);
    mpi_type_unpack(t, count, inout, b - t->true_lb);
    u->fn(a - t->true_lb, b - t->true_lb, &n, &type);
    mpi_type_pack(t, count, b - t->true_lb, inout);
    free(a);
    free(b);
}

void mpi_op_apply(MPI_Op op, const mpi_type_t *t, MPI_Datatype type,
                  size_t count, const void *in, void *inout)
{
    const mpi_user_op_t *u = user_op(op);
    if (u != NULL) {
        apply_user(u, t, type, count, in, inout);
        return;
    }
    const mpi_type_t *basic = mpi_type_get(t->basic);
    size_t per = basic != NULL && basic->size > 0 ? t->size / basic->size : 0;
    apply_basic(op, t->basic, count * per, in, inout);
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    int r = mpi_check_env("MPI_Op_create");
    if (r == MPI_SUCCESS && (user_fn == NULL || op == NULL)) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Op_create: NULL argument");
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    int slot = -1;
    for (int i = 0; i < mpi->nops && slot < 0; i++) {
        if (mpi->ops[i].fn == NULL) {
            slot = i;
        }
    }
    if (slot < 0) {
        mpi_user_op_t *ops =
            realloc(mpi->ops, (size_t)(mpi->nops + 1) * sizeof *ops);
        if (ops == NULL) {
            return mpi_error(MPI_ERR_NO_MEM, "MPI_Op_create: no memory");
        }
        mpi->ops = ops;
        slot = mpi->nops++;
    }
    mpi->ops[slot] = (mpi_user_op_t){.fn = user_fn, .commute = commute != 0};
    *op = MPI_OP_FIRST_USER + slot;
    return MPI_SUCCESS;
}

int PMPI_Op_free(MPI_Op *op)
{
    int r = mpi_check_env("MPI_Op_free");
    if (r == MPI_SUCCESS && (op == NULL || user_op(*op) == NULL)) {
        r = mpi_error(MPI_ERR_OP, "MPI_Op_free: not an operation made by "
                                  "MPI_Op_create");
    }
    if (r == MPI_SUCCESS) {
        mpi->ops[*op - MPI_OP_FIRST_USER].fn = NULL;
        *op = MPI_OP_NULL;
    }
    return r;
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    int r = mpi_check_env("MPI_Op_commutative");
    if (r == MPI_SUCCESS && commute == NULL) {
        r = mpi_error(MPI_ERR_ARG, "MPI_Op_commutative: NULL argument");
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    const mpi_user_op_t *u = user_op(op);
    if (u == NULL && (op <= MPI_OP_NULL || op > MPI_NO_OP)) {
        return mpi_error(MPI_ERR_OP, "MPI_Op_commutative: operation %d", op);
    }
    *commute = u != NULL ? u->commute : 1;
    return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                      MPI_Datatype datatype, MPI_Op op)
{
    const char *fn = "MPI_Reduce_local";
    const mpi_type_t *t;
    size_t bytes;
    int r = mpi_check_env(fn);
    if (r == MPI_SUCCESS) {
        r = mpi_check_buffer(fn, inbuf, count, datatype, &t, &bytes);
    }
    if (r == MPI_SUCCESS) {
        r = mpi_op_check(fn, op, t);
    }
    if (r != MPI_SUCCESS || bytes == 0) {
        return r;
    }
    char *a = malloc(bytes), *b = malloc(bytes);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return mpi_error(MPI_ERR_NO_MEM, "%s: no memory", fn);
    }
    mpi_type_pack(t, (size_t)count, inbuf, a);
    mpi_type_pack(t, (size_t)count, inoutbuf, b);
    mpi_op_apply(op, t, datatype, (size_t)count, a, b);
    mpi_type_unpack(t, (size_t)count, b, inoutbuf);
    free(a);
    free(b);
    return MPI_SUCCESS;
}

void mpi_ops_free(void)
{
    free(mpi->ops);
    mpi->ops = NULL;
    mpi->nops = 0;
}

MPI_ALIAS(MPI_Op_create);
MPI_ALIAS(MPI_Op_free);
MPI_ALIAS(MPI_Op_commutative);
MPI_ALIAS(MPI_Reduce_local);
