/* lci_config.c - run configuration defaults, derivation and checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h" /* LCI_DECOMP_DEFAULT: the first one built in */
#include "lci_config.h"

void lci_config_set_packet_size(lci_config_t *cfg, uint32_t packet_size)
{
    cfg->packet_size = packet_size;
    if (!cfg->pools_set) {
        /* The paper's Table 3, RX_no columns: the pools shrink with the
         * packet size so the NI memory use stays the same. */
        cfg->nsend = packet_size >= 2048 ? 64 : 128;
        cfg->nrecv = packet_size >= 2048 ? 256 : 512;
    }
}

void lci_config_defaults(lci_config_t *cfg, uint32_t nnodes,
                         uint32_t packet_size)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->nnodes = nnodes;
    cfg->window = 8;
    lci_config_set_packet_size(cfg, packet_size);
    cfg->nring = 4096;
    cfg->nfa = 16;
    cfg->ngroups = 32;
    cfg->group_members = 4096;
    /* AM-II returns a packet to its sender after 255 tries; Table 3's
     * timer granularity for the retransmitting implementations is 5 ms. */
    cfg->max_retries = 255;
    cfg->rto_ns = 5000000;
    cfg->ack_delay_ns = 1000000;
    /* AM-II's Myrinet NIC held seven endpoint frames. */
    cfg->ep_frames = 7;
    cfg->sram_bytes = 1u << 20;
    cfg->lookahead_ns = UINT64_MAX; /* as far as is exact */
    cfg->seed = 1;
    cfg->compute = LCI_COMPUTE_ZERO;
    cfg->pin = 1;
    snprintf(cfg->decomp, sizeof cfg->decomp, "%s", LCI_DECOMP_DEFAULT);
    snprintf(cfg->platform, sizeof cfg->platform, "%s", "sim");
}

/* On the live platform every packet is copied through host memory, which
 * the NI's buffers are: a send pool deeper than the credit window keeps
 * packets queued in buffers that have left the cache by their turn.
 * Unless the pools are given, it holds at most this many bytes, and a
 * window of buffers at least (MPI bandwidth, 64 KiB messages in 16 KiB
 * packets: 6.7 GB/s with Table 3's 64 buffers, 7.6 GB/s with 16). */
#define LIVE_SEND_POOL_BYTES (256u << 10)
#define LIVE_SEND_POOL_MIN 8

static void live_send_pool(lci_config_t *cfg)
{
    uint32_t fit = LIVE_SEND_POOL_BYTES / cfg->packet_size;
    if (fit < LIVE_SEND_POOL_MIN) {
        fit = LIVE_SEND_POOL_MIN;
    }
    if (cfg->nsend > fit) {
        cfg->nsend = fit;
    }
}

lci_status_t lci_config_finish(lci_config_t *cfg, char *err, size_t errlen)
{
    if (cfg->nnodes < 1 || cfg->nnodes > LCI_MAX_NODES) {
        snprintf(err, errlen, "number of nodes %u is out of range 1..%u",
                 cfg->nnodes, LCI_MAX_NODES);
        return LCI_ERR_CONFIG;
    }
    if (cfg->packet_size < 64 || cfg->packet_size > 65536 ||
        cfg->packet_size % 8 != 0) {
        snprintf(err, errlen,
                 "packet size %u must be a multiple of 8 in 64..65536",
                 cfg->packet_size);
        return LCI_ERR_CONFIG;
    }
    if (cfg->nsend < 2 || cfg->nrecv < 2 || cfg->nring < 2) {
        snprintf(err, errlen,
                 "pools too small: %u send, %u receive buffers, %u ring "
                 "slots (at least 2 each)",
                 cfg->nsend, cfg->nrecv, cfg->nring);
        return LCI_ERR_CONFIG;
    }
    uint32_t peers = cfg->nnodes > 1 ? cfg->nnodes - 1 : 1;
    if (strncmp(cfg->decomp, "rxno", 4) != 0) {
        /* Retransmitting decompositions share receive buffers among all
         * senders and hold sent packets until acknowledged: Table 3's
         * columns 4 and 5, with a window of 8 packets. */
        if (!cfg->pools_set) {
            cfg->nsend = cfg->packet_size >= 2048 ? 128 : 256;
            cfg->nrecv = cfg->packet_size >= 2048 ? 192 : 384;
            cfg->window = 8;
        }
    } else {
        /* RX_no reserves a window of receive buffers for every other node:
         * the window is what the receive pool allows (Table 3: 8 packets
         * with 1 KiB and 4 with 2 KiB on 64 nodes). */
        uint32_t fit = cfg->nrecv / peers;
        if (fit < cfg->window) {
            cfg->window = fit;
        }
    }
    if (!cfg->pools_set && strcmp(cfg->platform, "live") == 0) {
        live_send_pool(cfg);
    }
    if (cfg->window < 1) {
        snprintf(err, errlen,
                 "%u receive buffers cannot give each of %u senders a "
                 "window of even 1 packet; raise --recv-buffers or the "
                 "SRAM size",
                 cfg->nrecv, peers);
        return LCI_ERR_CONFIG;
    }
    const lci_fault_config_t *f = &cfg->fault;
    if (f->drop < 0 || f->drop > 1 || f->corrupt < 0 || f->corrupt > 1 ||
        f->dup < 0 || f->dup > 1 || f->burst < 0 || f->burst > 1) {
        snprintf(err, errlen, "fault probabilities must lie in [0, 1]");
        return LCI_ERR_CONFIG;
    }
    const lci_fault_window_t *w[] = {&f->linkdown, &f->nobuf, &f->nopoll,
                                     &f->die};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        if (w[i]->dur > 0 && (w[i]->a >= cfg->nnodes ||
                              (w[i] == &f->linkdown && w[i]->b >= cfg->nnodes))) {
            snprintf(err, errlen,
                     "fault names node %u, but the nodes are 0..%u",
                     w[i]->b >= cfg->nnodes ? w[i]->b : w[i]->a,
                     cfg->nnodes - 1);
            return LCI_ERR_CONFIG;
        }
    }
    return LCI_OK;
}
