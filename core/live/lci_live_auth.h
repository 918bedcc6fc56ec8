/*
 * lci_live_auth.h - who may speak on the UDP wire: the job's own nodes.
 *
 * Every job has a fresh random key, handed to its nodes by the launcher
 * (lci-run's fabric, inherited as a memfd; or PMIx under mpirun/srun),
 * never written to disk or a command line.  Every datagram carries a
 * trailer: the sending rank, a per-receiver counter, and a 16-byte tag
 * (libsodium's AES-256-GCM where every node has AES instructions, four to
 * six times cheaper, else ChaCha20-Poly1305; over the whole packet as
 * associated data, nothing encrypted; the nonce is sender, receiver and
 * counter).  The tag binds the
 * packet to the job (key), its sender and receiver (nonce) and its place
 * in the sender's stream (counter); a sliding window of counters per
 * sender turns a replayed datagram away.
 *
 * Datagram: [ LCI packet | sender u16 | zero u16 | counter u64 | tag 16 ]
 */
#ifndef LCI_LIVE_AUTH_H
#define LCI_LIVE_AUTH_H

#include <sodium.h>
#include <stdint.h>

#include "lci.h"
#include "lci_config.h"

#define LCI_AUTH_KEY_BYTES 32
#define LCI_AUTH_TRAILER_BYTES 28
/* Counters this far behind the newest from a sender are still taken
 * (once): a datagram network may reorder. */
#define LCI_AUTH_WINDOW 64

typedef struct {
    crypto_aead_aes256gcm_state aes; /* the key, expanded (use_aes) */
    int use_aes;
    unsigned char key[LCI_AUTH_KEY_BYTES];
    uint32_t rank, size;
    uint64_t *sent;   /* per receiver: the last counter used */
    uint64_t *newest; /* per sender: the newest counter taken */
    uint64_t *window; /* per sender: bit i set if newest - i was taken */
} lci_live_auth_t;

/* Why a datagram was turned away (LCI_AUTH_OK: it was not). */
typedef enum {
    LCI_AUTH_OK = 0,
    LCI_AUTH_SHORT,  /* too short to hold a trailer and a packet */
    LCI_AUTH_SENDER, /* names no node of the job */
    LCI_AUTH_TAG,    /* forged, damaged, or for another job or node */
    LCI_AUTH_REPLAY, /* a counter already taken, or too old to tell */
} lci_auth_verdict_t;

/* A fresh random job key (the launcher's). */
lci_status_t lci_live_auth_new_key(unsigned char key[LCI_AUTH_KEY_BYTES]);

/* Whether this node can use AES-256-GCM; a job uses it only if every
 * node can (the launcher's or PMIx's exchange tells). */
int lci_live_auth_aes_here(void);

lci_status_t lci_live_auth_init(lci_live_auth_t *a,
                                const unsigned char key[LCI_AUTH_KEY_BYTES],
                                uint32_t rank, uint32_t size, int use_aes);
void lci_live_auth_fini(lci_live_auth_t *a);

/* Fills the trailer that follows packet pkt (bytes long) to node dst. */
void lci_live_auth_seal(lci_live_auth_t *a, uint32_t dst,
                        const unsigned char *pkt, uint32_t bytes,
                        unsigned char trailer[LCI_AUTH_TRAILER_BYTES]);

/* The sender a datagram claims (unchecked; for the source address check
 * before the tag is), or UINT32_MAX if it is too short to say. */
uint32_t lci_live_auth_claimed_sender(const unsigned char *dgram,
                                      uint32_t bytes);

/* Checks a datagram to this node; on LCI_AUTH_OK *src_p is its sender and
 * *pkt_bytes_p the length of the packet at its start, and its counter is
 * taken (the same datagram again is a replay). */
lci_auth_verdict_t lci_live_auth_open(lci_live_auth_t *a,
                                      const unsigned char *dgram,
                                      uint32_t bytes, uint32_t *src_p,
                                      uint32_t *pkt_bytes_p);

#endif
