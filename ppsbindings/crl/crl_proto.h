/*
 * crl_proto.h - CRL's messages on the wire.
 *
 * Every CRL packet starts with one header.  Messages that carry region
 * data larger than a packet are cut into fragments, each with the full
 * header and its offset in the region; the receiver copies each fragment
 * into place and counts bytes, so no reassembly buffer is needed.  LCI
 * delivers each sender's packets in order, which the protocol relies on:
 * a reply always reaches the requester before a later invalidation.
 */
#ifndef CRL_PROTO_H
#define CRL_PROTO_H

#include <stdint.h>

typedef enum {
    /* remote -> home */
    CRL_MSG_MAP_REQ = 1, /* size of region rid? */
    CRL_MSG_SHARED_REQ = 2,
    CRL_MSG_EXCL_REQ = 3,
    CRL_MSG_INV_ACK = 4,      /* copy dropped */
    CRL_MSG_INV_ACK_DATA = 5, /* exclusive copy dropped; data follows */
    CRL_MSG_FLUSH = 6,        /* shared copy given back */
    CRL_MSG_FLUSH_DATA = 7,   /* exclusive copy given back with its data */
    /* home -> remote */
    CRL_MSG_MAP_REP = 8,     /* size (0: no such region) */
    CRL_MSG_SHARED_DATA = 9, /* read granted, data follows */
    CRL_MSG_EXCL_DATA = 10,  /* write granted, data follows */
    CRL_MSG_EXCL_ACK = 11,   /* write granted, the shared copy is still valid */
    CRL_MSG_INV = 12,
    CRL_MSG_DELETE = 13,
    /* global operations */
    CRL_MSG_BCAST = 14,           /* rgn_bcast_send fragment, to every node */
    CRL_MSG_REDUCE_IN = 15,       /* a node's value, to node 0 */
    CRL_MSG_REDUCE_OUT = 16,      /* the result, from node 0 to every node */
    CRL_MSG_BARRIER_ARRIVE = 17,  /* a node reached rgn_barrier, to node 0 */
    CRL_MSG_BARRIER_RELEASE = 18, /* all did, from node 0 to every node */
    CRL_MSG_DELETE_ACK = 19       /* a deleted region's copy is dropped */
} crl_msg_type_t;

typedef struct {
    uint8_t type; /* crl_msg_type_t */
    uint8_t reserved[3];
    uint32_t size;   /* region size; bcast: message length */
    uint32_t offset; /* of this fragment's data */
    uint32_t seq;    /* reductions and broadcasts: sequence number */
    uint64_t rid;
} crl_msg_hdr_t;

_Static_assert(sizeof(crl_msg_hdr_t) == 24, "CRL header is 24 bytes");

/* The payload of reduction messages. */
typedef struct {
    uint32_t op; /* crl_reduce_op_t */
    uint32_t reserved;
    double value;
} crl_reduce_msg_t;

_Static_assert(sizeof(crl_reduce_msg_t) == 16, "reduction payload");

#endif
