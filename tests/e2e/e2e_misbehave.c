/*
 * e2e_misbehave.c - node programs that go wrong on purpose, so the driver
 * can check that lci-run reports each failure and ends the run.
 *
 * Usage: lci-run -n N ./e2e_misbehave --mode MODE
 *
 *   abort     node 1 calls lci_abort(3, "deliberate abort from node 1");
 *             the others wait for packets that never come.
 *   deadlock  every node waits for a packet nobody sends; the simulator
 *             must detect it: lci-run reports "deadlock" (the runtime may
 *             end the nodes itself or return LCI_ERR_DEADLOCK, after
 *             which this program exits 3).
 *   exit      the last node exits with status 7 without lci_finalize; the
 *             others wait in lci_barrier.
 *   kill      node 1 kills itself with SIGKILL (a node that dies).
 *   segv      node 2 writes through a null pointer (a node that crashes).
 *   atexit    every node registers an exit handler that prints the rank it
 *             kept in a global, finalizes and calls exit(0): each handler
 *             runs once, with its own node's global.
 *   ok        everyone finalizes normally (the control case).
 */
#include <signal.h>

#include "e2e_common.h"

static lci_upcall_result_t mb_upcall(lci_rpacket_t *p, void *arg)
{
    (void)arg;
    e2e_fail("unexpected packet from node %d", p->src);
}

static int kept_rank = -1; /* one per node, even with nodes as fibers */

static void mb_at_exit(void)
{
    printf("e2e_misbehave: exit handler of node %d\n", kept_rank);
}

static const char *mb_mode(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--mode") == 0) {
            return argv[i + 1];
        }
    }
    return "ok";
}

int main(int argc, char **argv)
{
    const char *mode;
    int rank, size, n;

    e2e_init(&argc, &argv, "e2e_misbehave");
    mode = mb_mode(argc, argv);
    rank = lci_rank();
    size = lci_size();
    e2e_check(lci_upcall_set(mb_upcall, NULL), "lci_upcall_set");

    if (strcmp(mode, "abort") == 0) {
        if (rank == 1 % size) {
            lci_abort(3, "deliberate abort from node 1");
        }
        n = lci_poll_wait();
        e2e_fail("lci_poll_wait returned %d after another node aborted", n);
    } else if (strcmp(mode, "deadlock") == 0) {
        n = lci_poll_wait();
        if (n == LCI_ERR_DEADLOCK) {
            fprintf(stderr,
                    "e2e_misbehave: node %d: lci_poll_wait returned "
                    "LCI_ERR_DEADLOCK as expected\n",
                    rank);
            return 3;
        }
        e2e_fail("lci_poll_wait returned %d (%s) instead of LCI_ERR_DEADLOCK",
                 n, lci_strerror((lci_status_t)n));
    } else if (strcmp(mode, "exit") == 0) {
        if (rank == size - 1) {
            return 7;
        }
        lci_barrier();
        /* Reaching here is tolerable only if lci-run still fails the run. */
        return 0;
    } else if (strcmp(mode, "kill") == 0) {
        if (rank == 1 % size) {
            raise(SIGKILL);
        }
        lci_barrier();
        return 0;
    } else if (strcmp(mode, "segv") == 0) {
        if (rank == 2 % size) {
            volatile int *volatile nowhere = NULL;
            *nowhere = 1;
        }
        lci_barrier();
        return 0;
    } else if (strcmp(mode, "atexit") == 0) {
        kept_rank = rank;
        e2e_check(atexit(mb_at_exit) == 0 ? LCI_OK : LCI_ERR_NOMEM, "atexit");
        e2e_check(lci_barrier(), "lci_barrier");
        e2e_check(lci_finalize(), "lci_finalize");
        exit(0);
    } else if (strcmp(mode, "ok") != 0) {
        e2e_fail("unknown --mode %s", mode);
    }
    e2e_check(lci_barrier(), "lci_barrier");
    e2e_check(lci_finalize(), "lci_finalize");
    return 0;
}
