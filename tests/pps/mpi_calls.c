/*
 * mpi_calls.c - MPI node program: the send modes, probes, persistent and
 * cancelled requests, the wait/test family, and every collective, blocking
 * and non-blocking, each checked against a result computed alone.
 *
 * Usage: lci-run -n N ./mpi_calls      (2 <= N <= 64)
 */
#include <string.h>

#include "mpi_node.h"

static int rank, size;

/* ---- point to point ------------------------------------------------------- */

static void check_send_modes(void)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    int big = 20000; /* over the eager limit: a rendezvous */
    int *out = malloc((size_t)big * sizeof *out), *in = malloc((size_t)big * sizeof *in);
    for (int i = 0; i < big; i++) {
        out[i] = rank * 7 + i;
    }
    MPI_Request r;
    MPI_Status st;
    /* synchronous: completes only once the receive is there */
    MPI_Irecv(in, big, MPI_INT, from, 1, MPI_COMM_WORLD, &r);
    MPI_Ssend(out, 3, MPI_INT, to, 1, MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    MPI_NODE_CHECK(n == 3 && in[2] == from * 7 + 2 && st.MPI_SOURCE == from,
                   "ssend: %d elements", n);
    /* buffered, large */
    int bsize = big * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Bsend(out, big, MPI_INT, to, 2, MPI_COMM_WORLD);
    MPI_Recv(in, big, MPI_INT, from, 2, MPI_COMM_WORLD, &st);
    MPI_NODE_CHECK(in[big - 1] == from * 7 + big - 1, "bsend data");
    void *detached;
    int dsize;
    MPI_Buffer_detach(&detached, &dsize);
    MPI_NODE_CHECK(detached == bbuf && dsize == bsize, "buffer detach");
    free(bbuf);
    /* ready: the receive is posted before the barrier */
    MPI_Irecv(in, 1, MPI_INT, from, 3, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Rsend(out, 1, MPI_INT, to, 3, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_NODE_CHECK(in[0] == from * 7, "rsend");
    /* send-receive in place, of a large message */
    memcpy(in, out, (size_t)big * sizeof *in);
    MPI_Sendrecv_replace(in, big, MPI_INT, to, 4, from, 4, MPI_COMM_WORLD,
                         &st);
    MPI_NODE_CHECK(in[0] == from * 7 && in[big - 1] == from * 7 + big - 1 &&
                       st.MPI_TAG == 4,
                   "sendrecv_replace");
    free(out);
    free(in);
}

static void check_probe_and_cancel(void)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    double payload[5] = {1, 2, 3, 4, (double)rank};
    MPI_Send(payload, 5, MPI_DOUBLE, to, 9, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    int n;
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    MPI_NODE_CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 9 && n == 5,
                   "probe: source %d tag %d count %d", st.MPI_SOURCE,
                   st.MPI_TAG, n);
    int flag = 0;
    MPI_Iprobe(from, 8, MPI_COMM_WORLD, &flag, &st);
    MPI_NODE_CHECK(!flag, "iprobe of another tag");
    double got[5];
    MPI_Recv(got, 5, MPI_DOUBLE, st.MPI_SOURCE, 9, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    MPI_NODE_CHECK(got[4] == from, "probed message");
    /* a receive nobody sends to, cancelled */
    MPI_Request r;
    MPI_Irecv(got, 5, MPI_DOUBLE, from, 77, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    MPI_NODE_CHECK(flag && r == MPI_REQUEST_NULL, "cancelled receive");
    /* a message that is too long for its receive */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Send(payload, 5, MPI_DOUBLE, to, 10, MPI_COMM_WORLD);
    int e = MPI_Recv(got, 2, MPI_DOUBLE, from, 10, MPI_COMM_WORLD, &st);
    MPI_NODE_CHECK(e == MPI_ERR_TRUNCATE, "truncation: %d", e);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void check_persistent_and_waits(void)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    int sv, rv;
    MPI_Request pr[2];
    MPI_Recv_init(&rv, 1, MPI_INT, from, 5, MPI_COMM_WORLD, &pr[0]);
    MPI_Send_init(&sv, 1, MPI_INT, to, 5, MPI_COMM_WORLD, &pr[1]);
    for (int it = 0; it < 4; it++) {
        sv = rank * 100 + it;
        MPI_Startall(2, pr);
        MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
        MPI_NODE_CHECK(rv == from * 100 + it, "persistent round %d: %d", it,
                       rv);
        MPI_NODE_CHECK(pr[0] != MPI_REQUEST_NULL, "persistent request kept");
    }
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);

    /* every rank sends one message to each other; received by waitany,
     * waitsome, testany/testsome in turn */
    int n = size - 1, vals[64], outv = rank;
    MPI_Request rr[64];
    for (int i = 0, k = 0; i < size; i++) {
        if (i != rank) {
            MPI_Irecv(&vals[k], 1, MPI_INT, i, 6, MPI_COMM_WORLD, &rr[k]);
            k++;
        }
    }
    for (int i = 0; i < size; i++) {
        if (i != rank) {
            MPI_Request s;
            MPI_Isend(&outv, 1, MPI_INT, i, 6, MPI_COMM_WORLD, &s);
            MPI_Request_free(&s); /* freed under way: completes alone */
        }
    }
    int done = 0, sum = 0, idx[64];
    MPI_Status sts[64];
    while (done < n) {
        int k, flag = 0, outcount;
        switch (done % 3) {
        case 0:
            MPI_Waitany(n, rr, &k, &sts[0]);
            MPI_NODE_CHECK(k != MPI_UNDEFINED, "waitany");
            sum += vals[k];
            done++;
            break;
        case 1:
            MPI_Waitsome(n, rr, &outcount, idx, sts);
            for (int j = 0; j < outcount; j++) {
                sum += vals[idx[j]];
            }
            done += outcount;
            break;
        default:
            MPI_Testany(n, rr, &k, &flag, &sts[0]);
            if (flag && k != MPI_UNDEFINED) {
                sum += vals[k];
                done++;
            }
            MPI_Testsome(n, rr, &outcount, idx, sts);
            for (int j = 0; outcount != MPI_UNDEFINED && j < outcount; j++) {
                sum += vals[idx[j]];
            }
            done += outcount == MPI_UNDEFINED ? 0 : outcount;
            break;
        }
    }
    MPI_NODE_CHECK(sum == size * (size - 1) / 2 - rank, "sum of others %d",
                   sum);
    int flag;
    MPI_Testall(n, rr, &flag, MPI_STATUSES_IGNORE);
    MPI_NODE_CHECK(flag, "testall of finished requests");
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- collectives -------------------------------------------------------- */

static void check_gather_scatter(void)
{
    int root = size - 1, mine[3] = {rank, rank * 2, rank * 3}, all[3 * 64];
    MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; rank == root && i < size; i++) {
        MPI_NODE_CHECK(all[3 * i + 2] == i * 3, "gather block %d", i);
    }
    /* gatherv: rank i sends i + 1 ints, placed in reverse order */
    int counts[64], displs[64], pos = 0, vin[65], vout[64 * 65 / 2 + 64];
    for (int i = size - 1; i >= 0; i--) {
        counts[i] = i + 1;
        displs[i] = pos;
        pos += i + 1;
    }
    for (int j = 0; j <= rank; j++) {
        vin[j] = rank * 1000 + j;
    }
    MPI_Gatherv(vin, rank + 1, MPI_INT, vout, counts, displs, MPI_INT, 0,
                MPI_COMM_WORLD);
    for (int i = 0; rank == 0 && i < size; i++) {
        MPI_NODE_CHECK(vout[displs[i] + i] == i * 1000 + i, "gatherv %d", i);
    }
    /* scatter back what was gathered */
    int back[3];
    MPI_Scatter(all, 3, MPI_INT, back, 3, MPI_INT, root, MPI_COMM_WORLD);
    MPI_NODE_CHECK(memcmp(back, mine, sizeof back) == 0, "scatter");
    int sv[65];
    MPI_Scatterv(vout, counts, displs, MPI_INT, sv, rank + 1, MPI_INT, 0,
                 MPI_COMM_WORLD);
    MPI_NODE_CHECK(sv[rank] == rank * 1000 + rank, "scatterv");
    /* in place at the root */
    if (rank == root) {
        memset(all, 0, sizeof all);
        memcpy(&all[3 * root], mine, sizeof mine);
        MPI_Gather(MPI_IN_PLACE, 3, MPI_INT, all, 3, MPI_INT, root,
                   MPI_COMM_WORLD);
        MPI_NODE_CHECK(all[0] == 0 && all[3 * root] == root, "gather in place");
    } else {
        MPI_Gather(mine, 3, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD);
    }
}

static void check_allgather_alltoall(void)
{
    long mine = 10L * rank + 1, all[64];
    MPI_Allgather(&mine, 1, MPI_LONG, all, 1, MPI_LONG, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++) {
        MPI_NODE_CHECK(all[i] == 10L * i + 1, "allgather %d", i);
    }
    MPI_Comm dup; /* the same on another communicator: a schedule */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    memset(all, 0, sizeof all);
    all[rank] = mine;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_LONG, dup);
    for (int i = 0; i < size; i++) {
        MPI_NODE_CHECK(all[i] == 10L * i + 1, "allgather in place %d", i);
    }
    int counts[64], displs[64], v[64], out[64 * 2];
    for (int i = 0; i < size; i++) {
        counts[i] = 1 + i % 2;
        displs[i] = 2 * i;
    }
    v[0] = rank;
    v[1] = -rank;
    MPI_Allgatherv(v, 1 + rank % 2, MPI_INT, out, counts, displs, MPI_INT,
                   dup);
    for (int i = 0; i < size; i++) {
        MPI_NODE_CHECK(out[2 * i] == i && (i % 2 == 0 || out[2 * i + 1] == -i),
                       "allgatherv %d", i);
    }
    /* alltoall: block i is (rank, i) */
    int sb[2 * 64], rb[2 * 64];
    for (int i = 0; i < size; i++) {
        sb[2 * i] = rank;
        sb[2 * i + 1] = i;
    }
    MPI_Alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++) {
        MPI_NODE_CHECK(rb[2 * i] == i && rb[2 * i + 1] == rank, "alltoall %d",
                       i);
    }
    /* alltoallv: i + 1 elements to rank i */
    int scount[64], sdisp[64], rcount[64], rdisp[64], s2[64 * 65 / 2 + 1],
        r2[64 * 64];
    for (int i = 0, p = 0; i < size; i++) {
        scount[i] = i + 1;
        sdisp[i] = p;
        for (int j = 0; j <= i; j++) {
            s2[p + j] = rank * 100 + i;
        }
        p += i + 1;
        rcount[i] = rank + 1;
        rdisp[i] = i * (rank + 1);
    }
    MPI_Alltoallv(s2, scount, sdisp, MPI_INT, r2, rcount, rdisp, MPI_INT, dup);
    for (int i = 0; i < size; i++) {
        MPI_NODE_CHECK(r2[rdisp[i] + rank] == i * 100 + rank, "alltoallv %d",
                       i);
    }
    /* alltoallw with byte displacements and a type per peer */
    MPI_Datatype types[64];
    int bdisp[64], ones[64];
    for (int i = 0; i < size; i++) {
        types[i] = MPI_INT;
        bdisp[i] = 2 * i * (int)sizeof(int);
        ones[i] = 2;
    }
    memset(rb, 0, sizeof rb);
    MPI_Alltoallw(sb, ones, bdisp, types, rb, ones, bdisp, types, dup);
    for (int i = 0; i < size; i++) {
        MPI_NODE_CHECK(rb[2 * i] == i && rb[2 * i + 1] == rank,
                       "alltoallw %d", i);
    }
    MPI_Comm_free(&dup);
}

/* A non-commutative operation: 2x2 integer matrix product, so that the
 * order of combination shows. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                    a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static void check_reductions(void)
{
    /* MAXLOC on (value, index) pairs */
    struct {
        double v;
        int i;
    } in = {(double)((rank * 5) % size), rank}, out;
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    double best = -1;
    int at = -1;
    for (int r = 0; r < size; r++) {
        double v = (double)((r * 5) % size);
        if (v > best) {
            best = v;
            at = r;
        }
    }
    MPI_NODE_CHECK(out.v == best && out.i == at, "maxloc %g at %d", out.v,
                   out.i);
    int bits = 1 << (rank % 31), orv, land, one = rank > 0;
    MPI_Allreduce(&bits, &orv, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    MPI_Allreduce(&one, &land, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    int expect = 0;
    for (int r = 0; r < size; r++) {
        expect |= 1 << (r % 31);
    }
    MPI_NODE_CHECK(orv == expect && land == 0, "bor %x land %d", orv, land);
    /* a user operation that does not commute: the product in rank order */
    MPI_Op mm;
    MPI_Op_create(matmul, 0, &mm);
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    int m[4] = {1, rank % 3, 0, 1}, prod[4], ref[4] = {1, 0, 0, 1};
    for (int r = 0; r < size; r++) {
        int x[4] = {1, r % 3, 0, 1}, one_len = 1;
        MPI_Datatype t = mat;
        matmul(ref, x, &one_len, &t); /* x = ref * x */
        memcpy(ref, x, sizeof x);
    }
    MPI_Reduce(m, prod, 1, mat, mm, 0, MPI_COMM_WORLD);
    MPI_NODE_CHECK(rank != 0 || memcmp(prod, ref, sizeof ref) == 0,
                   "user operation product");
    /* prefix sums */
    int v = rank + 1, scan, exscan = -7;
    MPI_Scan(&v, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(&v, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_NODE_CHECK(scan == (rank + 1) * (rank + 2) / 2, "scan %d", scan);
    MPI_NODE_CHECK(rank == 0 || exscan == rank * (rank + 1) / 2, "exscan %d",
                   exscan);
    /* reduce-scatter: element j of every rank's vector is rank + j */
    int vec[64 * 2], part[2], counts[64];
    for (int j = 0; j < 2 * size; j++) {
        vec[j] = rank + j;
    }
    for (int i = 0; i < size; i++) {
        counts[i] = 2;
    }
    MPI_Reduce_scatter(vec, part, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int base = size * (size - 1) / 2;
    MPI_NODE_CHECK(part[0] == base + size * 2 * rank &&
                       part[1] == base + size * (2 * rank + 1),
                   "reduce_scatter %d %d", part[0], part[1]);
    MPI_Reduce_scatter_block(vec, part, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_NODE_CHECK(part[0] == size - 1 + 2 * rank, "reduce_scatter_block");
    int local[2] = {3, 4}, acc[2] = {10, 20};
    MPI_Reduce_local(local, acc, 2, MPI_INT, MPI_PROD);
    MPI_NODE_CHECK(acc[0] == 30 && acc[1] == 80, "reduce_local");
    MPI_Type_free(&mat);
    MPI_Op_free(&mm);
}

/* Non-blocking collectives overlapped with each other and with
 * point-to-point traffic that must not be confused with them. */
static void check_nonblocking(void)
{
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    double x = rank, sum = -1, bval = rank == 0 ? 3.5 : 0;
    int gath[64], sc[64], scv = -1, a2a_s[64], a2a_r[64];
    for (int i = 0; i < size; i++) {
        sc[i] = 100 + i;
        a2a_s[i] = rank * 64 + i;
    }
    MPI_Request r[8];
    MPI_Iallreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Ibcast(&bval, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Igather(&rank, 1, MPI_INT, gath, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Iscatter(sc, 1, MPI_INT, &scv, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[3]);
    MPI_Ialltoall(a2a_s, 1, MPI_INT, a2a_r, 1, MPI_INT, MPI_COMM_WORLD, &r[4]);
    int tok = rank, got = -1;
    MPI_Irecv(&got, 1, MPI_INT, from, 0, MPI_COMM_WORLD, &r[5]);
    MPI_Isend(&tok, 1, MPI_INT, to, 0, MPI_COMM_WORLD, &r[6]);
    MPI_Ibarrier(MPI_COMM_WORLD, &r[7]);
    MPI_Waitall(8, r, MPI_STATUSES_IGNORE);
    MPI_NODE_CHECK(sum == size * (size - 1) / 2.0, "iallreduce %g", sum);
    MPI_NODE_CHECK(bval == 3.5, "ibcast %g", bval);
    MPI_NODE_CHECK(scv == 100 + rank, "iscatter %d", scv);
    MPI_NODE_CHECK(got == from, "p2p beside collectives %d", got);
    for (int i = 0; i < size; i++) {
        MPI_NODE_CHECK(rank != 0 || gath[i] == i, "igather %d", i);
        MPI_NODE_CHECK(a2a_r[i] == i * 64 + rank, "ialltoall %d", i);
    }
    double red = -1;
    int flag = 0;
    MPI_Ireduce(&x, &red, 1, MPI_DOUBLE, MPI_MAX, size - 1, MPI_COMM_WORLD,
                &r[0]);
    while (!flag) {
        MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
    }
    MPI_NODE_CHECK(rank != size - 1 || red == size - 1, "ireduce %g", red);
    long ag = rank, all[64];
    MPI_Iallgather(&ag, 1, MPI_LONG, all, 1, MPI_LONG, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    for (int i = 0; i < size; i++) {
        MPI_NODE_CHECK(all[i] == i, "iallgather %d", i);
    }
}

/* Collectives on a derived type: a strided vector broadcast and reduced. */
static void check_derived_collectives(void)
{
    double grid[4][3];
    MPI_Datatype col;
    MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 3; j++) {
            grid[i][j] = rank == 1 % size ? i * 10 + j : -1;
        }
    }
    MPI_Bcast(&grid[0][1], 1, col, 1 % size, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++) {
        MPI_NODE_CHECK(grid[i][1] == i * 10 + 1, "bcast of a column %d", i);
        MPI_NODE_CHECK(rank == 1 % size || grid[i][0] == -1, "outside column");
    }
    double in[4][3], out[4][3];
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 3; j++) {
            in[i][j] = rank + i;
            out[i][j] = -5;
        }
    }
    MPI_Allreduce(&in[0][2], &out[0][2], 1, col, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++) {
        MPI_NODE_CHECK(out[i][2] == size * (size - 1) / 2.0 + size * i &&
                           out[i][1] == -5,
                       "allreduce of a column %d", i);
    }
    MPI_Type_free(&col);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_NODE_CHECK(size >= 2 && size <= 64, "run on 2 to 64 ranks");
    check_send_modes();
    check_probe_and_cancel();
    check_persistent_and_waits();
    check_gather_scatter();
    check_allgather_alltoall();
    check_reductions();
    check_nonblocking();
    check_derived_collectives();
    MPI_Finalize();
    if (rank == 0) {
        printf("mpi_calls: %d ranks: OK\n", size);
    }
    return 0;
}
