/* lci_config.c - run configuration defaults, derivation and checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lci_config.h"

void lci_config_defaults(lci_config_t *cfg, uint32_t nnodes,
                         uint32_t packet_size)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->nnodes = nnodes;
    cfg->packet_size = packet_size;
    /* The paper's Table 3, RX_no columns: the pools shrink with the packet
     * size so the NI memory use stays the same. */
    cfg->nsend = packet_size >= 2048 ? 64 : 128;
    cfg->nrecv = packet_size >= 2048 ? 256 : 512;
    cfg->window = 8;
    cfg->nring = 4096;
    cfg->nfa = 16;
    cfg->ngroups = 32;
    cfg->group_members = 4096;
    /* AM-II returns a packet to its sender after 255 tries; Table 3's
     * timer granularity for the retransmitting implementations is 5 ms. */
    cfg->max_retries = 255;
    cfg->rto_ns = 5000000;
    cfg->ack_delay_ns = 1000000;
    cfg->sram_bytes = 1u << 20;
    cfg->lookahead_ns = UINT64_MAX; /* as far as is exact */
    cfg->seed = 1;
    cfg->compute = LCI_COMPUTE_ZERO;
    cfg->pin = 1;
    snprintf(cfg->decomp, sizeof cfg->decomp, "%s", "rxno-mni");
    snprintf(cfg->platform, sizeof cfg->platform, "%s", "sim");
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
    if (cfg->window < 1) {
        snprintf(err, errlen,
                 "%u receive buffers cannot give each of %u senders a "
                 "window of even 1 packet; raise --recv-buffers or the "
                 "SRAM size",
                 cfg->nrecv, peers);
        return LCI_ERR_CONFIG;
    }
    if (cfg->fault.drop < 0 || cfg->fault.drop > 1 || cfg->fault.corrupt < 0 ||
        cfg->fault.corrupt > 1) {
        snprintf(err, errlen, "fault probabilities must lie in [0, 1]");
        return LCI_ERR_CONFIG;
    }
    return LCI_OK;
}

static int parse_prob(const char *v, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end != '\0' || d < 0 || d > 1) {
        return -1;
    }
    *out = d;
    return 0;
}

static int parse_u64(const char *v, uint64_t *out)
{
    char *end;
    if (*v == '-' || *v == '\0') {
        return -1;
    }
    unsigned long long u = strtoull(v, &end, 0);
    if (*end != '\0') {
        return -1;
    }
    *out = u;
    return 0;
}

lci_status_t lci_fault_parse(const char *spec, lci_fault_config_t *fault,
                             char *err, size_t errlen)
{
    lci_fault_config_t f = *fault;
    char buf[512];
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "fault specification too long");
        return LCI_ERR_CONFIG;
    }
    strcpy(buf, spec);
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(err, errlen,
                     "fault item '%s' is not NAME=VALUE (expected "
                     "drop=P, corrupt=P, drop-nth=K or seed=S)",
                     item);
            return LCI_ERR_CONFIG;
        }
        *eq = '\0';
        const char *name = item, *val = eq + 1;
        int bad;
        if (strcmp(name, "drop") == 0) {
            bad = parse_prob(val, &f.drop);
        } else if (strcmp(name, "corrupt") == 0) {
            bad = parse_prob(val, &f.corrupt);
        } else if (strcmp(name, "drop-nth") == 0) {
            bad = parse_u64(val, &f.drop_nth);
        } else if (strcmp(name, "seed") == 0) {
            bad = parse_u64(val, &f.seed);
        } else {
            snprintf(err, errlen,
                     "unknown fault '%s' (expected drop, corrupt, drop-nth "
                     "or seed)",
                     name);
            return LCI_ERR_CONFIG;
        }
        if (bad) {
            snprintf(err, errlen,
                     "bad value '%s' for fault %s (probabilities in [0,1], "
                     "counts and seeds non-negative integers)",
                     val, name);
            return LCI_ERR_CONFIG;
        }
    }
    *fault = f;
    return LCI_OK;
}
