/*
 * lci_timeline.h - an optional timeline of where host and NI time goes, in
 * Chrome/Perfetto trace-event JSON ("X" complete events, one process per
 * node, one track for the host and one for the NI).
 *
 * `lci-run --timeline FILE` creates FILE with the opening bracket and hands
 * its path to every node in LCI_TIMELINE; each node process appends whole
 * lines with O_APPEND, so the processes never interleave inside a line.
 * Spans are in virtual time.  Recording is off (one branch) unless asked.
 */
#ifndef LCI_TIMELINE_H
#define LCI_TIMELINE_H

#include <stdint.h>

#include "lci_internal.h"

#define LCI_TIMELINE_ENV "LCI_TIMELINE"
/* "FROM:TO" in ns: only spans that overlap it are written (a long run's
 * whole timeline would take gigabytes). */
#define LCI_TIMELINE_WINDOW_ENV "LCI_TIMELINE_WINDOW"

typedef enum { LCI_TRACK_HOST = 0, LCI_TRACK_NI = 1 } lci_track_t;

/* Whether this process records (set by lci_timeline_open), and the
 * window of virtual time it records. */
extern LCI_INTERNAL int lci_timeline_on;
extern LCI_INTERNAL uint64_t lci_timeline_from, lci_timeline_until;

/* Opens the file named by LCI_TIMELINE, if set, and reads the window of
 * LCI_TIMELINE_WINDOW.  Returns 0, or -1 with errno set when the file
 * cannot be opened or the window is not FROM:TO. */
int lci_timeline_open(void);

/* Records that node's track was busy with what from start to end (ns). */
void lci_timeline_record(uint32_t node, lci_track_t track, const char *what,
                         uint64_t start, uint64_t end);

static inline void lci_timeline_span(uint32_t node, lci_track_t track,
                                     const char *what, uint64_t start,
                                     uint64_t end)
{
    if (lci_timeline_on && end > start && end > lci_timeline_from &&
        start < lci_timeline_until) {
        lci_timeline_record(node, track, what, start, end);
    }
}

/* Writes what is buffered (at exit and before the turn passes on). */
void lci_timeline_flush(void);

/* Parses "FROM:TO", milliseconds of virtual time with FROM < TO, into ns.
 * Returns 0, or -1 when text is not such a window. */
int lci_timeline_window_parse(const char *text, uint64_t *from_ns,
                              uint64_t *until_ns);

/* Creates path holding the opening bracket and the track names of nnodes
 * nodes (lci-run).  Returns 0 or -1 with errno set. */
int lci_timeline_create(const char *path, uint32_t nnodes);

#endif
