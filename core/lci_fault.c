/*
 * lci_fault.c - the fault specification: what the emulated hardware is told
 * to do wrong.  Faults are injected on the wire and in the NI, never by
 * editing protocol code, and every random decision comes from the seed.
 *
 *   drop=P            lose each packet with probability P
 *   corrupt=P         damage each packet with probability P (CRC error)
 *   dup=P             deliver each packet twice with probability P
 *   burst=P:LEN       with probability P, lose this and the next LEN-1 packets
 *   drop-nth=K        lose the K-th data packet on the wire
 *   linkdown=A-B@T+D  the link between nodes A and B is down from T for D
 *   nobuf=N@T+D       NI N finds no free receive buffer from T for D
 *   nopoll=N@T+D      host N stops polling (computes) at T for D
 *   die=N@T           node N dies at T: its NI and host stop for good
 *   seed=S            seed of the fault decisions
 *
 * Times take the units ns, us, ms, s (a bare number is ns).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lci_config.h"

static int parse_prob(const char *v, double *out)
{
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end != '\0' || !(d >= 0) || d > 1) {
        return -1;
    }
    *out = d;
    return 0;
}

static int parse_u64_end(const char *v, uint64_t *out, const char **end_p)
{
    char *end;
    if (*v < '0' || *v > '9') {
        return -1;
    }
    unsigned long long u = strtoull(v, &end, 10);
    *out = u;
    *end_p = end;
    return 0;
}

static int parse_u64(const char *v, uint64_t *out)
{
    const char *end;
    return parse_u64_end(v, out, &end) != 0 || *end != '\0' ? -1 : 0;
}

/* A time "12", "12ns", "3.5us", "2ms", "1s" into ns; *end_p after it. */
static int parse_time(const char *v, uint64_t *ns_p, const char **end_p)
{
    char *end;
    if ((*v < '0' || *v > '9') && *v != '.') {
        return -1;
    }
    double d = strtod(v, &end);
    double mult = 1;
    if (strncmp(end, "ns", 2) == 0) {
        end += 2;
    } else if (strncmp(end, "us", 2) == 0) {
        mult = 1e3, end += 2;
    } else if (strncmp(end, "ms", 2) == 0) {
        mult = 1e6, end += 2;
    } else if (*end == 's') {
        mult = 1e9, end += 1;
    }
    if (!(d >= 0) || d * mult > 1e18) {
        return -1;
    }
    *ns_p = (uint64_t)(d * mult + 0.5);
    *end_p = end;
    return 0;
}

/* "A-B@T+D" (link) or "N@T+D" (node) or "N@T" (no duration). */
static int parse_window(const char *v, int link, int with_dur,
                        lci_fault_window_t *w)
{
    const char *p;
    uint64_t a, b = 0, start, dur = 1;
    if (parse_u64_end(v, &a, &p) != 0) {
        return -1;
    }
    if (link) {
        if (*p++ != '-' || parse_u64_end(p, &b, &p) != 0) {
            return -1;
        }
    }
    if (*p++ != '@' || parse_time(p, &start, &p) != 0) {
        return -1;
    }
    if (with_dur) {
        if (*p++ != '+' || parse_time(p, &dur, &p) != 0 || dur == 0) {
            return -1;
        }
    }
    if (*p != '\0' || a > UINT32_MAX || b > UINT32_MAX) {
        return -1;
    }
    *w = (lci_fault_window_t){.a = (uint32_t)a, .b = (uint32_t)b,
                              .start = start, .dur = dur};
    return 0;
}

static int parse_burst(const char *v, lci_fault_config_t *f)
{
    char buf[64];
    const char *colon = strchr(v, ':');
    if (colon == NULL || (size_t)(colon - v) >= sizeof buf) {
        return -1;
    }
    memcpy(buf, v, (size_t)(colon - v));
    buf[colon - v] = '\0';
    if (parse_prob(buf, &f->burst) != 0 ||
        parse_u64(colon + 1, &f->burst_len) != 0 || f->burst_len == 0) {
        return -1;
    }
    return 0;
}

static const char expected[] =
    "expected drop=P, corrupt=P, dup=P, burst=P:LEN, drop-nth=K, "
    "linkdown=A-B@T+D, nobuf=N@T+D, nopoll=N@T+D, die=N@T or seed=S "
    "(P in [0,1]; times like 2ms)";

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
            snprintf(err, errlen, "fault item '%s' is not NAME=VALUE; %s", item,
                     expected);
            return LCI_ERR_CONFIG;
        }
        *eq = '\0';
        const char *name = item, *val = eq + 1;
        int bad;
        if (strcmp(name, "drop") == 0) {
            bad = parse_prob(val, &f.drop);
        } else if (strcmp(name, "corrupt") == 0) {
            bad = parse_prob(val, &f.corrupt);
        } else if (strcmp(name, "dup") == 0) {
            bad = parse_prob(val, &f.dup);
        } else if (strcmp(name, "burst") == 0) {
            bad = parse_burst(val, &f);
        } else if (strcmp(name, "drop-nth") == 0) {
            bad = parse_u64(val, &f.drop_nth);
        } else if (strcmp(name, "seed") == 0) {
            bad = parse_u64(val, &f.seed);
        } else if (strcmp(name, "linkdown") == 0) {
            bad = parse_window(val, 1, 1, &f.linkdown);
        } else if (strcmp(name, "nobuf") == 0) {
            bad = parse_window(val, 0, 1, &f.nobuf);
        } else if (strcmp(name, "nopoll") == 0) {
            bad = parse_window(val, 0, 1, &f.nopoll);
        } else if (strcmp(name, "die") == 0) {
            bad = parse_window(val, 0, 0, &f.die);
        } else {
            snprintf(err, errlen, "unknown fault '%s'; %s", name, expected);
            return LCI_ERR_CONFIG;
        }
        if (bad) {
            snprintf(err, errlen, "bad value '%s' for fault %s; %s", val, name,
                     expected);
            return LCI_ERR_CONFIG;
        }
    }
    *fault = f;
    return LCI_OK;
}
