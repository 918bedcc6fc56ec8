/*
 * bench_msg.h - a small message layer over LCI packets for the benchmarks:
 * a message of any length is cut into packets of lci_packet_capacity()
 * bytes; the first packet starts with a 16-byte header (magic, kind,
 * length), the others carry data only.  The receiver reassembles per sender
 * (LCI delivers each sender's packets in FIFO order), optionally copying the
 * data into a destination buffer, as every LCI client does (paper 4.1).
 *
 * Unicast and multicast messages from one sender are reassembled apart, so
 * the two streams never mix.
 */
#ifndef BENCH_MSG_H
#define BENCH_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "lci.h"

#define BENCH_MSG_MAGIC 0x4c43494du /* "LCIM" */
#define BENCH_MSG_BCAST (-1)        /* destination: every other node */

typedef struct {
    uint32_t magic;
    uint32_t kind; /* chosen by the benchmark */
    uint64_t len;  /* message length in bytes, header excluded */
} bench_msg_hdr_t;

/* Number of packets a message of len bytes takes. */
size_t bench_msg_npackets(size_t len);

/* Sends a message of len bytes from data (NULL: zeros) to dest, or to every
 * other node with dest == BENCH_MSG_BCAST.  Waits for send buffers as
 * needed; stops the run on an LCI error. */
void bench_msg_send(int dest, uint32_t kind, const void *data, size_t len);

/* Called once per complete message.  data is the message when it fitted in
 * one packet (valid during the call), the destination buffer when copying,
 * else NULL.  group is the multicast group, or -1 for unicast. */
typedef void (*bench_msg_done_func_t)(int src, int group, uint32_t kind,
                                      const void *data, size_t len, void *arg);

typedef struct bench_msg_rx bench_msg_rx_t;

/* A receiver for a run of lci_size() nodes.  dst (dst_cap bytes) receives
 * copied data when copying is on; it may be NULL when dst_cap is 0. */
bench_msg_rx_t *bench_msg_rx_create(void *dst, size_t dst_cap,
                                    bench_msg_done_func_t done, void *arg);
void bench_msg_rx_free(bench_msg_rx_t *rx);

/* Receiver-side copy on (1) or off (0). */
void bench_msg_rx_set_copy(bench_msg_rx_t *rx, int copy);

/* Packets that were not part of a bench message (ignored). */
uint64_t bench_msg_rx_foreign(const bench_msg_rx_t *rx);

/* The upcall: lci_upcall_set(bench_msg_upcall, rx). */
lci_upcall_result_t bench_msg_upcall(lci_rpacket_t *packet, void *rx);

/* Polls (waiting) until *flag becomes nonzero, charging copies. */
void bench_msg_wait_flag(bench_msg_rx_t *rx, const int *flag);

/* Polls (waiting) until *counter >= target, charging copies. */
void bench_msg_wait_count(bench_msg_rx_t *rx, const uint64_t *counter,
                          uint64_t target);

#endif
