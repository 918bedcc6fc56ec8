/*
 * lci_decomp.h - a decomposition: one component per protocol framework and
 * the side (host library or NI firmware) each runs on.
 */
#ifndef LCI_DECOMP_H
#define LCI_DECOMP_H

#include <stddef.h>
#include <stdio.h>

#include "lci_internal.h"
#include "lci_policy.h"

typedef enum { LCI_PLACE_HOST = 0, LCI_PLACE_NI = 1 } lci_placement_t;

typedef struct {
    const char *name;        /* user-facing spelling, e.g. "rxno-mni" */
    const char *description; /* one line */
    uint32_t abi;            /* LCI_POLICY_ABI */
    const lci_rx_component_t *rx;
    lci_placement_t rx_place;
    const lci_mc_component_t *mc;
    lci_placement_t mc_place;
    const lci_fa_component_t *fa;
    lci_placement_t fa_place;
} lci_decomp_t;

/* The decomposition this process runs (set by lci_decomp_select; until
 * then the first built-in one). */
extern LCI_INTERNAL const lci_decomp_t *lci_decomp_active;

/* The same, for programs outside the library. */
const lci_decomp_t *lci_decomp_current(void);

/* Longest decomposition name, with its terminating NUL. */
#define LCI_DECOMP_NAME_MAX 64

/* The one symbol a loadable module (lci_decomp_NAME.so) exports: its
 * descriptor, a const lci_decomp_t. */
#define LCI_DECOMP_MODULE_SYMBOL "lci_decomp_module"

/* The environment variable naming the directories (separated by ':') that
 * are searched for modules before the installed module directory. */
#define LCI_DECOMP_MODULE_ENV "LCI_MODULE_DIR"

/* Looks a built-in decomposition up by name; NULL if none is built in
 * under that name (modules are not consulted). */
const lci_decomp_t *lci_decomp_find(const char *name);

/* Selects the named decomposition: a built-in one, else the module
 * lci_decomp_NAME.so from $LCI_MODULE_DIR or the installed module
 * directory.  On an unknown name, or a module that is rejected, writes a
 * message that says why and lists the valid names, and returns
 * LCI_ERR_CONFIG. */
lci_status_t lci_decomp_select(const char *name, char *err, size_t errlen);

/* The built-in table. */
size_t lci_decomp_count(void);
const lci_decomp_t *lci_decomp_at(size_t i);

/* Checks a descriptor: a name, the current ABI (LCI_POLICY_ABI) for it and
 * each component, every op of every component set.  On a problem writes a
 * message naming it (e.g. the missing op) and returns LCI_ERR_CONFIG. */
lci_status_t lci_decomp_check(const lci_decomp_t *d, char *err, size_t errlen);

/* Writes every selectable decomposition, one name per line: the built-in
 * ones, then the valid modules found in the module directories (lci-run
 * --list-decomps). */
void lci_decomp_list(FILE *out);

/* ---- loadable modules (lci/lci_decomp_module.c, the only user of dlopen) */

/* Loads module lci_decomp_NAME.so from the first module directory that
 * holds one, and checks it (lci_decomp_check, and that it is named NAME).
 * Returns LCI_OK with *d set, or with *d NULL when no directory holds such
 * a module; LCI_ERR_CONFIG with a message when the module cannot be loaded
 * or is rejected.  A loaded module stays loaded. */
lci_status_t lci_decomp_module_load(const char *name, const lci_decomp_t **d,
                                    char *err, size_t errlen);

/* Fills names with the valid modules found in the module directories
 * (each once, sorted; at most max) and returns how many. */
size_t lci_decomp_module_names(char (*names)[LCI_DECOMP_NAME_MAX], size_t max);

#endif
