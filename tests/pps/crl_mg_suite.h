/*
 * crl_mg_suite.h - what the CRL and search-layer test drivers share beyond
 * pps_cunit.h: judging a node program's run, and a determinism check
 * through lci-run --trace-hash.  Header-only.
 */
#ifndef CRL_MG_SUITE_H
#define CRL_MG_SUITE_H

#include <stdio.h>

#include <CUnit/Basic.h>

#include "pps_cunit.h"

/* Asserts that the run exited 0 and its node 0 reported ": OK" (every
 * node program checks its own results), then frees it. */
static void crl_mg_expect_ok(struct e2e_run *r)
{
    if (e2e_expect_success(r)) {
        CU_ASSERT(e2e_contains(r->out, ": OK"));
    }
    e2e_run_free(r);
}

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

#endif
