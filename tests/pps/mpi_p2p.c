/*
 * mpi_p2p.c - MPI node program: point-to-point messages.
 *
 * Usage: lci-run -n N ./mpi_p2p [K]
 *
 * 1. Every rank but 0 sends rank 0 K messages on each of tags 0..2,
 *    interleaved; rank 0 first takes all of rank 1's tag-2 messages by
 *    name, then everything else with MPI_ANY_SOURCE and MPI_ANY_TAG, and
 *    checks that each (source, tag) arrives in the order sent.
 * 2. A ring of nonblocking receives (one by name, one with a wildcard)
 *    posted before the 100 KB sends (announced, then sent when the
 *    receiver is ready), completed with MPI_Waitall, and one completed by
 *    polling with MPI_Test; then large messages sent before their receives
 *    are posted, and received out of order by tag.
 * 3. With MPI_ERRORS_RETURN, misuse gives the documented error codes.
 */
#include <string.h>

#include "mpi_node.h"

static void wildcards_and_order(int rank, int size, int k)
{
    int msg[3]; /* index, tag, sender */
    if (rank != 0) {
        for (int i = 0; i < k; i++) {
            for (int tag = 0; tag < 3; tag++) {
                msg[0] = i;
                msg[1] = tag;
                msg[2] = rank;
                MPI_Send(msg, 3, MPI_INT, 0, tag, MPI_COMM_WORLD);
            }
        }
        return;
    }
    int *next = calloc((size_t)size * 3, sizeof(int));
    MPI_Status st;
    int total = (size - 1) * 3 * k;
    if (size > 1) {
        for (int i = 0; i < k; i++) {
            MPI_Recv(msg, 3, MPI_INT, 1, 2, MPI_COMM_WORLD, &st);
            MPI_NODE_CHECK(msg[0] == i && msg[1] == 2 && msg[2] == 1,
                           "by name: got (%d,%d,%d), expected (%d,2,1)", msg[0],
                           msg[1], msg[2], i);
            next[1 * 3 + 2]++;
            total--;
        }
    }
    for (; total > 0; total--) {
        MPI_Recv(msg, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                 &st);
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        MPI_NODE_CHECK(count == 3, "MPI_Get_count gave %d", count);
        MPI_NODE_CHECK(st.MPI_SOURCE == msg[2] && st.MPI_TAG == msg[1],
                       "status says (%d,%d), message says (%d,%d)",
                       st.MPI_SOURCE, st.MPI_TAG, msg[2], msg[1]);
        int *n = &next[st.MPI_SOURCE * 3 + st.MPI_TAG];
        MPI_NODE_CHECK(msg[0] == *n, "from %d tag %d: index %d, expected %d",
                       st.MPI_SOURCE, st.MPI_TAG, msg[0], *n);
        ++*n;
    }
    free(next);
}

static void fill(double *buf, int n, int from, int salt)
{
    for (int i = 0; i < n; i++) {
        buf[i] = from * 1e6 + salt * 1e5 + i;
    }
}

static void ring(int rank, int size)
{
    enum {
        N = 100 * 1024 / 8
    };
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double *out = malloc(N * sizeof(double));
    double *out8 = malloc(N * sizeof(double)); /* out is in use until then */
    double *in_named = malloc(N * sizeof(double));
    double *in_any = malloc(N * sizeof(double));
    MPI_Request req[4];
    MPI_Status st[4];
    MPI_Irecv(in_named, N, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(in_any, N, MPI_DOUBLE, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD,
              &req[1]);
    fill(out, N, rank, 7);
    MPI_Isend(out, N, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &req[2]);
    MPI_Barrier(MPI_COMM_WORLD); /* the receives wait before data comes */
    fill(out8, N, rank, 8);
    MPI_Isend(out8, N, MPI_DOUBLE, left, 8, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, st);
    MPI_NODE_CHECK(st[1].MPI_SOURCE == right,
                   "wildcard receive from %d, "
                   "expected %d",
                   st[1].MPI_SOURCE, right);
    fill(out, N, left, 7);
    MPI_NODE_CHECK(memcmp(out, in_named, N * sizeof(double)) == 0,
                   "ring data from the left differs");
    fill(out, N, right, 8);
    MPI_NODE_CHECK(memcmp(out, in_any, N * sizeof(double)) == 0,
                   "ring data from the right differs");
    for (int i = 0; i < 4; i++) {
        MPI_NODE_CHECK(req[i] == MPI_REQUEST_NULL, "request %d not freed", i);
    }

    /* MPI_Test: polls until the message is there. */
    int token = -1, flag = 0;
    MPI_Request r;
    MPI_Irecv(&token, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &r);
    int mine = rank * 11;
    MPI_Send(&mine, 1, MPI_INT, right, 9, MPI_COMM_WORLD);
    while (!flag) {
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    }
    MPI_NODE_CHECK(token == left * 11, "MPI_Test: token %d, expected %d", token,
                   left * 11);
    MPI_NODE_CHECK(r == MPI_REQUEST_NULL, "MPI_Test left its request");

    /* Large messages announced before their receives exist, received in
     * the other order by tag: rank 0 to rank 1. */
    MPI_Request big[2];
    if (rank == 0 && size > 1) {
        fill(out, N, 0, 10);
        fill(out8, N, 0, 11);
        MPI_Isend(out, N, MPI_DOUBLE, 1, 10, MPI_COMM_WORLD, &big[0]);
        MPI_Isend(out8, N, MPI_DOUBLE, 1, 11, MPI_COMM_WORLD, &big[1]);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the announcements are there first */
    if (rank == 0 && size > 1) {
        MPI_Waitall(2, big, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        MPI_Status s11;
        MPI_Recv(in_any, N, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD, &s11);
        MPI_Recv(in_named, N, MPI_DOUBLE, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        int count;
        MPI_Get_count(&s11, MPI_DOUBLE, &count);
        MPI_NODE_CHECK(count == N, "large message of %d doubles", count);
        fill(out, N, 0, 10);
        MPI_NODE_CHECK(memcmp(out, in_named, N * sizeof(double)) == 0,
                       "large message, tag 10, differs");
        fill(out, N, 0, 11);
        MPI_NODE_CHECK(memcmp(out, in_any, N * sizeof(double)) == 0,
                       "large message, tag 11, differs");
    }
    free(out);
    free(out8);
    free(in_named);
    free(in_any);
}

static void misuse(int rank, int size)
{
    int v[8] = {0};
    MPI_Status st;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_NODE_CHECK(MPI_Send(v, 1, MPI_INT, size, 0, MPI_COMM_WORLD) ==
                       MPI_ERR_RANK,
                   "a send to rank %d did not fail with "
                   "MPI_ERR_RANK",
                   size);
    MPI_NODE_CHECK(MPI_Send(v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD) ==
                       MPI_ERR_TAG,
                   "a negative tag was taken");
    MPI_NODE_CHECK(MPI_Send(v, 1, 999, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE,
                   "an unknown datatype was taken");
    MPI_NODE_CHECK(MPI_Send(v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) ==
                       MPI_ERR_COUNT,
                   "a negative count was taken");
    MPI_NODE_CHECK(MPI_Send(v, 1, MPI_INT, 0, 0, 77) == MPI_ERR_COMM,
                   "an unknown communicator was taken");
    MPI_NODE_CHECK(MPI_Bcast(v, 1, MPI_INT, size, MPI_COMM_WORLD) ==
                       MPI_ERR_ROOT,
                   "a bad root was taken");
    /* Truncation: 8 ints into room for 4. */
    MPI_Send(v, 8, MPI_INT, rank, 3, MPI_COMM_WORLD);
    int r = MPI_Recv(v, 4, MPI_INT, rank, 3, MPI_COMM_WORLD, &st);
    MPI_NODE_CHECK(r == MPI_ERR_TRUNCATE && st.MPI_ERROR == MPI_ERR_TRUNCATE,
                   "a long message into a short buffer gave %d", r);
    /* The same for a large message, which waits for its receive. */
    if (size > 1 && rank < 2) {
        enum {
            LONG_N = 50000
        };
        double *d = calloc(LONG_N, sizeof(double));
        if (rank == 0) {
            MPI_NODE_CHECK(MPI_Send(d, LONG_N, MPI_DOUBLE, 1, 4,
                                    MPI_COMM_WORLD) == MPI_SUCCESS,
                           "a large send failed");
        } else {
            int lr = MPI_Recv(d, 100, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, &st);
            int count;
            MPI_Get_count(&st, MPI_DOUBLE, &count);
            MPI_NODE_CHECK(lr == MPI_ERR_TRUNCATE && count == 100,
                           "a large message into a short buffer gave %d, %d "
                           "elements",
                           lr, count);
        }
        free(d);
    }
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(r, text, &len);
    MPI_NODE_CHECK(len > 0 && strstr(text, "trunc") != NULL,
                   "MPI_Error_string: '%s'", text);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int k = argc > 1 ? atoi(argv[1]) : 10;
    double t0 = MPI_Wtime();
    wildcards_and_order(rank, size, k);
    MPI_Barrier(MPI_COMM_WORLD);
    ring(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    misuse(rank, size);
    double t1 = MPI_Wtime();
    MPI_NODE_CHECK(t1 > t0, "MPI_Wtime did not advance (%g, %g)", t0, t1);
    MPI_Finalize();
    return 0;
}
