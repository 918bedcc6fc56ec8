/* fuzz_udp.c - libFuzzer harness for the UDP wire's gate (core/live/
 * lci_live_auth.c), the first code that sees a datagram from the network.
 * Beyond the sanitizers it checks that bytes from outside the job are
 * never admitted, and that the same bytes sealed by a job node are
 * admitted once, with the right sender and length, and never again, and
 * not after any one bit of them changed. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lci_live_auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NODES 3
#define MAX_PKT 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned char key[LCI_AUTH_KEY_BYTES];
    static int keyed;
    if (!keyed) {
        if (lci_live_auth_new_key(key) != LCI_OK) {
            abort();
        }
        keyed = 1;
    }
    /* the input's first byte picks the algorithm, where there is a choice */
    int aes = size > 0 && data[0] % 2 && lci_live_auth_aes_here();
    lci_live_auth_t sender, receiver;
    if (lci_live_auth_init(&sender, key, 1, NODES, aes) != LCI_OK ||
        lci_live_auth_init(&receiver, key, 0, NODES, aes) != LCI_OK) {
        abort();
    }
    uint32_t src = 0, len = 0;
    /* from outside: never admitted */
    if (size <= UINT32_MAX &&
        lci_live_auth_open(&receiver, data, (uint32_t)size, &src, &len) ==
            LCI_AUTH_OK) {
        abort();
    }
    if (size > 0 && size <= MAX_PKT) {
        unsigned char *d = malloc(size + LCI_AUTH_TRAILER_BYTES);
        if (d == NULL) {
            abort();
        }
        memcpy(d, data, size);
        lci_live_auth_seal(&sender, 0, d, (uint32_t)size, d + size);
        uint32_t bytes = (uint32_t)size + LCI_AUTH_TRAILER_BYTES;
        uint32_t bit = (uint32_t)data[0] * 131u % (bytes * 8);
        d[bit / 8] ^= (unsigned char)(1u << bit % 8);
        if (lci_live_auth_open(&receiver, d, bytes, &src, &len) == LCI_AUTH_OK) {
            abort(); /* one bit changed */
        }
        d[bit / 8] ^= (unsigned char)(1u << bit % 8);
        if (lci_live_auth_open(&receiver, d, bytes, &src, &len) !=
                LCI_AUTH_OK ||
            src != 1 || len != size || memcmp(d, data, size) != 0) {
            abort(); /* the job's own */
        }
        if (lci_live_auth_open(&receiver, d, bytes, &src, &len) !=
            LCI_AUTH_REPLAY) {
            abort(); /* and only once */
        }
        free(d);
    }
    lci_live_auth_fini(&sender);
    lci_live_auth_fini(&receiver);
    return 0;
}
