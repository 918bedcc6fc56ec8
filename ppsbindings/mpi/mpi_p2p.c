/*
 * mpi_p2p.c - point-to-point messages.
 *
 * A message is one Panda one-way message starting with mpi_wire_hdr_t.
 * Up to MPI_EAGER_MAX bytes the data follows at once (eager).  A larger
 * message is announced (RTS); when the announcement meets its receive, the
 * receiver answers clear-to-send with the receive's id and the sender sends
 * the data (DATA), which lands in the receive's buffer.  At the receiver a
 * message or announcement matches the oldest posted receive whose source
 * and tag fit, or waits in the unexpected queue, which receives search
 * oldest first.  Panda keeps each sender's messages in order, so messages
 * of one (source, tag) are received in the order sent.
 */
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "mpi_internal.h"

static int matches(int want_src, int want_tag, int src, int tag)
{
    return (want_src == MPI_ANY_SOURCE || want_src == src) &&
           (want_tag == MPI_ANY_TAG || want_tag == tag);
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
            matches(req->source, req->tag, src, pl->tag)) {
            return 1;
        }
    }
    return 0;
}

/* Takes the oldest posted receive that fits, or NULL.  With placing set,
 * not one an earlier message of the same sender will take, so that one
 * sender's messages match in the order sent. */
static struct lci_mpi_request *posted_take(int src, int tag, int placing)
{
    for (struct lci_mpi_request **pp = &mpi->posted; *pp != NULL;
         pp = &(*pp)->next) {
        struct lci_mpi_request *req = *pp;
        if (matches(req->source, req->tag, src, tag)) {
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

/* An announced large message met its receive: the receive's status is
 * known now, and the sender may send the data. */
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

/* A message with nowhere to go yet: to a posted receive, or queued (the
 * queue takes buf). */
static void arrived_unmatched(int src, int tag, char *buf, size_t len)
{
    struct lci_mpi_request *req = posted_take(src, tag, 0);
    if (req == NULL) {
        mpi_queue_take(&mpi->unexpected, src, tag, buf, len);
        return;
    }
    deliver(req, src, tag, buf, len);
    free(buf);
}

/* An announcement with no receive yet: to a posted one, or queued. */
static void rts_unmatched(int src, int tag, size_t len, uint64_t send_id)
{
    struct lci_mpi_request *req = posted_take(src, tag, 0);
    if (req != NULL) {
        rts_matched(req, src, tag, len, send_id);
        return;
    }
    mpi_msg_t *m = malloc(sizeof *m);
    if (m == NULL) {
        lci_abort(MPI_ERR_INTERN, "MPI: no memory to queue a message");
    }
    *m = (mpi_msg_t){
        .src = src, .tag = tag, .len = len, .rts = 1, .rts_id = send_id};
    mpi_queue_push(&mpi->unexpected, m);
}

static char empty_message[1]; /* where an empty message is "placed" */

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
    mpi_placed_t *pl = calloc(1, sizeof *pl);
    if (pl == NULL) {
        lci_abort(MPI_ERR_INTERN, "MPI: no memory for an arriving message");
    }
    pl->tag = hdr.tag;
    pl->kind = hdr.kind;
    /* What the header claims, against what this node agreed to: an eager
     * message is short, an announcement is bare, data is what a receive
     * asked for. */
    if ((hdr.kind == MPI_WIRE_EAGER && body > MPI_EAGER_MAX) ||
        (hdr.kind == MPI_WIRE_RTS && body != 0) ||
        (hdr.kind != MPI_WIRE_EAGER && hdr.kind != MPI_WIRE_RTS &&
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
        pl->req = posted_take(src, hdr.tag, 1);
    }
    if (hdr.kind == MPI_WIRE_RTS) {
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
    arrived_unmatched(mpi->rank, hdr.tag, copy, len);
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
    if (pl->kind == MPI_WIRE_RTS) {
        if (req != NULL) {
            rts_matched(req, src, pl->tag, pl->rts_len, pl->rts_id);
        } else {
            rts_unmatched(src, pl->tag, pl->rts_len, pl->rts_id);
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
        arrived_unmatched(src, pl->tag, pl->buf, len);
    }
    free(pl);
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
    mpi_wire_hdr_t hdr = {.tag = req->tag, .kind = MPI_WIRE_DATA, .id = ids[1]};
    pan_msg_t msg;
    pan_msg_init(&msg);
    pan_msg_push(&msg, &hdr, sizeof hdr);
    pan_msg_push(&msg, req->sbuf, (size_t)ids[2]);
    if (pan_send(req->dest, MPI_PT2PT_PORT, &msg) != PAN_OK) {
        lci_abort(MPI_ERR_INTERN, pan_last_error());
    }
    req->done = 1;
}

static struct lci_mpi_request *request_new(void)
{
    struct lci_mpi_request *req = calloc(1, sizeof *req);
    if (req == NULL) {
        lci_abort(MPI_ERR_INTERN, "MPI: no memory for a request");
    }
    return req;
}

/* What MPI_Send and MPI_Isend share: checks, then an eager message, or the
 * announcement of a large one, whose request (*req_p, else NULL)
 * completes when the data has gone. */
static int send_start(const char *fn, const void *buf, int count,
                      MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      struct lci_mpi_request **req_p)
{
    size_t bytes;
    *req_p = NULL;
    int r = mpi_check(fn, comm);
    if (r == MPI_SUCCESS) {
        r = mpi_check_buffer(fn, buf, count, datatype, &bytes);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (dest == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    if (dest < 0 || dest >= mpi->size) {
        return mpi_error(MPI_ERR_RANK, "%s: destination %d; expected 0..%d", fn,
                         dest, mpi->size - 1);
    }
    if (tag < 0) {
        return mpi_error(MPI_ERR_TAG, "%s: tag %d is negative", fn, tag);
    }
    mpi_wire_hdr_t hdr = {.tag = tag, .kind = MPI_WIRE_EAGER};
    pan_msg_t msg;
    pan_msg_init(&msg);
    if (bytes > MPI_EAGER_MAX && dest != mpi->rank) {
        struct lci_mpi_request *req = request_new();
        req->tag = tag;
        req->sbuf = buf;
        req->sbytes = bytes;
        req->dest = dest;
        req->status.MPI_SOURCE = mpi->rank;
        req->status.MPI_TAG = tag;
        hdr.kind = MPI_WIRE_RTS;
        hdr.id = mpi_handle_of(req);
        hdr.len = bytes;
        *req_p = req;
        pan_msg_push(&msg, &hdr, sizeof hdr);
    } else {
        pan_msg_push(&msg, &hdr, MPI_WIRE_EAGER_HDR);
        pan_msg_push(&msg, buf, bytes);
    }
    if (pan_send(dest, MPI_PT2PT_PORT, &msg) != PAN_OK) {
        if (*req_p != NULL) {
            mpi_handle_take(hdr.id, mpi->rank); /* nobody will name it */
        }
        free(*req_p);
        *req_p = NULL;
        return mpi_error(MPI_ERR_OTHER, "%s: %s", fn, pan_last_error());
    }
    return MPI_SUCCESS;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
             int tag, MPI_Comm comm)
{
    struct lci_mpi_request *req;
    int r = send_start("MPI_Send", buf, count, datatype, dest, tag, comm, &req);
    if (r != MPI_SUCCESS || req == NULL) {
        return r;
    }
    MPI_Request handle = req;
    return MPI_Wait(&handle, MPI_STATUS_IGNORE);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm, MPI_Request *request)
{
    if (request == NULL) {
        return mpi_error(MPI_ERR_REQUEST, "MPI_Isend: NULL request");
    }
    struct lci_mpi_request *req;
    int r =
        send_start("MPI_Isend", buf, count, datatype, dest, tag, comm, &req);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (req == NULL) {
        /* Eager: the data is on its way already. */
        req = request_new();
        req->done = 1;
        req->status.MPI_SOURCE = mpi->rank;
        req->status.MPI_TAG = tag;
    }
    *request = req;
    return MPI_SUCCESS;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm, MPI_Request *request)
{
    size_t bytes;
    int r = mpi_check("MPI_Irecv", comm);
    if (r == MPI_SUCCESS) {
        r = mpi_check_buffer("MPI_Irecv", buf, count, datatype, &bytes);
    }
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (request == NULL) {
        return mpi_error(MPI_ERR_REQUEST, "MPI_Irecv: NULL request");
    }
    if (source != MPI_ANY_SOURCE && source != MPI_PROC_NULL &&
        (source < 0 || source >= mpi->size)) {
        return mpi_error(MPI_ERR_RANK,
                         "MPI_Irecv: source %d; expected "
                         "0..%d, MPI_ANY_SOURCE or "
                         "MPI_PROC_NULL",
                         source, mpi->size - 1);
    }
    if (tag < 0 && tag != MPI_ANY_TAG) {
        return mpi_error(MPI_ERR_TAG,
                         "MPI_Irecv: tag %d; expected >= 0 or "
                         "MPI_ANY_TAG",
                         tag);
    }
    struct lci_mpi_request *req = request_new();
    req->buf = buf;
    req->cap = bytes;
    req->source = source;
    req->tag = tag;
    *request = req;
    if (source == MPI_PROC_NULL) {
        req->done = 1;
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        req->status.MPI_TAG = MPI_ANY_TAG;
        return MPI_SUCCESS;
    }
    for (mpi_msg_t **pp = &mpi->unexpected.head; *pp != NULL;
         pp = &(*pp)->next) {
        mpi_msg_t *m = *pp;
        if (matches(source, tag, m->src, m->tag)) {
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
            return MPI_SUCCESS;
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
                matches(source, tag, src, pl->tag)) {
                pl->req = req;
                return MPI_SUCCESS;
            }
        }
    }
    *mpi->posted_tail = req;
    mpi->posted_tail = &req->next;
    return MPI_SUCCESS;
}

/* Frees a completed request and reports its outcome. */
static int finish(const char *fn, MPI_Request *request, MPI_Status *status)
{
    struct lci_mpi_request *req = *request;
    int err = req->status.MPI_ERROR;
    if (status != MPI_STATUS_IGNORE) {
        *status = req->status;
    }
    free(req);
    *request = MPI_REQUEST_NULL;
    if (err != MPI_SUCCESS) {
        return mpi_error(err,
                         "%s: the message was longer than the receive "
                         "buffer",
                         fn);
    }
    return MPI_SUCCESS;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    int r = mpi_check("MPI_Wait", MPI_COMM_WORLD);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (request == NULL) {
        return mpi_error(MPI_ERR_REQUEST, "MPI_Wait: NULL request");
    }
    if (*request == MPI_REQUEST_NULL) {
        if (status != MPI_STATUS_IGNORE) {
            status->MPI_SOURCE = MPI_ANY_SOURCE;
            status->MPI_TAG = MPI_ANY_TAG;
            status->MPI_ERROR = MPI_SUCCESS;
            status->lci_bytes = 0;
        }
        return MPI_SUCCESS;
    }
    while (!(*request)->done) {
        if (pan_wait() < 0) {
            return mpi_error(MPI_ERR_OTHER, "MPI_Wait: %s", pan_last_error());
        }
    }
    return finish("MPI_Wait", request, status);
}

int MPI_Waitall(int count, MPI_Request array_of_requests[],
                MPI_Status array_of_statuses[])
{
    if (count < 0 || (count > 0 && array_of_requests == NULL)) {
        return mpi_error(MPI_ERR_ARG, "MPI_Waitall: %d requests at %p", count,
                         (void *)array_of_requests);
    }
    int first_err = MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = array_of_statuses == MPI_STATUSES_IGNORE
                             ? MPI_STATUS_IGNORE
                             : &array_of_statuses[i];
        int r = MPI_Wait(&array_of_requests[i], st);
        if (r != MPI_SUCCESS && first_err == MPI_SUCCESS) {
            first_err = r;
        }
    }
    return first_err;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    int r = mpi_check("MPI_Test", MPI_COMM_WORLD);
    if (r != MPI_SUCCESS) {
        return r;
    }
    if (request == NULL || flag == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Test: NULL argument");
    }
    if (*request != MPI_REQUEST_NULL && !(*request)->done && pan_poll() < 0) {
        return mpi_error(MPI_ERR_OTHER, "MPI_Test: %s", pan_last_error());
    }
    if (*request != MPI_REQUEST_NULL && !(*request)->done) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    *flag = 1;
    return MPI_Wait(request, status);
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    size_t size = mpi_type_size(datatype);
    if (status == NULL || count == NULL) {
        return mpi_error(MPI_ERR_ARG, "MPI_Get_count: NULL argument");
    }
    if (size == 0) {
        return mpi_error(MPI_ERR_TYPE, "MPI_Get_count: unknown datatype %d",
                         datatype);
    }
    *count = status->lci_bytes % size == 0 ? (int)(status->lci_bytes / size)
                                           : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
             MPI_Comm comm, MPI_Status *status)
{
    MPI_Request req;
    int r = MPI_Irecv(buf, count, datatype, source, tag, comm, &req);
    if (r != MPI_SUCCESS) {
        return r;
    }
    return MPI_Wait(&req, status);
}
