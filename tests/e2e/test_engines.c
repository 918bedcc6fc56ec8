/*
 * test_engines.c - the simulator's two engines give the same simulation
 * (CUnit).
 *
 * Every program here runs twice through lci-run with --compute zero and
 * --trace-hash: once with every node as a fiber in one process (--engine
 * fibers) and once with a process per node (--engine processes).  Both runs
 * must succeed and print the same trace hash: the fiber engine changes how
 * the turn passes between nodes, never what is simulated.  Then what the
 * fiber engine must do that a process does by itself: a node's exit
 * handlers and globals are its own, a crash names the node, Panda-MT's
 * threads run as fibers of their node, and a program that makes POSIX
 * threads of its own runs a process per node, saying why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "config.h"
#include "e2e_runner.h"

#define MAX_ARGS 24

/* Runs the command once per engine and compares the two trace hashes. */
static void same_trace(const char *const *cmd)
{
    char hashes[2][19];
    const char *engines[2] = {"fibers", "processes"};
    for (int e = 0; e < 2; e++) {
        const char *argv[MAX_ARGS + 8] = {NULL};
        int n = 0;
        argv[n++] = "--engine";
        argv[n++] = engines[e];
        argv[n++] = "--compute";
        argv[n++] = "zero";
        argv[n++] = "--trace-hash";
        for (int i = 0; cmd[i] != NULL && n < MAX_ARGS + 6; i++) {
            argv[n++] = cmd[i];
        }
        argv[n] = NULL;
        struct e2e_run r;
        /* e2e_run takes its arguments as a NULL-terminated list. */
        e2e_run(&r, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5],
                argv[6], argv[7], argv[8], argv[9], argv[10], argv[11],
                argv[12], argv[13], argv[14], argv[15], argv[16], argv[17],
                argv[18], argv[19], argv[20], argv[21], argv[22], argv[23],
                NULL);
        int ok = e2e_expect_success(&r);
        if (ok && !e2e_trace_hash(&r, hashes[e])) {
            CU_FAIL("no trace-hash line");
            ok = 0;
        }
        e2e_run_free(&r);
        if (!ok) {
            return;
        }
    }
    if (strcmp(hashes[0], hashes[1]) != 0) {
        fprintf(stderr, "    %s ...: fibers %s, processes %s\n", cmd[2],
                hashes[0], hashes[1]);
    }
    CU_ASSERT_STRING_EQUAL(hashes[0], hashes[1]);
}

/* Every decomposition the build offers, with drops on the retransmitting
 * ones: one cell each. */
static void same_trace_every_decomp(const char *n, const char *prog,
                                    const char *a1, const char *a2)
{
    for (int d = 0; d < E2E_NDECOMPS; d++) {
        const char *decomp = e2e_decomps[d];
        if (!e2e_offered(decomp)) {
            continue;
        }
        int lossy = strncmp(decomp, "rxno", 4) != 0;
        const char *cmd[] = {"-n",     n,   "--decomp", decomp,
                             "--fault", lossy ? "drop=0.01,seed=5" : "seed=5",
                             prog,     a1,  a2,         NULL};
        same_trace(cmd);
    }
}

/* ---- LCI programs ----------------------------------------------------- */

static void test_alltoall_with_drops_same_trace_on_both_engines(void)
{
    same_trace_every_decomp("16", ALLTOALL, "-k", "30");
}

static void test_multicast_with_drops_same_trace_on_both_engines(void)
{
    same_trace_every_decomp("16", MCAST, "-k", "30");
}

static void test_fetch_and_add_same_trace_on_both_engines(void)
{
    same_trace_every_decomp("7", FA, "-k", "40");
}

static void test_64_node_alltoall_same_trace_on_both_engines(void)
{
    const char *cmd[] = {"-n", "64", ALLTOALL, "-k", "10", NULL};
    same_trace(cmd);
}

static void test_microbenchmarks_same_trace_on_both_engines(void)
{
    const char *logp[] = {"-n", "2", e2e_prog_path("bench/lci_logp"),
                          "--iters", "20", "--warmup", "2", "--burst", "50",
                          NULL};
    const char *tput[] = {"-n", "2", e2e_prog_path("bench/lci_throughput"),
                          "--sizes", "64,3000", "--iters", "3", NULL};
    const char *bcast[] = {"-n", "64", e2e_prog_path("bench/lci_bcast"),
                           "--iters", "5", "--sizes", "2500", NULL};
    const char *fa[] = {"-n", "8", e2e_prog_path("bench/lci_fa"), "--iters",
                        "20", NULL};
    same_trace(logp);
    same_trace(tput);
    same_trace(bcast);
    same_trace(fa);
}

/* ---- the parallel-programming systems and the applications ------------ */

static void test_pps_programs_same_trace_on_both_engines(void)
{
    const char *mpi_p2p[] = {"-n", "4", e2e_prog_path("tests/pps/mpi_p2p"),
                             NULL};
    const char *mpi_coll[] = {"-n", "8", e2e_prog_path("tests/pps/mpi_coll"),
                              NULL};
    const char *panda[] = {"-n", "5", e2e_prog_path("tests/pps/panda_rpc"),
                           NULL};
    const char *obcast[] = {"-n", "5",
                            e2e_prog_path("tests/pps/panda_bcast"), NULL};
    const char *orca[] = {"-n", "2",
                          e2e_prog_path("tests/pps/orca_errors"), NULL};
    const char *crl[] = {"-n", "8", e2e_prog_path("tests/pps/crl_coherence"),
                         "-k", "40", NULL};
    const char *mg[] = {"-n", "7", e2e_prog_path("tests/pps/mg_jobs"), "-k",
                        "4", NULL};
    same_trace(mpi_p2p);
    same_trace(mpi_coll);
    same_trace(panda);
    same_trace(obcast);
    same_trace(orca);
    same_trace(crl);
    same_trace(mg);
}

/* Panda-MT's threads are fibers of their node under the fiber engine. */
static void test_panda_mt_threads_same_trace_on_both_engines(void)
{
    const char *panda_mt[] = {"-n", "3", e2e_prog_path("tests/pps/panda_mt"),
                              "--mt", NULL};
    const char *orca_rep[] = {"-n", "4",
                              e2e_prog_path("tests/pps/orca_replicated"),
                              "--mt", NULL};
    const char *orca_single[] = {"-n", "4",
                                 e2e_prog_path("tests/pps/orca_single"),
                                 "--mt", NULL};
    const char *orca_guards[] = {"-n", "4",
                                 e2e_prog_path("tests/pps/orca_guards"),
                                 "--mt", NULL};
    same_trace(panda_mt);
    same_trace(orca_rep);
    same_trace(orca_single);
    same_trace(orca_guards);
}

static void test_applications_same_trace_on_both_engines(void)
{
    const char *sor[] = {"-n", "16", e2e_prog_path("apps/sor"), "--quick",
                         NULL};
    const char *qr[] = {"-n", "16", e2e_prog_path("apps/qr"), "--quick",
                        NULL};
    const char *radix[] = {"-n", "16", e2e_prog_path("apps/radix"), "--keys",
                           "8192", NULL};
    const char *barnes[] = {"-n", "8", e2e_prog_path("apps/barnes"),
                            "--bodies", "128", "--steps", "1", NULL};
    const char *leq[] = {"-n", "8", e2e_prog_path("apps/leq"), "--quick",
                         NULL};
    const char *puzzle[] = {"-n", "8", e2e_prog_path("apps/puzzle"), "-k",
                            "4", "--quick", NULL};
    const char *awari[] = {"-n", "8", e2e_prog_path("apps/awari"), "--quick",
                           NULL};
    same_trace(sor);
    same_trace(qr);
    same_trace(radix);
    same_trace(barnes);
    same_trace(leq);
    same_trace(puzzle);
    same_trace(awari);
}

/* ---- what the fiber engine does in a process's stead ------------------ */

static void test_fibers_run_each_nodes_exit_handler_once_with_its_globals(void)
{
    struct e2e_run r;
    e2e_run(&r, "--engine", "fibers", "-n", "5", MISBEHAVE, "--mode",
            "atexit", NULL);
    if (e2e_expect_success(&r)) {
        for (int k = 0; k < 5; k++) {
            char line[80];
            snprintf(line, sizeof line,
                     "e2e_misbehave: exit handler of node %d\n", k);
            const char *first = strstr(r.out, line);
            CU_ASSERT_PTR_NOT_NULL(first);
            CU_ASSERT(first == NULL || strstr(first + 1, line) == NULL);
        }
    }
    e2e_run_free(&r);
}

static void test_a_crashing_node_is_named_on_both_engines(void)
{
    const char *engines[] = {"fibers", "processes"};
    for (int e = 0; e < 2; e++) {
        struct e2e_run r;
        e2e_run(&r, "--engine", engines[e], "-n", "4", MISBEHAVE, "--mode",
                "segv", NULL);
        e2e_expect_failure(&r, "node 2", NULL);
        e2e_run_free(&r);
    }
}

static void test_a_program_that_makes_threads_runs_a_process_per_node(void)
{
    const char *mt = e2e_prog_path("tests/e2e/e2e_thread");
    struct e2e_run r;
    e2e_run(&r, "-n", "3", mt, NULL);
    e2e_expect_success(&r);
    CU_ASSERT(e2e_contains(r.err, "running a process per node"));
    CU_ASSERT(e2e_contains(r.err, "creates threads (pthread_create)"));
    e2e_run_free(&r);
    /* Asked for fibers, it refuses with the same reason. */
    e2e_run(&r, "--engine", "fibers", "-n", "3", mt, NULL);
    CU_ASSERT(r.exited && r.status == 2);
    CU_ASSERT(e2e_contains(r.err, "creates threads"));
    e2e_run_free(&r);
}

static void test_an_unknown_engine_is_refused_with_the_valid_names(void)
{
    struct e2e_run r;
    e2e_run(&r, "--engine", "threads", "-n", "2", ALLTOALL, NULL);
    e2e_expect_failure(&r, "fibers", "processes", NULL);
    CU_ASSERT(r.exited && r.status == 2);
    e2e_run_free(&r);
}

int main(void)
{
    if (!LCI_HAVE_FIBERS) {
        printf("SKIPPED: this build has no fiber engine "
               "(libboost-context-dev)\n");
        return 77;
    }
    if (e2e_runner_init() != 0) {
        return 1;
    }
    if (CU_initialize_registry() != CUE_SUCCESS) {
        return 1;
    }
    CU_pSuite s = CU_add_suite("engines", NULL, NULL);
#define ADD(t) CU_add_test(s, #t, t)
    ADD(test_alltoall_with_drops_same_trace_on_both_engines);
    ADD(test_multicast_with_drops_same_trace_on_both_engines);
    ADD(test_fetch_and_add_same_trace_on_both_engines);
    ADD(test_64_node_alltoall_same_trace_on_both_engines);
    ADD(test_microbenchmarks_same_trace_on_both_engines);
    ADD(test_pps_programs_same_trace_on_both_engines);
    ADD(test_panda_mt_threads_same_trace_on_both_engines);
    ADD(test_applications_same_trace_on_both_engines);
    ADD(test_fibers_run_each_nodes_exit_handler_once_with_its_globals);
    ADD(test_a_crashing_node_is_named_on_both_engines);
    ADD(test_a_program_that_makes_threads_runs_a_process_per_node);
    ADD(test_an_unknown_engine_is_refused_with_the_valid_names);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    e2e_runner_cleanup();
    return failed ? 1 : 0;
}
