/*
 * pps_cunit.h - the main() of the PPS test drivers: one CUnit suite of
 * named tests, run after e2e_runner_init().  Header-only.
 */
#ifndef PPS_CUNIT_H
#define PPS_CUNIT_H

#include <stdio.h>

#include <CUnit/Basic.h>

#include "e2e_runner.h"

typedef struct {
    const char *name;
    CU_TestFunc func;
} pps_test_t;

#define PPS_TEST(f)                                                            \
    {                                                                          \
#f, test_##f                                                           \
    }

/* Asserts the run exited 0, then frees it. */
static inline void pps_expect_ok(struct e2e_run *r)
{
    e2e_expect_success(r);
    e2e_run_free(r);
}

/* Asserts the application checked its answer (": OK") and exited 0, then
 * frees the run. */
static inline void pps_expect_checked(struct e2e_run *r)
{
    CU_ASSERT(e2e_contains(r->out, ": OK"));
    pps_expect_ok(r);
}

/* Asserts a bad command line was refused (exit status 2) with a message
 * saying what was expected, then frees the run. */
static inline void pps_expect_refused(struct e2e_run *r, const char *expected)
{
    CU_ASSERT(r->status == 2);
    CU_ASSERT(e2e_contains(r->err, expected));
    e2e_run_free(r);
}

/* A reliable wire gets a harmless option where a lossy one gets --fault. */
#define PPS_WIRE_OPT(lossy)       ((lossy) ? "--fault" : "--seed")
#define PPS_WIRE_VAL(lossy, spec) ((lossy) ? (spec) : "1")

/* A test fn that runs the driver's check_decomp(name, lossy): one per
 * decomposition, and per retransmitting one with a lossy wire. */
#define PPS_DECOMP_TEST(fn, name, lossy)                                       \
    static void fn(void)                                                       \
    {                                                                          \
        check_decomp(name, lossy);                                             \
    }

/* Runs the tests; 0 if all passed, 1 if one failed, 99 on a hard error. */
static inline int pps_cunit_main(const char *suite, const pps_test_t *tests,
                                 size_t ntests)
{
    if (e2e_runner_init() != 0) {
        return 99;
    }
    CU_pSuite s;
    if (CU_initialize_registry() != CUE_SUCCESS ||
        (s = CU_add_suite(suite, NULL, NULL)) == NULL) {
        return 99;
    }
    for (size_t i = 0; i < ntests; i++) {
        if (CU_add_test(s, tests[i].name, tests[i].func) == NULL) {
            return 99;
        }
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed =
        CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    printf("\n");
    CU_cleanup_registry();
    e2e_runner_cleanup();
    return failed == 0 ? 0 : 1;
}

#endif
