/*
 * test_e2e.c - end-to-end tests: runs the node programs in tests/e2e and
 * tests/api through lci-run and checks exit statuses and diagnostics.
 *
 * Finds lci-run and the programs under $top_builddir (set by make check;
 * "." otherwise).  Each run gets its own stdout/stderr files and a time
 * limit (E2E_TIMEOUT seconds, default 300); on expiry the whole process
 * group is killed and the test fails.
 *
 * Exit status: 0 if every assertion passed, 1 otherwise.
 */
#define _GNU_SOURCE 1

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/Basic.h>

extern char **environ;

/* ---- running a command ---------------------------------------------- */

#define MAX_ARGS 64

struct run {
    int exited;    /* exited normally */
    int status;    /* its exit status */
    int signaled;  /* killed by a signal */
    int timed_out; /* killed by us */
    double secs;
    char *out; /* captured stdout */
    char *err; /* captured stderr */
    char cmd[2048];
};

static const char *top_builddir = ".";
static const char *top_srcdir = NULL;
static char lci_run_path[4096];
static double run_timeout = 300.0;
static char tmpdir[4096];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (f == NULL) {
        return strdup("");
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0) {
        n = 0;
    }
    buf = malloc((size_t)n + 1);
    if (buf == NULL) {
        fclose(f);
        return strdup("");
    }
    n = (long)fread(buf, 1, (size_t)n, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* Prints the last max bytes of text, indented. */
static void print_tail(const char *label, const char *text, size_t max)
{
    size_t n = strlen(text);
    const char *p = n > max ? text + n - max : text;

    if (n == 0) {
        return;
    }
    printf("\n      --- %s%s ---\n", label, n > max ? " (tail)" : "");
    while (*p) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        printf("      | %.*s\n", len, p);
        p += len + (nl ? 1 : 0);
    }
}

/* Runs argv[0] with argv; fills *r.  Returns 0, or -1 if it could not be
 * started. */
static int run_argv(char *const argv[], struct run *r)
{
    char out_path[4200], err_path[4200];
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    pid_t pid;
    int rc, wstatus = 0;
    double t0, deadline;
    size_t off = 0;

    memset(r, 0, sizeof(*r));
    for (int i = 0; argv[i] != NULL && off < sizeof(r->cmd) - 1; i++) {
        off += (size_t)snprintf(r->cmd + off, sizeof(r->cmd) - off, "%s%s",
                                i ? " " : "", argv[i]);
    }
    snprintf(out_path, sizeof(out_path), "%s/stdout", tmpdir);
    snprintf(err_path, sizeof(err_path), "%s/stderr", tmpdir);

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path,
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_path,
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawnattr_init(&attr);
    /* Own process group, so a timeout can kill lci-run and every node. */
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);

    fflush(stdout);
    t0 = now();
    rc = posix_spawn(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        printf("\n    cannot start %s: %s", argv[0], strerror(rc));
        r->out = strdup("");
        r->err = strdup("");
        return -1;
    }

    deadline = t0 + run_timeout;
    for (;;) {
        pid_t w = waitpid(pid, &wstatus, WNOHANG);
        if (w == pid) {
            break;
        }
        if (w < 0 && errno != EINTR) {
            printf("\n    waitpid: %s", strerror(errno));
            break;
        }
        if (now() > deadline) {
            r->timed_out = 1;
            kill(-pid, SIGKILL);
            waitpid(pid, &wstatus, 0);
            break;
        }
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* Whatever the outcome, no node of this run may outlive it. */
    kill(-pid, SIGKILL);
    r->secs = now() - t0;
    if (!r->timed_out) {
        r->exited = WIFEXITED(wstatus);
        r->status = r->exited ? WEXITSTATUS(wstatus) : -1;
        r->signaled = WIFSIGNALED(wstatus);
    }
    r->out = slurp(out_path);
    r->err = slurp(err_path);
    return 0;
}

/* Runs lci-run with the given arguments (NULL-terminated). */
static int run_lci(struct run *r, ...)
{
    char *argv[MAX_ARGS];
    int argc = 0;
    va_list ap;
    const char *a;

    argv[argc++] = lci_run_path;
    va_start(ap, r);
    while ((a = va_arg(ap, const char *)) != NULL && argc < MAX_ARGS - 1) {
        argv[argc++] = (char *)a;
    }
    va_end(ap);
    argv[argc] = NULL;
    return run_argv(argv, r);
}

/* Path of a node program, e.g. prog("tests/e2e/e2e_alltoall"). */
static const char *prog(const char *rel)
{
    static char buf[8][4096];
    static int next;
    char *p = buf[next++ % 8];

    snprintf(p, sizeof(buf[0]), "%s/%s", top_builddir, rel);
    return p;
}

#define ALLTOALL prog("tests/e2e/e2e_alltoall")
#define MCAST prog("tests/e2e/e2e_mcast")
#define FA prog("tests/e2e/e2e_fa")
#define MISBEHAVE prog("tests/e2e/e2e_misbehave")
#define API_ERRORS prog("tests/api/api_errors")

static void describe(const struct run *r)
{
    printf("\n    $ %s\n    -> ", r->cmd);
    if (r->timed_out) {
        printf("TIMED OUT after %.0f s (process group killed)", r->secs);
    } else if (r->exited) {
        printf("exit %d in %.1f s", r->status, r->secs);
    } else if (r->signaled) {
        printf("killed by a signal in %.1f s", r->secs);
    } else {
        printf("ended oddly in %.1f s", r->secs);
    }
}

/* Case-insensitive substring test. */
static int contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);

    for (const char *p = hay; *p; p++) {
        if (strncasecmp(p, needle, n) == 0) {
            return 1;
        }
    }
    return n == 0;
}

/* ---- assertions ----------------------------------------------------- */

/* The run exited 0. */
static int expect_success(struct run *r)
{
    int ok = !r->timed_out && r->exited && r->status == 0;

    if (!ok) {
        describe(r);
        print_tail("stdout", r->out, 2000);
        print_tail("stderr", r->err, 4000);
    }
    CU_ASSERT(ok);
    return ok;
}

/* The run ended by itself with a nonzero status (not by our timeout),
 * and its stderr mentions every string in the NULL-terminated list. */
static int expect_failure_mentioning(struct run *r, ...)
{
    int ok = !r->timed_out && !(r->exited && r->status == 0);
    va_list ap;
    const char *s;

    if (!ok) {
        printf("\n    expected a nonzero exit, got %s",
               r->timed_out ? "a timeout" : "exit 0");
    }
    va_start(ap, r);
    while ((s = va_arg(ap, const char *)) != NULL) {
        if (!contains_ci(r->err, s)) {
            printf("\n    stderr does not mention \"%s\"", s);
            ok = 0;
        }
    }
    va_end(ap);
    if (!ok) {
        describe(r);
        print_tail("stdout", r->out, 1000);
        print_tail("stderr", r->err, 4000);
    }
    CU_ASSERT(ok);
    return ok;
}

/* The "lci-run: trace-hash 0x..." value, or NULL. */
static int trace_hash(const struct run *r, char hash[19])
{
    const char *key = "lci-run: trace-hash 0x";
    const char *p = strstr(r->err, key);

    if (p == NULL) {
        return 0;
    }
    p += strlen(key) - 2;
    for (int i = 0; i < 18; i++) {
        hash[i] = p[i];
    }
    hash[18] = '\0';
    for (int i = 2; i < 18; i++) {
        if (!isxdigit((unsigned char)hash[i])) {
            return 0;
        }
    }
    return 1;
}

/* ---- which decompositions this build offers ------------------------- */

static const char *const all_decomps[] = {"rxno-mni", "rxno-mh", "rxni-mni",
                                          "rxni-mh", "rxh-mh"};
#define NDECOMPS (sizeof(all_decomps) / sizeof(all_decomps[0]))
static char listed[4096];

static void load_decomp_list(void)
{
    struct run r;

    if (run_lci(&r, "--list-decomps", NULL) == 0 && r.exited &&
        r.status == 0) {
        snprintf(listed, sizeof(listed), "%s%s", r.out, r.err);
    }
    run_free(&r);
}

/* True if lci-run --list-decomps names d as a whole word. */
static int offered(const char *d)
{
    size_t n = strlen(d);

    for (const char *p = strstr(listed, d); p; p = strstr(p + 1, d)) {
        int start = p == listed || !(isalnum((unsigned char)p[-1]) ||
                                     p[-1] == '-');
        int end = !(isalnum((unsigned char)p[n]) || p[n] == '-');
        if (start && end) {
            return 1;
        }
    }
    return 0;
}

static int skip_unless_offered(const char *d)
{
    if (!offered(d)) {
        printf("\n    SKIPPED: lci-run --list-decomps does not offer %s", d);
        return 1;
    }
    return 0;
}

/* ---- correctness at scale ------------------------------------------- */

static void check_prog(const char *program, const char *n, const char *k,
                       const char *extra)
{
    struct run r;

    if (extra != NULL) {
        run_lci(&r, "-n", n, program, "-k", k, extra, NULL);
    } else {
        run_lci(&r, "-n", n, program, "-k", k, NULL);
    }
    expect_success(&r);
    run_free(&r);
}

static void test_alltoall_2_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(ALLTOALL, "2", "200", NULL);
}

static void test_alltoall_7_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(ALLTOALL, "7", "200", NULL);
}

static void test_alltoall_64_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(ALLTOALL, "64", "20", NULL);
}

static void test_alltoall_7_nodes_with_interrupts_delivers_everything(void)
{
    check_prog(ALLTOALL, "7", "50", "--intr");
}

static void test_mcast_2_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(MCAST, "2", "200", NULL);
}

static void test_mcast_7_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(MCAST, "7", "200", NULL);
}

static void test_mcast_64_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(MCAST, "64", "20", NULL);
}

static void test_fa_2_nodes_returns_distinct_old_values(void)
{
    check_prog(FA, "2", "200", NULL);
}

static void test_fa_7_nodes_returns_distinct_old_values(void)
{
    check_prog(FA, "7", "200", NULL);
}

static void test_fa_64_nodes_returns_distinct_old_values(void)
{
    check_prog(FA, "64", "20", NULL);
}

static void test_fa_7_nodes_on_the_last_node_returns_distinct_old_values(void)
{
    struct run r;

    run_lci(&r, "-n", "7", FA, "-k", "100", "--target", "-1", NULL);
    expect_success(&r);
    run_free(&r);
}

static void test_api_misuse_returns_documented_status_codes(void)
{
    struct run r;

    run_lci(&r, "-n", "2", API_ERRORS, NULL);
    /* Always show the node program's own CUnit report. */
    print_tail("api_errors stdout", r.out, 20000);
    expect_success(&r);
    run_free(&r);
}

/* ---- every decomposition, reliable and lossy wires ------------------ */

static void check_decomp(const char *d)
{
    struct run r;

    if (skip_unless_offered(d)) {
        return;
    }
    run_lci(&r, "-n", "7", "--decomp", d, ALLTOALL, "-k", "50", NULL);
    expect_success(&r);
    run_free(&r);
    run_lci(&r, "-n", "7", "--decomp", d, MCAST, "-k", "20", NULL);
    expect_success(&r);
    run_free(&r);
    run_lci(&r, "-n", "7", "--decomp", d, FA, "-k", "50", NULL);
    expect_success(&r);
    run_free(&r);
}

/* On a lossy, corrupting wire the retransmitting decompositions still
 * deliver everything exactly once, in order, intact. */
static void check_lossy(const char *d)
{
    struct run r;
    const char *fault = "drop=0.02,corrupt=0.01,seed=3";

    if (skip_unless_offered(d)) {
        return;
    }
    run_lci(&r, "-n", "4", "--decomp", d, "--fault", fault, ALLTOALL, "-k",
            "100", NULL);
    expect_success(&r);
    run_free(&r);
    run_lci(&r, "-n", "7", "--decomp", d, "--fault", fault, MCAST, "-k", "20",
            NULL);
    expect_success(&r);
    run_free(&r);
    run_lci(&r, "-n", "4", "--decomp", d, "--fault", fault, FA, "-k", "50",
            NULL);
    expect_success(&r);
    run_free(&r);
}

static void test_list_decomps_names_all_five_decompositions(void)
{
    for (size_t i = 0; i < NDECOMPS; i++) {
        if (!offered(all_decomps[i])) {
            printf("\n    lci-run --list-decomps does not name %s; it said:\n%s",
                   all_decomps[i], listed);
        }
        CU_ASSERT(offered(all_decomps[i]));
    }
}

static void test_rxno_mni_runs_all_programs(void)
{
    check_decomp("rxno-mni");
}

static void test_rxno_mh_runs_all_programs(void)
{
    check_decomp("rxno-mh");
}

static void test_rxni_mni_runs_all_programs(void)
{
    check_decomp("rxni-mni");
}

static void test_rxni_mh_runs_all_programs(void)
{
    check_decomp("rxni-mh");
}

static void test_rxh_mh_runs_all_programs(void)
{
    check_decomp("rxh-mh");
}

static void test_rxni_mni_recovers_from_drops_and_corruption(void)
{
    check_lossy("rxni-mni");
}

static void test_rxni_mh_recovers_from_drops_and_corruption(void)
{
    check_lossy("rxni-mh");
}

static void test_rxh_mh_recovers_from_drops_and_corruption(void)
{
    check_lossy("rxh-mh");
}

/* ---- RX_no fails loudly on unreliable hardware ---------------------- */

static void test_rxno_mni_stops_loudly_when_a_packet_is_dropped(void)
{
    struct run r;

    run_lci(&r, "-n", "2", "--decomp", "rxno-mni", "--fault", "drop-nth=5",
            ALLTOALL, "-k", "50", NULL);
    expect_failure_mentioning(&r, "RX_no", "reliable", NULL);
    run_free(&r);
}

static void test_rxno_mni_stops_loudly_when_packets_are_corrupted(void)
{
    struct run r;

    run_lci(&r, "-n", "4", "--decomp", "rxno-mni", "--fault",
            "corrupt=0.01,seed=1", ALLTOALL, "-k", "200", NULL);
    expect_failure_mentioning(&r, "RX_no", "reliable", NULL);
    run_free(&r);
}

static void test_rxno_mh_stops_loudly_when_a_packet_is_dropped(void)
{
    struct run r;

    if (skip_unless_offered("rxno-mh")) {
        return;
    }
    run_lci(&r, "-n", "7", "--decomp", "rxno-mh", "--fault", "drop-nth=5",
            MCAST, "-k", "20", NULL);
    expect_failure_mentioning(&r, "RX_no", NULL);
    run_free(&r);
}

/* ---- determinism ---------------------------------------------------- */

static void test_same_seed_gives_same_trace_hash_and_other_program_differs(void)
{
    struct run a, b, c;
    char ha[19], hb[19], hc[19];

    run_lci(&a, "-n", "7", "--seed", "7", "--compute", "zero", "--trace-hash",
            ALLTOALL, "-k", "50", NULL);
    run_lci(&b, "-n", "7", "--seed", "7", "--compute", "zero", "--trace-hash",
            ALLTOALL, "-k", "50", NULL);
    run_lci(&c, "-n", "7", "--seed", "7", "--compute", "zero", "--trace-hash",
            MCAST, "-k", "10", NULL);
    if (expect_success(&a) && expect_success(&b) && expect_success(&c)) {
        int ok = trace_hash(&a, ha) && trace_hash(&b, hb) && trace_hash(&c, hc);
        if (!ok) {
            printf("\n    no \"lci-run: trace-hash 0x<16 hex>\" line on stderr");
            print_tail("stderr", a.err, 2000);
        }
        CU_ASSERT_FATAL(ok);
        if (strcmp(ha, hb) != 0) {
            printf("\n    same seed, different hashes: %s vs %s", ha, hb);
        }
        CU_ASSERT(strcmp(ha, hb) == 0);
        if (strcmp(ha, hc) == 0) {
            printf("\n    alltoall and mcast have the same hash %s", ha);
        }
        CU_ASSERT(strcmp(ha, hc) != 0);
    }
    run_free(&a);
    run_free(&b);
    run_free(&c);
}

static void test_same_fault_seed_gives_same_trace_hash(void)
{
    struct run a, b;
    char ha[19], hb[19];
    const char *d = "rxh-mh";

    if (!offered(d)) {
        d = "rxni-mni";
    }
    if (skip_unless_offered(d)) {
        return;
    }
    run_lci(&a, "-n", "4", "--decomp", d, "--compute", "zero", "--fault",
            "drop=0.05,seed=5", "--trace-hash", ALLTOALL, "-k", "50", NULL);
    run_lci(&b, "-n", "4", "--decomp", d, "--compute", "zero", "--fault",
            "drop=0.05,seed=5", "--trace-hash", ALLTOALL, "-k", "50", NULL);
    if (expect_success(&a) && expect_success(&b)) {
        CU_ASSERT_FATAL(trace_hash(&a, ha) && trace_hash(&b, hb));
        if (strcmp(ha, hb) != 0) {
            printf("\n    same fault seed, different hashes: %s vs %s", ha, hb);
        }
        CU_ASSERT(strcmp(ha, hb) == 0);
    }
    run_free(&a);
    run_free(&b);
}

/* ---- launcher options ----------------------------------------------- */

static void test_unknown_decomp_is_rejected_listing_valid_names(void)
{
    struct run r;

    run_lci(&r, "-n", "2", "--decomp", "rxyz-mq", ALLTOALL, NULL);
    expect_failure_mentioning(&r, "rxyz-mq", "rxno-mni", "rxno-mh", "rxni-mni",
                              "rxni-mh", "rxh-mh", NULL);
    run_free(&r);
}

static void test_bad_flags_are_rejected_saying_what_was_expected(void)
{
    struct run r;

    run_lci(&r, "--no-such-flag", "-n", "2", ALLTOALL, NULL);
    expect_failure_mentioning(&r, "--no-such-flag", NULL);
    run_free(&r);

    run_lci(&r, "-n", "zero", ALLTOALL, NULL);
    expect_failure_mentioning(&r, "-n", NULL);
    run_free(&r);

    run_lci(&r, "-n", "0", ALLTOALL, NULL);
    expect_failure_mentioning(&r, "-n", NULL);
    run_free(&r);

    run_lci(&r, "-n", "2", "--packet-size", "999", ALLTOALL, NULL);
    expect_failure_mentioning(&r, "1024", "2048", NULL);
    run_free(&r);

    run_lci(&r, "-n", "2", "--compute", "sometimes", ALLTOALL, NULL);
    expect_failure_mentioning(&r, "zero", "scaled", NULL);
    run_free(&r);

    run_lci(&r, "-n", "2", "--fault", "drop=1.5", ALLTOALL, NULL);
    expect_failure_mentioning(&r, "drop", NULL);
    run_free(&r);

    run_lci(&r, "-n", "2", "--fault", "explode=1", ALLTOALL, NULL);
    expect_failure_mentioning(&r, "explode", NULL);
    run_free(&r);

    run_lci(&r, "-n", "2", "--platform", "moon", ALLTOALL, NULL);
    expect_failure_mentioning(&r, "moon", "sim", NULL);
    run_free(&r);

    run_lci(&r, "-n", "2", "--profile", "no-such-profile", ALLTOALL, NULL);
    expect_failure_mentioning(&r, "no-such-profile", NULL);
    run_free(&r);

    run_lci(&r, "-n", "2", NULL);
    expect_failure_mentioning(&r, NULL);
    run_free(&r);

    run_lci(&r, "-n", "2", prog("tests/e2e/no-such-program"), NULL);
    expect_failure_mentioning(&r, "no-such-program", NULL);
    run_free(&r);
}

static void test_packet_size_2048_carries_larger_payloads(void)
{
    struct run r1, r2;
    const char *key = "payload up to ";
    const char *p1, *p2;

    run_lci(&r1, "-n", "2", "--packet-size", "1024", ALLTOALL, "-k", "40",
            NULL);
    run_lci(&r2, "-n", "2", "--packet-size", "2048", ALLTOALL, "-k", "40",
            NULL);
    if (expect_success(&r1) && expect_success(&r2)) {
        p1 = strstr(r1.out, key);
        p2 = strstr(r2.out, key);
        if (p1 == NULL || p2 == NULL) {
            printf("\n    rank 0's summary line is missing from stdout");
            CU_FAIL("no summary line");
        } else {
            long c1 = strtol(p1 + strlen(key), NULL, 10);
            long c2 = strtol(p2 + strlen(key), NULL, 10);
            printf("\n    capacity: %ld bytes at 1024, %ld at 2048", c1, c2);
            CU_ASSERT(c1 > 512 && c1 < 1024);
            CU_ASSERT(c2 > 1024 && c2 < 2048);
            CU_ASSERT(c2 - c1 == 1024);
        }
    }
    run_free(&r1);
    run_free(&r2);
}

static void test_profiles_compute_modes_and_stats_run(void)
{
    static const char *const profiles[] = {"myrinet-1999", "smartnic-2024"};
    struct run r;

    for (size_t i = 0; i < 2; i++) {
        char path[4096];
        struct stat sb;
        if (top_srcdir != NULL) {
            snprintf(path, sizeof(path), "%s/profiles/%s", top_srcdir,
                     profiles[i]);
            if (stat(path, &sb) != 0) {
                printf("\n    SKIPPED profile %s: %s does not exist",
                       profiles[i], path);
                continue;
            }
        }
        run_lci(&r, "-n", "7", "--profile", profiles[i], ALLTOALL, "-k", "20",
                NULL);
        expect_success(&r);
        run_free(&r);
    }
    run_lci(&r, "-n", "2", "--compute", "scaled", ALLTOALL, "-k", "20", NULL);
    expect_success(&r);
    run_free(&r);
    run_lci(&r, "-n", "2", "--stats", ALLTOALL, "-k", "20", NULL);
    expect_success(&r);
    run_free(&r);
    run_lci(&r, "-n", "1", ALLTOALL, "-k", "20", NULL);
    expect_success(&r);
    run_free(&r);
}

/* ---- failures of nodes are reported --------------------------------- */

static void test_node_calling_lci_abort_ends_the_run_with_its_message(void)
{
    struct run r;

    run_lci(&r, "-n", "4", MISBEHAVE, "--mode", "abort", NULL);
    expect_failure_mentioning(&r, "deliberate abort", NULL);
    run_free(&r);
}

static void test_all_nodes_waiting_is_reported_as_deadlock(void)
{
    struct run r;

    run_lci(&r, "-n", "4", MISBEHAVE, "--mode", "deadlock", NULL);
    expect_failure_mentioning(&r, "deadlock", NULL);
    run_free(&r);
}

static void test_node_exiting_early_fails_the_run_naming_it(void)
{
    struct run r;

    run_lci(&r, "-n", "7", MISBEHAVE, "--mode", "exit", NULL);
    expect_failure_mentioning(&r, "node 6", NULL);
    run_free(&r);
}

static void test_node_killed_by_a_signal_fails_the_run_naming_it(void)
{
    struct run r;

    run_lci(&r, "-n", "4", MISBEHAVE, "--mode", "kill", NULL);
    expect_failure_mentioning(&r, "node 1", NULL);
    run_free(&r);
}

static void test_well_behaved_control_run_succeeds(void)
{
    struct run r;

    run_lci(&r, "-n", "4", MISBEHAVE, "--mode", "ok", NULL);
    expect_success(&r);
    run_free(&r);
}

/* ---- main ----------------------------------------------------------- */

struct e2e_test {
    const char *name;
    CU_TestFunc func;
};

#define T(name) {#name, test_##name}

static const struct e2e_test launcher_tests[] = {
    T(unknown_decomp_is_rejected_listing_valid_names),
    T(bad_flags_are_rejected_saying_what_was_expected),
    T(list_decomps_names_all_five_decompositions),
    T(node_calling_lci_abort_ends_the_run_with_its_message),
    T(all_nodes_waiting_is_reported_as_deadlock),
    T(node_exiting_early_fails_the_run_naming_it),
    T(node_killed_by_a_signal_fails_the_run_naming_it),
    T(well_behaved_control_run_succeeds),
};

static const struct e2e_test delivery_tests[] = {
    T(api_misuse_returns_documented_status_codes),
    T(alltoall_2_nodes_delivers_exactly_once_in_fifo_order),
    T(alltoall_7_nodes_delivers_exactly_once_in_fifo_order),
    T(alltoall_64_nodes_delivers_exactly_once_in_fifo_order),
    T(alltoall_7_nodes_with_interrupts_delivers_everything),
    T(mcast_2_nodes_delivers_exactly_once_in_fifo_order),
    T(mcast_7_nodes_delivers_exactly_once_in_fifo_order),
    T(mcast_64_nodes_delivers_exactly_once_in_fifo_order),
    T(fa_2_nodes_returns_distinct_old_values),
    T(fa_7_nodes_returns_distinct_old_values),
    T(fa_64_nodes_returns_distinct_old_values),
    T(fa_7_nodes_on_the_last_node_returns_distinct_old_values),
    T(packet_size_2048_carries_larger_payloads),
    T(profiles_compute_modes_and_stats_run),
};

static const struct e2e_test decomp_tests[] = {
    T(rxno_mni_runs_all_programs),
    T(rxno_mh_runs_all_programs),
    T(rxni_mni_runs_all_programs),
    T(rxni_mh_runs_all_programs),
    T(rxh_mh_runs_all_programs),
    T(rxno_mni_stops_loudly_when_a_packet_is_dropped),
    T(rxno_mni_stops_loudly_when_packets_are_corrupted),
    T(rxno_mh_stops_loudly_when_a_packet_is_dropped),
    T(rxni_mni_recovers_from_drops_and_corruption),
    T(rxni_mh_recovers_from_drops_and_corruption),
    T(rxh_mh_recovers_from_drops_and_corruption),
    T(same_seed_gives_same_trace_hash_and_other_program_differs),
    T(same_fault_seed_gives_same_trace_hash),
};

static int add_suite(const char *name, const struct e2e_test *tests, size_t n)
{
    CU_pSuite s = CU_add_suite(name, NULL, NULL);

    if (s == NULL) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (CU_add_test(s, tests[i].name, tests[i].func) == NULL) {
            return -1;
        }
    }
    return 0;
}

#define ADD_SUITE(name, arr) add_suite(name, arr, sizeof(arr) / sizeof(arr[0]))

int main(int argc, char **argv)
{
    const char *env;
    struct stat sb;
    unsigned failed;
    char tmpl[4096];
    const char *only = argc > 1 ? argv[1] : NULL;

    env = getenv("top_builddir");
    if (env != NULL && *env != '\0') {
        top_builddir = env;
    }
    env = getenv("top_srcdir");
    if (env != NULL && *env != '\0') {
        top_srcdir = env;
    }
    env = getenv("E2E_TIMEOUT");
    if (env != NULL && atof(env) > 0) {
        run_timeout = atof(env);
    }
    snprintf(lci_run_path, sizeof(lci_run_path), "%s/lci/lci-run",
             top_builddir);
    if (stat(lci_run_path, &sb) != 0) {
        fprintf(stderr, "test_e2e: %s: %s (set top_builddir)\n", lci_run_path,
                strerror(errno));
        return 99; /* hard error: the build is incomplete */
    }
    env = getenv("TMPDIR");
    snprintf(tmpl, sizeof(tmpl), "%s/lci-e2e.XXXXXX",
             env != NULL && *env ? env : "/tmp");
    if (mkdtemp(tmpl) == NULL) {
        fprintf(stderr, "test_e2e: mkdtemp %s: %s\n", tmpl, strerror(errno));
        return 99;
    }
    snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
    load_decomp_list();

    if (CU_initialize_registry() != CUE_SUCCESS ||
        ADD_SUITE("launcher", launcher_tests) != 0 ||
        ADD_SUITE("delivery", delivery_tests) != 0 ||
        ADD_SUITE("decompositions", decomp_tests) != 0) {
        fprintf(stderr, "test_e2e: CUnit: %s\n", CU_get_error_msg());
        return 99;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    if (only != NULL) {
        /* test_e2e SUITE [TEST]: run a part, for debugging. */
        CU_pSuite s = CU_get_suite(only);
        if (s == NULL) {
            fprintf(stderr, "test_e2e: no suite %s\n", only);
            return 99;
        }
        if (argc > 2) {
            CU_pTest t = CU_get_test(s, argv[2]);
            if (t == NULL) {
                fprintf(stderr, "test_e2e: no test %s in %s\n", argv[2], only);
                return 99;
            }
            CU_basic_run_test(s, t);
        } else {
            CU_basic_run_suite(s);
        }
    } else {
        CU_basic_run_tests();
    }
    failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    printf("\n");
    CU_cleanup_registry();

    {
        char path[4200];
        snprintf(path, sizeof(path), "%s/stdout", tmpdir);
        unlink(path);
        snprintf(path, sizeof(path), "%s/stderr", tmpdir);
        unlink(path);
        rmdir(tmpdir);
    }
    return failed == 0 ? 0 : 1;
}
