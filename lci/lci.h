/*
 * lci.h - the Low-level Communication Interface.
 *
 * This is the only header an LCI client includes.  LCI offers reliable, FIFO,
 * packet-based point-to-point and multicast communication between the nodes
 * of a cluster, receipt by polling or by interrupts with a client upcall, and
 * an atomic remote fetch-and-add on variables that live on a node's network
 * interface (NI).
 *
 * Life of a packet (the paper's Figure 1):
 *   1. lci_packet_alloc() takes a send buffer in NI memory;
 *   2. lci_packet_write() fills it by programmed I/O;
 *   3. lci_send() / lci_multicast() / lci_broadcast() hand it to the NI,
 *      which owns it from then on;
 *   4..5. the NI transmits it and the receiving NI DMAs it into a ring of
 *      host receive buffers;
 *   6. if interrupts are enabled, the NI raises one (after the polling
 *      watchdog's delay);
 *   7. lci_poll() (or the interrupt) passes it to the upcall registered with
 *      lci_upcall_set(), which returns LCI_UPCALL_RELEASE or keeps it
 *      (LCI_UPCALL_KEEP) and releases it later with lci_release().
 *
 * Guarantees: every packet sent is delivered exactly once to each
 * destination, in FIFO order per sender, for unicast and multicast alike.
 * A decomposition that cannot keep this promise (for example one that
 * assumes reliable hardware, when the hardware drops a packet) stops the
 * run with LCI_ERR_PROTOCOL and a diagnostic; it never delivers wrong data.
 *
 * Configuration comes from the environment (LCI_* variables, set by lci-run)
 * and from --lci-NAME=VALUE arguments, which lci_init() removes from argv.
 * Run `lci-run --help` for the list.
 *
 * Threads: a node is one process; LCI calls are made from one thread at a
 * time.
 */
#ifndef LCI_H
#define LCI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LCI_VERSION_MAJOR 0
#define LCI_VERSION_MINOR 1

/* ---- status codes --------------------------------------------------- */

/* LCI_OK is success; the positive values are not errors ("not done yet",
 * "try again later"); the negative values are. */
typedef enum {
    LCI_OK = 0,
    LCI_INPROGRESS = 1,       /* operation started, completes later */
    LCI_AGAIN = 2,            /* no resource now (e.g. no free send buffer) */
    LCI_ERR_INVAL = -1,       /* bad argument (NULL pointer, bad value) */
    LCI_ERR_RANK = -2,        /* rank out of range */
    LCI_ERR_SIZE = -3,        /* length larger than the packet capacity */
    LCI_ERR_STATE = -4,       /* call not valid now (not initialised, ...) */
    LCI_ERR_NOMEM = -5,       /* host memory exhausted */
    LCI_ERR_CONFIG = -6,      /* bad configuration (value, profile, SRAM) */
    LCI_ERR_UNSUPPORTED = -7, /* not offered by this decomposition */
    LCI_ERR_PROTOCOL = -8,    /* a protocol assumption was violated */
    LCI_ERR_PLATFORM = -9,    /* the platform failed (system call, peer) */
    LCI_ERR_DEADLOCK = -10,   /* every node waits and nothing is in flight */
    LCI_ERR_GROUP = -11,      /* unknown or malformed multicast group */
    LCI_ERR_UNREACHABLE = -12 /* destination cannot be reached */
} lci_status_t;

/* A static, human-readable text for a status code. */
const char *lci_strerror(lci_status_t status);

/* The message of the last error this node reported (with details such as
 * the offending value), or "" if none. */
const char *lci_last_error(void);

/* ---- life cycle ----------------------------------------------------- */

/* Starts LCI on this node.  argc/argv may be NULL; if given, --lci-* options
 * are taken from them and removed.  Collective: every node calls it. */
lci_status_t lci_init(int *argc, char ***argv);

/* Waits until every node has called it, then stops LCI on this node.
 * Packets still queued or kept are released. */
lci_status_t lci_finalize(void);

/* Stops the whole run at once with an error message (like MPI_Abort). */
void lci_abort(int code, const char *message) __attribute__((noreturn));

int lci_rank(void); /* this node, 0 .. lci_size()-1 */
int lci_size(void); /* number of nodes */

/* Name of the decomposition in use, e.g. "rxno-mni". */
const char *lci_decomp_name(void);

/* Seconds since start: virtual time on the simulated platform. */
double lci_wtime(void);

/* ---- sending -------------------------------------------------------- */

typedef struct lci_packet lci_packet_t; /* a send buffer in NI memory */

/* Largest payload a packet carries, in bytes (packet size minus header). */
size_t lci_packet_capacity(void);

/* Takes a free send buffer in NI memory, waiting until one is free: for a
 * buffer the NI is already returning it just spins; when none is on its
 * way back it polls (so upcalls may run) to let the traffic holding the
 * buffers drain. */
lci_status_t lci_packet_alloc(lci_packet_t **packet_p);

/* Like lci_packet_alloc(), but returns LCI_AGAIN instead of waiting. */
lci_status_t lci_packet_try_alloc(lci_packet_t **packet_p);

/* Copies len bytes from src to offset in the packet by programmed I/O. */
lci_status_t lci_packet_write(lci_packet_t *packet, size_t offset,
                              const void *src, size_t len);

/* Copies the n pieces one after another, from offset in the packet on: the
 * same as an lci_packet_write() of each, in one call.  Nothing is written
 * unless all of them fit. */
lci_status_t lci_packet_writev(lci_packet_t *packet, size_t offset,
                               const struct iovec *pieces, int n);

/* Returns a send buffer that will not be sent. */
lci_status_t lci_packet_free(lci_packet_t *packet);

/* Sends the first len bytes of packet to node dest.  The packet belongs to
 * LCI afterwards, even if an error is returned. */
lci_status_t lci_send(lci_packet_t *packet, int dest, size_t len);

/* Takes a send buffer, gathers the n pieces into it and sends them to node
 * dest: lci_packet_alloc(), lci_packet_writev() at offset 0 and lci_send()
 * of their total length, in one call (and at the same costs).  On an error
 * nothing is sent and no buffer is kept. */
lci_status_t lci_sendv(int dest, const struct iovec *pieces, int n);

/* A multicast group: a set of nodes that all create it with the same
 * members in the same order of creation.  Group 0 is every node. */
typedef struct lci_group lci_group_t;

lci_status_t lci_group_create(const int *ranks, int nranks,
                              lci_group_t **group_p);
lci_status_t lci_group_free(lci_group_t *group);

/* Sends packet to every member of group except the sender, which must be a
 * member.  Forwarded along a binary spanning tree rooted at the sender. */
lci_status_t lci_multicast(lci_packet_t *packet, lci_group_t *group,
                           size_t len);

/* lci_multicast() to every other node. */
lci_status_t lci_broadcast(lci_packet_t *packet, size_t len);

/* ---- receiving ------------------------------------------------------ */

/* A received packet, in host memory.  Valid until released. */
typedef struct lci_rpacket {
    const void *data;  /* payload */
    size_t len;        /* payload length in bytes */
    int src;           /* node that sent (for multicast: the root) */
    int group;         /* multicast group id, or -1 for unicast */
    void *lci_private; /* owned by LCI */
    int ep;            /* the endpoint it arrived at (0: the default) */
    int src_ep;        /* the sender's endpoint */
} lci_rpacket_t;

typedef enum {
    LCI_UPCALL_RELEASE = 0, /* the upcall is done with the packet */
    LCI_UPCALL_KEEP = 1     /* the client releases it later */
} lci_upcall_result_t;

/* Called once per arriving packet, in FIFO order per sender. */
typedef lci_upcall_result_t (*lci_upcall_func_t)(lci_rpacket_t *packet,
                                                 void *arg);

lci_status_t lci_upcall_set(lci_upcall_func_t upcall, void *arg);

/* ---- endpoints ------------------------------------------------------ */

/* A node may open several endpoints (an MPI communicator, a Panda port, a
 * second library in the same program), each with its own upcall; a packet
 * addresses a node and an endpoint there.  Endpoint 0 always exists: it is
 * the one lci_upcall_set() gives an upcall and lci_send() uses at both
 * ends.  Endpoints are numbered 1, 2, ... in the order a node opens them,
 * so nodes that open theirs in the same order agree on the numbers.  A
 * packet for an endpoint that is not open is dropped and counted
 * (drops_endpoint in lci_counters_t). */
typedef struct lci_endpoint lci_endpoint_t;

#define LCI_MAX_ENDPOINTS 256

lci_status_t lci_endpoint_open(lci_endpoint_t **ep_p,
                               lci_upcall_func_t upcall, void *arg);
lci_status_t lci_endpoint_close(lci_endpoint_t *ep);
/* Endpoint 0, to send from it with lci_endpoint_send (it cannot be
 * closed). */
lci_endpoint_t *lci_endpoint_default(void);
int lci_endpoint_id(const lci_endpoint_t *ep);
/* Like lci_send, from endpoint ep to endpoint dest_ep of node dest. */
lci_status_t lci_endpoint_send(lci_endpoint_t *ep, lci_packet_t *packet,
                               int dest, int dest_ep, size_t len);

/* Return-to-sender: a decomposition that retransmits gives up on a
 * destination after the configured number of retransmissions (255 by
 * default, as AM-II) and hands each undelivered packet back here, with the
 * destination and the reason (LCI_ERR_UNREACHABLE).  Traffic to other
 * nodes keeps flowing; later sends to that destination come back too.
 * Without an error upcall a returned packet stops the run. */
typedef void (*lci_error_upcall_func_t)(const lci_rpacket_t *packet, int dest,
                                        lci_status_t reason, void *arg);

lci_status_t lci_error_upcall_set(lci_error_upcall_func_t upcall, void *arg);

/* Delivers every packet that has arrived to the upcall (and every packet
 * returned to its sender to the error upcall).  Returns the number of
 * upcalls made (>= 0) or a negative lci_status_t. */
int lci_poll(void);

/* Like lci_poll(), but waits until at least one packet was delivered. */
int lci_poll_wait(void);

/* Releases a packet the upcall kept.  Its receive buffer is reused. */
lci_status_t lci_release(lci_rpacket_t *packet);

/* Network interrupts: when enabled, arriving packets are delivered to the
 * upcall without polling (the NI delays an interrupt by the polling watchdog
 * period, and skips it if the host polled meanwhile).  On the simulated
 * platform the upcall runs at the node's next LCI call or wait. */
lci_status_t lci_intr_enable(void);
lci_status_t lci_intr_disable(void);

/* ---- fetch-and-add -------------------------------------------------- */

/* Number of fetch-and-add variables each node offers. */
unsigned lci_fa_count(void);

/* Atomically adds add to variable var on node, returning its previous value
 * in *old_p.  Waits for the reply (polling, so upcalls may run). */
lci_status_t lci_fetch_add(int node, unsigned var, int64_t add,
                           int64_t *old_p);

/* ---- convenience ---------------------------------------------------- */

/* Waits until every node has called it. Built on LCI packets. */
lci_status_t lci_barrier(void);

/* Charges seconds of simulated computation to this node (no effect on the
 * live platform beyond busy-waiting that long). */
lci_status_t lci_compute(double seconds);

/* Copies len bytes within host memory -- for example a received packet
 * into a reassembly buffer -- and charges the copy at the host's memory
 * copy bandwidth from the cost profile (host_copy_mb_s), whatever the
 * compute mode: copying received data is part of communication cost. */
lci_status_t lci_copy(void *dst, const void *src, size_t len);

/* ---- counters ------------------------------------------------------- */

typedef struct {
    uint64_t pkts_sent_data;   /* unicast data packets sent by the NI */
    uint64_t pkts_sent_mcast;  /* multicast packets sent, forwards included */
    uint64_t pkts_sent_ack;    /* explicit acknowledgements (credits) */
    uint64_t pkts_sent_nack;   /* retransmission requests */
    uint64_t pkts_sent_fa;     /* F&A requests and replies */
    uint64_t pkts_recv;        /* packets arriving at the NI */
    uint64_t pkts_delivered;   /* packets handed to the upcall */
    uint64_t retransmissions;  /* packets sent again */
    uint64_t drops_crc;        /* dropped: CRC error */
    uint64_t drops_nobuf;      /* dropped: no NI receive buffer */
    uint64_t drops_seq;        /* dropped: out of sequence / duplicate */
    uint64_t drops_malformed;  /* dropped: malformed header */
    uint64_t drops_auth;       /* dropped by the UDP wire: not the job's
                                  (forged, replayed, truncated, or from an
                                  address that is not the sender's) */
    uint64_t window_stalls;    /* sends queued on a closed window */
    uint64_t interrupts;       /* interrupts raised by the NI */
    uint64_t pkts_returned;    /* packets returned to their sender */
    uint64_t host_busy_ns;     /* host time spent in LCI */
    uint64_t ni_busy_ns;       /* NI processor busy time */
    uint64_t tx_merged;        /* packets merged into the same packet, or
                                  an ack or NACK to the same node, still
                                  waiting for the link */
    uint64_t route_probes;     /* route-discovery probes sent (VMMC-2) */
    uint64_t drops_endpoint;   /* arrived for an endpoint not open */
    uint64_t ep_faults;        /* endpoints paged into an NI frame (AM-II) */
} lci_counters_t;

lci_status_t lci_counters_get(lci_counters_t *counters_p);

/* ---- threads of a node, one running at a time -------------------------- */

/* A library that needs blocking threads (Panda-MT) makes them here.  They
 * run one at a time and hand the node to each other explicitly, so a run
 * stays deterministic; under the simulator's fiber engine they are fibers
 * of their node, otherwise threads of its process.  The thread that called
 * main is lci_thread_self() until it switches.  A thread's func must not
 * return: it ends with lci_thread_exit_to(). */
typedef struct lci_thread lci_thread_t;

lci_status_t lci_thread_create(lci_thread_t **thread_p,
                               void (*func)(void *arg), void *arg);
lci_thread_t *lci_thread_self(void);
/* Runs thread to; returns when some thread switches back to the caller. */
lci_status_t lci_thread_switch(lci_thread_t *to);
/* The calling thread ends and to runs. */
void lci_thread_exit_to(lci_thread_t *to) __attribute__((noreturn));
/* Releases a thread that has ended. */
lci_status_t lci_thread_free(lci_thread_t *thread);

/* ---- per-node state of libraries built on LCI ------------------------- */

/* A library layered on LCI (Panda, MPI, ...) keeps its per-node state in
 * one block that it reaches through a pointer, *slot_p.  Where several
 * nodes share one process (the simulator's fiber engine), LCI gives every
 * node its own block and keeps *slot_p pointing at the running node's.
 * Call it from every node before the library first writes its state; the
 * blocks start as copies of what *slot_p points to at the first call (the
 * library's static initial state).  Callable before lci_init. */
lci_status_t lci_node_local(void **slot_p, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* LCI_H */
