/*
 * lci_contract.h - the contract between the host library and the NI
 * firmware, and the packet format on the wire.  Nothing else lives here.
 *
 * Host -> NI: the host takes a send buffer from the free-send ring, fills
 * it by PIO, writes a command into the command ring and rings the doorbell
 * (writes the producer index) unless the NI will look at the ring by then
 * anyway.  NI -> host: the NI DMAs each packet into the
 * next slot of the host receive ring and sets the slot's full flag; it
 * returns send buffers through the free-send ring.
 *
 * Everything the NI writes for the host carries the (virtual) time at which
 * it becomes visible, so a host never sees the future on the simulated
 * platform.  Fields written by the NI are prefixed ni_, fields written by the
 * host h_.
 */
#ifndef LCI_CONTRACT_H
#define LCI_CONTRACT_H

#include <stdint.h>

#include "lci.h"

/* ---- wire packet header -------------------------------------------- */

typedef enum {
    LCI_PKT_DATA = 1,   /* unicast data */
    LCI_PKT_MCAST = 2,  /* multicast data, forwarded along the tree */
    LCI_PKT_CREDIT = 3, /* explicit acknowledgement: credits / ack number */
    LCI_PKT_FA_REQ = 4, /* fetch-and-add request */
    LCI_PKT_FA_REP = 5, /* fetch-and-add reply */
    LCI_PKT_NACK = 6,   /* retransmission request */
    LCI_PKT_RETURNED = 7, /* NI -> host only: a packet that could not be
                             delivered to dst; aux = -lci_status_t */
    LCI_PKT_ROUTE = 8,  /* route discovery (VMMC-2): aux LCI_ROUTE_PROBE
                           asks, LCI_ROUTE_FOUND answers */
    LCI_PKT_TYPE_MAX = 9
} lci_pkt_type_t;

enum {
    LCI_HF_INTERNAL = 1u << 0, /* for the LCI library itself (barrier) */
    LCI_HF_ACKREQ = 1u << 1,   /* receiver should acknowledge at once */
    LCI_HF_ACK = 1u << 2,      /* the ack field acknowledges up to it */
    LCI_HF_SEQ_ONLY = 1u << 3, /* NI -> host only, under an unordered rx
                                  (LCI_RX_UNORDERED): the NI served or
                                  dropped this packet; the host takes only
                                  its place in its sender's order */
    LCI_HF_EARLY = 1u << 4,    /* rxh-mni: an unsequenced early copy of a
                                  multicast packet, forwarded NI to NI
                                  ahead of the host's reliable copy */
};

/* A multicast packet's aux: the root's member index in its group, and
 * (rxh-mni) the root's multicast sequence number in the group, by which a
 * receiver takes the first of the copies it gets. */
static inline uint32_t lci_mcast_member(uint32_t aux)
{
    return aux & 0xffffu;
}

static inline uint16_t lci_mcast_seq(uint32_t aux)
{
    return (uint16_t)(aux >> 16);
}

static inline uint32_t lci_mcast_aux(uint32_t member, uint16_t seq)
{
    return (member & 0xffffu) | ((uint32_t)seq << 16);
}

/* The aux field of an LCI_PKT_ROUTE packet. */
enum { LCI_ROUTE_PROBE = 0, LCI_ROUTE_FOUND = 1 };

typedef struct {
    uint32_t crc;       /* CRC-32 over the header (crc = 0) and payload */
    uint16_t len;       /* payload bytes */
    uint8_t type;       /* lci_pkt_type_t */
    uint8_t flags;      /* LCI_HF_* */
    uint16_t origin;    /* node that created the packet (multicast root) */
    uint16_t dst;       /* next hop: the NI this transmission goes to */
    uint16_t hop_src;   /* the NI that transmitted it (tree neighbour) */
    uint16_t credits;   /* piggybacked: buffers released for hop_src */
    uint16_t group;     /* multicast group id */
    uint16_t seq;       /* go-back-N sequence number */
    uint16_t ack;       /* go-back-N cumulative acknowledgement */
    uint16_t link_seq;  /* stamped and checked by the link hardware */
    uint32_t aux;       /* F&A: variable | token */
    uint16_t ep;        /* the endpoint it is for, on the destination */
    uint16_t src_ep;    /* the endpoint that sent it */
} lci_wire_hdr_t;
_Static_assert(sizeof(lci_wire_hdr_t) == 32, "wire header is 32 bytes");

/* Control packets are header-only and need no receive buffer. */
static inline int lci_pkt_is_control(uint8_t type)
{
    return type == LCI_PKT_CREDIT || type == LCI_PKT_NACK ||
           type == LCI_PKT_ROUTE;
}

/* Status the receiving link hardware attaches to an arrived packet. */
typedef enum {
    LCI_HW_OK = 0,
    LCI_HW_CRC = 1,      /* CRC mismatch: the packet was damaged */
    LCI_HW_SEQ_GAP = 2,  /* a packet on this link went missing before it */
    LCI_HW_SEQ_DUP = 3,  /* this packet was seen before */
} lci_hw_status_t;

/* ---- host -> NI command ring --------------------------------------- */

typedef enum {
    LCI_CMD_SEND = 1,  /* unicast buf to dst */
    LCI_CMD_MCAST = 2, /* multicast buf to group (dst = group) */
    LCI_CMD_FA = 3,    /* fetch-and-add request in buf to dst */
    LCI_CMD_FWD = 4,   /* host-level forwarding: multicast packet in buf to
                          tree child dst, as from origin in group (aux: the
                          root's member index) */
    LCI_CMD_RAW = 5,   /* host-level reliability: put buf (LCI_NONE: a
                          header-only packet) on the wire to dst exactly
                          with this header; the host keeps the buffer */
    LCI_CMD_EARLY = 6, /* rxh-mni: early copies of the multicast packet in
                          buf (group, aux as given) to this node's tree
                          children; the host keeps the buffer */
} lci_cmd_op_t;

typedef struct {
    uint32_t buf;    /* send buffer index */
    uint16_t len;    /* payload bytes */
    uint16_t dst;    /* destination node or group id */
    uint8_t op;      /* lci_cmd_op_t */
    uint8_t flags;   /* LCI_HF_* for the header */
    uint16_t origin; /* LCI_CMD_FWD: the multicast root */
    uint16_t group;  /* LCI_CMD_FWD: the multicast group */
    uint8_t shares;  /* commands for this buffer, on the first of them (a
                        host-forwarded packet is posted once per child);
                        0 on the others */
    uint8_t type;    /* LCI_CMD_RAW: the packet type */
    uint32_t aux;
    uint16_t seq;    /* LCI_CMD_RAW: sequence and acknowledgement */
    uint16_t ack;
    uint64_t h_time; /* when the command reaches the NI (PCI latency) */
    uint16_t ep;     /* destination endpoint */
    uint16_t src_ep; /* sending endpoint */
    uint32_t reserved;
} lci_cmd_t;
_Static_assert(sizeof(lci_cmd_t) == 40, "command descriptor is 40 bytes");

/* A command carries the header fields of the packet it asks for: these
 * two copy them in and out, in one place. */
static inline void lci_cmd_set_hdr(lci_cmd_t *cmd, const lci_wire_hdr_t *hdr)
{
    cmd->len = hdr->len;
    cmd->dst = hdr->dst;
    cmd->type = hdr->type;
    cmd->flags = hdr->flags;
    cmd->origin = hdr->origin;
    cmd->group = hdr->group;
    cmd->seq = hdr->seq;
    cmd->ack = hdr->ack;
    cmd->aux = hdr->aux;
    cmd->ep = hdr->ep;
    cmd->src_ep = hdr->src_ep;
}

static inline void lci_cmd_get_hdr(const lci_cmd_t *cmd, lci_wire_hdr_t *hdr)
{
    hdr->len = cmd->len;
    hdr->dst = cmd->dst;
    hdr->type = cmd->type;
    hdr->flags = cmd->flags;
    hdr->origin = cmd->origin;
    hdr->group = cmd->group;
    hdr->seq = cmd->seq;
    hdr->ack = cmd->ack;
    hdr->aux = cmd->aux;
    hdr->ep = cmd->ep;
    hdr->src_ep = cmd->src_ep;
}

/* ---- NI -> host receive ring --------------------------------------- */

/* The host receive ring is a ring of descriptors; each names the host
 * receive buffer (from the host's pool of nring buffers) holding the
 * payload.  The host recycles a descriptor as soon as it has read it and a
 * buffer when the packet is released, so a kept packet holds only its
 * buffer.  The host returns free buffers on a stack, so the buffers in use
 * stay few and warm. */
typedef struct {
    uint32_t ni_full;   /* 1 when the NI filled the descriptor */
    uint32_t ni_hbuf;   /* host receive buffer holding the payload */
    uint64_t ni_time;   /* virtual time the packet became visible */
    lci_wire_hdr_t hdr; /* header as received */
} lci_ring_slot_t;
_Static_assert(sizeof(lci_ring_slot_t) == 48, "ring descriptor is 48 bytes");

/* The host's stack of free receive buffers (count, then indices). */
typedef struct {
    uint32_t h_count;
    uint32_t reserved;
    /* uint32_t index[nring] follows */
} lci_hbuf_stack_t;

/* ---- NI -> host free-send ring entry ------------------------------- */

typedef struct {
    uint32_t buf;     /* send buffer index */
    uint32_t reserved;
    uint64_t ni_time; /* when the buffer became free */
} lci_free_entry_t;

/* ---- firmware failure codes (reported to the host; no stdio on NI) -- */

typedef enum {
    LCI_FW_OK = 0,
    LCI_FW_RXNO_CRC = 1,       /* RX_no: damaged packet arrived */
    LCI_FW_RXNO_LOST = 2,      /* RX_no: link reported a lost packet */
    LCI_FW_RXNO_DUP = 3,       /* RX_no: link reported a duplicate */
    LCI_FW_RXNO_NOBUF = 4,     /* RX_no: no receive buffer despite credits */
    LCI_FW_QUEUE_FULL = 5,     /* an NI queue overflowed: sizing error */
    LCI_FW_BAD_COMMAND = 6,    /* host posted a malformed command */
    LCI_FW_UNSUPPORTED = 7,    /* the firmware cannot do what was asked */
} lci_fw_fault_t;

/* Maps a firmware fault to the status the host reports. */
static inline lci_status_t lci_fw_fault_status(uint32_t fault)
{
    switch (fault) {
    case LCI_FW_OK:
        return LCI_OK;
    case LCI_FW_RXNO_CRC:
    case LCI_FW_RXNO_LOST:
    case LCI_FW_RXNO_DUP:
    case LCI_FW_RXNO_NOBUF:
        return LCI_ERR_PROTOCOL;
    case LCI_FW_QUEUE_FULL:
        return LCI_ERR_CONFIG;
    default:
        return LCI_ERR_PLATFORM;
    }
}

#endif
