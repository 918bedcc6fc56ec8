/*
 * e2e_runner.c - runs lci-run as a child for the end-to-end tests: its own
 * process group, captured stdout/stderr, a time limit after which the
 * whole group is killed, and CUnit assertions about the outcome.
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
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "e2e_runner.h"

extern char **environ;

/* ---- running a command ---------------------------------------------- */

#define MAX_ARGS 64

const char *e2e_top_builddir = ".";
const char *e2e_top_srcdir = NULL;
char e2e_lci_run_path[4096];
static double e2e_timeout = 300.0;
static char e2e_tmpdir[4096];

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

void e2e_run_free(struct e2e_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

/* Prints the last max bytes of text, indented. */
void e2e_print_tail(const char *label, const char *text, size_t max)
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
static int e2e_run_argv(char *const argv[], struct e2e_run *r)
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
    snprintf(out_path, sizeof(out_path), "%s/stdout", e2e_tmpdir);
    snprintf(err_path, sizeof(err_path), "%s/stderr", e2e_tmpdir);

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

    deadline = t0 + e2e_timeout;
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
int e2e_run(struct e2e_run *r, ...)
{
    char *argv[MAX_ARGS];
    int argc = 0;
    va_list ap;
    const char *a;

    argv[argc++] = e2e_lci_run_path;
    va_start(ap, r);
    while ((a = va_arg(ap, const char *)) != NULL && argc < MAX_ARGS - 1) {
        argv[argc++] = (char *)a;
    }
    va_end(ap);
    argv[argc] = NULL;
    return e2e_run_argv(argv, r);
}

/* Path of a node program, e.g. e2e_prog_path("tests/e2e/e2e_alltoall"). */
const char *e2e_prog_path(const char *rel)
{
    static char buf[8][4096];
    static int next;
    char *p = buf[next++ % 8];

    snprintf(p, sizeof(buf[0]), "%s/%s", e2e_top_builddir, rel);
    return p;
}

static void e2e_describe(const struct e2e_run *r)
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
int e2e_contains(const char *hay, const char *needle)
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

/* Records a CUnit assertion at the caller's line with a readable
 * condition: what was run and what was expected of it. */
static void assert_run(int ok, const struct e2e_run *r, const char *expected,
                       int line)
{
    char cond[512];
    const char *cmd = r->cmd;
    size_t n = strlen(cmd);

    /* Drop the directory part of lci-run's path to keep it short. */
    if (strncmp(cmd, e2e_lci_run_path, strlen(e2e_lci_run_path)) == 0) {
        cmd += strlen(e2e_lci_run_path) - strlen("lci-run");
        n = strlen(cmd);
    }
    snprintf(cond, sizeof(cond), "%s: %.*s%s", expected, n > 300 ? 300 : (int)n,
             cmd, n > 300 ? "..." : "");
    if (!ok) {
        printf("\n    ");
    }
    CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, (unsigned)line, cond,
                            __FILE__, "", CU_FALSE);
}

/* The run exited 0. */
int e2e_expect_success_at(struct e2e_run *r, int line)
{
    int ok = !r->timed_out && r->exited && r->status == 0;

    if (!ok) {
        e2e_describe(r);
        e2e_print_tail("stdout", r->out, 8000);
        e2e_print_tail("stderr", r->err, 4000);
    }
    assert_run(ok, r, "exits 0", line);
    return ok;
}

/* The run ended by itself with a nonzero status (not by our timeout),
 * and its stderr mentions every string in the NULL-terminated list. */
int e2e_expect_failure_at(int line, struct e2e_run *r, ...)
{
    int ok = !r->timed_out && !(r->exited && r->status == 0);
    va_list ap;
    const char *s;
    char expected[256] = "fails";
    size_t off = strlen(expected);

    if (!ok) {
        printf("\n    expected a nonzero exit, got %s",
               r->timed_out ? "a timeout" : "exit 0");
    }
    va_start(ap, r);
    while ((s = va_arg(ap, const char *)) != NULL) {
        if (off < sizeof(expected)) {
            off += (size_t)snprintf(
                expected + off, sizeof(expected) - off, "%s \"%s\"",
                off == strlen("fails") ? " mentioning" : ",", s);
        }
        if (!e2e_contains(r->err, s)) {
            printf("\n    stderr does not mention \"%s\"", s);
            ok = 0;
        }
    }
    va_end(ap);
    if (!ok) {
        e2e_describe(r);
        e2e_print_tail("stdout", r->out, 1000);
        e2e_print_tail("stderr", r->err, 4000);
    }
    assert_run(ok, r, expected, line);
    return ok;
}

/* The "lci-run: trace-hash 0x..." value, or NULL. */
int e2e_trace_hash(const struct e2e_run *r, char hash[19])
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

const char *const e2e_decomps[E2E_NDECOMPS] = {
    "rxno-mni",       "rxno-mh",       "rxni-mni",    "rxni-mh",
    "rxh-mh",         "rxni-mni-vmmc2", "rxni-mh-vmmc2", "rxh-mh-vmmc2",
    "rxh-mh-ssam",    "rxni-mni-am2",  "rxni-mni-srd", "rxh-mni"};
char e2e_decomp_list[4096];

static void e2e_load_decomp_list(void)
{
    struct e2e_run r;

    if (e2e_run(&r, "--list-decomps", NULL) == 0 && r.exited && r.status == 0) {
        snprintf(e2e_decomp_list, sizeof(e2e_decomp_list), "%s%s", r.out,
                 r.err);
    }
    e2e_run_free(&r);
}

/* True if lci-run --list-decomps names d as a whole word. */
int e2e_offered(const char *d)
{
    size_t n = strlen(d);

    for (const char *p = strstr(e2e_decomp_list, d); p; p = strstr(p + 1, d)) {
        int start = p == e2e_decomp_list ||
                    !(isalnum((unsigned char)p[-1]) || p[-1] == '-');
        int end = !(isalnum((unsigned char)p[n]) || p[n] == '-');
        if (start && end) {
            return 1;
        }
    }
    return 0;
}

int e2e_skip_unless_offered(const char *d)
{
    if (!e2e_offered(d)) {
        printf("\n    SKIPPED: lci-run --list-decomps does not offer %s\n    ",
               d);
        return 1;
    }
    return 0;
}

/* ---- set-up and tear-down ------------------------------------------- */

int e2e_runner_init(void)
{
    const char *env;
    struct stat sb;
    char tmpl[4096];

    env = getenv("top_builddir");
    if (env != NULL && *env != '\0') {
        e2e_top_builddir = env;
    }
    env = getenv("top_srcdir");
    if (env != NULL && *env != '\0') {
        e2e_top_srcdir = env;
    }
    env = getenv("E2E_TIMEOUT");
    if (env != NULL && atof(env) > 0) {
        e2e_timeout = atof(env);
    }
    snprintf(e2e_lci_run_path, sizeof(e2e_lci_run_path), "%s/lci/lci-run",
             e2e_top_builddir);
    if (stat(e2e_lci_run_path, &sb) != 0) {
        fprintf(stderr, "test_e2e: %s: %s (set top_builddir)\n",
                e2e_lci_run_path, strerror(errno));
        return -1;
    }
    env = getenv("TMPDIR");
    snprintf(tmpl, sizeof(tmpl), "%s/lci-e2e.XXXXXX",
             env != NULL && *env ? env : "/tmp");
    if (mkdtemp(tmpl) == NULL) {
        fprintf(stderr, "test_e2e: mkdtemp %s: %s\n", tmpl, strerror(errno));
        return -1;
    }
    snprintf(e2e_tmpdir, sizeof(e2e_tmpdir), "%s", tmpl);
    e2e_load_decomp_list();
    return 0;
}

void e2e_runner_cleanup(void)
{
    char path[4200];

    snprintf(path, sizeof(path), "%s/stdout", e2e_tmpdir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/stderr", e2e_tmpdir);
    unlink(path);
    rmdir(e2e_tmpdir);
}
