/*
 * mpi_comms_types.c - MPI node program: communicators, groups, attributes
 * and derived datatypes, each checked against what the standard says.
 *
 * Usage: lci-run -n N ./mpi_comms_types      (N >= 2)
 */
#include <stddef.h>
#include <string.h>

#include "mpi_node.h"

static int rank, size;

/* ---- communicators and groups -------------------------------------------- */

static void check_split(void)
{
    /* even and odd ranks, ordered by descending world rank */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    int expect_size = (size + 1 - rank % 2) / 2;
    MPI_NODE_CHECK(hs == expect_size, "split size %d, expected %d", hs,
                   expect_size);
    int above = 0; /* my color's ranks above me come first */
    for (int r = rank + 2; r < size; r += 2) {
        above++;
    }
    MPI_NODE_CHECK(hr == above, "split rank %d, expected %d", hr, above);
    /* a sum within the half: only its members' ranks */
    int sum = 0, expect = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
    for (int r = rank % 2; r < size; r += 2) {
        expect += r;
    }
    MPI_NODE_CHECK(sum == expect, "allreduce in the split %d, expected %d",
                   sum, expect);
    /* point to point within the half does not see the world's messages */
    if (hs > 1) {
        int to = (hr + 1) % hs, from = (hr - 1 + hs) % hs, got = -1;
        MPI_Sendrecv(&rank, 1, MPI_INT, to, 5, &got, 1, MPI_INT, from, 5, half,
                     MPI_STATUS_IGNORE);
        int from_world = -1;
        MPI_Group g, w;
        MPI_Comm_group(half, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &w);
        MPI_Group_translate_ranks(g, 1, &from, w, &from_world);
        MPI_NODE_CHECK(got == from_world, "split sendrecv got %d, expected %d",
                       got, from_world);
        MPI_Group_free(&g);
        MPI_Group_free(&w);
    }
    MPI_Comm none;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none);
    MPI_NODE_CHECK((rank == 0) == (none != MPI_COMM_NULL),
                   "MPI_UNDEFINED color gives MPI_COMM_NULL");
    if (none != MPI_COMM_NULL) {
        MPI_Comm_free(&none);
    }
    MPI_Comm_free(&half);
    MPI_NODE_CHECK(half == MPI_COMM_NULL, "freed communicator not null");
}

static void check_dup_and_compare(void)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int result;
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result);
    MPI_NODE_CHECK(result == MPI_IDENT, "world vs world: %d", result);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
    MPI_NODE_CHECK(result == MPI_CONGRUENT, "world vs dup: %d", result);
    /* a message on dup is not received on world, whatever the tags */
    int token = 100 + rank, got = -1, flag = 1;
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_INT, 1, 0, dup);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_NODE_CHECK(!flag, "a message on a dup matched on world");
        MPI_Recv(&got, 1, MPI_INT, 0, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE);
        MPI_NODE_CHECK(got == 100, "dup message %d", got);
    }
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    MPI_Comm_compare(MPI_COMM_WORLD, rev, &result);
    MPI_NODE_CHECK(result == MPI_SIMILAR, "world vs reversed: %d", result);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&dup);
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result);
    MPI_NODE_CHECK(result == MPI_UNEQUAL, "world vs self: %d", result);
}

static void check_create_and_groups(void)
{
    MPI_Group world, first, rest, both, common, diff;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int n = size / 2 > 0 ? size / 2 : 1;
    int ranks[64];
    for (int i = 0; i < n; i++) {
        ranks[i] = i;
    }
    MPI_Group_incl(world, n, ranks, &first);
    MPI_Group_excl(world, n, ranks, &rest);
    MPI_Group_union(rest, first, &both);
    MPI_Group_intersection(world, first, &common);
    MPI_Group_difference(world, rest, &diff);
    int s, r, cmp;
    MPI_Group_size(both, &s);
    MPI_NODE_CHECK(s == size, "union size %d", s);
    MPI_Group_compare(both, world, &cmp);
    MPI_NODE_CHECK(cmp == (n < size ? MPI_SIMILAR : MPI_IDENT),
                   "union vs world %d", cmp);
    MPI_Group_compare(common, first, &cmp);
    MPI_NODE_CHECK(cmp == MPI_IDENT, "intersection %d", cmp);
    MPI_Group_compare(diff, first, &cmp);
    MPI_NODE_CHECK(cmp == MPI_IDENT, "difference %d", cmp);
    MPI_Group_rank(first, &r);
    MPI_NODE_CHECK(r == (rank < n ? rank : MPI_UNDEFINED), "group rank %d", r);

    MPI_Comm sub;
    MPI_Comm_create(MPI_COMM_WORLD, first, &sub);
    MPI_NODE_CHECK((rank < n) == (sub != MPI_COMM_NULL),
                   "MPI_Comm_create membership");
    if (sub != MPI_COMM_NULL) {
        int v = rank * 2, total = 0;
        MPI_Reduce(&v, &total, 1, MPI_INT, MPI_SUM, 0, sub);
        MPI_NODE_CHECK(rank != 0 || total == n * (n - 1),
                       "sum on the created communicator %d", total);
        MPI_Comm_free(&sub);
    }
    /* only the members of rest call MPI_Comm_create_group */
    if (rank >= n) {
        MPI_Comm grp;
        MPI_Comm_create_group(MPI_COMM_WORLD, rest, 7, &grp);
        int gs;
        MPI_Comm_size(grp, &gs);
        MPI_NODE_CHECK(gs == size - n, "create_group size %d", gs);
        MPI_Barrier(grp);
        MPI_Comm_free(&grp);
    }
    MPI_Group_free(&world);
    MPI_Group_free(&first);
    MPI_Group_free(&rest);
    MPI_Group_free(&both);
    MPI_Group_free(&common);
    MPI_Group_free(&diff);
    MPI_Barrier(MPI_COMM_WORLD);
}

static int deleted;

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    deleted += *(int *)value;
    return MPI_SUCCESS;
}

static void check_attributes_and_names(void)
{
    int *tag_ub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    MPI_NODE_CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB %d", *tag_ub);
    int *global;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &flag);
    MPI_NODE_CHECK(flag && (*global == 0 || *global == 1),
                   "MPI_WTIME_IS_GLOBAL");

    int key, value = 3, *got;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &key, NULL);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_attr(dup, key, &value);
    MPI_Comm dup2;
    MPI_Comm_dup(dup, &dup2); /* copied by MPI_COMM_DUP_FN */
    MPI_Comm_get_attr(dup2, key, &got, &flag);
    MPI_NODE_CHECK(flag && got == &value, "attribute copied on dup");
    deleted = 0;
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);
    MPI_NODE_CHECK(deleted == 6, "delete function ran %d", deleted);
    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &got, &flag);
    MPI_NODE_CHECK(!flag, "attribute on world that was never set");
    MPI_Comm_free_keyval(&key);

    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    MPI_NODE_CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "world's name %s",
                   name);
    MPI_Comm_set_name(MPI_COMM_SELF, "me");
    MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
    MPI_NODE_CHECK(strcmp(name, "me") == 0 && len == 2, "self's new name");
    MPI_Type_get_name(MPI_DOUBLE, name, &len);
    MPI_NODE_CHECK(strcmp(name, "MPI_DOUBLE") == 0, "type name %s", name);
}

/* ---- datatypes ------------------------------------------------------------ */

static void check_vector_and_indexed(void)
{
    /* a column of a 6 x 5 matrix, sent as a vector, received contiguous */
    double m[6][5], col[6], back[6][5];
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 5; j++) {
            m[i][j] = rank * 100 + i * 10 + j;
        }
    }
    MPI_Datatype column;
    MPI_Type_vector(6, 1, 5, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    int sz;
    MPI_Aint lb, extent;
    MPI_Type_size(column, &sz);
    MPI_Type_get_extent(column, &lb, &extent);
    MPI_NODE_CHECK(sz == 6 * 8 && lb == 0 && extent == (5 * 5 + 1) * 8,
                   "vector size %d extent %ld", sz, (long)extent);
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    MPI_Sendrecv(&m[0][2], 1, column, to, 1, col, 6, MPI_DOUBLE, from, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 6; i++) {
        MPI_NODE_CHECK(col[i] == from * 100 + i * 10 + 2, "column %d: %g", i,
                       col[i]);
    }
    /* and back into a column of another matrix */
    memset(back, 0, sizeof back);
    MPI_Status st;
    MPI_Sendrecv(col, 6, MPI_DOUBLE, from, 2, &back[0][4], 1, column, to, 2,
                 MPI_COMM_WORLD, &st);
    int count, elements;
    MPI_Get_count(&st, column, &count);
    MPI_Get_elements(&st, column, &elements);
    MPI_NODE_CHECK(count == 1 && elements == 6, "count %d elements %d", count,
                   elements);
    for (int i = 0; i < 6; i++) {
        MPI_NODE_CHECK(back[i][4] == rank * 100 + i * 10 + 2 &&
                           back[i][3] == 0,
                       "column back %d", i);
    }
    MPI_Type_free(&column);
    MPI_NODE_CHECK(column == MPI_DATATYPE_NULL, "freed type not null");

    /* indexed: blocks (2 at 0), (1 at 5), (3 at 7) of ints */
    int lens[3] = {2, 1, 3}, displs[3] = {0, 5, 7}, src[10], dst[10];
    for (int i = 0; i < 10; i++) {
        src[i] = rank * 1000 + i;
        dst[i] = -1;
    }
    MPI_Datatype idx;
    MPI_Type_indexed(3, lens, displs, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    MPI_Sendrecv(src, 1, idx, to, 3, dst, 1, idx, from, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    static const int in_type[10] = {1, 1, 0, 0, 0, 1, 0, 1, 1, 1};
    for (int i = 0; i < 10; i++) {
        int want = in_type[i] ? from * 1000 + i : -1;
        MPI_NODE_CHECK(dst[i] == want, "indexed %d: %d, expected %d", i,
                       dst[i], want);
    }
    MPI_Type_free(&idx);
}

struct particle {
    double x[3];
    int id;
    char tag;
};

static void check_struct_resized_pack(void)
{
    struct particle p[4], q[4];
    int lens[3] = {3, 1, 1};
    MPI_Aint displs[3] = {offsetof(struct particle, x),
                          offsetof(struct particle, id),
                          offsetof(struct particle, tag)};
    MPI_Datatype types[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR}, pt;
    MPI_Type_create_struct(3, lens, displs, types, &pt);
    MPI_Type_commit(&pt);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(pt, &lb, &extent);
    MPI_NODE_CHECK(extent == (MPI_Aint)sizeof(struct particle),
                   "struct extent %ld, sizeof %zu", (long)extent,
                   sizeof(struct particle));
    for (int i = 0; i < 4; i++) {
        p[i] = (struct particle){{rank, i, 0.5}, rank * 10 + i, (char)('a' + i)};
    }
    memset(q, 0, sizeof q);
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    MPI_Sendrecv(p, 4, pt, to, 4, q, 4, pt, from, 4, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < 4; i++) {
        MPI_NODE_CHECK(q[i].x[0] == from && q[i].x[1] == i &&
                           q[i].id == from * 10 + i && q[i].tag == 'a' + i,
                       "struct element %d", i);
    }
    /* every other element: the struct resized to twice its extent */
    MPI_Datatype every2;
    MPI_Type_create_resized(pt, 0, 2 * extent, &every2);
    MPI_Type_commit(&every2);
    memset(q, 0, sizeof q);
    MPI_Sendrecv(p, 2, every2, to, 5, q, 2, pt, from, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_NODE_CHECK(q[0].id == from * 10 && q[1].id == from * 10 + 2,
                   "resized: %d %d", q[0].id, q[1].id);
    /* pack and unpack: the same bytes as a message would carry */
    char buf[256];
    int pos = 0, psize;
    MPI_Pack_size(4, pt, MPI_COMM_WORLD, &psize);
    MPI_NODE_CHECK(psize == 4 * (3 * 8 + 4 + 1), "pack size %d", psize);
    MPI_Pack(p, 4, pt, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    MPI_NODE_CHECK(pos == psize, "packed %d", pos);
    memset(q, 0, sizeof q);
    pos = 0;
    MPI_Unpack(buf, sizeof buf, &pos, q, 4, pt, MPI_COMM_WORLD);
    MPI_NODE_CHECK(memcmp(&q[3].id, &p[3].id, sizeof p[3].id) == 0 &&
                       q[3].x[2] == 0.5,
                   "unpacked");
    MPI_Type_free(&every2);
    MPI_Type_free(&pt);
}

static void check_errors_return(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0, cls;
    MPI_NODE_CHECK(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD) ==
                       MPI_ERR_RANK,
                   "send to a rank out of range");
    MPI_NODE_CHECK(MPI_Send(&x, 1, 12345, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE,
                   "send of an unknown type");
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    MPI_NODE_CHECK(MPI_Send(&x, 1, uncommitted, 0, 0, MPI_COMM_WORLD) ==
                       MPI_ERR_TYPE,
                   "send of an uncommitted type");
    MPI_Type_free(&uncommitted);
    MPI_NODE_CHECK(MPI_Comm_size(42, &x) == MPI_ERR_COMM, "unknown comm");
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_NODE_CHECK(MPI_Comm_free(&world) == MPI_ERR_COMM, "freeing world");
    MPI_NODE_CHECK(MPI_Type_free(&(MPI_Datatype){MPI_INT}) == MPI_ERR_TYPE,
                   "freeing a predefined type");
    MPI_Error_class(MPI_ERR_TRUNCATE, &cls);
    MPI_NODE_CHECK(cls == MPI_ERR_TRUNCATE, "error class");
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(MPI_ERR_TYPE, msg, &len);
    MPI_NODE_CHECK(len > 0 && strstr(msg, "datatype") != NULL, "message %s",
                   msg);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int provided, version, subversion;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_NODE_CHECK(provided == MPI_THREAD_FUNNELED, "thread level %d",
                   provided);
    MPI_Get_version(&version, &subversion);
    MPI_NODE_CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
                   "version");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_NODE_CHECK(size >= 2 && size <= 64, "run on 2 to 64 ranks");
    check_split();
    check_dup_and_compare();
    check_create_and_groups();
    check_attributes_and_names();
    check_vector_and_indexed();
    check_struct_resized_pack();
    check_errors_return();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 0) {
        printf("mpi_comms_types: %d ranks: OK\n", size);
    }
    return 0;
}
