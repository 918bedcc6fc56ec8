/*
 * lci_live.h - the live platform: real time, real concurrency.
 *
 * The firmware, the link hardware (CRC, link sequence, fault injection) and
 * the host DMA are the same code as on the sim platform.  What differs is
 * the environment under them:
 *   - the clock is CLOCK_MONOTONIC, and every cost in the profile is zero
 *     (work costs what it really costs), except the polling watchdog;
 *   - events (firmware runs, timers, watchdog) go to a per-node queue that
 *     runs when their real time has come, on the node's own NI: inline in
 *     the host's LCI calls or on a NIC thread (--nic inline|thread);
 *   - the wire is a transport between processes (lci_live_wire.h): lock-free
 *     shared-memory rings on one machine, or UDP datagrams.
 * Each node process runs only its own NI.  The platform table
 * lci_platform_live (lci_platform_live.c, see lci_platform.h) leads here.
 */
#ifndef LCI_LIVE_H
#define LCI_LIVE_H

#include <stdint.h>

#include "lci.h"
#include "lci_world.h"

typedef enum {
    LCI_NIC_AUTO = 0,   /* thread when every node gets two cores */
    LCI_NIC_INLINE = 1, /* firmware runs inside the host's LCI calls */
    LCI_NIC_THREAD = 2, /* firmware runs on its own thread */
} lci_nic_mode_t;

typedef enum { LCI_WIRE_SHM = 0, LCI_WIRE_UDP = 1 } lci_wire_kind_t;

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t lci_live_clock(void);
/* Nanoseconds since the run began (the platform's clock). */
uint64_t lci_live_now(void);
/* The clock as of this node's last progress pass (no clock read). */
uint64_t lci_live_recent(void);

/* Makes this process a live node of the world already attached (rank
 * self).  fabric_fd: the shared fabric lci-run created (-1 if none).
 * On error writes a message. */
lci_status_t lci_live_init(uint32_t self, int fabric_fd, char *err,
                           size_t errlen);

/* Zeroes the profile's costs for real time (keeps the watchdog delay). */
void lci_live_profile(lci_profile_t *prof);

/* The live platform's operations (see lci_platform.h). */
void lci_live_post(uint64_t time, uint16_t type, uint32_t node, uint32_t a,
                   uint64_t b);
int lci_live_can_run_now(uint64_t t);
void lci_live_sync(uint32_t self);
int lci_live_wait(uint32_t self, lci_host_status_t how);
void lci_live_wake(uint32_t node, uint64_t time);
void lci_live_wake_arrival(uint32_t node, uint64_t time);
void lci_live_exit(uint32_t self);
void lci_live_start(uint32_t self);
void lci_live_on_fail(int node, const char *msg);
void lci_live_transmit(struct lci_ni *ni, uint64_t now,
                       const lci_wire_hdr_t *hdr, const void *payload,
                       uint32_t buf);

/* The host posted work for its NI: run it now (inline) or wake the NIC
 * thread. */
void lci_live_kick(void);
/* The host rang its NI (LCI_EV_DOORBELL for a command, a ring update,
 * interrupts on or off): inline, the firmware's handler runs at once,
 * without a trip through the event queue; a NIC thread is woken. */
void lci_live_host_event(uint16_t type, uint32_t a);
/* The host is about to send to dst: with the NI inline, the wire may
 * ready its way there (the NIC thread's wire is the thread's alone). */
void lci_live_will_send(uint32_t dst);

/* The host enters and leaves LCI (the NIC thread runs the firmware only
 * while the host is outside). */
void lci_live_host_enter(void);
void lci_live_host_leave(void);

/* Application compute of the given length, in real time. */
void lci_live_compute_ns(uint64_t ns);

/* ---- placed by lci-run: lci_live_netns.c ---- */

/* Checks that a comma-separated list has one item per node. */
lci_status_t lci_live_place_check(const char *list, uint32_t nnodes,
                                  const char *what, char *err, size_t errlen);
/* In the child that becomes node k: enters item k of the namespace list
 * (names under /var/run/netns, as ip netns makes them) and sets its UDP
 * address from item k of the address list (either list may be NULL). */
lci_status_t lci_live_place_node(uint32_t k, const char *netns,
                                 const char *addrs, char *err, size_t errlen);

/* ---- started by a PMIx launcher (mpirun, srun): lci_live_pmix.c ---- */

/* Whether this process was started by one (PMIX_RANK is set). */
int lci_live_pmix_launched(void);
/* Connects to the launcher: this process's rank and the job size. */
lci_status_t lci_live_pmix_init(uint32_t *rank_p, uint32_t *size_p, char *err,
                                size_t errlen);
/* Publishes len bytes (this node's address) and, after a fence, reads
 * every node's into all[size * len]. */
lci_status_t lci_live_pmix_exchange(uint32_t size, const void *mine,
                                    size_t len, void *all, char *err,
                                    size_t errlen);
void lci_live_pmix_fini(void);

#endif
