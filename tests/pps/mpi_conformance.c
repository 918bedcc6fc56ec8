/*
 * mpi_conformance.c - MPI node program: the MPI layer against the MPI 3.1
 * standard, chapter by chapter, each function's normal use next to its
 * edge cases (zero counts, MPI_PROC_NULL, MPI_IN_PLACE, wildcards,
 * truncation, null requests, empty groups) and its error returns, written
 * against mpi.h alone.
 *
 * Every test runs on every rank; a failed check is reported (rank, test,
 * what) and counted, and the run goes on.  Rank 0 prints one line per
 * chapter, "chapter 3 point to point: 19 tests, 612 checks, 0 failed", and
 * a total; the exit status is 1 if any check failed anywhere.
 *
 * Usage: lci-run -n N ./mpi_conformance      (2 <= N <= 64)
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mpi_node.h"

static int rank, size, left, right;
static const char *current;     /* the running test's name */
static long checks, failures;   /* this rank's, for the running chapter */
static MPI_Comm ret;            /* a duplicate of the world that returns errors */

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        checks++;                                                              \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            fprintf(stderr, "mpi_conformance: rank %d: %s: FAILED: ", rank,  \
                    current);                                                  \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

/* The error class of code (MPI_SUCCESS stays MPI_SUCCESS). */
static int eclass(int code)
{
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

/* ---- chapter 3: point to point -------------------------------------------- */

static void ch3_zero_count(void)
{
    int x = 42;
    MPI_Status st;
    MPI_Send(&x, 0, MPI_INT, right, 7, MPI_COMM_WORLD);
    MPI_Recv(&x, 0, MPI_INT, left, 7, MPI_COMM_WORLD, &st);
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 0, "count %d", n);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7, "source %d tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK(x == 42, "a zero-count receive wrote its buffer");
}

static void ch3_proc_null(void)
{
    int x = 5;
    MPI_Status st;
    CHECK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD) ==
              MPI_SUCCESS,
          "send to MPI_PROC_NULL");
    CHECK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st) ==
              MPI_SUCCESS,
          "receive from MPI_PROC_NULL");
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG &&
              n == 0,
          "status of a receive from MPI_PROC_NULL: source %d tag %d count %d",
          st.MPI_SOURCE, st.MPI_TAG, n);
    CHECK(x == 5, "a receive from MPI_PROC_NULL wrote its buffer");
    MPI_Request r[2];
    MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r[1]);
    int flag = 0;
    MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
    CHECK(flag == 1, "non-blocking MPI_PROC_NULL operations not complete");
    CHECK(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 2, &x, 1, MPI_INT,
                       MPI_PROC_NULL, 2, MPI_COMM_WORLD, &st) == MPI_SUCCESS &&
              st.MPI_SOURCE == MPI_PROC_NULL,
          "Sendrecv with MPI_PROC_NULL");
    MPI_Request p;
    MPI_Send_init(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &p);
    MPI_Start(&p);
    CHECK(MPI_Wait(&p, &st) == MPI_SUCCESS, "persistent send to PROC_NULL");
    MPI_Request_free(&p);
    CHECK(p == MPI_REQUEST_NULL, "Request_free leaves MPI_REQUEST_NULL");
}

static void ch3_wildcards(void)
{
    int out = rank * 10, in = -1;
    MPI_Status st;
    MPI_Sendrecv(&out, 1, MPI_INT, right, 100 + rank, &in, 1, MPI_INT,
                 MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK(in == left * 10, "got %d", in);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 100 + left,
          "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    /* a named receive is not taken by an earlier message of another tag */
    if (rank == 0) {
        int a = 1, b = 2;
        MPI_Send(&a, 1, MPI_INT, 1, 11, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 1, 12, MPI_COMM_WORLD);
    } else if (rank == 1) {
        int b = 0, a = 0;
        MPI_Recv(&b, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        CHECK(a == 1 && b == 2, "tags mixed up: %d %d", a, b);
    }
}

/* Messages from one sender with one tag arrive in the order sent, eager
 * and announced (over the eager limit) ones mixed. */
static void ch3_non_overtaking(void)
{
    enum { BIG = 40000 };
    int *big = malloc(BIG * sizeof *big);
    for (int i = 0; i < BIG; i++) {
        big[i] = rank + i;
    }
    int small = rank * 3 + 1, tiny = rank * 3 + 2;
    MPI_Request r[3];
    MPI_Isend(big, BIG, MPI_INT, right, 5, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&small, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&tiny, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[2]);
    int *in = malloc(BIG * sizeof *in);
    int s = -1, t = -1;
    MPI_Status st;
    MPI_Recv(in, BIG, MPI_INT, left, 5, MPI_COMM_WORLD, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == BIG && in[0] == left && in[BIG - 1] == left + BIG - 1,
          "first (large) message: count %d", n);
    MPI_Recv(&s, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&t, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    CHECK(s == left * 3 + 1 && t == left * 3 + 2, "order: %d then %d", s, t);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    free(big);
    free(in);
}

static void ch3_truncation(void)
{
    int out[10] = {0}, in[5];
    MPI_Status st;
    int rc;
    MPI_Request r;
    MPI_Isend(out, 10, MPI_INT, right, 9, ret, &r);
    rc = MPI_Recv(in, 5, MPI_INT, left, 9, ret, &st);
    CHECK(eclass(rc) == MPI_ERR_TRUNCATE, "eager: class %d", eclass(rc));
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    enum { BIG = 20000 }; /* over the eager limit: announced */
    int *bo = calloc(BIG, sizeof *bo), *bi = calloc(BIG, sizeof *bi);
    MPI_Isend(bo, BIG, MPI_INT, right, 10, ret, &r);
    rc = MPI_Recv(bi, BIG / 2, MPI_INT, left, 10, ret, &st);
    CHECK(eclass(rc) == MPI_ERR_TRUNCATE, "announced: class %d", eclass(rc));
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    free(bo);
    free(bi);
}

static void ch3_counts(void)
{
    char bytes[7] = "abcdef";
    char in[8];
    MPI_Status st;
    MPI_Sendrecv(bytes, 7, MPI_CHAR, right, 3, in, 8, MPI_CHAR, left, 3,
                 MPI_COMM_WORLD, &st);
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == MPI_UNDEFINED, "7 bytes as MPI_INT: %d", n);
    MPI_Get_count(&st, MPI_CHAR, &n);
    CHECK(n == 7, "as MPI_CHAR: %d", n);
    MPI_Get_elements(&st, MPI_BYTE, &n);
    CHECK(n == 7, "Get_elements: %d", n);
    double d[5] = {1, 2, 3, 4, 5}, e[5];
    MPI_Request r;
    MPI_Isend(d, 5, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &r);
    MPI_Probe(left, 4, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    CHECK(n == 5 && st.MPI_SOURCE == left, "Probe: count %d source %d", n,
          st.MPI_SOURCE);
    MPI_Recv(e, 5, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    CHECK(e[4] == 5, "received after the probe: %g", e[4]);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int flag = 1;
    MPI_Iprobe(MPI_ANY_SOURCE, 31999, MPI_COMM_WORLD, &flag, &st);
    CHECK(flag == 0, "Iprobe found a message nobody sent");
}

static void ch3_null_requests(void)
{
    MPI_Request r[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st;
    st.MPI_SOURCE = 77;
    CHECK(MPI_Wait(&r[0], &st) == MPI_SUCCESS, "Wait(MPI_REQUEST_NULL)");
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
          "empty status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    int flag = 0, index = 0, outcount = 0, idx[3];
    MPI_Test(&r[0], &flag, &st);
    CHECK(flag == 1, "Test(MPI_REQUEST_NULL) flag %d", flag);
    MPI_Waitany(3, r, &index, &st);
    CHECK(index == MPI_UNDEFINED, "Waitany over null requests: %d", index);
    flag = 0;
    MPI_Testany(3, r, &index, &flag, &st);
    CHECK(flag == 1 && index == MPI_UNDEFINED, "Testany: flag %d index %d",
          flag, index);
    MPI_Waitsome(3, r, &outcount, idx, MPI_STATUSES_IGNORE);
    CHECK(outcount == MPI_UNDEFINED, "Waitsome: outcount %d", outcount);
    MPI_Testsome(3, r, &outcount, idx, MPI_STATUSES_IGNORE);
    CHECK(outcount == MPI_UNDEFINED, "Testsome: outcount %d", outcount);
    flag = 0;
    MPI_Testall(0, r, &flag, MPI_STATUSES_IGNORE);
    CHECK(flag == 1, "Testall of none: flag %d", flag);
    CHECK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS,
          "Waitall over null requests");
}

static void ch3_cancel(void)
{
    int x;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 32001, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled == 1, "a receive nobody matched was not cancelled");
    CHECK(r == MPI_REQUEST_NULL, "a finished request is MPI_REQUEST_NULL");
}

/* An Issend cannot complete before its receive is posted: the receiver
 * posts it only after the barrier that the sender enters after testing. */
static void ch3_synchronous(void)
{
    int x = rank, y = -1, flag = 1;
    MPI_Request r;
    MPI_Issend(&x, 1, MPI_INT, right, 21, MPI_COMM_WORLD, &r);
    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    CHECK(flag == 0, "Issend complete before its receive was posted");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(&y, 1, MPI_INT, left, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(y == left, "got %d", y);
}

static void ch3_buffered(void)
{
    int big[100] = {0};
    char *buf = malloc(64 + MPI_BSEND_OVERHEAD);
    MPI_Buffer_attach(buf, 64 + MPI_BSEND_OVERHEAD);
    int rc = MPI_Bsend(big, 100, MPI_INT, right, 22, ret);
    CHECK(eclass(rc) == MPI_ERR_BUFFER, "Bsend over the buffer: class %d",
          eclass(rc));
    int x = rank, y = -1;
    CHECK(MPI_Bsend(&x, 1, MPI_INT, right, 23, ret) == MPI_SUCCESS,
          "Bsend within the buffer");
    MPI_Recv(&y, 1, MPI_INT, left, 23, ret, MPI_STATUS_IGNORE);
    CHECK(y == left, "got %d", y);
    void *back;
    int back_size = 0;
    MPI_Buffer_detach(&back, &back_size);
    CHECK(back == buf && back_size == 64 + MPI_BSEND_OVERHEAD,
          "detach gave %p, %d bytes", back, back_size);
    free(buf);
}

static void ch3_replace(void)
{
    int v[3] = {rank, rank + 1, rank + 2};
    MPI_Sendrecv_replace(v, 3, MPI_INT, right, 24, left, 24, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    CHECK(v[0] == left && v[2] == left + 2, "got %d %d", v[0], v[2]);
}

static void ch3_errors(void)
{
    int x = 0, tag_ub = 0, flag = 0;
    void *attr;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag);
    tag_ub = flag ? *(int *)attr : 32767;
    CHECK(eclass(MPI_Send(&x, 1, MPI_INT, size, 0, ret)) == MPI_ERR_RANK,
          "send to rank %d", size);
    CHECK(eclass(MPI_Send(&x, 1, MPI_INT, -7, 0, ret)) == MPI_ERR_RANK,
          "send to rank -7");
    CHECK(eclass(MPI_Send(&x, 1, MPI_INT, right, -1, ret)) == MPI_ERR_TAG,
          "send with tag -1");
    CHECK(eclass(MPI_Send(&x, 1, MPI_INT, right, MPI_ANY_TAG, ret)) ==
              MPI_ERR_TAG,
          "send with MPI_ANY_TAG");
    if (tag_ub < 0x7fffffff) {
        CHECK(eclass(MPI_Send(&x, 1, MPI_INT, right, tag_ub + 1, ret)) ==
                  MPI_ERR_TAG,
              "send with tag MPI_TAG_UB + 1");
    }
    CHECK(eclass(MPI_Send(&x, -1, MPI_INT, right, 0, ret)) == MPI_ERR_COUNT,
          "send of count -1");
    CHECK(eclass(MPI_Send(&x, 1, MPI_DATATYPE_NULL, right, 0, ret)) ==
              MPI_ERR_TYPE,
          "send of MPI_DATATYPE_NULL");
    CHECK(eclass(MPI_Recv(&x, 1, MPI_INT, size + 3, 0, ret,
                          MPI_STATUS_IGNORE)) == MPI_ERR_RANK,
          "receive from rank %d", size + 3);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(eclass(MPI_Send(&x, 1, MPI_INT, right, 0, MPI_COMM_NULL)) ==
              MPI_ERR_COMM,
          "send on MPI_COMM_NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- chapter 4: datatypes ------------------------------------------------- */

static void ch4_sizes_and_extents(void)
{
    MPI_Datatype t;
    MPI_Aint lb, ext, tlb, text;
    int sz;
    MPI_Type_contiguous(0, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &sz);
    CHECK(sz == 0, "contiguous(0): size %d", sz);
    MPI_Type_free(&t);
    CHECK(t == MPI_DATATYPE_NULL, "Type_free leaves MPI_DATATYPE_NULL");

    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &lb, &ext);
    CHECK(sz == 24 && lb == 0 && ext == 40, "vector(3,2,4): size %d lb %ld "
          "extent %ld", sz, (long)lb, (long)ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    CHECK(tlb == 0 && text == 40, "true extent %ld", (long)text);
    MPI_Type_free(&t);

    struct pad {
        char c;
        double d;
    } p;
    int bl[2] = {1, 1};
    MPI_Aint disp[2], base;
    MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Get_address(&p, &base);
    MPI_Get_address(&p.c, &disp[0]);
    MPI_Get_address(&p.d, &disp[1]);
    disp[0] -= base;
    disp[1] -= base;
    CHECK(disp[1] == (MPI_Aint)offsetof(struct pad, d), "Get_address: %ld",
          (long)disp[1]);
    MPI_Type_create_struct(2, bl, disp, types, &t);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &lb, &ext);
    CHECK(sz == 9 && ext == (MPI_Aint)sizeof(struct pad),
          "struct {char; double}: size %d extent %ld", sz, (long)ext);
    MPI_Type_free(&t);

    MPI_Type_create_resized(MPI_INT, 0, 16, &t);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &sz);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    CHECK(sz == 4 && ext == 16 && text == 4, "resized int: size %d extent "
          "%ld true extent %ld", sz, (long)ext, (long)text);
    /* three resized ints are every fourth int */
    int out[12], in[3] = {0};
    for (int i = 0; i < 12; i++) {
        out[i] = rank * 100 + i;
    }
    MPI_Sendrecv(out, 3, t, right, 40, in, 3, MPI_INT, left, 40,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in[0] == left * 100 && in[1] == left * 100 + 4 &&
              in[2] == left * 100 + 8,
          "strided by resizing: %d %d %d", in[0], in[1], in[2]);
    MPI_Type_free(&t);
}

static void ch4_pack(void)
{
    MPI_Datatype t;
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    int need = 0;
    MPI_Pack_size(2, t, MPI_COMM_WORLD, &need);
    CHECK(need >= 32, "Pack_size %d for 4 doubles", need);
    double src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8] = {0};
    char *buf = malloc((size_t)need);
    int pos = 0;
    MPI_Pack(src, 1, t, buf, need, &pos, MPI_COMM_WORLD);
    CHECK(pos == 16, "position after one vector: %d", pos);
    MPI_Pack(src + 3, 1, t, buf, need, &pos, MPI_COMM_WORLD);
    int upos = 0;
    MPI_Unpack(buf, need, &upos, dst, 2, t, MPI_COMM_WORLD);
    /* the second vector starts one extent (4 doubles) on */
    CHECK(upos == pos && dst[0] == 1 && dst[3] == 4 && dst[4] == 4 &&
              dst[7] == 7 && dst[1] == 0,
          "unpacked %g %g %g %g (position %d)", dst[0], dst[3], dst[4],
          dst[7], upos);
    free(buf);
    /* packed bytes travel as MPI_PACKED and unpack on the other side */
    char wire[64];
    int wpos = 0;
    int ints[2] = {rank, -rank};
    MPI_Pack(ints, 2, MPI_INT, wire, sizeof wire, &wpos, MPI_COMM_WORLD);
    char got[64];
    MPI_Status st;
    MPI_Sendrecv(wire, wpos, MPI_PACKED, right, 41, got, sizeof got,
                 MPI_PACKED, left, 41, MPI_COMM_WORLD, &st);
    int back[2] = {0, 0}, gpos = 0, n = 0;
    MPI_Get_count(&st, MPI_PACKED, &n);
    MPI_Unpack(got, n, &gpos, back, 2, MPI_INT, MPI_COMM_WORLD);
    CHECK(back[0] == left && back[1] == -left, "MPI_PACKED: %d %d", back[0],
          back[1]);
    MPI_Type_free(&t);
}

static void ch4_mixed_types(void)
{
    /* a vector on one side, contiguous ints on the other */
    MPI_Datatype vec, pair;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int out[8], in[4] = {0};
    for (int i = 0; i < 8; i++) {
        out[i] = rank * 10 + i;
    }
    MPI_Sendrecv(out, 1, vec, right, 42, in, 4, MPI_INT, left, 42,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in[0] == left * 10 && in[3] == left * 10 + 6, "vector to ints: "
          "%d %d", in[0], in[3]);
    /* three ints into pairs of ints: one whole pair and one element */
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int pin[4] = {0};
    MPI_Status st;
    MPI_Sendrecv(out, 3, MPI_INT, right, 43, pin, 2, pair, left, 43,
                 MPI_COMM_WORLD, &st);
    int n = 0, e = 0;
    MPI_Get_count(&st, pair, &n);
    MPI_Get_elements(&st, pair, &e);
    CHECK(n == MPI_UNDEFINED && e == 3, "count %d elements %d", n, e);
    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
}

/* Subarrays, C and Fortran order, sent to contiguous receives. */
static void ch4_subarray(void)
{
    int a[4 * 6];
    for (int i = 0; i < 24; i++) {
        a[i] = rank * 1000 + i;
    }
    int sizes[2] = {4, 6}, sub[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Datatype c, f;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &c);
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN,
                             MPI_INT, &f);
    MPI_Type_commit(&c);
    MPI_Type_commit(&f);
    int sz = 0;
    MPI_Aint lb = -1, ext = 0;
    MPI_Type_size(c, &sz);
    MPI_Type_get_extent(c, &lb, &ext);
    CHECK(sz == 24 && lb == 0 && ext == 96, "C subarray: size %d lb %ld "
          "extent %ld", sz, (long)lb, (long)ext);
    int in[6] = {0};
    MPI_Sendrecv(a, 1, c, right, 45, in, 6, MPI_INT, left, 45, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    static const int want_c[6] = {8, 9, 10, 14, 15, 16};
    static const int want_f[6] = {9, 10, 13, 14, 17, 18};
    int ok = 1;
    for (int i = 0; i < 6; i++) {
        ok &= in[i] == left * 1000 + want_c[i];
    }
    CHECK(ok, "C order: got %d %d ... %d", in[0] - left * 1000,
          in[1] - left * 1000, in[5] - left * 1000);
    MPI_Sendrecv(a, 1, f, right, 46, in, 6, MPI_INT, left, 46, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    ok = 1;
    for (int i = 0; i < 6; i++) {
        ok &= in[i] == left * 1000 + want_f[i];
    }
    CHECK(ok, "Fortran order: got %d %d ... %d", in[0] - left * 1000,
          in[1] - left * 1000, in[5] - left * 1000);
    /* two of them: the second block is in the next whole array */
    int two[48], in12[12];
    for (int i = 0; i < 48; i++) {
        two[i] = i;
    }
    MPI_Sendrecv(two, 2, c, right, 47, in12, 12, MPI_INT, left, 47,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in12[0] == 8 && in12[6] == 24 + 8 && in12[11] == 24 + 16,
          "two subarrays: %d %d %d", in12[0], in12[6], in12[11]);
    /* a 3-D block, received into the same block of another array */
    int cube[3 * 4 * 5], got[3 * 4 * 5] = {0};
    int s3[3] = {3, 4, 5}, b3[3] = {2, 2, 2}, o3[3] = {1, 1, 1};
    for (int i = 0; i < 60; i++) {
        cube[i] = rank * 100 + i;
    }
    MPI_Datatype t3;
    MPI_Type_create_subarray(3, s3, b3, o3, MPI_ORDER_C, MPI_INT, &t3);
    MPI_Type_commit(&t3);
    MPI_Sendrecv(cube, 1, t3, right, 48, got, 1, t3, left, 48,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int inside = 0, outside_zero = 1;
    for (int i = 0; i < 60; i++) {
        int x = i / 20, y = (i / 5) % 4, z = i % 5;
        int in_block = x >= 1 && x < 3 && y >= 1 && y < 3 && z >= 1 && z < 3;
        if (in_block) {
            inside += got[i] == left * 100 + i;
        } else {
            outside_zero &= got[i] == 0;
        }
    }
    CHECK(inside == 8 && outside_zero, "3-D block: %d of 8 in place", inside);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype bad;
    int big[2] = {5, 3};
    CHECK(eclass(MPI_Type_create_subarray(2, sizes, big, starts, MPI_ORDER_C,
                                          MPI_INT, &bad)) == MPI_ERR_ARG,
          "a subsize larger than the size");
    CHECK(eclass(MPI_Type_create_subarray(2, sizes, sub, starts, 3, MPI_INT,
                                          &bad)) == MPI_ERR_ARG,
          "an order that is neither C nor Fortran");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&c);
    MPI_Type_free(&f);
    MPI_Type_free(&t3);
}

static void ch4_errors(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(eclass(MPI_Type_contiguous(-1, MPI_INT, &t)) == MPI_ERR_COUNT,
          "contiguous(-1)");
    MPI_Type_contiguous(2, MPI_INT, &t); /* not committed */
    int x[2] = {0, 0};
    CHECK(eclass(MPI_Send(x, 1, t, right, 44, ret)) == MPI_ERR_TYPE,
          "send of an uncommitted type");
    MPI_Type_free(&t);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- chapter 5: collectives ----------------------------------------------- */

static void ch5_zero_counts(void)
{
    int x = 9, y = 9;
    for (int root = 0; root < size; root += size > 2 ? size - 1 : 1) {
        CHECK(MPI_Bcast(&x, 0, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS,
              "zero-count broadcast from %d", root);
    }
    MPI_Allreduce(&x, &y, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&x, &y, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    CHECK(x == 9 && y == 9, "a zero-count collective wrote a buffer");
}

static void ch5_in_place(void)
{
    int v[2] = {rank, 1};
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(v[0] == size * (size - 1) / 2 && v[1] == size,
          "Allreduce in place: %d %d", v[0], v[1]);
    int w = rank + 1;
    if (rank == 0) {
        MPI_Reduce(MPI_IN_PLACE, &w, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
        CHECK(w == size, "Reduce in place at the root: %d", w);
    } else {
        MPI_Reduce(&w, NULL, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    int *all = malloc((size_t)size * sizeof *all);
    for (int i = 0; i < size; i++) {
        all[i] = i == rank ? rank * 7 : -1;
    }
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT,
                  MPI_COMM_WORLD);
    int ok = 1;
    for (int i = 0; i < size; i++) {
        ok &= all[i] == i * 7;
    }
    CHECK(ok, "Allgather in place");
    int root = size - 1;
    for (int i = 0; i < size; i++) {
        all[i] = rank == root ? i * 3 : -1;
    }
    int mine = -1;
    if (rank == root) {
        MPI_Scatter(all, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root,
                    MPI_COMM_WORLD);
        mine = all[rank];
    } else {
        MPI_Scatter(NULL, 1, MPI_INT, &mine, 1, MPI_INT, root,
                    MPI_COMM_WORLD);
    }
    CHECK(mine == rank * 3, "Scatter (in place at the root): %d", mine);
    if (rank == root) {
        all[rank] = 1000 + rank;
        MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, root,
                   MPI_COMM_WORLD);
        ok = 1;
        for (int i = 0; i < size; i++) {
            ok &= all[i] == 1000 + i;
        }
        CHECK(ok, "Gather in place at the root");
    } else {
        int g = 1000 + rank;
        MPI_Gather(&g, 1, MPI_INT, NULL, 1, MPI_INT, root, MPI_COMM_WORLD);
    }
    int s = rank + 1, e = -5;
    MPI_Scan(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(s == (rank + 1) * (rank + 2) / 2, "Scan in place: %d", s);
    int x = rank + 1;
    MPI_Exscan(&x, &e, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rank == 0 || e == rank * (rank + 1) / 2, "Exscan: %d", e);
    free(all);
}

static void ch5_loc_ties(void)
{
    struct {
        double v;
        int i;
    } in = {5.0, rank}, mx, mn;
    MPI_Allreduce(&in, &mx, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    MPI_Allreduce(&in, &mn, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(mx.v == 5.0 && mx.i == 0 && mn.i == 0,
          "ties go to the lowest index: maxloc %d minloc %d", mx.i, mn.i);
    struct {
        int v, i;
    } p = {rank % 3, rank}, q;
    MPI_Allreduce(&p, &q, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    int want = size >= 3 ? 2 : size - 1;
    CHECK(q.v == want && q.i == want, "MPI_2INT maxloc: (%d, %d)", q.v, q.i);
}

static void ch5_self(void)
{
    int x = rank, y = -1;
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_SELF);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_SELF);
    CHECK(y == rank, "Allreduce on MPI_COMM_SELF: %d", y);
    int g = -1;
    MPI_Gather(&x, 1, MPI_INT, &g, 1, MPI_INT, 0, MPI_COMM_SELF);
    CHECK(g == rank, "Gather on MPI_COMM_SELF: %d", g);
    CHECK(MPI_Barrier(MPI_COMM_SELF) == MPI_SUCCESS, "Barrier on SELF");
}

static void ch5_vector_forms(void)
{
    /* rank r sends r+1 ints... except to odd ranks: zero */
    int *sc = malloc((size_t)size * sizeof *sc), *sd = malloc((size_t)size * sizeof *sd);
    int *rc = malloc((size_t)size * sizeof *rc), *rd = malloc((size_t)size * sizeof *rd);
    int stot = 0, rtot = 0;
    for (int j = 0; j < size; j++) {
        sc[j] = j % 2 ? 0 : rank + 1;
        sd[j] = stot;
        stot += sc[j];
        rc[j] = rank % 2 ? 0 : j + 1;
        rd[j] = rtot;
        rtot += rc[j];
    }
    int *sb = malloc((size_t)(stot + 1) * sizeof *sb), *rb = malloc((size_t)(rtot + 1) * sizeof *rb);
    for (int k = 0; k < stot; k++) {
        sb[k] = rank * 1000 + k;
    }
    MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
    int ok = 1;
    for (int j = 0; j < size && rank % 2 == 0; j++) {
        /* from j: its block for me starts at its own displacement */
        int jd = 0;
        for (int m = 0; m < rank; m++) {
            jd += m % 2 ? 0 : j + 1;
        }
        for (int k = 0; k < rc[j]; k++) {
            ok &= rb[rd[j] + k] == j * 1000 + jd + k;
        }
    }
    CHECK(ok, "Alltoallv with zero counts to odd ranks");
    /* gatherv at rank 0 into reversed displacements */
    int root = 0, mine[2] = {rank, rank};
    int cnt = rank % 3; /* 0, 1 or 2 ints */
    int *gc = malloc((size_t)size * sizeof *gc), *gd = malloc((size_t)size * sizeof *gd);
    int off = 0;
    for (int j = size - 1; j >= 0; j--) {
        gc[j] = j % 3;
        gd[j] = off;
        off += gc[j];
    }
    int *gb = malloc((size_t)(off + 1) * sizeof *gb);
    MPI_Gatherv(mine, cnt, MPI_INT, gb, gc, gd, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root) {
        ok = 1;
        for (int j = 0; j < size; j++) {
            for (int k = 0; k < gc[j]; k++) {
                ok &= gb[gd[j] + k] == j;
            }
        }
        CHECK(ok, "Gatherv into reversed displacements");
    }
    /* reduce_scatter with a zero count for rank 0 */
    int *counts = malloc((size_t)size * sizeof *counts), total = 0;
    for (int j = 0; j < size; j++) {
        counts[j] = j == 0 ? 0 : 2;
        total += counts[j];
    }
    int *vals = malloc((size_t)(total + 1) * sizeof *vals), res[2] = {-1, -1};
    for (int k = 0; k < total; k++) {
        vals[k] = k + rank;
    }
    MPI_Reduce_scatter(vals, res, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0) {
        int first = 2 * (rank - 1);
        int sumr = size * (size - 1) / 2;
        CHECK(res[0] == size * first + sumr &&
                  res[1] == size * (first + 1) + sumr,
              "Reduce_scatter: %d %d", res[0], res[1]);
    } else {
        CHECK(res[0] == -1, "Reduce_scatter wrote a zero-count result");
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sb);
    free(rb);
    free(gc);
    free(gd);
    free(gb);
    free(counts);
    free(vals);
}

static void ch5_nonblocking_out_of_order(void)
{
    int b = rank == 0 ? 77 : -1, s = rank, t = -1;
    MPI_Request r[3];
    MPI_Ibcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Iallreduce(&s, &t, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r[1]);
    MPI_Ibarrier(MPI_COMM_WORLD, &r[2]);
    MPI_Wait(&r[2], MPI_STATUS_IGNORE);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(b == 77 && t == size - 1, "Ibcast %d, Iallreduce %d", b, t);
}

/* Every non-blocking v-form, reduce-scatter and scan started together,
 * completed by one Waitall, and compared with its blocking form. */
static void ch5_nonblocking_vector_forms(void)
{
    int n = size, *cnt = malloc((size_t)n * sizeof *cnt);
    int *dsp = malloc((size_t)n * sizeof *dsp), total = 0;
    for (int j = 0; j < n; j++) {
        cnt[j] = j % 3 + 1;
        dsp[j] = total;
        total += cnt[j];
    }
    int mine[3] = {rank * 10, rank * 10 + 1, rank * 10 + 2};
    int *src = malloc((size_t)total * sizeof *src);
    for (int k = 0; k < total; k++) {
        src[k] = rank * 1000 + k;
    }
    enum { NB = 8 };
    int *blk[NB], *nbk[NB];
    for (int i = 0; i < NB; i++) {
        blk[i] = calloc((size_t)total + 3, sizeof(int));
        nbk[i] = calloc((size_t)total + 3, sizeof(int));
    }
    int mc = cnt[rank], sc = rank % 3 + 1;
    MPI_Gatherv(mine, sc, MPI_INT, blk[0], cnt, dsp, MPI_INT, 0,
                MPI_COMM_WORLD);
    MPI_Scatterv(src, cnt, dsp, MPI_INT, blk[1], mc, MPI_INT, n - 1,
                 MPI_COMM_WORLD);
    MPI_Allgatherv(mine, sc, MPI_INT, blk[2], cnt, dsp, MPI_INT,
                   MPI_COMM_WORLD);
    int *ones = malloc((size_t)n * sizeof *ones), *od = malloc((size_t)n * sizeof *od);
    for (int j = 0; j < n; j++) {
        ones[j] = 1;
        od[j] = j;
    }
    MPI_Alltoallv(src, ones, od, MPI_INT, blk[3], ones, od, MPI_INT,
                  MPI_COMM_WORLD);
    MPI_Reduce_scatter(src, blk[4], cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(src, blk[5], 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Scan(mine, blk[6], 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(mine, blk[7], 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Request r[NB];
    MPI_Igatherv(mine, sc, MPI_INT, nbk[0], cnt, dsp, MPI_INT, 0,
                 MPI_COMM_WORLD, &r[0]);
    MPI_Iscatterv(src, cnt, dsp, MPI_INT, nbk[1], mc, MPI_INT, n - 1,
                  MPI_COMM_WORLD, &r[1]);
    MPI_Iallgatherv(mine, sc, MPI_INT, nbk[2], cnt, dsp, MPI_INT,
                    MPI_COMM_WORLD, &r[2]);
    MPI_Ialltoallv(src, ones, od, MPI_INT, nbk[3], ones, od, MPI_INT,
                   MPI_COMM_WORLD, &r[3]);
    /* the same exchange as alltoallw: byte displacements, a type each */
    int *bd = malloc((size_t)n * sizeof *bd);
    MPI_Datatype *ty = malloc((size_t)n * sizeof *ty);
    int *w_out = calloc((size_t)n, sizeof *w_out);
    for (int j = 0; j < n; j++) {
        bd[j] = j * (int)sizeof(int);
        ty[j] = MPI_INT;
    }
    MPI_Request rw;
    MPI_Ialltoallw(src, ones, bd, ty, w_out, ones, bd, ty, MPI_COMM_WORLD,
                   &rw);
    MPI_Ireduce_scatter(src, nbk[4], cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                        &r[4]);
    MPI_Ireduce_scatter_block(src, nbk[5], 1, MPI_INT, MPI_MAX,
                              MPI_COMM_WORLD, &r[5]);
    MPI_Iscan(mine, nbk[6], 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[6]);
    MPI_Iexscan(mine, nbk[7], 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[7]);
    MPI_Waitall(NB, r, MPI_STATUSES_IGNORE);
    MPI_Wait(&rw, MPI_STATUS_IGNORE);
    int wsame = 1;
    for (int j = 0; j < n; j++) {
        wsame &= w_out[j] == blk[3][j];
    }
    CHECK(wsame, "Ialltoallw differs from Alltoallv");
    free(bd);
    free(ty);
    free(w_out);
    static const char *const names[NB] = {
        "Igatherv",          "Iscatterv",          "Iallgatherv",
        "Ialltoallv",        "Ireduce_scatter",    "Ireduce_scatter_block",
        "Iscan",             "Iexscan"};
    for (int i = 0; i < NB; i++) {
        int same = 1;
        int upto = i == 7 && rank == 0 ? 0 : total + 3; /* exscan: rank 0 */
        for (int k = 0; k < upto; k++) {
            same &= blk[i][k] == nbk[i][k];
        }
        CHECK(same, "%s differs from its blocking form", names[i]);
    }
    CHECK(blk[2][dsp[n - 1]] == (n - 1) * 10, "Allgatherv placed the last "
          "rank's block: %d", blk[2][dsp[n - 1]]);
    for (int i = 0; i < NB; i++) {
        free(blk[i]);
        free(nbk[i]);
    }
    free(cnt);
    free(dsp);
    free(src);
    free(ones);
    free(od);
}

static void ch5_errors(void)
{
    int x = 0, y = 0;
    CHECK(eclass(MPI_Bcast(&x, 1, MPI_INT, size, ret)) == MPI_ERR_ROOT,
          "broadcast from root %d", size);
    CHECK(eclass(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, 0, ret)) ==
              MPI_ERR_OP,
          "reduce with MPI_OP_NULL");
    CHECK(eclass(MPI_Allreduce(&x, &y, -1, MPI_INT, MPI_SUM, ret)) ==
              MPI_ERR_COUNT,
          "allreduce of count -1");
    CHECK(eclass(MPI_Gather(&x, 1, MPI_INT, &y, 1, MPI_INT, -2, ret)) ==
              MPI_ERR_ROOT,
          "gather to root -2");
}

/* ---- chapter 6: groups, communicators, attributes ------------------------- */

static void ch6_split_and_create(void)
{
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &c);
    if (rank == 0) {
        int n = 0;
        MPI_Comm_size(c, &n);
        CHECK(c != MPI_COMM_NULL && n == 1, "the one member's comm: size %d",
              n);
        MPI_Comm_free(&c);
        CHECK(c == MPI_COMM_NULL, "Comm_free leaves MPI_COMM_NULL");
    } else {
        CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL");
    }
    MPI_Group world, evens;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ne = (size + 1) / 2;
    int *ev = malloc((size_t)ne * sizeof *ev);
    for (int i = 0; i < ne; i++) {
        ev[i] = 2 * i;
    }
    MPI_Group_incl(world, ne, ev, &evens);
    MPI_Comm_create(MPI_COMM_WORLD, evens, &c);
    if (rank % 2 == 0) {
        int r = -1;
        MPI_Comm_rank(c, &r);
        CHECK(r == rank / 2, "rank %d in the evens' comm", r);
        int sum = 0;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
        CHECK(sum == ne * (ne - 1), "sum over the evens %d", sum);
        MPI_Comm_free(&c);
    } else {
        CHECK(c == MPI_COMM_NULL, "a non-member got a communicator");
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    free(ev);
}

static void ch6_groups(void)
{
    MPI_Group world, empty, rev, same, none;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 0, NULL, &empty);
    int res = -1, n = -1;
    MPI_Group_compare(empty, MPI_GROUP_EMPTY, &res);
    CHECK(res == MPI_IDENT, "an empty group against MPI_GROUP_EMPTY: %d",
          res);
    MPI_Group_size(MPI_GROUP_EMPTY, &n);
    CHECK(n == 0, "size of MPI_GROUP_EMPTY %d", n);
    int *order = malloc((size_t)size * sizeof *order);
    for (int i = 0; i < size; i++) {
        order[i] = size - 1 - i;
    }
    MPI_Group_incl(world, size, order, &rev);
    MPI_Group_compare(world, rev, &res);
    CHECK(res == MPI_SIMILAR, "reversed: %d", res);
    MPI_Group_excl(world, 0, NULL, &same);
    MPI_Group_compare(world, same, &res);
    CHECK(res == MPI_IDENT, "excluding none: %d", res);
    int one = 0;
    MPI_Group_incl(world, 1, &one, &none);
    MPI_Group_compare(world, none, &res);
    CHECK(size == 1 || res == MPI_UNEQUAL, "a smaller group: %d", res);
    int in[3] = {MPI_PROC_NULL, 0, size - 1}, out[3];
    MPI_Group_translate_ranks(world, 3, in, none, out);
    CHECK(out[0] == MPI_PROC_NULL && out[1] == 0 &&
              (size == 1 || out[2] == MPI_UNDEFINED),
          "translate: %d %d %d", out[0], out[1], out[2]);
    MPI_Group_rank(none, &n);
    CHECK(n == (rank == 0 ? 0 : MPI_UNDEFINED), "rank in a group not "
          "holding me: %d", n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad = size;
    MPI_Group g2;
    CHECK(eclass(MPI_Group_incl(world, 1, &bad, &g2)) == MPI_ERR_RANK,
          "Group_incl of rank %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Group_free(&world);
    MPI_Group_free(&empty);
    MPI_Group_free(&rev);
    MPI_Group_free(&same);
    MPI_Group_free(&none);
    CHECK(none == MPI_GROUP_NULL, "Group_free leaves MPI_GROUP_NULL");
    free(order);
}

static void ch6_compare_and_attributes(void)
{
    int res = -1;
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res);
    CHECK(res == MPI_IDENT, "world with itself: %d", res);
    MPI_Comm_compare(MPI_COMM_WORLD, ret, &res);
    CHECK(res == MPI_CONGRUENT, "world with its duplicate: %d", res);
    MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &res);
    CHECK(res == MPI_UNEQUAL, "self with world: %d", res);
    int flag = 0, inter = 1;
    void *v;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
    CHECK(flag && *(int *)v >= 32767, "MPI_TAG_UB");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
    CHECK(flag, "MPI_WTIME_IS_GLOBAL is set");
    MPI_Comm_test_inter(MPI_COMM_WORLD, &inter);
    CHECK(inter == 0, "the world is an intracommunicator");
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "name '%s'",
          name);
    MPI_Comm_set_name(ret, "conformance");
    MPI_Comm_get_name(ret, name, &len);
    CHECK(strcmp(name, "conformance") == 0, "set name '%s'", name);
    int key = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key,
                           NULL);
    static int value = 1234;
    MPI_Comm_set_attr(ret, key, &value);
    MPI_Comm d;
    MPI_Comm_dup(ret, &d);
    MPI_Comm_get_attr(d, key, &v, &flag);
    CHECK(flag && *(int *)v == 1234, "MPI_COMM_DUP_FN copied the attribute");
    MPI_Comm_delete_attr(ret, key);
    MPI_Comm_get_attr(ret, key, &v, &flag);
    CHECK(!flag, "a deleted attribute is gone");
    MPI_Comm_free(&d);
    MPI_Comm_free_keyval(&key);
    CHECK(key == MPI_KEYVAL_INVALID, "free_keyval leaves MPI_KEYVAL_INVALID");
}

/* ---- chapter 7: process topologies (Cartesian) ----------------------------- */

static void ch7_dims_create(void)
{
    int d2[2] = {0, 0}, d3[3] = {0, 0, 0}, fixed[2] = {0, 3}, one[1] = {0};
    MPI_Dims_create(12, 2, d2);
    CHECK(d2[0] == 4 && d2[1] == 3, "12 in 2: %d x %d", d2[0], d2[1]);
    MPI_Dims_create(64, 3, d3);
    CHECK(d3[0] == 4 && d3[1] == 4 && d3[2] == 4, "64 in 3: %d x %d x %d",
          d3[0], d3[1], d3[2]);
    MPI_Dims_create(24, 2, fixed);
    CHECK(fixed[0] == 8 && fixed[1] == 3, "24 with one fixed at 3: %d x %d",
          fixed[0], fixed[1]);
    MPI_Dims_create(7, 1, one);
    CHECK(one[0] == 7, "7 in 1: %d", one[0]);
    int d[2] = {0, 0};
    MPI_Dims_create(size, 2, d);
    CHECK(d[0] * d[1] == size && d[0] >= d[1], "%d in 2: %d x %d", size,
          d[0], d[1]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = {5, 0};
    CHECK(eclass(MPI_Dims_create(12, 2, bad)) == MPI_ERR_DIMS,
          "12 with a fixed 5");
    int neg[2] = {-1, 0};
    CHECK(eclass(MPI_Dims_create(12, 2, neg)) == MPI_ERR_DIMS,
          "a negative dimension");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A periodic-by-rows grid of every rank: coordinates and ranks agree,
 * shifts find the neighbours (MPI_PROC_NULL past a non-periodic edge), a
 * halo exchange along them carries the right values, and rows are
 * subcommunicators. */
static void ch7_cart(void)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    CHECK(grid != MPI_COMM_NULL, "every rank is in a full grid");
    int st = -1, nd = -1, me = -1;
    MPI_Topo_test(grid, &st);
    CHECK(st == MPI_CART, "Topo_test of the grid: %d", st);
    MPI_Topo_test(MPI_COMM_WORLD, &st);
    CHECK(st == MPI_UNDEFINED, "Topo_test of the world: %d", st);
    MPI_Cartdim_get(grid, &nd);
    MPI_Comm_rank(grid, &me);
    CHECK(nd == 2 && me == rank, "ndims %d, rank %d", nd, me);
    int ok = 1;
    for (int r = 0; r < size; r++) {
        int c[2], back = -1;
        MPI_Cart_coords(grid, r, 2, c);
        MPI_Cart_rank(grid, c, &back);
        ok &= back == r && c[0] == r / dims[1] && c[1] == r % dims[1];
    }
    CHECK(ok, "coordinates and ranks agree, row major");
    int gd[2], gp[2], gc[2];
    MPI_Cart_get(grid, 2, gd, gp, gc);
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0 &&
              gc[0] == rank / dims[1] && gc[1] == rank % dims[1],
          "Cart_get");
    int wrap[2] = {-1, 0}, w = -1;
    MPI_Cart_rank(grid, wrap, &w);
    CHECK(w == (dims[0] - 1) * dims[1], "a periodic coordinate of -1 wraps: "
          "%d", w);
    int up, down, lft, rgt;
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &lft, &rgt);
    int row = rank / dims[1], col = rank % dims[1];
    CHECK(down == ((row + 1) % dims[0]) * dims[1] + col &&
              up == ((row - 1 + dims[0]) % dims[0]) * dims[1] + col,
          "periodic shift: up %d down %d", up, down);
    CHECK(rgt == (col + 1 < dims[1] ? rank + 1 : MPI_PROC_NULL) &&
              lft == (col > 0 ? rank - 1 : MPI_PROC_NULL),
          "non-periodic shift: left %d right %d", lft, rgt);
    /* halo: each sends its rank right and receives from the left */
    int from_left = -2;
    MPI_Sendrecv(&rank, 1, MPI_INT, rgt, 70, &from_left, 1, MPI_INT, lft, 70,
                 grid, MPI_STATUS_IGNORE);
    CHECK(from_left == (lft == MPI_PROC_NULL ? -2 : rank - 1),
          "halo from the left: %d", from_left);
    int keep_cols[2] = {0, 1};
    MPI_Comm rowc;
    MPI_Cart_sub(grid, keep_cols, &rowc);
    int rs = -1, rr = -1, rn = -1, sum = -1;
    MPI_Comm_size(rowc, &rs);
    MPI_Comm_rank(rowc, &rr);
    MPI_Cartdim_get(rowc, &rn);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, rowc);
    int first = row * dims[1];
    CHECK(rs == dims[1] && rr == col && rn == 1 &&
              sum == dims[1] * first + dims[1] * (dims[1] - 1) / 2,
          "a row: size %d rank %d ndims %d sum %d", rs, rr, rn, sum);
    MPI_Comm dup;
    MPI_Comm_dup(grid, &dup);
    MPI_Topo_test(dup, &st);
    CHECK(st == MPI_CART, "a duplicate keeps the topology");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&rowc);
    MPI_Comm_free(&grid);
}

static void ch7_small_grid_and_errors(void)
{
    /* a 1-D ring of all but the last rank: the last gets MPI_COMM_NULL */
    int n = size - 1, per = 1;
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &per, 1, &ring);
    CHECK((rank < n) == (ring != MPI_COMM_NULL), "membership of a grid of %d",
          n);
    if (ring != MPI_COMM_NULL) {
        int src, dst;
        MPI_Cart_shift(ring, 0, 2, &src, &dst);
        CHECK(dst == (rank + 2) % n && src == ((rank - 2) % n + n) % n,
              "shift by 2 on a ring of %d: %d %d", n, src, dst);
        MPI_Comm_free(&ring);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int big = size + 1, zero = 0, c[1];
    MPI_Comm g = MPI_COMM_NULL;
    CHECK(eclass(MPI_Cart_create(MPI_COMM_WORLD, 1, &big, &zero, 0, &g)) ==
              MPI_ERR_ARG,
          "a grid larger than the communicator");
    CHECK(eclass(MPI_Cart_coords(MPI_COMM_WORLD, 0, 1, c)) ==
              MPI_ERR_TOPOLOGY,
          "Cart_coords of the world");
    int line = size;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &line, &zero, 0, &g);
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    int out[1] = {size}, r = -1, s1, s2;
    CHECK(eclass(MPI_Cart_rank(g, out, &r)) == MPI_ERR_ARG,
          "a coordinate outside a non-periodic dimension");
    CHECK(eclass(MPI_Cart_shift(g, 1, 1, &s1, &s2)) == MPI_ERR_DIMS,
          "a shift along a dimension the grid lacks");
    CHECK(eclass(MPI_Cart_coords(g, size, 1, c)) == MPI_ERR_RANK,
          "coordinates of rank %d", size);
    MPI_Comm_free(&g);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- chapter 8: environment ----------------------------------------------- */

static void ch8_environment(void)
{
    int v = 0, sv = 0;
    MPI_Get_version(&v, &sv);
    CHECK(v == 3 && sv == 1, "version %d.%d", v, sv);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING &&
              (int)strlen(lib) == len,
          "library version of %d characters", len);
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(host, &len);
    CHECK(len > 0 && (int)strlen(host) == len, "processor name '%s'", host);
    CHECK(MPI_Wtick() > 0, "Wtick %g", MPI_Wtick());
    double t0 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Wtime() >= t0, "Wtime went back");
    int flag = 0;
    MPI_Initialized(&flag);
    CHECK(flag == 1, "Initialized %d", flag);
    MPI_Finalized(&flag);
    CHECK(flag == 0, "Finalized before MPI_Finalize: %d", flag);
    int level = -1;
    MPI_Query_thread(&level);
    CHECK(level == MPI_THREAD_SINGLE, "MPI_Init provides %d", level);
    MPI_Is_thread_main(&flag);
    CHECK(flag == 1, "Is_thread_main %d", flag);
    void *mem = NULL;
    CHECK(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem) == MPI_SUCCESS &&
              mem != NULL,
          "Alloc_mem");
    memset(mem, 0xa5, 1 << 20);
    CHECK(MPI_Free_mem(mem) == MPI_SUCCESS, "Free_mem");
    char msg[MPI_MAX_ERROR_STRING];
    static const int classes[] = {MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT,
                                  MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM,
                                  MPI_ERR_RANK, MPI_ERR_ROOT, MPI_ERR_OP,
                                  MPI_ERR_TRUNCATE, MPI_ERR_KEYVAL};
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        len = 0;
        msg[0] = '\0';
        MPI_Error_string(classes[i], msg, &len);
        CHECK(len > 0 && (int)strlen(msg) == len, "Error_string(%d)",
              classes[i]);
        CHECK(eclass(classes[i]) == classes[i], "Error_class(%d) = %d",
              classes[i], eclass(classes[i]));
    }
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(ret, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "the duplicate's handler");
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "the default handler");
}

/* ---- the chapters ---------------------------------------------------------- */

typedef struct {
    const char *name;
    void (*fn)(void);
} test_t;

typedef struct {
    int number;
    const char *title;
    const test_t *tests;
    size_t ntests;
} chapter_t;

#define T(f) {#f, f}
static const test_t ch3[] = {
    T(ch3_zero_count), T(ch3_proc_null), T(ch3_wildcards),
    T(ch3_non_overtaking), T(ch3_truncation), T(ch3_counts),
    T(ch3_null_requests), T(ch3_cancel), T(ch3_synchronous),
    T(ch3_buffered), T(ch3_replace), T(ch3_errors)};
static const test_t ch4[] = {T(ch4_sizes_and_extents), T(ch4_pack),
                             T(ch4_mixed_types), T(ch4_subarray),
                             T(ch4_errors)};
static const test_t ch5[] = {T(ch5_zero_counts), T(ch5_in_place),
                             T(ch5_loc_ties), T(ch5_self),
                             T(ch5_vector_forms),
                             T(ch5_nonblocking_out_of_order),
                             T(ch5_nonblocking_vector_forms),
                             T(ch5_errors)};
static const test_t ch6[] = {T(ch6_split_and_create), T(ch6_groups),
                             T(ch6_compare_and_attributes)};
static const test_t ch7[] = {T(ch7_dims_create), T(ch7_cart),
                             T(ch7_small_grid_and_errors)};
static const test_t ch8[] = {T(ch8_environment)};
#define CH(n, title, arr) {n, title, arr, sizeof arr / sizeof arr[0]}
static const chapter_t chapters[] = {
    CH(3, "point to point", ch3), CH(4, "datatypes", ch4),
    CH(5, "collectives", ch5), CH(6, "groups and communicators", ch6),
    CH(7, "process topologies", ch7), CH(8, "environment", ch8)};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_NODE_CHECK(size >= 2, "needs at least 2 ranks");
    left = (rank - 1 + size) % size;
    right = (rank + 1) % size;
    MPI_Comm_dup(MPI_COMM_WORLD, &ret);
    MPI_Comm_set_errhandler(ret, MPI_ERRORS_RETURN);
    long all_checks = 0, all_failed = 0;
    int ntests = 0;
    for (size_t c = 0; c < sizeof chapters / sizeof chapters[0]; c++) {
        const chapter_t *ch = &chapters[c];
        checks = failures = 0;
        for (size_t i = 0; i < ch->ntests; i++) {
            current = ch->tests[i].name;
            ch->tests[i].fn();
            MPI_Barrier(MPI_COMM_WORLD); /* one test at a time */
        }
        long mine[2] = {checks, failures}, sum[2];
        MPI_Reduce(mine, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("mpi_conformance: chapter %d %s: %zu tests, %ld checks, "
                   "%ld failed\n",
                   ch->number, ch->title, ch->ntests, sum[0], sum[1]);
            all_checks += sum[0];
            all_failed += sum[1];
        }
        ntests += (int)ch->ntests;
    }
    long failed_anywhere = all_failed;
    MPI_Bcast(&failed_anywhere, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("mpi_conformance: %d ranks, %d tests, %ld checks, %ld failed: "
               "%s\n",
               size, ntests, all_checks, all_failed,
               all_failed ? "FAILED" : "OK");
    }
    MPI_Comm_free(&ret);
    MPI_Finalize();
    return failed_anywhere ? 1 : 0;
}
