/*
 * lci_decomp_export.c - the one symbol a loadable decomposition module
 * exports: its descriptor, found by lci_decomp_select with dlsym.
 *
 * Compiled once per module with -DLCI_DECOMP_EXPORT_INIT=<the descriptor
 * initialiser from lci_decomp_defs.h>, together with the policy sources the
 * decomposition uses (lci/local.am).  The module is linked with
 * -export-symbols-regex so that nothing else is visible.
 */
#include "lci_decomp_defs.h"

#ifndef LCI_DECOMP_EXPORT_INIT
#error "compile with -DLCI_DECOMP_EXPORT_INIT=LCI_DECOMP_<NAME>_INIT"
#endif

extern const lci_decomp_t lci_decomp_module;
const lci_decomp_t lci_decomp_module = LCI_DECOMP_EXPORT_INIT;
