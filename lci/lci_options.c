/* lci_options.c - the run options, one table for every way of setting them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lci_options.h"
#include "lci_platform.h"

typedef lci_status_t (*option_set_func_t)(lci_options_t *opt, const char *v,
                                          char *err, size_t errlen);

typedef struct {
    const char *name;
    const char *arg;
    const char *help;
    option_set_func_t set;
} option_t;

/* A number from min to max, decimal or 0x hex, with an optional K or M
 * (binary) suffix.  Beyond the range is an error, never saturated; so are
 * signs and leading blanks, which strtoull would skip or negate. */
static int parse_u64(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    if (v == NULL || *v < '0' || *v > '9') {
        return -1;
    }
    errno = 0;
    unsigned long long u = strtoull(v, &end, 0);
    if (errno == ERANGE || end == v) {
        return -1;
    }
    uint64_t mult = 1;
    if (*end == 'K' || *end == 'k') {
        mult = 1024, end++;
    } else if (*end == 'M' || *end == 'm') {
        mult = 1024 * 1024, end++;
    }
    if (*end != '\0' || u > max / mult || u * mult < min) {
        return -1;
    }
    *out = u * mult;
    return 0;
}

#define U32_OPTION(fn, field, lo, hi, what)                                    \
    static lci_status_t fn(lci_options_t *opt, const char *v, char *err,       \
                           size_t errlen)                                      \
    {                                                                          \
        uint64_t u;                                                            \
        if (parse_u64(v, lo, hi, &u) != 0) {                                   \
            snprintf(err, errlen, "expected %s from %llu to %llu, got '%s'",   \
                     what, (unsigned long long)(lo), (unsigned long long)(hi), \
                     v ? v : "");                                              \
            return LCI_ERR_CONFIG;                                             \
        }                                                                      \
        opt->cfg.field = (uint32_t)u;                                          \
        return LCI_OK;                                                         \
    }

U32_OPTION(set_nodes, nnodes, 1, LCI_MAX_NODES, "a number of nodes")
U32_OPTION(set_send_n, nsend, 2, 65535, "a number of send buffers")
U32_OPTION(set_recv_n, nrecv, 2, 65535, "a number of receive buffers")
U32_OPTION(set_window_n, window, 1, 4096, "a window size in packets")

/* Pools and window given explicitly are kept as they are; a refused value
 * changes nothing. */
static lci_status_t set_send(lci_options_t *opt, const char *v, char *err,
                             size_t errlen)
{
    lci_status_t st = set_send_n(opt, v, err, errlen);
    if (st == LCI_OK) {
        opt->cfg.pools_set = 1;
    }
    return st;
}

static lci_status_t set_recv(lci_options_t *opt, const char *v, char *err,
                             size_t errlen)
{
    lci_status_t st = set_recv_n(opt, v, err, errlen);
    if (st == LCI_OK) {
        opt->cfg.pools_set = 1;
    }
    return st;
}

static lci_status_t set_window(lci_options_t *opt, const char *v, char *err,
                               size_t errlen)
{
    lci_status_t st = set_window_n(opt, v, err, errlen);
    if (st == LCI_OK) {
        opt->cfg.pools_set = 1;
    }
    return st;
}
U32_OPTION(set_ring, nring, 2, 1u << 20, "a number of ring slots")
U32_OPTION(set_retries, max_retries, 0, 65535, "a number of retransmissions")
U32_OPTION(set_ep_frames, ep_frames, 1, LCI_MAX_ENDPOINTS,
           "a number of endpoint frames")

#define TIME_OPTION(fn, field, what)                                           \
    static lci_status_t fn(lci_options_t *opt, const char *v, char *err,       \
                           size_t errlen)                                      \
    {                                                                          \
        uint64_t u;                                                            \
        if (parse_u64(v, 1000, 3600ull * 1000000000ull, &u) != 0) {           \
            snprintf(err, errlen, "expected %s in ns (1000 or more), got '%s'", \
                     what, v ? v : "");                                        \
            return LCI_ERR_CONFIG;                                             \
        }                                                                      \
        opt->cfg.field = u;                                                    \
        return LCI_OK;                                                         \
    }

TIME_OPTION(set_rto, rto_ns, "a retransmission timeout")
TIME_OPTION(set_ack_delay, ack_delay_ns, "a delayed-acknowledgement timeout")

static lci_status_t set_packet_size(lci_options_t *opt, const char *v,
                                    char *err, size_t errlen)
{
    uint64_t u;
    if (parse_u64(v, 64, 65536, &u) != 0 || u % 8 != 0) {
        snprintf(err, errlen,
                 "expected a packet size in bytes (a multiple of 8, 64 to "
                 "65536; the paper uses 1024 and 2048), got '%s'",
                 v ? v : "");
        return LCI_ERR_CONFIG;
    }
    /* Only the pools follow the packet size, and only where not given
     * explicitly: every other option keeps its value, in any order. */
    lci_config_set_packet_size(&opt->cfg, (uint32_t)u);
    return LCI_OK;
}

static lci_status_t set_sram(lci_options_t *opt, const char *v, char *err,
                             size_t errlen)
{
    uint64_t u;
    if (parse_u64(v, 4096, 1ull << 32, &u) != 0) {
        snprintf(err, errlen,
                 "expected an SRAM size in bytes (K and M suffixes allowed, "
                 "4K to 4096M), got '%s'",
                 v ? v : "");
        return LCI_ERR_CONFIG;
    }
    opt->cfg.sram_bytes = u;
    return LCI_OK;
}

static lci_status_t set_seed(lci_options_t *opt, const char *v, char *err,
                             size_t errlen)
{
    uint64_t u;
    if (parse_u64(v, 0, UINT64_MAX, &u) != 0) {
        snprintf(err, errlen, "expected a non-negative integer seed, got '%s'",
                 v ? v : "");
        return LCI_ERR_CONFIG;
    }
    opt->cfg.seed = u;
    if (opt->cfg.fault.seed == 0) {
        opt->cfg.fault.seed = u;
    }
    return LCI_OK;
}

static lci_status_t set_events(lci_options_t *opt, const char *v, char *err,
                               size_t errlen)
{
    uint64_t u;
    if (parse_u64(v, 1024, 1ull << 32, &u) != 0) {
        snprintf(err, errlen,
                 "expected an event-queue capacity from 1024 to 2^32, got "
                 "'%s'",
                 v ? v : "");
        return LCI_ERR_CONFIG;
    }
    opt->events = u;
    return LCI_OK;
}

static lci_status_t set_lookahead(lci_options_t *opt, const char *v,
                                  char *err, size_t errlen)
{
    uint64_t u;
    if (parse_u64(v, 1, UINT64_MAX, &u) != 0) {
        snprintf(err, errlen, "expected a lookahead in ns (>= 1), got '%s'",
                 v ? v : "");
        return LCI_ERR_CONFIG;
    }
    opt->cfg.lookahead_ns = u;
    return LCI_OK;
}

static lci_status_t set_compute(lci_options_t *opt, const char *v, char *err,
                                size_t errlen)
{
    if (v && strcmp(v, "zero") == 0) {
        opt->cfg.compute = LCI_COMPUTE_ZERO;
    } else if (v && strcmp(v, "scaled") == 0) {
        opt->cfg.compute = LCI_COMPUTE_SCALED;
    } else {
        snprintf(err, errlen, "expected 'zero' or 'scaled', got '%s'",
                 v ? v : "");
        return LCI_ERR_CONFIG;
    }
    return LCI_OK;
}

static lci_status_t set_name(char *dst, size_t cap, const char *v,
                             const char *what, char *err, size_t errlen)
{
    if (v == NULL || *v == '\0' || strlen(v) >= cap) {
        snprintf(err, errlen, "expected a %s name, got '%s'", what,
                 v ? v : "");
        return LCI_ERR_CONFIG;
    }
    snprintf(dst, cap, "%s", v);
    return LCI_OK;
}

static lci_status_t set_decomp(lci_options_t *opt, const char *v, char *err,
                               size_t errlen)
{
    return set_name(opt->cfg.decomp, sizeof opt->cfg.decomp, v,
                    "decomposition", err, errlen);
}

static lci_status_t set_platform(lci_options_t *opt, const char *v, char *err,
                                 size_t errlen)
{
    if (lci_platform_find(v) == NULL) {
        char names[256];
        lci_platform_names(names, sizeof names);
        snprintf(err, errlen, "expected platform %s, got '%s'", names,
                 v ? v : "");
        return LCI_ERR_CONFIG;
    }
    return set_name(opt->cfg.platform, sizeof opt->cfg.platform, v,
                    "platform", err, errlen);
}

static lci_status_t set_nic(lci_options_t *opt, const char *v, char *err,
                            size_t errlen)
{
    static const char *const names[] = {"auto", "inline", "thread"};
    for (uint32_t i = 0; i < 3; i++) {
        if (v != NULL && strcmp(v, names[i]) == 0) {
            opt->cfg.nic = i; /* lci_nic_mode_t */
            return LCI_OK;
        }
    }
    snprintf(err, errlen, "expected 'inline', 'thread' or 'auto', got '%s'",
             v ? v : "");
    return LCI_ERR_CONFIG;
}

static lci_status_t set_wire(lci_options_t *opt, const char *v, char *err,
                             size_t errlen)
{
    if (v != NULL && (strcmp(v, "shm") == 0 || strcmp(v, "udp") == 0)) {
        opt->cfg.wire = strcmp(v, "udp") == 0; /* lci_wire_kind_t */
        return LCI_OK;
    }
    snprintf(err, errlen, "expected 'shm' or 'udp', got '%s'", v ? v : "");
    return LCI_ERR_CONFIG;
}

static lci_status_t set_profile(lci_options_t *opt, const char *v, char *err,
                                size_t errlen)
{
    return set_name(opt->profile, sizeof opt->profile, v, "profile", err,
                    errlen);
}

static lci_status_t set_fault(lci_options_t *opt, const char *v, char *err,
                              size_t errlen)
{
    if (v == NULL) {
        snprintf(err, errlen, "expected a fault specification");
        return LCI_ERR_CONFIG;
    }
    return lci_fault_parse(v, &opt->cfg.fault, err, errlen);
}

static lci_status_t set_engine(lci_options_t *opt, const char *v, char *err,
                              size_t errlen)
{
    static const char *const names[] = {"auto", "fibers", "processes"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (v != NULL && strcmp(v, names[i]) == 0) {
            snprintf(opt->engine, sizeof opt->engine, "%s", v);
            return LCI_OK;
        }
    }
    snprintf(err, errlen,
             "expected 'fibers' (every node in one process), 'processes' "
             "(a process per node) or 'auto', got '%s'",
             v ? v : "");
    return LCI_ERR_CONFIG;
}

static const option_t options[] = {
    {"nodes", "N", "number of nodes", set_nodes},
    {"platform", "NAME",
     "sim (deterministic simulation) or live (real time, real concurrency)",
     set_platform},
    {"engine", "NAME",
     "sim: fibers (every node in one process, the default where the "
     "program allows), processes (one per node) or auto",
     set_engine},
    {"nic", "MODE",
     "live: NI firmware inline in the host's calls, on its own thread, or "
     "auto",
     set_nic},
    {"wire", "KIND", "live: shm (shared memory) or udp", set_wire},
    {"decomp", "NAME", "decomposition, e.g. rxno-mni", set_decomp},
    {"profile", "NAME|PATH", "cost profile (default myrinet-1999)",
     set_profile},
    {"compute", "zero|scaled",
     "charge application compute as zero or as scaled CPU time",
     set_compute},
    {"seed", "S", "seed of all randomness", set_seed},
    {"packet-size", "BYTES", "packet buffer size, 1024 or 2048 in the paper",
     set_packet_size},
    {"send-buffers", "N", "NI send pool (Table 3)", set_send},
    {"recv-buffers", "N", "NI receive pool (Table 3)", set_recv},
    {"window", "N", "send window in packets (capped by the receive pool)",
     set_window},
    {"ring", "N", "host receive ring slots", set_ring},
    {"sram", "BYTES", "NI SRAM size (default 1M)", set_sram},
    {"fault", "SPEC",
     "faults: drop=P,corrupt=P,dup=P,burst=P:LEN,drop-nth=K,linkdown=A-B@T+D,"
     "nobuf=N@T+D,nopoll=N@T+D,die=N@T,seed=S",
     set_fault},
    {"max-retries", "N",
     "retransmissions before return-to-sender (default 255)", set_retries},
    {"rto", "NS", "retransmission timeout (default 5 ms)", set_rto},
    {"ack-delay", "NS", "delayed-acknowledgement timeout (default 1 ms)",
     set_ack_delay},
    {"ep-frames", "N",
     "endpoints the NI holds at once; others are paged in on demand "
     "(AM-II decompositions; default 7)",
     set_ep_frames},
    {"events", "N", "event-queue capacity (default 4M)", set_events},
    {"lookahead", "NS",
     "how far a host may run ahead; capped at the doorbell latency",
     set_lookahead},
};

void lci_options_defaults(lci_options_t *opt)
{
    memset(opt, 0, sizeof *opt);
    lci_config_defaults(&opt->cfg, 1, 1024);
    snprintf(opt->profile, sizeof opt->profile, "%s", "myrinet-1999");
    opt->events = 1u << 22;
    snprintf(opt->engine, sizeof opt->engine, "auto");
}

lci_status_t lci_options_set(lci_options_t *opt, const char *name,
                             const char *value, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        if (strcmp(options[i].name, name) == 0) {
            char sub[512];
            lci_status_t st = options[i].set(opt, value, sub, sizeof sub);
            if (st != LCI_OK) {
                snprintf(err, errlen, "%s: %s", name, sub);
            }
            return st;
        }
    }
    snprintf(err, errlen, "unknown option '%s'", name);
    return LCI_ERR_CONFIG;
}

lci_status_t lci_options_from_env(lci_options_t *opt, char *err,
                                  size_t errlen)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        char var[64] = "LCI_";
        size_t k = 4;
        for (const char *c = options[i].name; *c && k < sizeof var - 1; c++) {
            var[k++] = *c == '-' ? '_' : (char)(*c - 'a' + 'A');
        }
        var[k] = '\0';
        const char *v = getenv(var);
        if (v == NULL) {
            continue;
        }
        lci_status_t st = lci_options_set(opt, options[i].name, v, err, errlen);
        if (st != LCI_OK) {
            char tmp[600];
            snprintf(tmp, sizeof tmp, "%s (from %s)", err, var);
            snprintf(err, errlen, "%s", tmp);
            return st;
        }
    }
    return LCI_OK;
}

void lci_options_help(FILE *out, const char *prefix)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        char left[64];
        snprintf(left, sizeof left, "%s%s %s", prefix, options[i].name,
                 options[i].arg);
        fprintf(out, "  %-28s %s\n", left, options[i].help);
    }
}
