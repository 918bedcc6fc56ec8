/*
 * e2e_common.h - helpers shared by the end-to-end node programs: failing
 * loudly, a seeded PRNG for payload bytes, a payload checksum, and
 * command-line options.  Header-only (static functions) so every node
 * program stays one source file that uses nothing but lci.h.
 */
#ifndef E2E_COMMON_H
#define E2E_COMMON_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lci.h"

/* Prints "<prog>: node R: <message>" to stderr and exits with status 1.
 * Exiting (rather than lci_abort) keeps the message in the node's own
 * words; lci-run then reports the node's failure. */
static void e2e_fail(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));

static const char *e2e_prog = "e2e";

static void e2e_fail(const char *fmt, ...)
{
    va_list ap;
    char msg[512];

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: node %d: FAILED: %s\n", e2e_prog, lci_rank(), msg);
    fflush(stderr);
    exit(1);
}

/* Fails unless st is LCI_OK, naming the call and LCI's explanation. */
static inline void e2e_check(lci_status_t st, const char *what)
{
    if (st != LCI_OK) {
        e2e_fail("%s returned %d (%s): %s", what, (int)st, lci_strerror(st),
                 lci_last_error());
    }
}

/* splitmix64: a small, well-mixed PRNG; the same seed gives the same
 * bytes on every node, so a receiver can regenerate what a sender wrote. */
static inline uint64_t e2e_mix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Fills buf[0..len) with bytes determined by (seed, a, b, c). */
static inline void e2e_fill(uint8_t *buf, size_t len, uint64_t seed, uint32_t a,
                            uint32_t b, uint32_t c)
{
    uint64_t state = seed ^ ((uint64_t)a << 40) ^ ((uint64_t)b << 20) ^ c;
    size_t i = 0;

    e2e_mix64(&state);
    while (i < len) {
        uint64_t r = e2e_mix64(&state);
        for (int k = 0; k < 8 && i < len; k++, i++) {
            buf[i] = (uint8_t)(r >> (8 * k));
        }
    }
}

/* 32-bit FNV-1a. */
static inline uint32_t e2e_checksum(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

/* Checksum of a payload whose 32-bit checksum field at offset field_off
 * counts as zero (how senders compute it). */
static inline uint32_t e2e_payload_checksum(const void *data, size_t len,
                                            size_t field_off)
{
    const uint8_t *p = data;
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < len; i++) {
        uint8_t b = (i >= field_off && i < field_off + 4) ? 0 : p[i];
        h ^= b;
        h *= 16777619u;
    }
    return h;
}

/* Index of the first byte where a and b differ (len if none). */
static inline size_t e2e_first_difference(const void *a, const void *b,
                                          size_t len)
{
    const uint8_t *x = a, *y = b;
    size_t i = 0;

    while (i < len && x[i] == y[i]) {
        i++;
    }
    return i;
}

/* Parses "-k N" / "--seed S" style options: returns the value of the
 * option named name (e.g. "-k"), or def if absent.  Fails on a malformed
 * value. */
static inline long e2e_opt_long(int argc, char **argv, const char *name,
                                long def)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            char *end;
            long v;
            if (i + 1 >= argc) {
                e2e_fail("option %s needs a value", name);
            }
            v = strtol(argv[i + 1], &end, 0);
            if (*argv[i + 1] == '\0' || *end != '\0') {
                e2e_fail("option %s: '%s' is not a number", name, argv[i + 1]);
            }
            return v;
        }
    }
    return def;
}

/* True if the flag name appears in argv. */
static inline int e2e_opt_flag(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Allocates a zeroed array or fails. */
static inline void *e2e_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL) {
        e2e_fail("out of memory (%zu x %zu bytes)", n, size);
    }
    return p;
}

/* Starts LCI and names the program in failure messages. */
static inline void e2e_init(int *argc, char ***argv, const char *prog)
{
    lci_status_t st;

    e2e_prog = prog;
    st = lci_init(argc, argv);
    if (st != LCI_OK) {
        fprintf(stderr, "%s: lci_init returned %d (%s): %s\n", prog, (int)st,
                lci_strerror(st), lci_last_error());
        exit(1);
    }
}

/* Writes len bytes at offset of packet or fails. */
static inline void e2e_write(lci_packet_t *packet, size_t offset,
                             const void *src, size_t len)
{
    e2e_check(lci_packet_write(packet, offset, src, len), "lci_packet_write");
}

/* Polls until *counter reaches target; fails on an error (including the
 * simulator's deadlock report). */
static inline void e2e_wait_for(const volatile uint64_t *counter,
                                uint64_t target, const char *what)
{
    while (*counter < target) {
        int n = lci_poll_wait();
        if (n < 0) {
            e2e_fail("lci_poll_wait returned %d (%s) while waiting for %s "
                     "(%llu of %llu): %s",
                     n, lci_strerror((lci_status_t)n), what,
                     (unsigned long long)*counter, (unsigned long long)target,
                     lci_last_error());
        }
    }
}

#endif
