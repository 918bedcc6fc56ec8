/*
 * e2e_runner.h - what the end-to-end tests need to run lci-run and judge
 * the outcome (e2e_runner.c).
 *
 * Paths come from $top_builddir and $top_srcdir (set by make check; "."
 * and unset otherwise).  Each run is limited to $E2E_TIMEOUT seconds
 * (default 300), after which its whole process group is killed.
 */
#ifndef E2E_RUNNER_H
#define E2E_RUNNER_H

#include <stddef.h>

/* The outcome of one run. */
struct e2e_run {
    int exited;    /* exited normally */
    int status;    /* its exit status */
    int signaled;  /* killed by a signal */
    int timed_out; /* killed by us */
    double secs;
    char *out; /* captured stdout */
    char *err; /* captured stderr */
    char cmd[2048];
};

extern const char *e2e_top_builddir;
extern const char *e2e_top_srcdir; /* NULL if unknown */
extern char e2e_lci_run_path[4096];

/* Reads the environment, finds lci-run, makes a scratch directory and
 * asks lci-run which decompositions it offers.  -1 on a hard error. */
int e2e_runner_init(void);
void e2e_runner_cleanup(void);

/* Runs lci-run with the given arguments (NULL-terminated); fills *r.
 * Returns 0, or -1 if lci-run could not be started. */
int e2e_run(struct e2e_run *r, ...);
void e2e_run_free(struct e2e_run *r);

/* $top_builddir/rel (a few calls' results stay valid at once). */
const char *e2e_prog_path(const char *rel);

#define ALLTOALL   e2e_prog_path("tests/e2e/e2e_alltoall")
#define MCAST      e2e_prog_path("tests/e2e/e2e_mcast")
#define ENDPOINTS  e2e_prog_path("tests/e2e/e2e_endpoints")
#define FA         e2e_prog_path("tests/e2e/e2e_fa")
#define MISBEHAVE  e2e_prog_path("tests/e2e/e2e_misbehave")
#define API_ERRORS e2e_prog_path("tests/api/api_errors")

/* Asserts (CUnit, at the caller's line) that the run exited 0; on failure
 * prints the command, outcome and output.  Returns the verdict. */
#define e2e_expect_success(r) e2e_expect_success_at((r), __LINE__)
int e2e_expect_success_at(struct e2e_run *r, int line);

/* Asserts that the run ended by itself with a nonzero status and that its
 * stderr mentions (case-insensitively) each string of the NULL-terminated
 * list. */
#define e2e_expect_failure(r, ...)                                             \
    e2e_expect_failure_at(__LINE__, (r), __VA_ARGS__)
int e2e_expect_failure_at(int line, struct e2e_run *r, ...);

/* Prints the last max bytes of text, indented, under a label. */
void e2e_print_tail(const char *label, const char *text, size_t max);

/* Case-insensitive substring test. */
int e2e_contains(const char *hay, const char *needle);

/* Copies the "0x<16 hex>" of "lci-run: trace-hash 0x..." into hash;
 * 0 if there is no such line. */
int e2e_trace_hash(const struct e2e_run *r, char hash[19]);

/* The five decompositions of the paper, and what lci-run --list-decomps
 * printed. */
#define E2E_NDECOMPS 12
extern const char *const e2e_decomps[E2E_NDECOMPS];
extern char e2e_decomp_list[4096];

/* True if --list-decomps names d. */
int e2e_offered(const char *d);

/* Prints SKIPPED and returns 1 unless d is offered. */
int e2e_skip_unless_offered(const char *d);

#endif
