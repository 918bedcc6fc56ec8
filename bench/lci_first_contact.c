/*
 * lci_first_contact.c - what the first packet to a node costs: node 0
 * makes a round trip to every other node in turn, twice, and compares the
 * first round trip with each node (the first contact: under VMMC-2 the
 * route is looked up then) with the second (warm).  The difference is the
 * cost of a route miss; on the decompositions with static routes it is
 * near zero.  The reply is sent from the upcall, so the round trip is two
 * one-way latencies plus the handler.
 *
 * The warm figure is the fastest of WARM_TRIPS round trips.
 *
 * Usage: lci-run -n N ./lci_first_contact [--csv FILE]
 * Prints one line per measure in microseconds and, with --csv, appends
 * bench,decomp,packet_size,metric,value_us rows.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "lci.h"

typedef struct {
    int replies; /* node 0: replies seen */
    int done;    /* the others: node 0 has finished */
} contact_state_t;

enum { MSG_PING = 1, MSG_DONE = 2 };
/* Warm round trips per node; the fastest counts (the first ones after the
 * first contact may still meet its acknowledgements on the way). */
#define WARM_TRIPS 8

static void send_byte(int dest, char b)
{
    lci_packet_t *p;
    if (lci_packet_alloc(&p) != LCI_OK ||
        lci_packet_write(p, 0, &b, 1) != LCI_OK || lci_send(p, dest, 1) != LCI_OK) {
        bench_fail("cannot send to node %d", dest);
    }
}

static lci_upcall_result_t upcall(lci_rpacket_t *p, void *arg)
{
    contact_state_t *st = arg;
    if (lci_rank() == 0) {
        st->replies++;
    } else if (((const char *)p->data)[0] == MSG_DONE) {
        st->done = 1;
    } else {
        send_byte(p->src, MSG_PING); /* the reply, from the handler */
    }
    return LCI_UPCALL_RELEASE;
}

/* One round trip from node 0 to dest; seconds. */
static double round_trip(contact_state_t *st, int dest)
{
    int want = st->replies + 1;
    double t0 = lci_wtime();
    send_byte(dest, MSG_PING);
    while (st->replies < want) {
        lci_poll();
    }
    return lci_wtime() - t0;
}

int main(int argc, char **argv)
{
    const char *csv = NULL;
    if (lci_init(&argc, &argv) != LCI_OK) {
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = argv[++i];
        } else {
            fprintf(stderr, "lci_first_contact: unknown option '%s' "
                            "(expected --csv FILE)\n",
                    argv[i]);
            lci_finalize();
            return 2;
        }
    }
    if (lci_size() < 2) {
        bench_fail("needs at least 2 nodes");
    }
    contact_state_t st = {0};
    lci_upcall_set(upcall, &st);
    /* No barrier first: it would make the first contacts. */
    if (lci_rank() == 0) {
        double first = 0, warm = 0;
        int peers = lci_size() - 1;
        for (int d = 1; d <= peers; d++) {
            first += round_trip(&st, d);
            double best = 0;
            for (int k = 0; k < WARM_TRIPS; k++) {
                double t = round_trip(&st, d);
                best = k == 0 || t < best ? t : best;
            }
            warm += best;
        }
        first = first / peers * 1e6;
        warm = warm / peers * 1e6;
        printf("first-contact round trip: %.2f us\n", first);
        printf("warm round trip:          %.2f us\n", warm);
        printf("route miss:               %.2f us\n", first - warm);
        if (csv != NULL) {
            const char *metric[3] = {"first_rtt", "warm_rtt", "route_miss"};
            double v[3] = {first, warm, first - warm};
            for (int k = 0; k < 3; k++) {
                bench_csv_row(csv, "lci_first_contact", metric[k], v[k], 1,
                              -1.0);
            }
        }
    }
    if (lci_rank() == 0) {
        for (int d = 1; d < lci_size(); d++) {
            send_byte(d, MSG_DONE);
        }
    } else {
        while (!st.done) {
            lci_poll();
        }
    }
    lci_finalize();
    return 0;
}
