/*
 * mpi_p2p.c - messages between two ranks.
 *
 * A message is one Panda one-way message starting with mpi_wire_hdr_t:
 * its tag and the context id of its communicator (point-to-point or
 * collective).  Up to mpi->eager_max bytes the data follows at once
 * (eager).  A larger message, and every synchronous one, is announced
 * (RTS, SYNC); when the announcement meets its receive, the receiver
 * answers clear-to-send with the receive's id and the sender sends the
 * data (DATA), which lands in the receive's buffer.  At the receiver a
 * message or announcement matches the oldest posted receive whose context,
 * source and tag fit, or waits in the unexpected queue, which receives
 * search oldest first.  Panda keeps each sender's messages in order, so
 * messages of one (context, source, tag) are received in the order sent.
 *
 * Everything here is in contiguous bytes and world ranks; the MPI calls
 * (MPI_Send and the rest) pack, unpack and translate ranks around it.
 */
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "mpi_internal.h"

static int matches(const struct lci_mpi_request *req, uint16_t ctx, int src,
                   int tag)
{
    return req->ctx == ctx &&
           (req->source == MPI_ANY_SOURCE || req->source == src) &&
           (req->tag == MPI_ANY_TAG || req->tag == tag);
}

static int is_announcement(uint32_t kind)
{
    return kind == MPI_WIRE_RTS || kind == MPI_WIRE_SYNC;
}

/* Completes a receive with a message. */
static void deliver(struct lci_mpi_request *req, int src, int tag,
                    const void *data, size_t len)
{
    size_t n = len;
    req->status.MPI_ERROR = MPI_SUCCESS;
    if (len > req->cap) {
        n = req->cap;
        req->status.MPI_ERROR = MPI_ERR_TRUNCATE;
    }
    if (n > 0) {
        lci_copy(req->buf, data, n);
    }
    req->status.MPI_SOURCE = src;
    req->status.MPI_TAG = tag;
    req->status.lci_bytes = n;
    req->done = 1;
}

/* True if a message of src that is still on its way without a receive
 * would take req: its handler will, as the earlier message. */
static int claimed_earlier(const struct lci_mpi_request *req, int src)
{
    for (const mpi_placed_t *pl = mpi->placed[src].head; pl != NULL;
         pl = pl->next) {
        if (pl->req == NULL && pl->kind != MPI_WIRE_DATA &&
            matches(req, pl->ctx, src, pl->tag)) {
            return 1;
        }
    }
    return 0;
}

/* Takes the oldest posted receive that fits, or NULL.  With placing set,
 * not one an earlier message of the same sender will take, so that one
 * sender's messages match in the order sent. */
static struct lci_mpi_request *posted_take(uint16_t ctx, int src, int tag,
                                           int placing)
{
    for (struct lci_mpi_request **pp = &mpi->posted; *pp != NULL;
         pp = &(*pp)->next) {
        struct lci_mpi_request *req = *pp;
        if (matches(req, ctx, src, tag)) {
            if (placing && claimed_earlier(req, src)) {
                return NULL;
            }
            *pp = req->next;
            if (mpi->posted_tail == &req->next) {
                mpi->posted_tail = pp;
            }
            return req;
        }
    }
    return NULL;
}

int mpi_recv_unpost(struct lci_mpi_request *req)
{
    for (struct lci_mpi_request **pp = &mpi->posted; *pp != NULL;
         pp = &(*pp)->next) {
        if (*pp == req) {
            *pp = req->next;
            if (mpi->posted_tail == &req->next) {
                mpi->posted_tail = pp;
            }
            return 1;
        }
    }
    return 0;
}

/* An announced message met its receive: the receive's status is known
 * now, and the sender may send the data. */
static void rts_matched(struct lci_mpi_request *req, int src, int tag,
                        size_t len, uint64_t send_id)
{
    req->status.MPI_SOURCE = src;
    req->status.MPI_TAG = tag;
    req->status.MPI_ERROR = len > req->cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    req->status.lci_bytes = len > req->cap ? req->cap : len;
    /* Only what fits is asked for: the data always lands in place. */
    req->want = req->status.lci_bytes;
    uint64_t ids[3] = {send_id, mpi_handle_of(req), req->want};
    pan_msg_t msg;
    pan_msg_init(&msg);
    pan_msg_push(&msg, ids, sizeof ids);
    if (pan_send(src, MPI_CTS_PORT, &msg) != PAN_OK) {
        lci_abort(MPI_ERR_INTERN, pan_last_error());
    }
}

static mpi_msg_t *msg_new(void)
{
    mpi_msg_t *m = calloc(1, sizeof *m);
    if (m == NULL) {
        lci_abort(MPI_ERR_INTERN, "MPI: no memory to queue a message");
    }
    return m;
}

/* A message with nowhere to go yet: to a posted receive, or queued (the
 * queue takes buf). */
static void arrived_unmatched(uint16_t ctx, int src, int tag, char *buf,
                              size_t len)
{
    struct lci_mpi_request *req = posted_take(ctx, src, tag, 0);
    if (req == NULL) {
        mpi_msg_t *m = msg_new();
        *m = (mpi_msg_t){
            .src = src, .tag = tag, .ctx = ctx, .len = len, .data = buf};
        mpi_queue_push(&mpi->unexpected, m);
        return;
    }
    deliver(req, src, tag, buf, len);
    free(buf);
}

/* An announcement with no receive yet: to a posted one, or queued. */
static void rts_unmatched(uint16_t ctx, int src, int tag, size_t len,
                          uint64_t send_id)
{
    struct lci_mpi_request *req = posted_take(ctx, src, tag, 0);
    if (req != NULL) {
        rts_matched(req, src, tag, len, send_id);
        return;
    }
    mpi_msg_t *m = msg_new();
    *m = (mpi_msg_t){.src = src,
                     .tag = tag,
                     .ctx = ctx,
                     .len = len,
                     .rts = 1,
                     .rts_id = send_id};
    mpi_queue_push(&mpi->unexpected, m);
}

static char empty_message[1]; /* where an empty message is "placed" */

/* How many finished placements are kept for reuse. */
#define MPI_PLACED_SPARE_MAX 64

static mpi_placed_t *placed_new(void)
{
    mpi_placed_t *pl = mpi->placed_spare;
    if (pl != NULL) {
        mpi->placed_spare = pl->next;
        mpi->nplaced_spare--;
        memset(pl, 0, sizeof *pl);
    } else if ((pl = calloc(1, sizeof *pl)) == NULL) {
        lci_abort(MPI_ERR_INTERN, "MPI: no memory for an arriving message");
    }
    return pl;
}

static void placed_free(mpi_placed_t *pl)
{
    if (mpi->nplaced_spare >= MPI_PLACED_SPARE_MAX) {
        free(pl);
        return;
    }
    pl->next = mpi->placed_spare;
    mpi->placed_spare = pl;
    mpi->nplaced_spare++;
}

void mpi_placed_spares_free(void)
{
    while (mpi->placed_spare != NULL) {
        mpi_placed_t *pl = mpi->placed_spare;
        mpi->placed_spare = pl->next;
        free(pl);
    }
    mpi->nplaced_spare = 0;
}

/* Called at a message's first packet (inside LCI's upcall: no sending
 * here).  A receive posted for it gets the data straight into its buffer
 * (one copy); large data goes to the receive that asked for it. */
void *mpi_p2p_place(int src, const void *head, size_t head_len, size_t len,
                    size_t *skip_p, void *arg)
{
    (void)arg;
    mpi_wire_hdr_t hdr = {0};
    size_t hlen = MPI_WIRE_EAGER_HDR;
    if (head != NULL && head_len >= hlen && len >= hlen) {
        memcpy(&hdr, head, hlen);
        if (hdr.kind != MPI_WIRE_EAGER) {
            hlen = sizeof hdr;
        }
    }
    if (head == NULL || head_len < hlen || len < hlen) {
        lci_abort(MPI_ERR_INTERN, "MPI: a message without its header");
    }
    memcpy(&hdr, head, hlen);
    size_t body = len - hlen;
    mpi_placed_t *pl = placed_new();
    pl->tag = hdr.tag;
    pl->ctx = hdr.ctx;
    pl->kind = hdr.kind;
    /* What the header claims, against what this node agreed to: an eager
     * message is short, an announcement is bare, data is what a receive
     * asked for. */
    if ((hdr.kind == MPI_WIRE_EAGER && body > mpi->eager_max) ||
        (is_announcement(hdr.kind) && body != 0) ||
        (hdr.kind != MPI_WIRE_EAGER && !is_announcement(hdr.kind) &&
         hdr.kind != MPI_WIRE_DATA)) {
        lci_abort(MPI_ERR_INTERN, "MPI: a message whose header does not "
                                  "match its length or kind");
    }
    if (hdr.kind == MPI_WIRE_DATA) {
        pl->req = mpi_handle_take(hdr.id, src);
        if (body != pl->req->want) {
            lci_abort(MPI_ERR_INTERN, "MPI: data that is not what its "
                                      "receive asked for");
        }
    } else {
        pl->req = posted_take(hdr.ctx, src, hdr.tag, 1);
    }
    if (is_announcement(hdr.kind)) {
        pl->rts_id = hdr.id;
        pl->rts_len = (size_t)hdr.len;
        pl->buf = empty_message;
    } else if (pl->req != NULL && body <= pl->req->cap) {
        pl->buf = body > 0 ? pl->req->buf : empty_message;
    } else {
        pl->buf = malloc(body > 0 ? body : 1); /* unexpected, or too long */
        if (pl->buf == NULL) {
            lci_abort(MPI_ERR_INTERN, "MPI: no memory for a message");
        }
    }
    mpi_placed_list_t *list = &mpi->placed[src];
    pl->next = NULL;
    *list->tail = pl;
    list->tail = &pl->next;
    *skip_p = hlen;
    return pl->buf;
}

/* The handler of a message from this rank itself: not placed, header in
 * front, always eager. */
static void arrived_from_self(const void *data, size_t len)
{
    mpi_wire_hdr_t hdr = {0};
    if (len < MPI_WIRE_EAGER_HDR) {
        lci_abort(MPI_ERR_INTERN, "MPI: a message without its header");
    }
    memcpy(&hdr, data, MPI_WIRE_EAGER_HDR);
    len -= MPI_WIRE_EAGER_HDR;
    char *copy = malloc(len > 0 ? len : 1);
    if (copy == NULL) {
        lci_abort(MPI_ERR_INTERN, "MPI: no memory for a message");
    }
    if (len > 0) {
        lci_copy(copy, (const char *)data + MPI_WIRE_EAGER_HDR, len);
    }
    arrived_unmatched(hdr.ctx, mpi->rank, hdr.tag, copy, len);
}

void mpi_p2p_arrived(int src, const void *data, size_t len, void *arg)
{
    (void)arg;
    if (src == mpi->rank) {
        arrived_from_self(data, len);
        return;
    }
    mpi_placed_list_t *list = &mpi->placed[src];
    mpi_placed_t *pl = list->head;
    if (pl == NULL || pl->buf != data) {
        lci_abort(MPI_ERR_INTERN, "MPI: a message arrived that was not placed");
    }
    list->head = pl->next;
    if (list->head == NULL) {
        list->tail = &list->head;
    }
    struct lci_mpi_request *req = pl->req;
    int in_place =
        pl->buf == empty_message || (req != NULL && pl->buf == req->buf);
    if (is_announcement(pl->kind)) {
        if (req != NULL) {
            rts_matched(req, src, pl->tag, pl->rts_len, pl->rts_id);
        } else {
            rts_unmatched(pl->ctx, src, pl->tag, pl->rts_len, pl->rts_id);
        }
    } else if (pl->kind == MPI_WIRE_DATA) {
        /* The status was set when the announcement met the receive. */
        if (!in_place) {
            size_t n = len < req->cap ? len : req->cap;
            if (n > 0) {
                lci_copy(req->buf, pl->buf, n);
            }
            free(pl->buf);
        }
        req->done = 1;
    } else if (req != NULL && in_place) {
        req->status.MPI_ERROR = MPI_SUCCESS;
        req->status.MPI_SOURCE = src;
        req->status.MPI_TAG = pl->tag;
        req->status.lci_bytes = len;
        req->done = 1;
    } else if (req != NULL) {
        /* Taken on the way, or longer than the receive: copied now. */
        deliver(req, src, pl->tag, pl->buf, len);
        free(pl->buf);
    } else {
        arrived_unmatched(pl->ctx, src, pl->tag, pl->buf, len);
    }
    placed_free(pl);
}

void mpi_p2p_cts_arrived(int src, const void *data, size_t len, void *arg)
{
    (void)arg;
    uint64_t ids[3];
    if (len != sizeof ids) {
        lci_abort(MPI_ERR_INTERN, "MPI: a malformed clear-to-send");
    }
    memcpy(ids, data, sizeof ids);
    struct lci_mpi_request *req = mpi_handle_take(ids[0], src);
    if (src != req->dest || ids[2] > req->sbytes) {
        lci_abort(MPI_ERR_INTERN, "MPI: a clear-to-send that does not match "
                                  "its announcement");
    }
    mpi_wire_hdr_t hdr = {
        .tag = req->tag, .ctx = req->ctx, .kind = MPI_WIRE_DATA, .id = ids[1]};
    pan_msg_t msg;
    pan_msg_init(&msg);
    pan_msg_push(&msg, &hdr, sizeof hdr);
    pan_msg_push(&msg, req->sbuf, (size_t)ids[2]);
    if (pan_send(req->dest, MPI_PT2PT_PORT, &msg) != PAN_OK) {
        lci_abort(MPI_ERR_INTERN, pan_last_error());
    }
    free(req->spack); /* sent: Panda has copied it */
    req->spack = NULL;
    req->sbuf = NULL;
    req->done = 1;
}

int mpi_send_eager(const char *fn, uint16_t ctx, int dest, int tag,
                   const void *data, size_t bytes)
{
    mpi_wire_hdr_t hdr = {.tag = tag, .ctx = ctx, .kind = MPI_WIRE_EAGER};
    pan_msg_t msg;
    pan_msg_init(&msg);
    pan_msg_push(&msg, &hdr, MPI_WIRE_EAGER_HDR);
    pan_msg_push(&msg, data, bytes);
    if (pan_send(dest, MPI_PT2PT_PORT, &msg) != PAN_OK) {
        return mpi_error(MPI_ERR_OTHER, "%s: %s", fn, pan_last_error());
    }
    return MPI_SUCCESS;
}

int mpi_send_start(const char *fn, struct lci_mpi_request *req, uint16_t ctx,
                   int dest, int tag, const void *buf, size_t bytes,
                   mpi_mode_t mode)
{
    req->ctx = ctx;
    req->tag = tag;
    req->dest = dest;
    req->mode = mode;
    req->status.MPI_SOURCE = mpi->rank;
    req->status.MPI_TAG = tag;
    int announce = dest != mpi->rank &&
                   (bytes > mpi->eager_max || mode == MPI_MODE_SYNC);
    if (!announce) {
        int r = mpi_send_eager(fn, ctx, dest, tag, buf, bytes);
        free(req->spack); /* Panda has copied the data */
        req->spack = NULL;
        req->done = 1;
        return r;
    }
    req->sbuf = buf;
    req->sbytes = bytes;
    mpi_wire_hdr_t hdr = {
        .tag = tag,
        .ctx = ctx,
        .kind = mode == MPI_MODE_SYNC ? MPI_WIRE_SYNC : MPI_WIRE_RTS,
        .id = mpi_handle_of(req),
        .len = bytes};
    pan_msg_t msg;
    pan_msg_init(&msg);
    pan_msg_push(&msg, &hdr, sizeof hdr);
    if (pan_send(dest, MPI_PT2PT_PORT, &msg) != PAN_OK) {
        mpi_handle_take(hdr.id, mpi->rank); /* nobody will name it */
        req->done = 1;
        return mpi_error(MPI_ERR_OTHER, "%s: %s", fn, pan_last_error());
    }
    return MPI_SUCCESS;
}

void mpi_recv_start(struct lci_mpi_request *req, uint16_t ctx, int source,
                    int tag, void *buf, size_t cap)
{
    req->ctx = ctx;
    req->source = source;
    req->tag = tag;
    req->buf = buf;
    req->cap = cap;
    for (mpi_msg_t **pp = &mpi->unexpected.head; *pp != NULL;
         pp = &(*pp)->next) {
        mpi_msg_t *m = *pp;
        if (matches(req, m->ctx, m->src, m->tag)) {
            *pp = m->next;
            if (mpi->unexpected.tail == &m->next) {
                mpi->unexpected.tail = pp;
            }
            if (m->rts) {
                rts_matched(req, m->src, m->tag, m->len, m->rts_id);
            } else {
                deliver(req, m->src, m->tag, m->data, m->len);
            }
            free(m->data);
            free(m);
            return;
        }
    }
    /* A message on its way that no receive took yet is older than any to
     * come: it gets this receive (eager data is copied in at the end). */
    int lo = source == MPI_ANY_SOURCE ? 0 : source;
    int hi = source == MPI_ANY_SOURCE ? mpi->size - 1 : source;
    for (int src = lo; src <= hi; src++) {
        for (mpi_placed_t *pl = mpi->placed[src].head; pl != NULL;
             pl = pl->next) {
            if (pl->req == NULL && pl->kind != MPI_WIRE_DATA &&
                matches(req, pl->ctx, src, pl->tag)) {
                pl->req = req;
                return;
            }
        }
    }
    req->next = NULL;
    *mpi->posted_tail = req;
    mpi->posted_tail = &req->next;
}

const mpi_msg_t *mpi_probe_unexpected(uint16_t ctx, int source, int tag)
{
    struct lci_mpi_request probe = {.ctx = ctx, .source = source, .tag = tag};
    for (const mpi_msg_t *m = mpi->unexpected.head; m != NULL; m = m->next) {
        if (matches(&probe, m->ctx, m->src, m->tag)) {
            return m;
        }
    }
    return NULL;
}
