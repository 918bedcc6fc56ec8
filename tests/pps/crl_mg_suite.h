/*
 * crl_mg_suite.h - what the CRL and search-layer test drivers share: a
 * determinism check through lci-run --trace-hash, and a main that runs one
 * CUnit suite over the e2e runner.  Header-only (static functions): each
 * driver stays one source file plus tests/e2e/e2e_runner.c.
 */
#ifndef CRL_MG_SUITE_H
#define CRL_MG_SUITE_H

#include <stdio.h>

#include <CUnit/Basic.h>

#include "e2e_runner.h"

/* Runs "lci-run -n N --trace-hash PROG -k K" twice and asserts that both
 * succeed with the same simulated event trace: the layer adds nothing that
 * depends on addresses, timing or uninitialised memory. */
static void crl_mg_expect_same_trace(const char *n, const char *prog,
                                     const char *k)
{
    char hash[2][19] = {"", ""};
    for (int i = 0; i < 2; i++) {
        struct e2e_run r;
        e2e_run(&r, "-n", n, "--trace-hash", prog, "-k", k, NULL);
        if (e2e_expect_success(&r)) {
            CU_ASSERT(e2e_trace_hash(&r, hash[i]));
        }
        e2e_run_free(&r);
    }
    CU_ASSERT_STRING_EQUAL(hash[0], hash[1]);
}

typedef struct {
    const char *name;
    CU_TestFunc fn;
} crl_mg_test_t;

/* Runs the tests as one verbose CUnit suite; the exit status for make
 * check (0 all passed, 1 a failure, 99 a hard error). */
static int crl_mg_suite_main(const char *suite, const crl_mg_test_t *tests,
                             size_t ntests)
{
    if (e2e_runner_init() != 0) {
        return 99;
    }
    CU_pSuite s;
    if (CU_initialize_registry() != CUE_SUCCESS ||
        (s = CU_add_suite(suite, NULL, NULL)) == NULL) {
        fprintf(stderr, "%s: CUnit: %s\n", suite, CU_get_error_msg());
        return 99;
    }
    for (size_t i = 0; i < ntests; i++) {
        CU_add_test(s, tests[i].name, tests[i].fn);
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed =
        CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    e2e_runner_cleanup();
    return failed == 0 ? 0 : 1;
}

#endif
