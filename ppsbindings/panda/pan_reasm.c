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

static void own_buffer(pan_reasm_t *r)
{
    r->buf = r->hdr.len > 0 ? malloc(r->hdr.len) : NULL;
    if (r->buf == NULL && r->hdr.len > 0) {
        lci_abort(1, "Panda: no memory to reassemble a message");
    }
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
    pan_port_t *p = &pan->ports[hdr->port];
    if ((hdr->kind == PAN_K_ONEWAY || hdr->kind == PAN_K_BCAST) &&
        p->place != NULL) {
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
    if (!r->placed) {
        own_buffer(r);
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
