/*
 * lci_options.h - the run options shared by lci-run (--name value) and
 * lci_init (LCI_NAME variables, --lci-name=value arguments).
 */
#ifndef LCI_OPTIONS_H
#define LCI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "lci_config.h"

typedef struct {
    lci_config_t cfg;
    char profile[4096]; /* profile name or path */
    uint64_t events;    /* event-queue capacity */
    char engine[16];    /* sim: auto, fibers or processes (lci-run) */
} lci_options_t;

void lci_options_defaults(lci_options_t *opt);

/* Applies one option by name ("decomp", "packet-size", ...).  On a bad name
 * or value writes a message saying what was expected. */
lci_status_t lci_options_set(lci_options_t *opt, const char *name,
                             const char *value, char *err, size_t errlen);

/* Applies every LCI_* environment variable that names an option. */
lci_status_t lci_options_from_env(lci_options_t *opt, char *err,
                                  size_t errlen);

/* Prints the option list with descriptions (for --help). */
void lci_options_help(FILE *out, const char *prefix);

#endif
