/*
 * lci_live_nic.h - inside the live platform: the progress engine, where the
 * NI runs (inline or on its own thread), and the fabric mapping.
 */
#ifndef LCI_LIVE_NIC_H
#define LCI_LIVE_NIC_H

#include <stddef.h>
#include <stdint.h>

#include "lci_live_wire.h"

/* One pass: the link backlog, arrivals, due events.  Returns the work
 * done (0: nothing happened).  Runs only where the NI runs. */
int lci_live_progress(void);
/* The same, with the clock read whatever happens (passes that must not
 * miss a timer: finalizing). */
int lci_live_progress_fresh(void);
/* Time of this node's next event (LCI_TIME_INF if none). */
uint64_t lci_live_next_event(void);
lci_live_t *lci_live_state(void);

/* Starts the NIC thread if the mode asks for one. */
lci_status_t lci_live_nic_init(lci_live_t *L, char *err, size_t errlen);

/* Maps the fabric lci-run created (fd < 0: none). */
lci_status_t lci_live_fabric_map(lci_live_t *L, int fd, char *err,
                                 size_t errlen);
/* Wakes node k if it is blocked on its fabric word. */
void lci_live_fabric_wake(lci_live_t *L, uint32_t k);
/* How wakers and sleepers fence (lci_live_fabric.c): by the sleepers
 * (a kernel fence as they block), where nodes rarely block, else by the
 * wakers.  Each node process says which before it communicates. */
void lci_live_fabric_fences(lci_live_t *L, int by_sleepers);
/* Blocks on this node's fabric word unless ready() holds once the node is
 * marked sleeping; at most timeout_ns. */
void lci_live_fabric_block(lci_live_t *L, uint64_t timeout_ns,
                           int (*ready)(lci_live_t *L));

#endif
