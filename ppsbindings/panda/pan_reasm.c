/*
 * pan_reasm.c - reassembly: putting each sender's packets back together.
 *
 * LCI keeps packets FIFO per sender, so one reassembly slot per sender and
 * path suffices (one for unicast, one for multicast: the two travel
 * different paths and may interleave).  Each fragment is copied once,
 * charged (lci_copy), into the message's buffer: Panda's own, or the one a
 * port's placement names.  A placement may answer "later"; then the packets
 * of that path stay in LCI's receive buffers (LCI_UPCALL_KEEP), in order,
 * until it names a buffer at a later poll, or until too many wait.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pan_internal.h"

int pan_reasm_init(void)
{
    pan->uni = calloc((size_t)pan->size, sizeof *pan->uni);
    pan->mc = calloc((size_t)pan->size, sizeof *pan->mc);
    if (pan->uni == NULL || pan->mc == NULL) {
        free(pan->uni);
        free(pan->mc);
        return pan_error(PAN_ERR_NOMEM,
                         "pan_init: no memory for %d "
                         "reassembly slots",
                         pan->size);
    }
    return PAN_OK;
}

static void slot_fini(pan_reasm_t *r)
{
    if (!r->placed) {
        free(r->buf);
    }
    free(r->held); /* the packets themselves go back in lci_finalize */
}

void pan_reasm_fini(void)
{
    for (int i = 0; i < pan->size; i++) {
        slot_fini(&pan->uni[i]);
        slot_fini(&pan->mc[i]);
    }
    free(pan->uni);
    free(pan->mc);
    free(pan->unkept);
    pan->uni = pan->mc = NULL;
    pan->unkept = NULL;
    pan->nunkept = pan->unkept_cap = 0;
}

/* Appends p to a growing array of packet pointers. */
static void push_packet(lci_rpacket_t ***arr, int *n, int *cap,
                        lci_rpacket_t *p)
{
    if (*n == *cap) {
        int c = *cap > 0 ? 2 * *cap : 16;
        lci_rpacket_t **a = realloc(*arr, (size_t)c * sizeof *a);
        if (a == NULL) {
            lci_abort(1, "Panda: no memory to hold packets");
        }
        *arr = a;
        *cap = c;
    }
    (*arr)[(*n)++] = p;
}

/* Beyond this a message's buffer grows with what arrives. */
#define PAN_REASM_UPFRONT (1u << 20)

/* Makes room in Panda's own buffer for the message's first need bytes:
 * all of it at once up to PAN_REASM_UPFRONT, then growing with what
 * arrives, not with what the header claims, so that a header that lies
 * about the length costs little more memory than was sent. */
static void own_room(pan_reasm_t *r, size_t need)
{
    if (need <= r->cap) {
        return;
    }
    size_t cap = r->cap > 0 ? r->cap : PAN_REASM_UPFRONT;
    while (cap < need) {
        cap *= 2;
    }
    if (cap > r->hdr.len) {
        cap = r->hdr.len;
    }
    char *b = realloc(r->buf, cap);
    if (b == NULL) {
        lci_abort(1, "Panda: no memory to reassemble a message");
    }
    r->buf = b;
    r->cap = cap;
}

/* Starts a message in slot r: in the buffer the port's placement names, or
 * in one of Panda's own.  head NULL asks the placement a last time.
 * Returns 0 if the placement said "later". */
static int reasm_begin(pan_reasm_t *r, const pan_wire_hdr_t *hdr, int src,
                       const char *head, size_t head_len)
{
    r->hdr = *hdr;
    r->got = 0;
    r->skip = 0;
    r->placed = 0;
    r->buf = NULL;
    r->cap = 0;
    pan_port_t *p = hdr->kind == PAN_K_ONEWAY || hdr->kind == PAN_K_BCAST
                        ? &pan->ports[hdr->port]
                        : NULL;
    if (p != NULL && p->place != NULL) {
        size_t skip = 0;
        void *dst =
            p->place(src, head, head_len, hdr->len, &skip, p->place_arg);
        if (dst == PAN_PLACE_LATER && head != NULL) {
            return 0;
        }
        if (dst != NULL && dst != PAN_PLACE_LATER && skip <= hdr->len) {
            r->placed = 1;
            r->skip = skip;
            r->buf = dst;
        }
    }
    r->active = 1;
    return 1;
}

/* Adds one fragment's n bytes; completes the message at its end. */
static void reasm_add(pan_reasm_t *r, int src, const char *data, size_t n)
{
    if (n > r->hdr.len - r->got) {
        lci_abort(1, "Panda: a fragment runs past the end of its message");
    }
    /* A placement keeps the bytes before skip out of its buffer. */
    size_t drop = r->got < r->skip ? r->skip - r->got : 0;
    if (drop > n) {
        drop = n;
    }
    if (!r->placed) {
        own_room(r, r->got + n);
    }
    if (n > drop) {
        lci_copy(r->buf + (r->got + drop - r->skip), data + drop, n - drop);
    }
    r->got += n;
    if (r->got < r->hdr.len) {
        return;
    }
    char *buf = r->buf;
    r->buf = NULL;
    r->active = 0;
    if (r->placed) {
        pan_wire_hdr_t h = r->hdr;
        h.len = (uint32_t)(r->hdr.len - r->skip);
        pan_complete_placed(&h, src, buf);
    } else {
        pan_complete(&r->hdr, src, buf);
    }
}

static pan_reasm_t *slot_of(const lci_rpacket_t *packet)
{
    return packet->group < 0 ? &pan->uni[packet->src] : &pan->mc[packet->src];
}

/* A first fragment's header must name a kind Panda knows and, for the
 * kinds that have one, a port or service that exists: the index is used
 * unchecked from here on. */
static void check_header(const pan_wire_hdr_t *hdr, int src)
{
    int ok;
    switch (hdr->kind) {
    case PAN_K_ONEWAY:
    case PAN_K_BCAST:
    case PAN_K_OBCAST:
        ok = hdr->port < PAN_NPORTS;
        break;
    case PAN_K_REQ:
        ok = hdr->port < PAN_NSERVICES;
        break;
    case PAN_K_REP:
    case PAN_K_BARRIER_IN:
    case PAN_K_BARRIER_OUT:
        ok = 1;
        break;
    default:
        ok = 0;
    }
    if (!ok) {
        char msg[128];
        snprintf(msg, sizeof msg,
                 "Panda: node %d sent a message of kind %u to port %u, "
                 "which this node does not have",
                 src, hdr->kind, hdr->port);
        lci_abort(1, msg);
    }
}

/* Takes one packet in.  Returns 0 if its message's placement said
 * "later" (the packet must wait); force makes it decide. */
static int take(const lci_rpacket_t *packet, int force)
{
    pan_wire_hdr_t hdr;
    if (packet->len < sizeof hdr) {
        lci_abort(1, "Panda: a packet shorter than Panda's header arrived");
    }
    memcpy(&hdr, packet->data, sizeof hdr);
    pan_reasm_t *r = slot_of(packet);
    const char *body = (const char *)packet->data + sizeof hdr;
    size_t n = packet->len - sizeof hdr;
    if (hdr.first) {
        if (r->active) {
            lci_abort(1, "Panda: a message began before the previous one "
                         "from the same sender was complete");
        }
        check_header(&hdr, packet->src);
        if (!reasm_begin(r, &hdr, packet->src, force ? NULL : body,
                         force ? 0 : n)) {
            return 0;
        }
    } else if (!r->active) {
        lci_abort(1, "Panda: a fragment arrived without its first fragment");
    }
    reasm_add(r, packet->src, body, n);
    return 1;
}

/* Takes in the held packets of slot r while their placements allow,
 * forcing the first when force.  Inside LCI's upcall the packets taken are
 * released later, from pan_reasm_retry. */
static void drain(pan_reasm_t *r, int in_upcall, int force)
{
    int i = 0;
    while (i < r->nheld && take(r->held[i], force && i == 0)) {
        if (in_upcall) {
            push_packet(&pan->unkept, &pan->nunkept, &pan->unkept_cap, r->held[i]);
        } else {
            lci_release(r->held[i]);
        }
        i++;
    }
    r->nheld -= i;
    memmove(r->held, r->held + i, (size_t)r->nheld * sizeof *r->held);
    if (r->nheld == 0) {
        pan->holding--;
    }
}

void pan_reasm_retry(void)
{
    for (int i = 0; i < pan->nunkept; i++) {
        lci_release(pan->unkept[i]);
    }
    pan->nunkept = 0;
    for (int i = 0; i < pan->size && pan->holding > 0; i++) {
        if (pan->uni[i].nheld > 0) {
            drain(&pan->uni[i], 0, 0);
        }
        if (pan->mc[i].nheld > 0) {
            drain(&pan->mc[i], 0, 0);
        }
    }
}

lci_upcall_result_t pan_reasm_upcall(lci_rpacket_t *packet, void *arg)
{
    (void)arg;
    pan_reasm_t *r = slot_of(packet);
    if (r->nheld == 0) {
        if (take(packet, 0)) {
            return LCI_UPCALL_RELEASE;
        }
        pan->holding++;
        push_packet(&r->held, &r->nheld, &r->held_cap, packet);
        return LCI_UPCALL_KEEP;
    }
    /* Packets wait on this path: this one queues behind them. */
    push_packet(&r->held, &r->nheld, &r->held_cap, packet);
    if (r->nheld > PAN_PLACE_HOLD) {
        drain(r, 1, 1); /* too many wait: the first message decides now */
    }
    return LCI_UPCALL_KEEP;
}
