/*
 * lci_live_auth.c - the UDP wire's datagram authentication (see
 * lci_live_auth.h).  The primitive is libsodium's, not ours.
 */
#include "lci_live_auth.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(crypto_aead_chacha20poly1305_ietf_KEYBYTES == LCI_AUTH_KEY_BYTES,
               "job key size");
_Static_assert(crypto_aead_aes256gcm_KEYBYTES == LCI_AUTH_KEY_BYTES,
               "job key size");
_Static_assert(crypto_aead_aes256gcm_NPUBBYTES == 12 &&
                   crypto_aead_aes256gcm_ABYTES == 16,
               "the same nonce and tag for both");
_Static_assert(crypto_aead_chacha20poly1305_ietf_NPUBBYTES == 12,
               "nonce: sender u16, receiver u16, counter u64");
_Static_assert(LCI_AUTH_TRAILER_BYTES ==
                   12 + crypto_aead_chacha20poly1305_ietf_ABYTES,
               "trailer: sender, zero, counter, tag");
_Static_assert(LCI_MAX_NODES <= 65536, "ranks fit the nonce's 16 bits");

static void put16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static uint32_t get16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        p[i] = (unsigned char)(v >> (8 * i));
    }
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

static void nonce_of(unsigned char nonce[12], uint32_t src, uint32_t dst,
                     uint64_t counter)
{
    put16(nonce, src);
    put16(nonce + 2, dst);
    put64(nonce + 4, counter);
}

lci_status_t lci_live_auth_new_key(unsigned char key[LCI_AUTH_KEY_BYTES])
{
    if (sodium_init() < 0) {
        return LCI_ERR_PLATFORM;
    }
    crypto_aead_chacha20poly1305_ietf_keygen(key);
    return LCI_OK;
}

int lci_live_auth_aes_here(void)
{
    return sodium_init() >= 0 && crypto_aead_aes256gcm_is_available();
}

lci_status_t lci_live_auth_init(lci_live_auth_t *a,
                                const unsigned char key[LCI_AUTH_KEY_BYTES],
                                uint32_t rank, uint32_t size, int use_aes)
{
    memset(a, 0, sizeof *a);
    if (sodium_init() < 0 || size == 0 || size > LCI_MAX_NODES ||
        rank >= size || (use_aes && !crypto_aead_aes256gcm_is_available())) {
        return LCI_ERR_PLATFORM;
    }
    memcpy(a->key, key, LCI_AUTH_KEY_BYTES);
    a->use_aes = use_aes;
    if (use_aes) {
        crypto_aead_aes256gcm_beforenm(&a->aes, key);
    }
    a->rank = rank;
    a->size = size;
    a->sent = calloc(size, sizeof *a->sent);
    a->newest = calloc(size, sizeof *a->newest);
    a->window = calloc(size, sizeof *a->window);
    if (a->sent == NULL || a->newest == NULL || a->window == NULL) {
        lci_live_auth_fini(a);
        return LCI_ERR_NOMEM;
    }
    return LCI_OK;
}

void lci_live_auth_fini(lci_live_auth_t *a)
{
    free(a->sent);
    free(a->newest);
    free(a->window);
    sodium_memzero(a->key, sizeof a->key);
    sodium_memzero(&a->aes, sizeof a->aes);
    a->sent = a->newest = a->window = NULL;
}

void lci_live_auth_seal(lci_live_auth_t *a, uint32_t dst,
                        const unsigned char *pkt, uint32_t bytes,
                        unsigned char trailer[LCI_AUTH_TRAILER_BYTES])
{
    uint64_t counter = ++a->sent[dst];
    unsigned char nonce[12];
    nonce_of(nonce, a->rank, dst, counter);
    put16(trailer, a->rank);
    put16(trailer + 2, 0);
    put64(trailer + 4, counter);
    /* A MAC only: nothing to encrypt, the packet is associated data. */
    unsigned char none[1] = {0};
    unsigned long long taglen;
    if (a->use_aes) {
        crypto_aead_aes256gcm_encrypt_detached_afternm(
            none, trailer + 12, &taglen, none, 0, pkt, bytes, NULL, nonce,
            &a->aes);
    } else {
        crypto_aead_chacha20poly1305_ietf_encrypt_detached(
            none, trailer + 12, &taglen, none, 0, pkt, bytes, NULL, nonce,
            a->key);
    }
}

uint32_t lci_live_auth_claimed_sender(const unsigned char *dgram,
                                      uint32_t bytes)
{
    if (bytes <= LCI_AUTH_TRAILER_BYTES) {
        return UINT32_MAX;
    }
    return get16(dgram + bytes - LCI_AUTH_TRAILER_BYTES);
}

/* Whether counter c from src is new, and if so takes it. */
static int take_counter(lci_live_auth_t *a, uint32_t src, uint64_t c)
{
    uint64_t newest = a->newest[src];
    if (c > newest) {
        uint64_t shift = c - newest;
        a->window[src] = shift >= 64 ? 1 : a->window[src] << shift | 1;
        a->newest[src] = c;
        return 1;
    }
    uint64_t behind = newest - c;
    if (behind >= LCI_AUTH_WINDOW || (a->window[src] >> behind & 1)) {
        return 0;
    }
    a->window[src] |= (uint64_t)1 << behind;
    return 1;
}

lci_auth_verdict_t lci_live_auth_open(lci_live_auth_t *a,
                                      const unsigned char *dgram,
                                      uint32_t bytes, uint32_t *src_p,
                                      uint32_t *pkt_bytes_p)
{
    uint32_t src = lci_live_auth_claimed_sender(dgram, bytes);
    if (src == UINT32_MAX) {
        return LCI_AUTH_SHORT;
    }
    if (src >= a->size) {
        return LCI_AUTH_SENDER;
    }
    uint32_t len = bytes - LCI_AUTH_TRAILER_BYTES;
    const unsigned char *trailer = dgram + len;
    uint64_t counter = get64(trailer + 4);
    unsigned char nonce[12];
    nonce_of(nonce, src, a->rank, counter);
    unsigned char none[1] = {0};
    if (get16(trailer + 2) != 0) {
        return LCI_AUTH_TAG;
    }
    int bad = a->use_aes
                  ? crypto_aead_aes256gcm_decrypt_detached_afternm(
                        none, NULL, none, 0, trailer + 12, dgram, len, nonce,
                        &a->aes)
                  : crypto_aead_chacha20poly1305_ietf_decrypt_detached(
                        none, NULL, none, 0, trailer + 12, dgram, len, nonce,
                        a->key);
    if (bad != 0) {
        return LCI_AUTH_TAG;
    }
    /* Only an authentic datagram moves the window: a forger cannot push
     * the real sender's counters out of it. */
    if (counter == 0 || !take_counter(a, src, counter)) {
        return LCI_AUTH_REPLAY;
    }
    *src_p = src;
    *pkt_bytes_p = len;
    return LCI_AUTH_OK;
}
