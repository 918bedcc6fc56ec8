/*
 * lci_host.h - the host library's private state and helpers (not
 * installed).
 */
#ifndef LCI_HOST_H
#define LCI_HOST_H

#include <stdint.h>

#include "lci.h"
#include "lci_internal.h"
#include "lci_ni.h"
#include "lci_platform.h"
#include "lci_sched.h"
#include "lci_timer_wheel.h"
#include "lci_world.h"

struct lci_packet {
    uint32_t buf;
    uint32_t in_use;
    uint16_t ep;     /* destination endpoint of the send in progress */
    uint16_t src_ep; /* sending endpoint */
};

struct lci_endpoint {
    uint16_t id;
    uint8_t open;
    lci_upcall_func_t upcall;
    void *arg;
};

struct lci_group {
    uint32_t id;
    uint32_t live;
};

/* Packets the library consumes itself carry LCI_HF_INTERNAL. */
typedef enum { LCI_INTERNAL_ARRIVE = 1, LCI_INTERNAL_RELEASE = 2 } lci_internal_kind_t;

typedef struct {
    uint32_t kind;
    uint32_t epoch;
} lci_internal_msg_t;

typedef struct {
    int inited;
    uint32_t rank, size;
    lci_ni_t *ni;
    lci_host_shared_t *hs;
    const lci_profile_t *prof;

    lci_upcall_func_t upcall; /* endpoint 0's */
    void *upcall_arg;
    struct lci_endpoint endpoints[LCI_MAX_ENDPOINTS]; /* 1..: opened ones */
    lci_error_upcall_func_t error_upcall;
    void *error_upcall_arg;
    int in_upcall;
    int forwarding; /* M_h: waiting for a buffer to forward into */
    int finalizing; /* in lci_finalize, past the final barrier */
    int delivering; /* inside lci_host_deliver: no nested deliveries */
    int nopoll_done; /* the nopoll fault has happened */
    int host_faults; /* a nopoll= or die= fault is configured */
    int scaled;      /* --compute scaled: computation is measured */
    uint64_t upcalls; /* upcalls and error upcalls made so far */
    uint64_t left_at; /* clock when the host last left LCI (to compute) */
    uint64_t watchdog_from; /* timers due before this were interrupted for */
    uint64_t wake_posted;   /* time of the clock-interrupt wake-up last
                               posted (lci_host_idle_step) */
    uint64_t entered_at;    /* clock when the host last entered LCI */
    int in_lci; /* inside an LCI call: inner entries keep entered_at */
    uint8_t *unreachable; /* per node: a packet to it came back */

    /* receive ring and host receive buffers */
    uint32_t ring_cons;      /* next descriptor to look at */
    uint32_t hbuf_released;  /* host buffers released so far */
    uint32_t ring_reported;  /* the limit last told to the NI */
    uint8_t *hbuf_kept;      /* per host buffer: the client kept it */
    uint8_t *slot_taken;     /* per ring slot: lci_slot_ahead_t */
    int taking_ahead;        /* inside lci_host_take_ahead */
    lci_rpacket_t *rpackets; /* per host buffer */
    /* FIFO order restored behind an unordered rx (LCI_RX_UNORDERED), NULL
     * otherwise; a packet whose turn came waits for an upcall to be set */
    struct lci_reorder *reorder;
    /* rxh-mni (lci_mcast_once.c): multicast numbers given per group, and
     * the next expected from each root in each group */
    uint16_t *mcast_out;
    uint16_t *mcast_in;
    uint32_t mcast_groups;
    int reorder_stalled;

    /* send buffers */
    struct lci_packet *packets; /* one handle per send buffer */
    uint32_t *spare;            /* buffers returned unsent */
    uint32_t nspare;

    /* simulated time accounting */
    int empty_polls;
    /* The host computed, sent or released something since its last poll:
     * an empty poll after that is not idle spinning (lci_poll). */
    int computed_since_poll;
    /* Empty polls left that do not count as spinning, after the host was
     * woken because the whole cluster went idle: a program's next call
     * may poll a few times (a test, then the wait it makes) before it
     * does what ends the idleness (lci_poll). */
    int idle_grace;

    /* library protocols */
    uint32_t barrier_epoch, barrier_released;
    uint32_t barrier_arrivals[2];
    uint32_t fa_token, fa_done;
    int64_t fa_result;

    struct lci_group groups[64];
    uint32_t ngroups_used; /* group ids handed out, group 0 included */
    uint32_t members_used;
    struct lci_group all;

    /* reliability placed on the host (RX_h) */
    void *rx_state;
    lci_timer_wheel_t *timers;
    uint8_t *send_refs; /* per send buffer: references the host holds */
    int64_t *fa_vars;   /* fetch-and-add variables served by the host */

    uint64_t delivered;
    int standalone;
    void *seg_base;
    uint64_t seg_size;

    /* M_h forwards waiting for a send buffer (lci_place_host.c) */
    struct lci_pending_forward *pending_head, *pending_tail;
    /* --compute scaled: where the current stretch of application compute
     * began (lci_compute_clock.c) */
    uint64_t compute_wall_start;

    char last_error[512]; /* lci_last_error() */
} lci_host_t;

/* This node's host state: a node-local block (lci_node_local.h), so it
 * follows the running node where several share a process. */
extern LCI_INTERNAL lci_host_t *lci_host;

/* Records an error message for lci_last_error() and returns status. */
lci_status_t lci_error(lci_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Entering LCI: charges the application's compute, waits for the turn at
 * the host's clock, and takes a pending interrupt; returns the number of
 * packets the interrupt delivered to the upcall. */
int lci_host_enter(void);
/* Leaving LCI: application compute is measured from here. */
void lci_host_leave(void);
/* Around the client's upcall: its computation is the application's. */
void lci_host_upcall_begin(void);
void lci_host_upcall_end(void);
/* Charges n ns (n > 0) of host time for LCI work. */
void lci_host_charge_ns(const char *what, uint64_t n);
/* Charges ns of host time, rounded, for LCI work; what names it on the
 * timeline.  Inline: a free operation (every one on the live platform)
 * costs a test, not a call. */
static inline void lci_host_charge(const char *what, double ns)
{
    uint64_t n = (uint64_t)(ns + 0.5);
    if (n != 0) {
        lci_host_charge_ns(what, n);
    }
}
/* Compute accounting only (no scheduling): for calls that observe
 * nothing. */
void lci_host_account(void);
/* A later step of a call already inside LCI (lci_host_account ran): only
 * a host fault falling due strikes here, as it would between two calls;
 * there is no compute to charge and the platform has the host already. */
void lci_host_step(void);

/* Posts an event to this node's NI, arriving after the doorbell latency. */
void lci_host_post_ni(uint16_t type, uint32_t a);

/* rxh-mni: one delivery per multicast packet (lci_mcast_once.c). */
lci_status_t lci_mcast_once_init(uint32_t nnodes, uint32_t ngroups);
void lci_mcast_once_fini(void);
/* The root's next multicast number in group. */
uint16_t lci_mcast_once_number(uint16_t group);
/* Whether hdr is the first copy of its multicast packet in its root's
 * order (always 1 when the filter is off or hdr is no multicast). */
int lci_mcast_once_take(const lci_wire_hdr_t *hdr);

/* Sets up lci_host->reorder when the rx delivers out of order. */
lci_status_t lci_host_reorder_init(const lci_config_t *cfg);
/* Delivers every packet visible now; *next_p gets the time of the next
 * packet already in the ring but not yet visible, or LCI_TIME_INF. */
int lci_host_deliver(uint64_t *next_p);
/* What the reliability protocol already did with a ring slot taken in
 * ahead of its delivery. */
typedef enum {
    LCI_SLOT_UNSEEN = 0,   /* nothing yet */
    LCI_SLOT_CONSUMED = 1, /* an ack, or dropped: only to be recycled */
    LCI_SLOT_ACCEPTED = 2  /* accepted in order: to be delivered */
} lci_slot_ahead_t;

/* Where deliveries cannot run (inside an upcall or a forward), passes the
 * packets that have arrived through the host's reliability protocol
 * without delivering them.  *next_p as for lci_host_deliver. */
void lci_host_take_ahead(uint64_t *next_p);

/* Waits for the next thing that can happen to this host: its next packet
 * already in the ring (next), a soft timer, or whatever wakes it.  Runs the
 * timers that are due.  Returns 1 if woken only because the whole cluster
 * was idle. */
int lci_host_idle_step(uint64_t next, lci_host_status_t how);

/* Waits until cond(arg) holds, delivering packets meanwhile. */
lci_status_t lci_host_wait_until(int (*cond)(void *arg), void *arg);

/* Takes a send buffer, waiting if none is free. */
lci_status_t lci_host_packet_get(lci_packet_t **packet_p, int wait);

/* The next slot of the NI's command ring, cleared for the host to fill;
 * nothing else may be posted before it (lci_host_post). */
lci_cmd_t *lci_host_cmd_slot(void);

/* Posts the command filled in the slot lci_host_cmd_slot gave (sets its
 * arrival time, rings the doorbell if needed, charges host_send_ns). */
void lci_host_post(lci_cmd_t *cmd);

/* Posts a command for a filled send buffer. */
void lci_host_post_command(lci_packet_t *packet, uint8_t op, uint16_t dst,
                           size_t len, uint8_t flags);

/* Host-level multicast forwarding (M_h) of an arrived packet. */
void lci_host_forward(const lci_wire_hdr_t *hdr, const void *payload);
/* Forwards that waited for a send buffer: any left, and send what can. */
int lci_host_forward_pending(void);
void lci_host_forward_drain(void);

/* Placement of policies on the host (lci_place_host.c). */
lci_status_t lci_host_place_init(void);
void lci_host_place_fini(void);
/* At finalize: keeps running a host-placed protocol until nothing is owed
 * to or by this host. */
void lci_host_place_drain(void);
/* Sends a filled packet of the given type: through the NI's policies, or
 * through the host's own reliability module. */
/* lci_send() to endpoint ep of dest, from endpoint src_ep (fn names the
 * caller in error messages). */
lci_status_t lci_host_send_to(const char *fn, lci_packet_t *packet, int dest,
                              uint16_t ep, uint16_t src_ep, size_t len);
/* Endpoint id's upcall and its argument; NULL when it is not open. */
lci_upcall_func_t lci_host_endpoint_upcall(uint16_t id, void **arg_p);
void lci_host_submit(lci_packet_t *packet, uint8_t type, uint16_t dst,
                     size_t len, uint8_t flags);
/* Runs an arrival through the host's reliability module, if it has one:
 * 1 to deliver it, 0 if consumed or dropped. */
int lci_host_rx_accept(const lci_wire_hdr_t *hdr, uint32_t hbuf);
/* The client is done with an accepted packet (its upcall returned). */
void lci_host_rx_handled(const lci_wire_hdr_t *hdr);
/* Whether the host's reliability module has packets not yet
 * acknowledged. */
int lci_host_rx_waiting(void);
/* Soft timers: the next expiry (LCI_TIME_INF if none), and firing every
 * timer due at the host's clock. */
uint64_t lci_host_timers_next(void);
void lci_host_timers_run(void);
/* The NI's clock interrupt backs up the soft timers of a host that
 * computes: when the next would bring the host in (LCI_TIME_INF: none
 * runs), and taking it now (the host runs its due timers). */
uint64_t lci_host_clock_interrupt_at(void);
void lci_host_clock_interrupt(void);
/* Serves a fetch-and-add request on the host (F&A placed on the host). */
void lci_host_serve_fa(const lci_wire_hdr_t *hdr, const void *payload);
/* Hands a packet that could not be delivered to the error upcall. */
int lci_host_returned(const lci_wire_hdr_t *hdr, const void *data);

/* Handles an internal packet (barrier). */
void lci_host_internal(const lci_wire_hdr_t *hdr, const void *payload);

#define LCI_CHECK_INIT()                                                       \
    do {                                                                       \
        if (!lci_host->inited) {                                                \
            return lci_error(LCI_ERR_STATE, "%s: LCI is not initialised",      \
                             __func__);                                        \
        }                                                                      \
    } while (0)

#endif
