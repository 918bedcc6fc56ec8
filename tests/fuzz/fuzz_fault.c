/* fuzz_fault.c - libFuzzer harness for the fault-specification parser
 * (core/lci_fault.c), as --fault and LCI_FAULT hand it a string.  Beyond
 * the sanitizers it checks that an error leaves the configuration
 * untouched with a terminated message, and that what is accepted lies in
 * range: probabilities in [0,1], nodes below LCI_MAX_NODES, a link between
 * two nodes, times within 1e18 ns, a burst of at least one packet. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lci_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int prob_ok(double p)
{
    return p >= 0.0 && p <= 1.0;
}

static int window_ok(const lci_fault_window_t *w, int link)
{
    if (w->dur == 0) {
        return w->a == 0 && w->b == 0 && w->start == 0;
    }
    return w->a < LCI_MAX_NODES && w->b < LCI_MAX_NODES &&
           (!link || w->a != w->b) && w->start <= 1000000000000000000ull &&
           w->dur <= 1000000000000000000ull;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = malloc(size + 1);
    if (spec == NULL) {
        return 0;
    }
    memcpy(spec, data, size);
    spec[size] = '\0';

    lci_fault_config_t f, before;
    char err[600];
    memset(&f, 0, sizeof f);
    before = f;
    memset(err, 'x', sizeof err);
    lci_status_t st = lci_fault_parse(spec, &f, err, sizeof err);
    if (st != LCI_OK) {
        if (st != LCI_ERR_CONFIG || memchr(err, '\0', sizeof err) == NULL ||
            err[0] == '\0' || memcmp(&f, &before, sizeof f) != 0) {
            abort();
        }
        free(spec);
        return 0;
    }
    if (!prob_ok(f.drop) || !prob_ok(f.corrupt) || !prob_ok(f.dup) ||
        !prob_ok(f.burst) || (f.burst > 0 && f.burst_len == 0) ||
        !window_ok(&f.linkdown, 1) || !window_ok(&f.nobuf, 0) ||
        !window_ok(&f.nopoll, 0) || !window_ok(&f.die, 0) ||
        (f.die.dur != 0 && f.die.dur != 1)) {
        abort();
    }
    /* The same spec again over the result is an error only if it repeats
     * nothing... it repeats every key it has, so it is accepted again and
     * gives the same configuration. */
    lci_fault_config_t again = f;
    if (lci_fault_parse(spec, &again, err, sizeof err) != LCI_OK ||
        memcmp(&again, &f, sizeof f) != 0) {
        abort();
    }
    free(spec);
    return 0;
}
