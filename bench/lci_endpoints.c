/*
 * lci_endpoints.c - what many endpoints per node cost: nodes 0 and 1 each
 * open E endpoints; endpoint i of node 0 makes a burst of B round trips
 * with endpoint i of node 1, for i = 1..E in turn, over several rounds
 * (communication is bursty, the case AM-II's paging was designed for),
 * after one untimed round that touches every endpoint once.
 * With more endpoints than the NI holds frames, each burst may begin with
 * endpoint faults at both ends; with the paper's fixed buffers endpoints
 * are only the host's demultiplexing.  Prints the mean round trip, the
 * message rate, and the endpoint faults per round trip.
 *
 * Usage: lci-run -n 2 ./lci_endpoints [-e E] [-b B] [-r ROUNDS] [--csv FILE]
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "lci.h"

#define MAX_E 128

typedef struct {
    int replies; /* node 0: replies seen on this endpoint */
} ep_state_t;

static ep_state_t states[MAX_E + 1];
static lci_endpoint_t *eps[MAX_E + 1];
static int finished; /* node 1: node 0 is done */

static void send_on(lci_endpoint_t *from, int dest, int to_ep, char kind)
{
    lci_packet_t *p;
    if (lci_packet_alloc(&p) != LCI_OK || lci_packet_write(p, 0, &kind, 1) != LCI_OK ||
        lci_endpoint_send(from, p, dest, to_ep, 1) != LCI_OK) {
        bench_fail("cannot send from endpoint %d", lci_endpoint_id(from));
    }
}

static lci_upcall_result_t upcall(lci_rpacket_t *p, void *arg)
{
    ep_state_t *st = arg;
    char kind = ((const char *)p->data)[0];
    if (kind == 'x') {
        finished = 1;
    } else if (lci_rank() == 0) {
        st->replies++;
    } else {
        send_on(eps[p->ep], p->src, p->src_ep, 'r'); /* the reply */
    }
    return LCI_UPCALL_RELEASE;
}

static long opt(int argc, char **argv, const char *name, long def)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            char *end;
            long v = strtol(argv[i + 1], &end, 10);
            if (*end != '\0' || v < 1) {
                bench_usage_error("%s expects a positive number, got '%s'",
                                  name, argv[i + 1]);
            }
            return v;
        }
    }
    return def;
}

int main(int argc, char **argv)
{
    if (lci_init(&argc, &argv) != LCI_OK) {
        return 1;
    }
    long e = opt(argc, argv, "-e", 16), b = opt(argc, argv, "-b", 16);
    long rounds = opt(argc, argv, "-r", 4);
    const char *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = argv[++i];
        } else if ((strcmp(argv[i], "-e") == 0 || strcmp(argv[i], "-b") == 0 ||
                    strcmp(argv[i], "-r") == 0) &&
                   i + 1 < argc) {
            i++;
        } else {
            bench_usage_error("unknown option '%s' (expected -e E, -b B, -r "
                              "ROUNDS, --csv FILE)",
                              argv[i]);
        }
    }
    if (e > MAX_E || lci_size() < 2) {
        bench_usage_error("-e %ld: at most %d endpoints, on 2 or more nodes",
                          e, MAX_E);
    }
    lci_upcall_set(upcall, &states[0]);
    eps[0] = lci_endpoint_default();
    for (int i = 1; i <= e; i++) {
        if (lci_endpoint_open(&eps[i], upcall, &states[i]) != LCI_OK) {
            bench_fail("cannot open endpoint %d", i);
        }
    }
    lci_barrier();
    lci_counters_t before, after;
    if (lci_rank() == 0) {
        /* An untimed round first: every endpoint has been used once, so
         * what is left is the cost of more endpoints than frames. */
        double t0 = 0;
        for (long r = 0; r <= rounds; r++) {
            if (r == 1) {
                lci_counters_get(&before);
                t0 = lci_wtime();
            }
            for (int i = 1; i <= e; i++) {
                for (long k = 0; k < b; k++) {
                    int want = states[i].replies + 1;
                    send_on(eps[i], 1, i, 'q');
                    while (states[i].replies < want) {
                        lci_poll();
                    }
                }
            }
        }
        double t = lci_wtime() - t0;
        lci_counters_get(&after);
        double trips = (double)(rounds * e * b);
        double rtt = t / trips * 1e6;
        double faults = (double)(after.ep_faults - before.ep_faults);
        printf("endpoints %ld, bursts of %ld, %ld rounds: round trip %.2f us, "
               "%.0f messages/s, %.3f endpoint faults at node 0 per round "
               "trip\n",
               e, b, rounds, rtt, 2 * trips / t, faults / trips);
        if (csv != NULL) {
            bench_csv_row(csv, "lci_endpoints", "rtt", rtt, (size_t)e, -1.0);
        }
        send_on(eps[0], 1, 0, 'x');
    } else if (lci_rank() == 1) {
        while (!finished) {
            lci_poll();
        }
    }
    lci_barrier();
    lci_finalize();
    return 0;
}
