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
 * Times take the units ns, us, ms, s (a bare number is ns) and are at most
 * 1e18 ns; node numbers are below LCI_MAX_NODES (lci_config_finish checks
 * them against the node count); every count fits its field.  A number out
 * of range is an error, never saturated; so are a key given twice, an
 * empty item and an empty specification.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lci_config.h"

/* Times are at most this many ns (about 32 years): start + duration then
 * still fits a uint64_t clock, and converting to uint64_t is defined. */
#define FAULT_TIME_MAX 1e18

/* Each parser returns 0, or -1 with what it expected in why. */

static int parse_prob(const char *v, double *out, char *why, size_t whylen)
{
    char *end;
    errno = 0;
    double d = (*v >= '0' && *v <= '9') || *v == '.' ? strtod(v, &end) : -1;
    if (d < 0 || end == v || *end != '\0' || errno == ERANGE || !(d <= 1)) {
        snprintf(why, whylen, "a probability in [0,1]");
        return -1;
    }
    *out = d;
    return 0;
}

/* A decimal number from lo to hi; *end_p after it. */
static int parse_uint_end(const char *v, uint64_t lo, uint64_t hi,
                          uint64_t *out, const char **end_p)
{
    char *end;
    if (*v < '0' || *v > '9') {
        return -1;
    }
    errno = 0;
    unsigned long long u = strtoull(v, &end, 10);
    if (errno == ERANGE || u < lo || u > hi) {
        return -1; /* never saturated */
    }
    *out = u;
    *end_p = end;
    return 0;
}

static int parse_uint(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    const char *end;
    return parse_uint_end(v, lo, hi, out, &end) != 0 || *end != '\0' ? -1 : 0;
}

/* A time "12", "12ns", "3.5us", "2ms", "1s" into ns; *end_p after it. */
static int parse_time(const char *v, uint64_t *ns_p, const char **end_p)
{
    char *end;
    if ((*v < '0' || *v > '9') && *v != '.') {
        return -1;
    }
    errno = 0;
    double d = strtod(v, &end);
    double mult = 1;
    if (end == v || errno == ERANGE) {
        return -1;
    }
    if (strncmp(end, "ns", 2) == 0) {
        end += 2;
    } else if (strncmp(end, "us", 2) == 0) {
        mult = 1e3, end += 2;
    } else if (strncmp(end, "ms", 2) == 0) {
        mult = 1e6, end += 2;
    } else if (*end == 's') {
        mult = 1e9, end += 1;
    }
    if (!(d >= 0) || !(d * mult <= FAULT_TIME_MAX)) {
        return -1;
    }
    *ns_p = (uint64_t)(d * mult + 0.5);
    *end_p = end;
    return 0;
}

/* "A-B@T+D" (link) or "N@T+D" (node) or "N@T" (no duration). */
static int parse_window(const char *v, int link, int with_dur,
                        lci_fault_window_t *w, char *why, size_t whylen)
{
    const char *p;
    uint64_t a, b = 0, start, dur = 1;
    snprintf(why, whylen,
             "%s from 0 to %u, '@', a start time up to 1e18 ns%s (times "
             "like 2ms; units ns, us, ms, s)",
             link ? "two different node numbers A-B" : "a node number",
             LCI_MAX_NODES - 1,
             with_dur ? ", '+' and a duration of at least 1 ns" : "");
    if (parse_uint_end(v, 0, LCI_MAX_NODES - 1, &a, &p) != 0) {
        return -1;
    }
    if (link) {
        if (*p++ != '-' ||
            parse_uint_end(p, 0, LCI_MAX_NODES - 1, &b, &p) != 0 || a == b) {
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
    if (*p != '\0') {
        return -1;
    }
    *w = (lci_fault_window_t){.a = (uint32_t)a, .b = (uint32_t)b,
                              .start = start, .dur = dur};
    return 0;
}

static int parse_burst(const char *v, lci_fault_config_t *f, char *why,
                       size_t whylen)
{
    char buf[64];
    const char *colon = strchr(v, ':');
    snprintf(why, whylen,
             "P:LEN, a probability in [0,1] and a burst length from 1 "
             "to %llu packets",
             (unsigned long long)UINT64_MAX);
    if (colon == NULL || (size_t)(colon - v) >= sizeof buf) {
        return -1;
    }
    memcpy(buf, v, (size_t)(colon - v));
    buf[colon - v] = '\0';
    char ignored[64];
    if (parse_prob(buf, &f->burst, ignored, sizeof ignored) != 0 ||
        parse_uint(colon + 1, 1, UINT64_MAX, &f->burst_len) != 0) {
        return -1;
    }
    return 0;
}

static const char expected[] =
    "expected drop=P, corrupt=P, dup=P, burst=P:LEN, drop-nth=K, "
    "linkdown=A-B@T+D, nobuf=N@T+D, nopoll=N@T+D, die=N@T or seed=S, "
    "separated by commas, each at most once (P in [0,1]; times like 2ms)";

static const char *const fault_keys[] = {
    "drop",     "corrupt", "dup",    "burst", "drop-nth", "seed",
    "linkdown", "nobuf",   "nopoll", "die",
};
#define NKEYS (sizeof fault_keys / sizeof fault_keys[0])

/* Parses one "NAME=VALUE" item (NUL-terminated, may be changed) into *f. */
static lci_status_t parse_item(char *item, lci_fault_config_t *f, int *seen,
                               char *err, size_t errlen)
{
    char *eq = strchr(item, '=');
    if (eq == NULL) {
        snprintf(err, errlen, "fault item '%s' is not NAME=VALUE; %s", item,
                 expected);
        return LCI_ERR_CONFIG;
    }
    *eq = '\0';
    const char *name = item, *val = eq + 1;
    size_t k = 0;
    while (k < NKEYS && strcmp(name, fault_keys[k]) != 0) {
        k++;
    }
    if (k == NKEYS) {
        snprintf(err, errlen, "unknown fault '%s'; %s", name, expected);
        return LCI_ERR_CONFIG;
    }
    if (seen[k]) {
        /* Only the last would count: die=0@1ms,die=1@1ms kills node 1. */
        snprintf(err, errlen,
                 "fault '%s' given twice; each fault can be given once", name);
        return LCI_ERR_CONFIG;
    }
    seen[k] = 1;
    char why[256] = "";
    int bad;
    switch (k) {
    case 0:
        bad = parse_prob(val, &f->drop, why, sizeof why);
        break;
    case 1:
        bad = parse_prob(val, &f->corrupt, why, sizeof why);
        break;
    case 2:
        bad = parse_prob(val, &f->dup, why, sizeof why);
        break;
    case 3:
        bad = parse_burst(val, f, why, sizeof why);
        break;
    case 4:
        snprintf(why, sizeof why,
                 "a packet number from 1 to %llu (the first data packet is 1)",
                 (unsigned long long)UINT64_MAX);
        bad = parse_uint(val, 1, UINT64_MAX, &f->drop_nth);
        break;
    case 5:
        snprintf(why, sizeof why, "a seed from 0 to %llu",
                 (unsigned long long)UINT64_MAX);
        bad = parse_uint(val, 0, UINT64_MAX, &f->seed);
        break;
    case 6:
        bad = parse_window(val, 1, 1, &f->linkdown, why, sizeof why);
        break;
    case 7:
        bad = parse_window(val, 0, 1, &f->nobuf, why, sizeof why);
        break;
    case 8:
        bad = parse_window(val, 0, 1, &f->nopoll, why, sizeof why);
        break;
    default:
        bad = parse_window(val, 0, 0, &f->die, why, sizeof why);
        break;
    }
    if (bad) {
        snprintf(err, errlen, "bad value '%s' for fault %s: expected %s", val,
                 name, why);
        return LCI_ERR_CONFIG;
    }
    return LCI_OK;
}

lci_status_t lci_fault_parse(const char *spec, lci_fault_config_t *fault,
                             char *err, size_t errlen)
{
    lci_fault_config_t f = *fault;
    char buf[512];
    int seen[NKEYS] = {0};
    if (spec == NULL || *spec == '\0') {
        snprintf(err, errlen, "empty fault specification; %s", expected);
        return LCI_ERR_CONFIG;
    }
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "fault specification longer than %zu bytes",
                 sizeof buf - 1);
        return LCI_ERR_CONFIG;
    }
    strcpy(buf, spec);
    /* Items between commas; an empty one ("drop=0.1,,dup=0.1") is an
     * error, not skipped. */
    for (char *item = buf;;) {
        char *comma = strchr(item, ',');
        if (comma != NULL) {
            *comma = '\0';
        }
        if (*item == '\0') {
            snprintf(err, errlen, "empty item in fault specification '%s'; %s",
                     spec, expected);
            return LCI_ERR_CONFIG;
        }
        lci_status_t st = parse_item(item, &f, seen, err, errlen);
        if (st != LCI_OK) {
            return st;
        }
        if (comma == NULL) {
            break;
        }
        item = comma + 1;
    }
    *fault = f;
    return LCI_OK;
}
