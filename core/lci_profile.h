/*
 * lci_profile.h - cost profiles: what each host, NI, DMA and link operation
 * costs in simulated time.
 *
 * A profile is a plain text file of "name = value [unit]" lines ('#' starts
 * a comment).  Times accept the units ns, us, ms, s (default ns); rates
 * MB/s (10^6 bytes per second); factors are plain numbers.  Every field has
 * a default (the myrinet-1999 calibration), so a profile lists only what it
 * changes.  Unknown names, malformed values and values outside a field's
 * physical range (lci_profile.c lists the ranges and why) are errors naming
 * the file, the line, the field, the value and the range.  A profile is
 * text of at most 1 MiB without NUL bytes.
 *
 * Calibration sets these numbers from microbenchmarks (LogP, F&A,
 * throughput); application results must emerge from them.
 */
#ifndef LCI_PROFILE_H
#define LCI_PROFILE_H

#include <stddef.h>

#include "lci.h"

typedef enum {
    LCI_UNIT_TIME,   /* stored in ns */
    LCI_UNIT_RATE,   /* stored in MB/s */
    LCI_UNIT_FACTOR, /* plain number */
} lci_unit_t;

/* X(field, default, unit, description) */
#define LCI_PROFILE_FIELDS(X)                                                  \
    X(host_speed, 20.0, LCI_UNIT_FACTOR,                                       \
      "simulated host time per second of measured CPU time")                   \
    X(host_alloc_ns, 150.0, LCI_UNIT_TIME, "host: take a send buffer")         \
    X(host_send_ns, 1140.0, LCI_UNIT_TIME,                                     \
      "host: write a send descriptor and ring the doorbell")                   \
    X(host_pio_ns_per_byte, 13.0, LCI_UNIT_TIME,                                \
      "host: programmed I/O into NI memory, per byte")                         \
    X(host_poll_ns, 100.0, LCI_UNIT_TIME, "host: one poll of the receive ring") \
    X(host_recv_ns, 2100.0, LCI_UNIT_TIME,                                     \
      "host: take an arrived packet and dispatch the upcall")                  \
    X(host_release_ns, 300.0, LCI_UNIT_TIME,                                   \
      "host: release a receive buffer")                                        \
    X(host_intr_ns, 31000.0, LCI_UNIT_TIME, "host: take a network interrupt")  \
    X(host_copy_mb_s, 52.0, LCI_UNIT_RATE,                                     \
      "host: memory copy bandwidth (lci_copy)")                                \
    X(host_rel_tx_ns, 900.0, LCI_UNIT_TIME,                                    \
      "host: go-back-N bookkeeping of a packet sent (RX_h)")                   \
    X(host_rel_rx_ns, 3000.0, LCI_UNIT_TIME,                                   \
      "host: go-back-N bookkeeping of a packet received (RX_h)")               \
    X(host_ack_ns, 500.0, LCI_UNIT_TIME,                                       \
      "host: process an acknowledgement (RX_h)")                               \
    X(host_timer_ns, 500.0, LCI_UNIT_TIME, "host: handle a soft-timer expiry") \
    X(host_mcast_fwd_ns, 4000.0, LCI_UNIT_TIME,                                \
      "host: forward a multicast packet to one child (M_h)")                   \
    X(host_fa_ns, 5500.0, LCI_UNIT_TIME,                                       \
      "host: serve a fetch-and-add request (F&A on the host)")                 \
    X(host_doorbell_ns, 500.0, LCI_UNIT_TIME,                                  \
      "PCI write latency: doorbell to NI")                                     \
    X(ni_cmd_ns, 1500.0, LCI_UNIT_TIME, "NI: fetch and decode a send command") \
    X(ni_tx_ns, 500.0, LCI_UNIT_TIME, "NI: start a packet transmission")       \
    X(ni_rx_ns, 2000.0, LCI_UNIT_TIME,                                         \
      "NI: handle an arrived packet up to starting its DMA")                   \
    X(ni_rx_post_ns, 4300.0, LCI_UNIT_TIME,                                    \
      "NI: finish an arrived packet after its DMA (release, credits)")         \
    X(ni_credit_ns, 500.0, LCI_UNIT_TIME,                                      \
      "NI: process credits or an explicit acknowledgement")                    \
    X(ni_mcast_fwd_ns, 3500.0, LCI_UNIT_TIME,                                  \
      "NI: forward a multicast packet to one child")                           \
    X(ni_fa_ns, 6000.0, LCI_UNIT_TIME, "NI: serve a fetch-and-add request")     \
    X(ni_rel_tx_ns, 500.0, LCI_UNIT_TIME,                                      \
      "NI: go-back-N bookkeeping of a packet sent (RX_ni)")                    \
    X(ni_rel_rx_ns, 2000.0, LCI_UNIT_TIME,                                     \
      "NI: go-back-N bookkeeping of a packet received (RX_ni)")                \
    X(ni_timer_ns, 1000.0, LCI_UNIT_TIME, "NI: handle a timer expiry")         \
    X(ni_ep_fault_ns, 300000.0, LCI_UNIT_TIME,                                 \
      "AM-II: page an endpoint into an NI frame (and its victim out)")         \
    X(ni_dma_setup_ns, 300.0, LCI_UNIT_TIME, "DMA engine start-up latency")     \
    X(ni_intr_ns, 500.0, LCI_UNIT_TIME, "NI: raise an interrupt")              \
    X(ni_clock_ns, 500.0, LCI_UNIT_TIME, "NI clock resolution")                \
    X(pci_mb_s, 127.0, LCI_UNIT_RATE, "host <-> NI DMA bandwidth")              \
    X(link_mb_s, 160.0, LCI_UNIT_RATE, "link bandwidth")                       \
    X(switch_hop_ns, 100.0, LCI_UNIT_TIME, "cut-through switch delay per hop")  \
    X(wire_ns, 50.0, LCI_UNIT_TIME, "signal propagation per link")             \
    X(watchdog_ns, 70000.0, LCI_UNIT_TIME,                                     \
      "polling watchdog: minimum delay of a network interrupt")

typedef struct {
#define LCI_PROFILE_DECLARE(field, def, unit, desc) double field;
    LCI_PROFILE_FIELDS(LCI_PROFILE_DECLARE)
#undef LCI_PROFILE_DECLARE
    char name[64]; /* profile name, e.g. "myrinet-1999" */
} lci_profile_t;

/* Fills *profile with the defaults. */
void lci_profile_defaults(lci_profile_t *profile);

/* Loads a profile.  spec is a path, or a bare name looked up as
 * $LCI_PROFILE_DIR/NAME, then the build tree's and the installed profiles
 * directory.  On error returns LCI_ERR_CONFIG and writes a message naming
 * the file and line into err. */
lci_status_t lci_profile_load(const char *spec, lci_profile_t *profile,
                              char *err, size_t errlen);

/* Parses profile text (used by lci_profile_load; exposed for tests).
 * origin names the source in error messages. */
lci_status_t lci_profile_parse(const char *text, const char *origin,
                               lci_profile_t *profile, char *err,
                               size_t errlen);

/* Parses size bytes of profile text that need not be NUL-terminated; a
 * NUL byte among them is an error, as is more than 1 MiB.  This is what
 * lci_profile_load() does with a file's contents. */
lci_status_t lci_profile_parse_bytes(const char *data, size_t size,
                                     const char *origin,
                                     lci_profile_t *profile, char *err,
                                     size_t errlen);

/* Writes the profile as text that lci_profile_parse() reads back. */
int lci_profile_format(const lci_profile_t *profile, char *buf, size_t len);

#endif
