/*
 * mpi_sched.c - schedules of collective operations (see mpi_sched.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "mpi_sched.h"

mpi_sched_t *mpi_sched_new(mpi_comm_t *c)
{
    mpi_sched_t *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    c->refs++;
    s->comm = c;
    s->ctx = (uint16_t)(c->ctx + 1);
    s->tag = (int)(c->coll_seq++ & MPI_TAG_COLL_MASK);
    return s;
}

static mpi_step_t *step_add(mpi_sched_t *s, mpi_step_kind_t kind)
{
    if (s->nsteps == s->cap) {
        int cap = s->cap > 0 ? 2 * s->cap : 16;
        mpi_step_t *steps = realloc(s->steps, (size_t)cap * sizeof *steps);
        if (steps == NULL) {
            s->error = MPI_ERR_NO_MEM;
            return NULL;
        }
        s->steps = steps;
        s->cap = cap;
    }
    mpi_step_t *st = &s->steps[s->nsteps++];
    *st = (mpi_step_t){.kind = kind};
    return st;
}

void mpi_sched_send(mpi_sched_t *s, int peer, const void *buf, size_t bytes)
{
    mpi_step_t *st = step_add(s, MPI_STEP_SEND);
    if (st != NULL) {
        st->peer = s->comm->group->world[peer];
        st->src = buf;
        st->bytes = bytes;
    }
}

void mpi_sched_recv(mpi_sched_t *s, int peer, void *buf, size_t bytes)
{
    mpi_step_t *st = step_add(s, MPI_STEP_RECV);
    if (st != NULL) {
        st->peer = s->comm->group->world[peer];
        st->dst = buf;
        st->bytes = bytes;
    }
}

void mpi_sched_copy(mpi_sched_t *s, const void *src, void *dst, size_t bytes)
{
    mpi_step_t *st = step_add(s, MPI_STEP_COPY);
    if (st != NULL) {
        st->src = src;
        st->dst = dst;
        st->bytes = bytes;
    }
}

void mpi_sched_reduce(mpi_sched_t *s, const void *src, void *dst,
                      size_t count)
{
    mpi_step_t *st = step_add(s, MPI_STEP_REDUCE);
    if (st != NULL) {
        st->src = src;
        st->dst = dst;
        st->count = count;
    }
}

void mpi_sched_unpack(mpi_sched_t *s, const mpi_type_t *t, size_t count,
                      const void *packed, void *dst)
{
    mpi_step_t *st = step_add(s, MPI_STEP_UNPACK);
    if (st != NULL) {
        mpi_type_hold(t);
        st->type = t;
        st->count = count;
        st->src = packed;
        st->dst = dst;
    }
}

void mpi_sched_round(mpi_sched_t *s)
{
    step_add(s, MPI_STEP_ROUND);
}

void *mpi_sched_buf(mpi_sched_t *s, size_t bytes)
{
    char *b = malloc(bytes > 0 ? bytes : 1);
    char **bufs = realloc(s->bufs, (size_t)(s->nbufs + 1) * sizeof *bufs);
    if (b == NULL || bufs == NULL) {
        free(b);
        if (bufs != NULL) {
            s->bufs = bufs;
        }
        s->error = MPI_ERR_NO_MEM;
        return NULL;
    }
    s->bufs = bufs;
    s->bufs[s->nbufs++] = b;
    return b;
}

const void *mpi_sched_packed(mpi_sched_t *s, const mpi_type_t *t,
                             const void *buf, size_t count)
{
    const void *start = mpi_type_contig_start(t, buf, count);
    if (start != NULL) {
        return start;
    }
    void *p = mpi_sched_buf(s, count * t->size);
    if (p != NULL) {
        mpi_type_pack(t, count, buf, p);
    }
    return p;
}

/* Posts a message of the round. */
static void round_post(mpi_sched_t *s, const mpi_step_t *st)
{
    if (s->nround == s->round_cap) {
        int cap = s->round_cap > 0 ? 2 * s->round_cap : 8;
        struct lci_mpi_request **r =
            realloc(s->round, (size_t)cap * sizeof *r);
        if (r == NULL) {
            s->error = MPI_ERR_NO_MEM;
            return;
        }
        s->round = r;
        s->round_cap = cap;
    }
    mpi_req_kind_t kind =
        st->kind == MPI_STEP_SEND ? MPI_REQ_SEND : MPI_REQ_RECV;
    struct lci_mpi_request *req = mpi_request_new(kind);
    req->internal = 1;
    req->want = st->bytes; /* a receive checks the length at the end */
    s->round[s->nround++] = req;
    if (kind == MPI_REQ_SEND) {
        int r = mpi_send_start("MPI collective", req, s->ctx, st->peer, s->tag,
                               st->src, st->bytes, MPI_MODE_STANDARD);
        if (r != MPI_SUCCESS && s->error == MPI_SUCCESS) {
            s->error = r;
        }
    } else {
        mpi_recv_start(req, s->ctx, st->peer, s->tag, st->dst, st->bytes);
    }
}

/* Whether every message of the round is done; frees them if so. */
static int round_done(mpi_sched_t *s)
{
    for (int i = 0; i < s->nround; i++) {
        if (!s->round[i]->done) {
            return 0;
        }
    }
    for (int i = 0; i < s->nround; i++) {
        struct lci_mpi_request *req = s->round[i];
        if (req->kind == MPI_REQ_RECV &&
            (req->status.MPI_ERROR != MPI_SUCCESS ||
             req->status.lci_bytes != req->cap) &&
            s->error == MPI_SUCCESS) {
            s->error = MPI_ERR_TRUNCATE; /* the ranks disagree on sizes */
        }
        mpi_request_free(req);
    }
    s->nround = 0;
    return 1;
}

/* Moves s on as far as it goes now; returns whether anything happened. */
static int advance(mpi_sched_t *s)
{
    int moved = 0;
    while (!s->done) {
        if (s->waiting) {
            if (!round_done(s)) {
                return moved;
            }
            s->waiting = 0;
            moved = 1;
        }
        if (s->pos == s->nsteps) {
            if (s->nround > 0) {
                s->waiting = 1; /* the last round needs no ROUND step */
                continue;
            }
            s->done = 1;
            return 1;
        }
        mpi_step_t *st = &s->steps[s->pos++];
        moved = 1;
        switch (st->kind) {
        case MPI_STEP_SEND:
        case MPI_STEP_RECV:
            round_post(s, st);
            break;
        case MPI_STEP_COPY:
            if (st->bytes > 0 && st->src != st->dst) {
                lci_copy(st->dst, st->src, st->bytes);
            }
            break;
        case MPI_STEP_REDUCE:
            mpi_op_apply(s->op, s->rtype, s->rtype_h, st->count, st->src,
                         st->dst);
            break;
        case MPI_STEP_UNPACK:
            mpi_type_unpack(st->type, st->count, st->src, st->dst);
            break;
        case MPI_STEP_ROUND:
            s->waiting = s->nround > 0;
            break;
        }
    }
    return moved;
}

void mpi_sched_free(mpi_sched_t *s)
{
    for (int i = 0; i < s->nround; i++) {
        /* Only on a failed run: messages still posted stay posted. */
        if (s->round[i]->kind == MPI_REQ_RECV &&
            mpi_recv_unpost(s->round[i])) {
            free(s->round[i]);
        }
    }
    for (int i = 0; i < s->nsteps; i++) {
        if (s->steps[i].kind == MPI_STEP_UNPACK) {
            mpi_type_release(s->steps[i].type);
        }
    }
    for (int i = 0; i < s->nbufs; i++) {
        free(s->bufs[i]);
    }
    if (s->rtype != NULL) {
        mpi_type_release(s->rtype);
    }
    mpi_comm_release(s->comm);
    free(s->bufs);
    free(s->round);
    free(s->steps);
    free(s);
}

int mpi_sched_run(const char *fn, mpi_sched_t *s)
{
    int r = s->error;
    while (r == MPI_SUCCESS && (advance(s), !s->done) && s->error == 0) {
        r = mpi_progress(fn, 1);
    }
    if (r == MPI_SUCCESS && s->error != MPI_SUCCESS) {
        r = mpi_error(s->error, "%s: %s", fn,
                      s->error == MPI_ERR_TRUNCATE
                          ? "the ranks disagree on the data's size"
                          : "out of memory");
    }
    mpi_sched_free(s);
    return r;
}

int mpi_sched_start(const char *fn, mpi_sched_t *s, MPI_Request *request)
{
    if (s->error != MPI_SUCCESS) {
        int e = s->error;
        mpi_sched_free(s);
        return mpi_error(e, "%s: out of memory", fn);
    }
    struct lci_mpi_request *req = mpi_request_new(MPI_REQ_COLL);
    req->sched = s;
    s->owner = req;
    s->next = mpi->scheds;
    mpi->scheds = s;
    advance(s);
    mpi_sched_progress();
    *request = req;
    return MPI_SUCCESS;
}

int mpi_sched_progress(void)
{
    int finished = 0;
    for (mpi_sched_t **pp = &mpi->scheds; *pp != NULL;) {
        mpi_sched_t *s = *pp;
        advance(s);
        if (s->done || s->error != MPI_SUCCESS) {
            *pp = s->next;
            s->owner->status = (MPI_Status){.MPI_SOURCE = MPI_ANY_SOURCE,
                                            .MPI_TAG = MPI_ANY_TAG,
                                            .MPI_ERROR = s->error};
            s->owner->sched = NULL;
            s->owner->done = 1;
            mpi_sched_free(s);
            finished = 1;
        } else {
            pp = &s->next;
        }
    }
    return finished;
}

void mpi_sched_free_all(void)
{
    while (mpi->scheds != NULL) {
        mpi_sched_t *s = mpi->scheds;
        mpi->scheds = s->next;
        s->owner->sched = NULL;
        s->owner->done = 1;
        mpi_sched_free(s);
    }
}
