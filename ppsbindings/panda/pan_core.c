/*
 * pan_core.c - Panda's life cycle, errors, the message type and ports.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pan_internal.h"

static struct pan_state pan_initial;
struct pan_state *pan = &pan_initial;

const char *pan_strerror(int status)
{
    switch (status) {
    case PAN_OK:
        return "success";
    case PAN_ERR_INVAL:
        return "invalid argument";
    case PAN_ERR_STATE:
        return "call not valid now";
    case PAN_ERR_NOMEM:
        return "out of memory";
    case PAN_ERR_SIZE:
        return "message too large";
    case PAN_ERR_LCI:
        return "LCI failed";
    case PAN_ERR_BUSY:
        return "handler already registered";
    default:
        return "unknown Panda status";
    }
}

const char *pan_last_error(void)
{
    return pan->last_error;
}

int pan_error(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pan->last_error, sizeof pan->last_error, fmt, ap);
    va_end(ap);
    return status;
}

int pan_lci_error(lci_status_t st, const char *what)
{
    return pan_error(PAN_ERR_LCI, "%s: %s (%s)", what, lci_strerror(st),
                     lci_last_error());
}

int pan_check_usable(const char *fn)
{
    if (!pan->inited) {
        return pan_error(PAN_ERR_STATE,
                         "%s: Panda is not initialised "
                         "(call pan_init first)",
                         fn);
    }
    return PAN_OK;
}

int pan_rank(void)
{
    return pan->rank;
}

int pan_size(void)
{
    return pan->size;
}

pan_mode_t pan_mode(void)
{
    return pan->mode;
}

int pan_init(int *argc, char ***argv, pan_mode_t mode)
{
    lci_status_t st = lci_node_local((void **)&pan, sizeof *pan);
    if (st != LCI_OK) {
        return pan_lci_error(st, "pan_init");
    }
    if (pan->inited) {
        return pan_error(PAN_ERR_STATE, "pan_init: called twice");
    }
    if (mode != PAN_ST && mode != PAN_MT) {
        return pan_error(PAN_ERR_INVAL,
                         "pan_init: mode %d; expected PAN_ST or PAN_MT",
                         (int)mode);
    }
    st = lci_init(argc, argv);
    if (st != LCI_OK) {
        return pan_lci_error(st, "pan_init");
    }
    memset(pan, 0, sizeof *pan);
    pan->mode = mode;
    pan->rank = lci_rank();
    pan->size = lci_size();
    pan->frag_cap = lci_packet_capacity() - sizeof(pan_wire_hdr_t);
    pan->dq_tail = &pan->dq_head;
    int r = pan_reasm_init();
    if (r != PAN_OK) {
        return r;
    }
    st = lci_upcall_set(pan_reasm_upcall, NULL);
    if (st != LCI_OK) {
        return pan_lci_error(st, "pan_init");
    }
    if (mode == PAN_MT) {
        r = pan_mt_init();
        if (r != PAN_OK) {
            return r;
        }
    }
    pan->inited = 1;
    return PAN_OK;
}

int pan_end(void)
{
    int r = pan_barrier();
    if (r != PAN_OK) {
        return r;
    }
    pan_dispatch_fini();
    pan_obcast_fini();
    pan_reasm_fini();
    if (pan->mode == PAN_MT) {
        pan_mt_fini();
    }
    pan->inited = 0;
    lci_status_t st = lci_finalize();
    return st == LCI_OK ? PAN_OK : pan_lci_error(st, "pan_end");
}

/* ---- barrier: messages to node 0 and a broadcast back, so that handlers
 * keep running while a node waits ------------------------------------ */

static int barrier_done(void *arg)
{
    (void)arg;
    if (pan->rank == 0) {
        return pan->barrier_in >= pan->barrier_epoch * (uint64_t)(pan->size - 1);
    }
    return pan->barrier_out >= pan->barrier_epoch;
}

int pan_barrier(void)
{
    int r = pan_check_usable("pan_barrier");
    if (r != PAN_OK) {
        return r;
    }
    if (pan->in_handler) {
        return pan_error(PAN_ERR_STATE, "pan_barrier: called from a handler");
    }
    pan_msg_t empty;
    pan_msg_init(&empty);
    pan->barrier_epoch++;
    pan_wire_hdr_t hdr = {.tag = pan->barrier_epoch};
    if (pan->rank != 0) {
        hdr.kind = PAN_K_BARRIER_IN;
        r = pan_frag_send(0, &hdr, &empty);
        if (r != PAN_OK) {
            return r;
        }
        return pan_block_until(&pan->barrier_cond, barrier_done, NULL);
    }
    r = pan_block_until(&pan->barrier_cond, barrier_done, NULL);
    if (r != PAN_OK || pan->size == 1) {
        return r;
    }
    hdr.kind = PAN_K_BARRIER_OUT;
    return pan_frag_bcast(&hdr, &empty);
}

/* ---- messages ------------------------------------------------------- */

void pan_msg_init(pan_msg_t *msg)
{
    if (msg != NULL) {
        msg->iovcnt = 0;
        msg->len = 0;
    }
}

int pan_msg_push(pan_msg_t *msg, const void *data, size_t len)
{
    if (msg == NULL || (data == NULL && len > 0)) {
        return pan_error(PAN_ERR_INVAL, "pan_msg_push: NULL argument");
    }
    if (msg->iovcnt >= PAN_MSG_MAX_IOV) {
        return pan_error(PAN_ERR_SIZE,
                         "pan_msg_push: a message holds at most %d pieces",
                         PAN_MSG_MAX_IOV);
    }
    if (len > UINT32_MAX - msg->len) {
        return pan_error(PAN_ERR_SIZE,
                         "pan_msg_push: a message holds at most %u bytes",
                         (unsigned)UINT32_MAX);
    }
    msg->iov[msg->iovcnt].iov_base = (void *)(uintptr_t)data;
    msg->iov[msg->iovcnt].iov_len = len;
    msg->iovcnt++;
    msg->len += len;
    return PAN_OK;
}

/* ---- ports and one-way messages ------------------------------------- */

int pan_port_set(int port, pan_recv_func_t func, void *arg)
{
    int r = pan_check_usable("pan_port_set");
    if (r != PAN_OK) {
        return r;
    }
    if (port < 0 || port >= PAN_NPORTS) {
        return pan_error(PAN_ERR_INVAL,
                         "pan_port_set: port %d; expected "
                         "0..%d",
                         port, PAN_NPORTS - 1);
    }
    if (func != NULL && pan->ports[port].func != NULL) {
        return pan_error(PAN_ERR_BUSY, "pan_port_set: port %d has a handler",
                         port);
    }
    pan->ports[port].func = func;
    pan->ports[port].arg = arg;
    return PAN_OK;
}

int pan_port_place_set(int port, pan_place_func_t func, void *arg)
{
    int r = pan_check_usable("pan_port_place_set");
    if (r != PAN_OK) {
        return r;
    }
    if (port < 0 || port >= PAN_NPORTS) {
        return pan_error(PAN_ERR_INVAL,
                         "pan_port_place_set: port %d; "
                         "expected 0..%d",
                         port, PAN_NPORTS - 1);
    }
    if (func != NULL && pan->ports[port].place != NULL) {
        return pan_error(PAN_ERR_BUSY,
                         "pan_port_place_set: port %d has a "
                         "placement",
                         port);
    }
    pan->ports[port].place = func;
    pan->ports[port].place_arg = arg;
    return PAN_OK;
}

static int check_send(const char *fn, int port, const pan_msg_t *msg)
{
    int r = pan_check_usable(fn);
    if (r != PAN_OK) {
        return r;
    }
    if (port < 0 || port >= PAN_NPORTS) {
        return pan_error(PAN_ERR_INVAL, "%s: port %d; expected 0..%d", fn, port,
                         PAN_NPORTS - 1);
    }
    if (msg == NULL || msg->iovcnt < 0 || msg->iovcnt > PAN_MSG_MAX_IOV) {
        return pan_error(PAN_ERR_INVAL, "%s: NULL or malformed message", fn);
    }
    return PAN_OK;
}

int pan_send(int dest, int port, const pan_msg_t *msg)
{
    int r = check_send("pan_send", port, msg);
    if (r != PAN_OK) {
        return r;
    }
    if (dest < 0 || dest >= pan->size) {
        return pan_error(PAN_ERR_INVAL,
                         "pan_send: destination %d; expected "
                         "0..%d",
                         dest, pan->size - 1);
    }
    pan_wire_hdr_t hdr = {.kind = PAN_K_ONEWAY, .port = (uint16_t)port};
    return pan_frag_send(dest, &hdr, msg);
}

int pan_bcast(int port, const pan_msg_t *msg)
{
    int r = check_send("pan_bcast", port, msg);
    if (r != PAN_OK) {
        return r;
    }
    pan_wire_hdr_t hdr = {.kind = PAN_K_BCAST, .port = (uint16_t)port};
    return pan_frag_bcast(&hdr, msg);
}

int pan_obcast(int port, const pan_msg_t *msg)
{
    int r = check_send("pan_obcast", port, msg);
    if (r != PAN_OK) {
        return r;
    }
    int64_t seq;
    lci_status_t st = lci_fetch_add(PAN_SEQUENCER, PAN_SEQ_VAR, 1, &seq);
    if (st != LCI_OK) {
        return pan_lci_error(st, "pan_obcast: sequence number");
    }
    pan_wire_hdr_t hdr = {.kind = PAN_K_OBCAST,
                          .port = (uint16_t)port,
                          .len = (uint32_t)msg->len,
                          .tag = (uint64_t)seq};
    r = pan_frag_bcast(&hdr, msg);
    if (r != PAN_OK) {
        return r;
    }
    /* The sender delivers its own message too, in its turn. */
    char *copy = pan_frag_flatten(msg);
    if (copy == NULL && msg->len > 0) {
        return pan_error(PAN_ERR_NOMEM, "pan_obcast: no memory for %zu bytes",
                         msg->len);
    }
    pan_obcast_arrived(&hdr, pan->rank, copy);
    return PAN_OK;
}
