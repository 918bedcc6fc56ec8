/*
 * test_fault_matrix.c - every decomposition under every kind of injected
 * fault (CUnit): the retransmitting ones deliver every packet exactly once,
 * in order, intact; the RX_no ones pass without wire faults and stop loudly
 * under any wire fault; a dead node gives return-to-sender, not a hang.
 *
 * One test per decomposition; each runs the all-to-all, multicast and
 * fetch-and-add programs on 2, 7 and 64 nodes under each fault (fewer
 * packets on 64 nodes).
 * A decomposition this build does not offer is reported as skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "e2e_runner.h"

#define DEADNODE e2e_prog_path("tests/e2e/e2e_deadnode")

typedef struct {
    const char *spec;  /* --fault value, NULL for none */
    int on_wire;       /* loses, damages or repeats packets on the wire */
} fault_t;

/* Heavy enough that every run meets the fault at least once. */
static const fault_t faults[] = {
    {NULL, 0},
    {"drop=0.01,seed=11", 1},
    {"drop=0.1,seed=12", 1},
    {"corrupt=0.05,seed=13", 1},
    {"dup=0.05,seed=14", 1},
    {"burst=0.02:5,seed=15", 1},
    {"linkdown=0-1@20us+5ms", 1},
    {"nobuf=1@20us+2ms", 1},
    {"nopoll=1@20us+2ms", 0},
};

typedef struct {
    const char *name;
    const char *k;
} program_t;

static int is_rx_no(const char *decomp)
{
    return strncmp(decomp, "rxno", 4) == 0;
}

static void run_case(const char *decomp, const char *n, const fault_t *f,
                     const char *prog, const char *k)
{
    struct e2e_run r;
    if (f->spec != NULL) {
        e2e_run(&r, "-n", n, "--decomp", decomp, "--fault", f->spec, prog,
                "-k", k, NULL);
    } else {
        e2e_run(&r, "-n", n, "--decomp", decomp, prog, "-k", k, NULL);
    }
    if (is_rx_no(decomp) && f->on_wire && r.exited && r.status == 0 &&
        e2e_contains(r.err, "lci-run: 0 wire faults injected")) {
        /* The fault never met a packet in this short run: nothing to see. */
        CU_ASSERT(e2e_contains(r.out, "OK"));
    } else if (is_rx_no(decomp) && f->on_wire) {
        /* RX_no never delivers wrong data: it stops, naming the broken
         * assumption, or, when the lost packet was the last one on its
         * link, the simulator reports every node waiting. */
        int loud = !r.exited || r.status != 0;
        int says = e2e_contains(r.err, "RX_no") ||
                   e2e_contains(r.err, "deadlock");
        if (!loud || !says) {
            printf("\n    %s under %s: expected a loud stop\n", decomp,
                   f->spec);
            e2e_print_tail("stderr", r.err, 600);
        }
        CU_ASSERT(loud && says);
    } else {
        if (!e2e_expect_success(&r)) {
            printf("    (%s, %s nodes, fault %s)\n", decomp, n,
                   f->spec ? f->spec : "none");
        }
    }
    e2e_run_free(&r);
}

static void check_matrix(const char *decomp)
{
    if (e2e_skip_unless_offered(decomp)) {
        return;
    }
    const char *progs[3][2] = {{NULL, "30"}, {NULL, "10"}, {NULL, "20"}};
    progs[0][0] = e2e_prog_path("tests/e2e/e2e_alltoall");
    progs[1][0] = e2e_prog_path("tests/e2e/e2e_mcast");
    progs[2][0] = e2e_prog_path("tests/e2e/e2e_fa");
    static const char *const sizes[] = {"2", "7"};
    for (size_t fi = 0; fi < sizeof faults / sizeof faults[0]; fi++) {
        for (size_t ni = 0; ni < 2; ni++) {
            for (size_t pi = 0; pi < 3; pi++) {
                run_case(decomp, sizes[ni], &faults[fi], progs[pi][0],
                         progs[pi][1]);
            }
        }
    }
    /* At scale: every fault on 64 nodes, with fewer packets. */
    for (size_t fi = 0; fi < sizeof faults / sizeof faults[0]; fi++) {
        run_case(decomp, "64", &faults[fi], progs[0][0], "3");
        run_case(decomp, "64", &faults[fi], progs[1][0], "2");
        run_case(decomp, "64", &faults[fi], progs[2][0], "3");
    }
}

/* A node dies: packets to it come back through the error upcall, in order,
 * and everybody else finishes.  RX_no cannot tell, and the run ends in a
 * reported deadlock, not a hang. */
static void check_dead_node(const char *decomp)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered(decomp)) {
        return;
    }
    e2e_run(&r, "-n", "7", "--decomp", decomp, "--max-retries", "8",
            "--fault", "die=6@500us", DEADNODE, "-k", "20", NULL);
    if (is_rx_no(decomp)) {
        CU_ASSERT(r.exited && r.status != 0);
        CU_ASSERT(e2e_contains(r.err, "deadlock"));
    } else {
        e2e_expect_success(&r);
        CU_ASSERT(e2e_contains(r.out, "OK"));
    }
    e2e_run_free(&r);
}

#define DECOMP_TESTS(id, name)                                                 \
    static void test_##id##_under_every_fault(void)                            \
    {                                                                          \
        check_matrix(name);                                                    \
    }                                                                          \
    static void test_##id##_with_a_dead_node(void)                             \
    {                                                                          \
        check_dead_node(name);                                                 \
    }

DECOMP_TESTS(rxno_mni, "rxno-mni")
DECOMP_TESTS(rxno_mh, "rxno-mh")
DECOMP_TESTS(rxni_mni, "rxni-mni")
DECOMP_TESTS(rxni_mh, "rxni-mh")
DECOMP_TESTS(rxh_mh, "rxh-mh")
DECOMP_TESTS(rxni_mni_vmmc2, "rxni-mni-vmmc2")
DECOMP_TESTS(rxni_mh_vmmc2, "rxni-mh-vmmc2")
DECOMP_TESTS(rxh_mh_vmmc2, "rxh-mh-vmmc2")
DECOMP_TESTS(rxh_mh_ssam, "rxh-mh-ssam")
DECOMP_TESTS(rxni_mni_am2, "rxni-mni-am2")
DECOMP_TESTS(rxni_mni_srd, "rxni-mni-srd")
DECOMP_TESTS(rxh_mni, "rxh-mni")

int main(void)
{
    if (e2e_runner_init() != 0) {
        return 99;
    }
    CU_pSuite s;
    if (CU_initialize_registry() != CUE_SUCCESS ||
        (s = CU_add_suite("fault_matrix", NULL, NULL)) == NULL) {
        fprintf(stderr, "test_fault_matrix: CUnit: %s\n", CU_get_error_msg());
        return 99;
    }
#define ADD(id)                                                                \
    CU_add_test(s, #id "_under_every_fault", test_##id##_under_every_fault);  \
    CU_add_test(s, #id "_with_a_dead_node", test_##id##_with_a_dead_node)
    ADD(rxno_mni);
    ADD(rxno_mh);
    ADD(rxni_mni);
    ADD(rxni_mh);
    ADD(rxh_mh);
    ADD(rxni_mni_vmmc2);
    ADD(rxni_mh_vmmc2);
    ADD(rxh_mh_vmmc2);
    ADD(rxh_mh_ssam);
    ADD(rxni_mni_am2);
    ADD(rxni_mni_srd);
    ADD(rxh_mni);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() +
                      CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    e2e_runner_cleanup();
    return failed == 0 ? 0 : 1;
}
