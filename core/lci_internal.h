/*
 * lci_internal.h - marks the library's own globals.
 *
 * liblci is a shared library, so code in it reaches an exported variable
 * through the global offset table: one more dependent load before every
 * field of lci_host, lci_platform, lci_world and the others, in function
 * after function of a packet's path.  Hidden, they are reached directly
 * (about 4% of the instructions of a small packet, on both platforms).
 * Programs outside the library (lci-run, lci-fibers, tests) reach what
 * they need through functions, or keep a view of their own (lci_world).
 */
#ifndef LCI_INTERNAL_H
#define LCI_INTERNAL_H

#define LCI_INTERNAL __attribute__((visibility("hidden")))

#endif
