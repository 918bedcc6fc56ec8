/*
 * lci-fibers - the fiber engine of the simulator: every node of a run in
 * this one process, each a fiber running its own private copy of the
 * unmodified program (lci_image.h).  lci-run starts it in place of N node
 * processes:
 *
 *   LCI_SIM_FD=fd lci-fibers PROGRAM [ARGS...]
 *
 * The scheduler's turn passes by a user-level context switch (lci_fiber.h)
 * instead of a futex hand-off between processes, and with it every
 * node-local block (lci_node_local.h), errno and stdout follow the running
 * node.  Each node has its own buffered stdout, flushed when it fills and
 * when the node ends, as a node process's would be.  lci-run reads each
 * node's end (exit code) from the shared segment; a crash ends the whole
 * process, and lci-run names the node that held the turn.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lci_engine.h"
#include "lci_fiber.h"
#include "lci_fibers.h"
#include "lci_image.h"
#include "lci_node_local.h"
#include "lci_sched.h"

/* Exit status when a node's end stops the whole run (lci-run reads why
 * from the segment). */
#define LCI_FIBERS_STOPPED 71

/* The engine's own view of the segment (lci_world.h); the nodes use the
 * library's. */
lci_world_t lci_world;

typedef struct {
    void (*func)(void *);
    void *arg;
} exit_handler_t;

/* A thread of a node (lci_thread_* in lci.h): another fiber of it. */
struct lci_thread {
    lci_fiber_t *fiber;
    void (*func)(void *);
    void *arg;
};

typedef struct {
    uint32_t rank;
    lci_fiber_t *fiber;      /* where the node runs now: its main fiber or
                                one of its threads' */
    lci_fiber_t *main_fiber; /* the one that runs main */
    lci_thread_t main_thread;
    lci_thread_t *thread;    /* the node's running thread */
    lci_image_main_func_t main;
    int argc;
    char **argv;
    FILE *out; /* this node's stdout */
    int saved_errno;
    exit_handler_t *exits;
    size_t nexits, exits_cap;
} node_t;

static node_t *nodes;
static uint32_t nnodes;
static node_t *running; /* NULL while the engine's own code runs */
static FILE *engine_stdout;

int lci_fibers_running(void)
{
    return running != NULL ? (int)running->rank : -1;
}

/* ---- switching ------------------------------------------------------ */

/* Everything that belongs to a node follows the turn to node to. */
static void enter_node(node_t *to)
{
    lci_node_local_switch(to->rank);
    stdout = to->out;
    running = to;
    lci_seg()->turn = to->rank;
}

static void switch_node(node_t *from, node_t *to)
{
    from->saved_errno = errno;
    enter_node(to);
    lci_fiber_switch(from->fiber, to->fiber);
    errno = from->saved_errno; /* whoever switched back restored the rest */
}

/* ---- the engine's operations (lci_engine.h) ------------------------- */

static void fibers_start(uint32_t self)
{
    (void)self; /* a node runs only while it holds the turn */
}

static void fibers_handoff(uint32_t self, uint32_t to)
{
    switch_node(&nodes[self], &nodes[to]);
}

static void fibers_finished(uint32_t self)
{
    /* The turn passes on when the node's program has ended (node_end): its
     * code after lci_finalize runs first, while it still holds the turn. */
    (void)self;
}

static void node_end(node_t *nd, int code, int run_handlers)
    __attribute__((noreturn));

__attribute__((noreturn)) static void fibers_die(uint32_t self)
{
    lci_fiber_keep_stack(nodes[self].fiber); /* what it holds stays held */
    if (nodes[self].main_fiber != nodes[self].fiber) {
        lci_fiber_keep_stack(nodes[self].main_fiber);
    }
    node_end(&nodes[self], 0, 0);            /* killed: no handler runs */
}

static void fibers_wake_all(void)
{
}

static int fibers_running(void)
{
    return lci_fibers_running();
}

/* ---- a node's threads: fibers of it ----------------------------------- */

static size_t stack_size(void);

static void thread_fiber(void *arg)
{
    lci_thread_t *t = arg;
    t->func(t->arg);
    abort(); /* func ends with lci_thread_exit_to */
}

static lci_status_t fibers_thread_create(lci_thread_t **thread_p,
                                         void (*func)(void *), void *arg)
{
    lci_thread_t *t = calloc(1, sizeof *t);
    if (t == NULL) {
        return LCI_ERR_NOMEM;
    }
    t->func = func;
    t->arg = arg;
    t->fiber = lci_fiber_create(thread_fiber, t, stack_size());
    if (t->fiber == NULL) {
        free(t);
        return LCI_ERR_NOMEM;
    }
    *thread_p = t;
    return LCI_OK;
}

static lci_thread_t *fibers_thread_self(void)
{
    return running->thread;
}

/* The node's thread to runs from now on, in the node's turns. */
static lci_fiber_t *node_runs(lci_thread_t *to)
{
    lci_fiber_t *from = running->fiber;
    running->thread = to;
    running->fiber = to->fiber;
    return from;
}

static void fibers_thread_switch(lci_thread_t *to)
{
    lci_fiber_t *from = node_runs(to);
    lci_fiber_switch(from, to->fiber);
}

__attribute__((noreturn)) static void fibers_thread_exit_to(lci_thread_t *to)
{
    lci_fiber_t *from = node_runs(to);
    lci_fiber_exit_to(from, to->fiber);
}

static void fibers_thread_free(lci_thread_t *thread)
{
    lci_fiber_free(thread->fiber);
    free(thread);
}

static const lci_engine_ops_t fibers_ops = {
    .name = "fibers",
    .thread_sleeps = 0,
    .start = fibers_start,
    .handoff = fibers_handoff,
    .finished = fibers_finished,
    .die = fibers_die,
    .wake_all = fibers_wake_all,
    .running = fibers_running,
    .thread_create = fibers_thread_create,
    .thread_self = fibers_thread_self,
    .thread_switch = fibers_thread_switch,
    .thread_exit_to = fibers_thread_exit_to,
    .thread_free = fibers_thread_free,
};

/* ---- a node's end ---------------------------------------------------- */

int lci_fibers_node_atexit(void (*func)(void *), void *arg)
{
    node_t *nd = running;
    if (nd->nexits == nd->exits_cap) {
        size_t cap = nd->exits_cap ? 2 * nd->exits_cap : 8;
        exit_handler_t *e = realloc(nd->exits, cap * sizeof *e);
        if (e == NULL) {
            return -1;
        }
        nd->exits = e, nd->exits_cap = cap;
    }
    nd->exits[nd->nexits++] = (exit_handler_t){func, arg};
    return 0;
}

void lci_fibers_node_exit(int code)
{
    node_end(running, code, 1);
}

/* Every node's output out, then the whole process: the run stops. */
__attribute__((noreturn)) static void stop_run(void)
{
    fflush(NULL);
    _exit(LCI_FIBERS_STOPPED);
}

/* The next node to run once nd has ended without passing the turn: one
 * whose program has not started (a run where no node uses LCI runs them
 * one after another); NULL when none is left. */
static node_t *next_unstarted(void)
{
    for (uint32_t k = 0; k < nnodes; k++) {
        lci_host_shared_t *h = lci_world_host(k);
        if (!h->ended && !atomic_load(&h->started) && &nodes[k] != running) {
            return &nodes[k];
        }
    }
    return NULL;
}

static void node_end(node_t *nd, int code, int run_handlers)
{
    /* Handlers in reverse order; one that calls exit continues the
     * list from the next. */
    while (run_handlers && nd->nexits > 0) {
        exit_handler_t e = nd->exits[--nd->nexits];
        e.func(e.arg);
    }
    fflush(nd->out);
    lci_host_shared_t *h = lci_world_host(nd->rank);
    h->exit_code = code;
    h->ended = 1;
    int next = -1;
    if (atomic_load(&h->started)) {
        if (h->status != LCI_HOST_EXITED) {
            stop_run(); /* ended without lci_finalize */
        }
        next = lci_sched_pass_on(nd->rank);
    } else {
        atomic_store(&h->gone, 1);
        if (code != 0) {
            stop_run();
        }
        for (uint32_t k = 0; k < nnodes; k++) {
            if (atomic_load(&lci_world_host(k)->started)) {
                lci_sched_fail((int)nd->rank, LCI_ERR_PLATFORM,
                               "exited without calling lci_init while other "
                               "nodes use LCI");
            }
        }
    }
    node_t *to = next >= 0 ? &nodes[next] : next_unstarted();
    if (to == NULL) {
        running = NULL;
        stdout = engine_stdout;
        lci_fiber_exit_to(nd->fiber, lci_fiber_main());
    }
    enter_node(to);
    lci_fiber_exit_to(nd->fiber, to->fiber);
}

static void node_fiber(void *arg)
{
    node_t *nd = arg;
    int code = nd->main(nd->argc, nd->argv, environ);
    node_end(nd, code, 1);
}

/* ---- start-up -------------------------------------------------------- */

/* A node's stdout: buffered like a node process's (by lines on a
 * terminal, in blocks otherwise), written to the shared descriptor. */
static ssize_t out_write(void *cookie, const char *buf, size_t len)
{
    (void)cookie;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(STDOUT_FILENO, buf + done, len - done);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return done > 0 ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

static FILE *node_stdout(void)
{
    cookie_io_functions_t io = {.write = out_write};
    FILE *f = fopencookie(NULL, "w", io);
    if (f != NULL) {
        setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
    }
    return f;
}

/* A node's stack: as large as a process's main thread would get. */
static size_t stack_size(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur < (1u << 16)) {
        return 8u << 20;
    }
    return (size_t)rl.rlim_cur;
}

/* Where the program copies are staged before they are loaded (each file
 * is removed as soon as it is mapped). */
static int staging_dir(char *dir, size_t cap)
{
    const char *bases[] = {"/dev/shm", getenv("TMPDIR"), "/tmp"};
    for (size_t i = 0; i < 3; i++) {
        if (bases[i] != NULL &&
            snprintf(dir, cap, "%s/lci-fibers-XXXXXX", bases[i]) < (int)cap &&
            mkdtemp(dir) != NULL) {
            return 0;
        }
    }
    return -1;
}

static int node_setup(node_t *nd, uint32_t rank, const char *path,
                      const char *dir, int argc, char **argv, size_t stack)
{
    char err[1200];
    nd->rank = rank;
    if (lci_image_load(path, dir, &nd->main, err, sizeof err) != 0) {
        fprintf(stderr, "lci-fibers: node %u: %s\n", rank, err);
        return -1;
    }
    /* Arguments of its own: lci_init and the program may rewrite them. */
    nd->argc = argc;
    nd->argv = calloc((size_t)argc + 1, sizeof *nd->argv);
    for (int i = 0; nd->argv != NULL && i < argc; i++) {
        nd->argv[i] = strdup(argv[i]);
        if (nd->argv[i] == NULL) {
            nd->argv = NULL;
        }
    }
    nd->out = node_stdout();
    nd->fiber = lci_fiber_create(node_fiber, nd, stack);
    nd->main_fiber = nd->fiber;
    nd->main_thread.fiber = nd->fiber;
    nd->thread = &nd->main_thread;
    if (nd->argv == NULL || nd->out == NULL || nd->fiber == NULL) {
        fprintf(stderr, "lci-fibers: node %u: out of memory\n", rank);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *fd_text = getenv("LCI_SIM_FD");
    if (argc < 2 || fd_text == NULL) {
        fprintf(stderr, "usage: LCI_SIM_FD=FD lci-fibers PROGRAM [ARGS...]\n"
                        "(lci-run starts it: lci-run --engine fibers)\n");
        return 2;
    }
    struct stat sb;
    int fd = atoi(fd_text);
    void *base = fstat(fd, &sb) == 0
                     ? mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE,
                            MAP_SHARED, fd, 0)
                     : MAP_FAILED;
    if (base == MAP_FAILED || lci_world_attach(base) != LCI_OK) {
        fprintf(stderr, "lci-fibers: LCI_SIM_FD=%s is not an LCI segment\n",
                fd_text);
        return 2;
    }
    lci_world_view(base);
    close(fd);
    nnodes = lci_seg()->cfg.nnodes;
    char path[4096], dir[4096];
    if (lci_image_find(argv[1], path, sizeof path) != 0) {
        fprintf(stderr, "lci-fibers: cannot run %s: no such program\n",
                argv[1]);
        return 127;
    }
    if (staging_dir(dir, sizeof dir) != 0) {
        fprintf(stderr, "lci-fibers: cannot make a staging directory: %s\n",
                strerror(errno));
        return 1;
    }
    lci_node_local_setup(nnodes);
    lci_engine_set(&fibers_ops);
    nodes = calloc(nnodes, sizeof *nodes);
    size_t stack = stack_size();
    int ok = nodes != NULL;
    for (uint32_t k = 0; ok && k < nnodes; k++) {
        ok = node_setup(&nodes[k], k, path, dir, argc - 1, argv + 1, stack) ==
             0;
    }
    rmdir(dir);
    if (!ok) {
        return 1;
    }
    engine_stdout = stdout;
    /* Node 0 holds the first turn (lci-run set its go word). */
    enter_node(&nodes[0]);
    lci_fiber_switch(lci_fiber_main(), nodes[0].fiber);
    /* Every node has ended. */
    for (uint32_t k = 0; k < nnodes; k++) {
        fclose(nodes[k].out);
        if (!lci_world_host(k)->died) {
            lci_fiber_free(nodes[k].main_fiber);
        }
        for (int i = 0; i < nodes[k].argc; i++) {
            free(nodes[k].argv[i]);
        }
        free(nodes[k].argv);
        free(nodes[k].exits);
    }
    free(nodes);
    lci_node_local_teardown();
    return 0;
}
