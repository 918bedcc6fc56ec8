/* fuzz_pps.c - libFuzzer harness for the message headers of Panda and of
 * the MPI layer on it: the bytes of packets from the job's other nodes,
 * which the UDP wire's authentication lets through as they are.  One node
 * (tests/fuzz/fuzz_lci_stub.c) has MPI initialised, receives posted (one
 * for anything, one small and specific) and a large send waiting for its
 * clear-to-send; the input is a series of packets from the other nodes:
 *
 *   flags (bit 7: multicast; src = 1 + flags % 3) | length u16 | bytes
 *
 * and Panda runs the handlers after each.  Beyond the sanitizers: a
 * header that names a port, service, kind or request this node does not
 * have must stop the run with a message (lci_abort), never be followed. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "fuzz_heap.h"
#include "fuzz_lci_stub.h"
#include "mpi.h"
#include "panda.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);

/* A run stopped halfway (lci_abort) leaves MPI's queues behind until the
 * next input drops them (fuzz_heap_reset): not leaks. */
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char any_buf[32768], small_buf[64];
    static char large[20000]; /* above the eager limit: a rendezvous */
    static MPI_Request any, small, send;
    static size_t at;
    /* A fresh node: the last input's state goes, whatever it held. */
    fuzz_lci_reset();
    fuzz_heap_reset();
    if (setjmp(fuzz_lci_recover) != 0) {
        return 0; /* stopped loudly, or waited for more than there is */
    }
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) !=
            MPI_SUCCESS ||
        MPI_Irecv(any_buf, sizeof any_buf, MPI_BYTE, MPI_ANY_SOURCE,
                  MPI_ANY_TAG, MPI_COMM_WORLD, &any) != MPI_SUCCESS ||
        MPI_Irecv(small_buf, sizeof small_buf, MPI_BYTE, 1, 5, MPI_COMM_WORLD,
                  &small) != MPI_SUCCESS ||
        MPI_Isend(large, sizeof large, MPI_BYTE, 2, 7, MPI_COMM_WORLD,
                  &send) != MPI_SUCCESS) {
        abort();
    }
    for (at = 0; at + 3 <= size;) {
        uint8_t flags = data[at];
        size_t len = (size_t)(data[at + 1] | data[at + 2] << 8) % 1025;
        at += 3;
        if (len > size - at) {
            len = size - at;
        }
        fuzz_lci_deliver(1 + flags % 3, flags & 0x80 ? 0 : -1, data + at,
                         len);
        at += len;
        pan_poll();
    }
    int flag;
    MPI_Test(&any, &flag, MPI_STATUS_IGNORE);
    MPI_Test(&small, &flag, MPI_STATUS_IGNORE);
    return 0;
}
