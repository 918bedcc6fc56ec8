/* unit_run.h - the main() shared by the CUnit unit-test programs: one suite
 * per program, verbose output, nonzero exit status if anything failed. */
#ifndef LCI_UNIT_RUN_H
#define LCI_UNIT_RUN_H

#include <CUnit/Basic.h>
#include <stdio.h>

typedef struct {
    const char *name; /* the behaviour the test checks */
    CU_TestFunc func;
} lci_unit_test_t;

#define LCI_UNIT_COUNT(tests) (sizeof(tests) / sizeof((tests)[0]))

static inline int lci_unit_run(const char *suite_name,
                               const lci_unit_test_t *tests, size_t ntests)
{
    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "%s: CU_initialize_registry: %s\n", suite_name,
                CU_get_error_msg());
        return 2;
    }
    CU_pSuite suite = CU_add_suite(suite_name, NULL, NULL);

    if (suite == NULL) {
        fprintf(stderr, "%s: CU_add_suite: %s\n", suite_name,
                CU_get_error_msg());
        CU_cleanup_registry();
        return 2;
    }
    for (size_t i = 0; i < ntests; i++) {
        if (CU_add_test(suite, tests[i].name, tests[i].func) == NULL) {
            fprintf(stderr, "%s: CU_add_test(%s): %s\n", suite_name,
                    tests[i].name, CU_get_error_msg());
            CU_cleanup_registry();
            return 2;
        }
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_ErrorCode rc = CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    unsigned tests_failed = CU_get_number_of_tests_failed();
    unsigned tests_run = CU_get_number_of_tests_run();

    CU_cleanup_registry();
    if (rc != CUE_SUCCESS || tests_run != ntests) {
        fprintf(stderr, "%s: ran %u of %zu tests (%s)\n", suite_name, tests_run,
                ntests, CU_get_error_msg());
        return 2;
    }
    return failures == 0 && tests_failed == 0 ? 0 : 1;
}

#endif
