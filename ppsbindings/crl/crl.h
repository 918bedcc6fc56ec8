/*
 * crl.h - CRL, region-based distributed shared memory (Johnson, Kaashoek and
 * Wallach, SOSP 1995), single-threaded, directly on LCI.
 *
 * A region is a block of memory of a size fixed at creation, named by a
 * region identifier (rid_t) that every node can use.  The node that creates
 * a region is its home; the rid encodes the home, so no lookup is needed.
 * A node maps a region to get a pointer to its local copy and brackets
 * every access with rgn_start_read/rgn_end_read or
 * rgn_start_write/rgn_end_write.  Between a start and its end the copy is
 * coherent: many readers or one writer, and every reader sees the last
 * write (sequential consistency for programs whose accesses are all
 * bracketed).
 *
 * Coherence is a home-based invalidation protocol.  A read miss sends a
 * request to the home, which recalls an exclusive copy if there is one and
 * replies with the data; a write miss makes the home invalidate every other
 * copy (an exclusive copy comes back with its data) and reply with the data
 * (or without it, when the writer still holds a valid shared copy).  A node
 * blocks, polling, while its own miss is outstanding and meanwhile serves
 * the requests and invalidations that reach it; requests the home cannot
 * serve yet wait in a per-region queue, in arrival order.  Invalidations
 * that reach a copy in use wait until the section ends.
 *
 * Differences from CRL 1.0: calls that returned nothing return a status
 * (CRL_OK or a negative crl_status_t, with crl_last_error() saying why);
 * crl_init takes argc/argv for LCI's options; crl_finalize ends the run.
 * Nested rgn_start_read on a region already being read is allowed; a start
 * on a region this node is writing, or rgn_start_write on a region it is
 * reading, is refused (CRL_ERR_STATE).
 *
 * Every node must call crl_init first (collective) and crl_finalize last.
 * A program that uses CRL leaves LCI's upcall to CRL.
 */
#ifndef CRL_H
#define CRL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CRL_OK = 0,
    CRL_ERR_INVAL = -1,    /* bad argument (NULL, zero size, unknown op) */
    CRL_ERR_STATE = -2,    /* not valid now (not initialised, bad nesting) */
    CRL_ERR_NOREGION = -3, /* no such region (never created, or deleted) */
    CRL_ERR_NOMEM = -4,    /* host memory exhausted */
    CRL_ERR_LCI = -5       /* LCI failed underneath (see crl_last_error) */
} crl_status_t;

/* A region identifier: (home + 1) in the high 32 bits, the home's
 * creation index in the low ones.  CRL_RID_NONE is never a region. */
typedef uint64_t rid_t;
typedef rid_t rgn_id_t;
#define CRL_RID_NONE ((rid_t)0)

/* This node and the number of nodes (CRL 1.0's names), valid after
 * crl_init. */
extern int crl_self_addr;
extern int crl_num_nodes;

/* Starts LCI (lci_init removes --lci-* options from argv) and CRL on this
 * node.  Collective.  If the program has started LCI itself, CRL uses it
 * (and takes over its upcall); the program then also stops it. */
crl_status_t crl_init(int *argc, char ***argv);

/* Waits for every node (rgn_barrier), frees every region and stops LCI if
 * crl_init started it. */
crl_status_t crl_finalize(void);

const char *crl_strerror(crl_status_t status);
const char *crl_last_error(void);

/* ---- regions -------------------------------------------------------- */

/* Creates a region of size bytes (zero-filled) homed on this node; returns
 * its rid, or CRL_RID_NONE on error.  The creator maps it like any node. */
rid_t rgn_create(unsigned size);

/* Deletes a region.  Only its home may delete it, and only while no node
 * has a section open on it; returns when the copies cached elsewhere are
 * dropped.  Later rgn_map calls return NULL (CRL_ERR_NOREGION). */
crl_status_t rgn_delete(rid_t rid);

/* Maps a region and returns a pointer to this node's copy of its data, or
 * NULL on error.  The first map on a node other than the home asks the home
 * for the region's size.  Maps nest; the copy stays cached after the last
 * unmap until it is invalidated or flushed. */
void *rgn_map(rid_t rid);
crl_status_t rgn_unmap(void *rgn);

/* The rid and size of a mapped region (CRL_RID_NONE / 0 for NULL). */
rid_t rgn_rid(void *rgn);
unsigned rgn_size(void *rgn);

/* Sections: block until the copy is valid for reading / writing. */
crl_status_t rgn_start_read(void *rgn);
crl_status_t rgn_end_read(void *rgn);
crl_status_t rgn_start_write(void *rgn);
crl_status_t rgn_end_write(void *rgn);

/* Gives this node's copy back to the home (with its data if it was being
 * written).  No effect at the home.  Not inside a section. */
crl_status_t rgn_flush(void *rgn);

/* ---- global operations ---------------------------------------------- */

/* Waits until every node has called it (serving requests meanwhile; CRL's
 * own messages, so that replies held for later still go out). */
crl_status_t rgn_barrier(void);

/* One node sends nbytes of buf to every other node, which receive them,
 * in order, with rgn_bcast_recv and the same nbytes.  Sent by LCI
 * broadcast. */
crl_status_t rgn_bcast_send(int nbytes, void *buf);
crl_status_t rgn_bcast_recv(int nbytes, void *buf);

/* Global reductions (collective): every node gets the sum / minimum /
 * maximum of the values all nodes passed, combined in rank order, so every
 * node gets the same bits.  NaN on error (crl_last_error says why). */
double rgn_reduce_dadd(double value);
double rgn_reduce_dmin(double value);
double rgn_reduce_dmax(double value);

/* ---- statistics ----------------------------------------------------- */

typedef struct {
    uint64_t read_misses;  /* rgn_start_read that had to wait */
    uint64_t write_misses; /* rgn_start_write that had to wait */
    uint64_t read_hits;
    uint64_t write_hits;
    uint64_t invalidations_sent;     /* by this node as a home */
    uint64_t invalidations_received; /* by this node's copies */
    uint64_t requests_queued; /* requests a home could not serve at once */
    uint64_t msgs_sent;
    uint64_t msgs_received; /* packets taken from LCI */
    uint64_t msgs_deferred; /* packets that arrived during a CRL call */
    uint64_t msgs_held;     /* sends a handler left for later: no buffer */
} crl_stats_t;

crl_status_t crl_stats_get(crl_stats_t *stats_p);

#ifdef __cplusplus
}
#endif
#endif /* CRL_H */
