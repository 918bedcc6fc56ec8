/*
 * lci_config.h - the run configuration: sizes of the emulated NI and host
 * structures (the paper's Table 3), fault injection and simulation knobs.
 * lci-run fills it from its options and LCI_* variables and stores it in the
 * shared segment, so every node sees the same values.
 */
#ifndef LCI_CONFIG_H
#define LCI_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "lci.h"

#define LCI_MAX_NODES 4096
#define LCI_NAME_MAX 64

typedef enum { LCI_COMPUTE_ZERO = 0, LCI_COMPUTE_SCALED = 1 } lci_compute_mode_t;

/* A fault that holds for a while: on node (or on the link a-b), during
 * [start, start + dur).  dur == 0: not configured. */
typedef struct {
    uint32_t a, b;
    uint64_t start, dur;
} lci_fault_window_t;

typedef struct {
    double drop;       /* probability a packet is lost on the wire */
    double corrupt;    /* probability a packet is damaged on the wire */
    double dup;        /* probability a packet arrives twice */
    double burst;      /* probability a burst of losses starts at a packet */
    uint64_t burst_len;/* packets lost in a burst */
    uint64_t drop_nth; /* drop the n-th data packet on the wire (0: off) */
    uint64_t seed;     /* fault randomness */
    lci_fault_window_t linkdown; /* the link between nodes a and b is down */
    lci_fault_window_t nobuf;    /* NI a finds no free receive buffer */
    lci_fault_window_t nopoll;   /* host a stops polling (computes) */
    lci_fault_window_t die;      /* node a dies at start (dur is 1) */
} lci_fault_config_t;

/* Whether window w covers time t. */
static inline int lci_fault_window_on(const lci_fault_window_t *w, uint64_t t)
{
    return w->dur > 0 && t >= w->start && t - w->start < w->dur;
}

/* Whether f loses, damages or repeats packets on the wire; without, every
 * packet arrives once and intact, and the injector need not be asked. */
static inline int lci_fault_on_wire(const lci_fault_config_t *f)
{
    return f->drop > 0 || f->corrupt > 0 || f->dup > 0 || f->burst > 0 ||
           f->drop_nth > 0 || f->linkdown.dur > 0;
}

typedef struct {
    uint32_t nnodes;
    uint32_t packet_size;  /* bytes per buffer, header included */
    uint32_t nsend;        /* NI send pool (buffers) */
    uint32_t nrecv;        /* NI receive pool (buffers) */
    uint32_t window;       /* send window (packets) */
    uint32_t nring;        /* host receive ring (buffers) */
    uint32_t nfa;          /* fetch-and-add variables per NI */
    uint32_t ngroups;      /* multicast groups per NI, group 0 included */
    uint32_t group_members;/* member slots for all groups of an NI */
    uint32_t max_retries;  /* retransmissions before return-to-sender */
    uint64_t rto_ns;       /* retransmission timeout */
    uint64_t ack_delay_ns; /* delayed-acknowledgement timeout */
    uint32_t ep_frames;    /* endpoints an NI holds at once (AM-II) */
    uint64_t sram_bytes;   /* NI SRAM arena */
    uint64_t lookahead_ns; /* how far a host may run ahead (sim) */
    uint64_t seed;
    uint32_t compute;      /* lci_compute_mode_t */
    uint32_t pin;          /* sim: run every node on one core */
    uint32_t trace_hash;   /* print the event trace hash at the end */
    uint32_t pools_set;    /* pools or window given explicitly: keep them */
    uint32_t stats;        /* print counters at the end */
    lci_fault_config_t fault;
    char decomp[LCI_NAME_MAX];
    char platform[LCI_NAME_MAX];
    uint32_t nic;  /* live: where the firmware runs (lci_nic_mode_t) */
    uint32_t wire; /* live: shared memory or UDP (lci_wire_kind_t) */
} lci_config_t;

/* Defaults for nnodes nodes and the given packet size (Table 3). */
void lci_config_defaults(lci_config_t *cfg, uint32_t nnodes,
                         uint32_t packet_size);

/* Sets the packet size, and the pools that follow it (Table 3) unless
 * they were given explicitly; nothing else changes. */
void lci_config_set_packet_size(lci_config_t *cfg, uint32_t packet_size);

/* Derives what depends on other values (window from pool and node count)
 * and checks the configuration; on error writes a message. */
lci_status_t lci_config_finish(lci_config_t *cfg, char *err, size_t errlen);

/* Parses a fault specification, e.g. "drop=0.01,dup=0.001,burst=0.001:8,
 * linkdown=3-5@2ms+5ms,nobuf=2@1ms+3ms,nopoll=4@1ms+2ms,die=6@3ms,seed=42"
 * (lci_fault.c; the README lists every item). */
lci_status_t lci_fault_parse(const char *spec, lci_fault_config_t *fault,
                             char *err, size_t errlen);

#endif
