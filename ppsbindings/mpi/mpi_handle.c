/*
 * mpi_handle.c - the ids a rendezvous puts on the wire for its requests.
 *
 * A large message is announced (its send request's id), cleared to send
 * (the id again, with the receive request's) and then sent (the receive
 * request's id).  The ids are slots of a per-node table with a generation,
 * never addresses: an id that names no waiting request of this node (a
 * peer's bug, or bytes that are not what they claim) is found out here and
 * stops the run with a message, instead of being followed as a pointer.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lci.h"
#include "mpi_internal.h"

uint64_t mpi_handle_of(struct lci_mpi_request *req)
{
    mpi_handles_t *h = &mpi->handles;
    if (h->free_head >= h->cap) { /* none free (a zeroed table has none) */
        uint32_t cap = h->cap > 0 ? 2 * h->cap : 16;
        mpi_handle_slot_t *s = realloc(h->slot, cap * sizeof *s);
        if (s == NULL) {
            lci_abort(MPI_ERR_INTERN, "MPI: no memory for a request id");
        }
        for (uint32_t i = h->cap; i < cap; i++) {
            s[i] = (mpi_handle_slot_t){
                .req = NULL,
                .gen = 1,
                .next_free = i + 1 < cap ? i + 1 : MPI_HANDLE_NONE};
        }
        h->free_head = h->cap;
        h->slot = s;
        h->cap = cap;
    }
    uint32_t i = h->free_head;
    h->free_head = h->slot[i].next_free;
    h->slot[i].req = req;
    return (uint64_t)h->slot[i].gen << 32 | i;
}

struct lci_mpi_request *mpi_handle_take(uint64_t id, int src)
{
    mpi_handles_t *h = &mpi->handles;
    uint32_t i = (uint32_t)id, gen = (uint32_t)(id >> 32);
    if (i >= h->cap || h->slot[i].gen != gen || h->slot[i].req == NULL) {
        char msg[128];
        snprintf(msg, sizeof msg,
                 "MPI: node %d named request %#llx, which this node is "
                 "not waiting on",
                 src, (unsigned long long)id);
        lci_abort(MPI_ERR_INTERN, msg);
    }
    struct lci_mpi_request *req = h->slot[i].req;
    h->slot[i].req = NULL;
    h->slot[i].gen++;
    h->slot[i].next_free = h->free_head;
    h->free_head = i;
    return req;
}

void mpi_handles_free(void)
{
    free(mpi->handles.slot);
    mpi->handles = (mpi_handles_t){.free_head = MPI_HANDLE_NONE};
}
