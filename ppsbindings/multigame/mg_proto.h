/*
 * mg_proto.h - the search layer's packets.
 *
 * A message of up to k jobs travels in as many packets as it needs, each
 * carrying whole jobs after the header, so a receiver never reassembles.
 * The termination token carries Safra's sum of per-node counts (jobs sent
 * minus jobs received) and its colour.
 */
#ifndef MG_PROTO_H
#define MG_PROTO_H

#include <stdint.h>

typedef enum {
    MG_MSG_JOBS = 1,  /* count jobs follow */
    MG_MSG_TOKEN = 2, /* termination token, towards node 0 */
    MG_MSG_DONE = 3   /* node 0 found termination: broadcast */
} mg_msg_type_t;

typedef enum {
    MG_WHITE = 0,
    MG_BLACK = 1
} mg_colour_t;

typedef struct {
    uint8_t type;   /* mg_msg_type_t */
    uint8_t colour; /* token: mg_colour_t */
    uint16_t count; /* jobs: how many follow */
    uint32_t run;   /* which mg_run this belongs to */
    int64_t q;      /* token: sum of counts so far */
} mg_msg_hdr_t;

_Static_assert(sizeof(mg_msg_hdr_t) == 16, "search header is 16 bytes");

#endif
