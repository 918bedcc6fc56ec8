/*
 * lci-run - starts the nodes of an LCI program, like mpirun.
 *
 *   lci-run -n 64 --decomp rxno-mni --platform sim ./prog args
 *
 * It creates the shared segment that holds the simulated cluster, starts N
 * processes of the unmodified program, and watches them: the first node
 * that fails (crash, nonzero exit, a stopped run) ends the whole run with
 * its rank and message, and lci-run exits nonzero.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "lci_decomp.h"
#include "lci_env.h"
#include "lci_image.h"
#include "lci_live.h"
#include "lci_live_auth.h"
#include "lci_live_wire.h"
#include "lci_options.h"
#include "lci_sched.h"
#include "lci_timeline.h"
#include "lci_world.h"

/* lci-run's own view of the segment it creates (lci_world.h). */
lci_world_t lci_world;

static pid_t *pids;
static uint32_t npids;
static volatile sig_atomic_t progress_due;

static void on_alarm(int sig)
{
    (void)sig;
    progress_due = 1;
}

/* One line on a long run: read while the nodes run, for display only. */
static void print_progress(lci_seg_t *seg, double wall)
{
    uint64_t vt = UINT64_MAX;
    for (uint32_t k = 0; k < seg->cfg.nnodes; k++) {
        lci_host_shared_t *h = lci_world_host(k);
        uint64_t c = __atomic_load_n(&h->clock, __ATOMIC_RELAXED);
        if (__atomic_load_n(&h->status, __ATOMIC_RELAXED) != LCI_HOST_EXITED &&
            c < vt) {
            vt = c;
        }
    }
    fprintf(stderr,
            "lci-run: %.0f s: virtual time %.3f ms, %llu events, %llu packets "
            "on the wire\n",
            wall, vt == UINT64_MAX ? 0.0 : vt / 1e6,
            (unsigned long long)__atomic_load_n(&seg->events_run,
                                                __ATOMIC_RELAXED),
            (unsigned long long)__atomic_load_n(&seg->packets_on_wire,
                                                __ATOMIC_RELAXED));
}

/* SIGALRM every period, interrupting wait(). */
static void alarm_every(long sec, long usec)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm; /* no SA_RESTART: wait() returns */
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval every = {{sec, usec}, {sec, usec}};
    setitimer(ITIMER_REAL, &every, NULL);
}

/* The survivors of a dead live node may finish for this long: every
 * retransmission of a packet to it, twice over, and ten seconds. */
static double live_grace_start(const lci_config_t *cfg)
{
    struct timespec ts;
    double retries = lci_rx_give_up_ns(cfg->max_retries, cfg->rto_ns);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    alarm_every(0, 200000);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9 + 2 * retries * 1e-9 + 10.0;
}

static int live_grace_over(double end)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9 > end;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: lci-run [options] [--] PROGRAM [ARGS...]\n"
            "Runs PROGRAM on every node of a simulated cluster.\n\n"
            "options:\n"
            "  -n N                         number of nodes (default 1)\n");
    lci_options_help(out, "--");
    fprintf(out,
            "  --trace-hash                 print a hash of the simulated "
            "event trace\n"
            "  --stats                      print per-node counters at the "
            "end\n"
            "  --no-pin                     do not run all nodes on one "
            "core\n"
            "  --progress                   print a progress line every 5 "
            "seconds\n"
            "  --netns NS0,NS1,...          live: run node k in network "
            "namespace NSk\n"
            "  --udp-addrs A0,A1,...        live: node k's UDP address is "
            "Ak\n"
            "  --timeline FILE              write where host and NI time goes "
            "as\n"
            "                               trace-event JSON (Perfetto, "
            "chrome://tracing)\n"
            "  --timeline-window FROM:TO    only the spans between FROM and TO "
            "ms of\n"
            "                               virtual time\n"
            "  --list-decomps               list the decompositions and "
            "exit\n"
            "  --help                       this text\n\n"
            "Every option NAME may also be set as the environment variable "
            "LCI_NAME\n(upper case, '-' as '_'), e.g. LCI_DECOMP=rxno-mni.\n");
}

static void kill_all(void)
{
    for (uint32_t i = 0; i < npids; i++) {
        if (pids[i] > 0) {
            kill(pids[i], SIGKILL);
        }
    }
}

static void on_signal(int sig)
{
    kill_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The fiber engine's program: beside lci-run in the build tree, else where
 * it is installed. */
static int fibers_program(char *path, size_t cap)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = '\0';
            /* lci-run may be libtool's: the real one is in .libs */
            const char *fmt = slash - 6 >= self && strcmp(slash - 6,
                                                           "/.libs") == 0
                                  ? "%s/../lci-fibers"
                                  : "%s/lci-fibers";
            if (snprintf(path, cap, fmt, self) < (int)cap &&
                access(path, X_OK) == 0) {
                return 0;
            }
        }
    }
    return snprintf(path, cap, "%s/lci-fibers", LCI_PKGLIBEXECDIR) <
                       (int)cap &&
                   access(path, X_OK) == 0
               ? 0
               : -1;
}

/* Which engine runs the simulation: fibers where the program allows and
 * the user did not ask otherwise.  Returns 1 for fibers, 0 for processes,
 * -1 (after a message) when the requested engine cannot run it. */
static int choose_engine(const char *engine, const char *prog, char *fibers,
                         size_t cap)
{
    if (strcmp(engine, "processes") == 0) {
        return 0;
    }
    char why[1200] = "", path[4096];
    if (!LCI_HAVE_FIBERS) {
        snprintf(why, sizeof why,
                 "this build has no fiber engine (Boost.Context, Debian's "
                 "libboost-context-dev, was missing at configure time)");
    } else if (fibers_program(fibers, cap) != 0) {
        snprintf(why, sizeof why,
                 "the fiber engine's program lci-fibers is not installed "
                 "beside lci-run nor in %s",
                 LCI_PKGLIBEXECDIR);
    } else if (lci_image_find(prog, path, sizeof path) != 0) {
        snprintf(why, sizeof why, "%s is not an executable program", prog);
    } else if (lci_image_check(path, why, sizeof why) == 0) {
        return 1;
    }
    if (strcmp(engine, "fibers") == 0) {
        fprintf(stderr, "lci-run: --engine fibers: %s\n", why);
        return -1;
    }
    fprintf(stderr, "lci-run: running a process per node: %s\n", why);
    return 0;
}

/* In a child of lci-run: it dies with lci-run, however lci-run ends (a
 * kill -9, a closed pipe), so no node outlives its run. */
static void die_with_parent(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) {
        _exit(127); /* lci-run was gone before the request took hold */
    }
}

static void pin_to_one_core(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        return;
    }
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, &set)) {
            CPU_ZERO(&set);
            CPU_SET(c, &set);
            /* One core: the turn hand-off is the cheap same-core switch. */
            sched_setaffinity(0, sizeof set, &set);
            break;
        }
    }
    /* Only the holder of the turn runs; a woken node must not preempt the
     * waker before it sleeps, which SCHED_BATCH prevents. */
    struct sched_param param = {.sched_priority = 0};
    sched_setscheduler(0, SCHED_BATCH, &param);
}

static void print_stats(lci_seg_t *seg)
{
    uint32_t n = seg->cfg.nnodes;
    lci_counters_t sum;
    memset(&sum, 0, sizeof sum);
    fprintf(stderr,
            "%5s %8s %8s %7s %6s %6s %8s %8s %6s %6s %6s %6s %6s %6s %6s %5s "
            "%6s %6s %10s %10s %6s %6s %6s\n",
            "node", "data", "mcast", "ack", "nack", "fa", "recv", "deliv",
            "retx", "crc", "nobuf", "seq", "malf", "auth", "stalls", "intr", "retn",
            "merged", "host_us", "ni_us", "probes", "noep", "epflt");
    for (uint32_t k = 0; k <= n; k++) {
        lci_counters_t c;
        if (k < n) {
            c = lci_world_ni(k)->counters;
            c.pkts_delivered = lci_world_host(k)->delivered;
            c.host_busy_ns = lci_world_host(k)->busy_ns;
            uint64_t *dst = (uint64_t *)&sum;
            const uint64_t *src = (const uint64_t *)&c;
            for (size_t i = 0; i < sizeof c / sizeof(uint64_t); i++) {
                dst[i] += src[i];
            }
        } else {
            c = sum;
        }
        char name[16];
        snprintf(name, sizeof name, k < n ? "%u" : "sum", k);
        fprintf(stderr,
                "%5s %8llu %8llu %7llu %6llu %6llu %8llu %8llu %6llu %6llu "
                "%6llu %6llu %6llu %6llu %6llu %5llu %6llu %6llu %10.1f %10.1f "
                "%6llu %6llu %6llu\n",
                name, (unsigned long long)c.pkts_sent_data,
                (unsigned long long)c.pkts_sent_mcast,
                (unsigned long long)c.pkts_sent_ack,
                (unsigned long long)c.pkts_sent_nack,
                (unsigned long long)c.pkts_sent_fa,
                (unsigned long long)c.pkts_recv,
                (unsigned long long)c.pkts_delivered,
                (unsigned long long)c.retransmissions,
                (unsigned long long)c.drops_crc,
                (unsigned long long)c.drops_nobuf,
                (unsigned long long)c.drops_seq,
                (unsigned long long)c.drops_malformed,
                (unsigned long long)c.drops_auth,
                (unsigned long long)c.window_stalls,
                (unsigned long long)c.interrupts,
                (unsigned long long)c.pkts_returned,
                (unsigned long long)c.tx_merged, c.host_busy_ns / 1000.0,
                c.ni_busy_ns / 1000.0,
                (unsigned long long)c.route_probes,
                (unsigned long long)c.drops_endpoint,
                (unsigned long long)c.ep_faults);
    }
}

static int report_failure(lci_seg_t *seg, uint32_t rank, int status)
{
    if (atomic_load(&seg->abort)) {
        /* The failing node may still be writing its report (live). */
        for (int i = 0; i < 1000 && atomic_load(&seg->abort) ==
                                        LCI_ABORT_WRITING; i++) {
            usleep(1000);
        }
        fprintf(stderr, "lci-run: node %d: %s\n", seg->abort_node,
                seg->abort_msg);
    } else if (WIFSIGNALED(status)) {
        fprintf(stderr, "lci-run: node %u: killed by signal %d (%s)\n", rank,
                WTERMSIG(status), strsignal(WTERMSIG(status)));
    } else if (WEXITSTATUS(status) != 0) {
        fprintf(stderr, "lci-run: node %u: exited with status %d\n", rank,
                WEXITSTATUS(status));
        return WEXITSTATUS(status); /* like mpirun: the node's own status */
    } else if (!lci_world_host(rank)->started) {
        fprintf(stderr,
                "lci-run: node %u: exited without calling lci_init (is it "
                "an LCI program?)\n",
                rank);
    } else {
        fprintf(stderr,
                "lci-run: node %u: exited without calling lci_finalize\n",
                rank);
    }
    return 1;
}

/* Whether node rank ended as it should, given its exit status. */
static int node_ok(lci_seg_t *seg, uint32_t rank, int status)
{
    int clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    int ok = clean && lci_world_host(rank)->status == LCI_HOST_EXITED;
    if (clean && lci_world_host(rank)->died) {
        fprintf(stderr, "lci-run: node %u died as the fault injection "
                        "asked\n", rank);
    }
    if (clean && !atomic_load(&lci_world_host(rank)->started)) {
        /* Not an LCI program (or it only printed its help): fine as
         * long as no node uses LCI. */
        atomic_store(&lci_world_host(rank)->gone, 1);
        ok = 1;
        for (uint32_t k = 0; k < seg->cfg.nnodes; k++) {
            ok &= !atomic_load(&lci_world_host(k)->started);
        }
    }
    return ok;
}

/* The fiber engine's process has ended with status: each node's end is in
 * the segment.  Returns 0, or the run's exit status after reporting the
 * failure as for node processes. */
static int fibers_outcome(lci_seg_t *seg, int status)
{
    if (atomic_load(&seg->abort)) {
        return report_failure(seg, (uint32_t)seg->abort_node, status);
    }
    if (WIFSIGNALED(status)) {
        /* Only the node holding the turn runs: it crashed. */
        return report_failure(seg, seg->turn, status);
    }
    for (uint32_t k = 0; k < seg->cfg.nnodes; k++) {
        lci_host_shared_t *h = lci_world_host(k);
        int node_status = W_EXITCODE(h->exit_code & 0xff, 0);
        if (h->ended && !node_ok(seg, k, node_status)) {
            return report_failure(seg, k, node_status);
        }
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        /* No node's end explains it: the process stopped while the node
         * holding the turn ran (a sanitizer's report, say). */
        fprintf(stderr,
                "lci-run: node %u: the fiber engine stopped with status %d "
                "while this node ran\n",
                seg->turn, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    lci_options_t opt;
    char err[1024];
    int trace_hash = 0, stats = 0, pin = 1, progress = 0;
    const char *netns = NULL, *udp_addrs = NULL;
    const char *timeline = NULL;
    lci_options_defaults(&opt);
    if (lci_options_from_env(&opt, err, sizeof err) != LCI_OK) {
        fprintf(stderr, "lci-run: %s\n", err);
        return 2;
    }
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-') {
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--list-decomps") == 0) {
            lci_decomp_list(stdout); /* built in, then loadable modules */
            return 0;
        }
        if (strcmp(a, "--trace-hash") == 0) {
            trace_hash = 1;
            continue;
        }
        if (strcmp(a, "--stats") == 0) {
            stats = 1;
            continue;
        }
        if (strcmp(a, "--no-pin") == 0) {
            pin = 0;
            continue;
        }
        if (strcmp(a, "--progress") == 0) {
            progress = 1;
            continue;
        }
        if (strcmp(a, "--netns") == 0 || strcmp(a, "--udp-addrs") == 0) {
            /* live: where each node runs (lci_live_place_node) */
            if (i + 1 >= argc) {
                fprintf(stderr,
                        "lci-run: option '%s' needs a value: one item per "
                        "node, comma-separated\n",
                        a);
                return 2;
            }
            *(a[2] == 'n' ? &netns : &udp_addrs) = argv[++i];
            continue;
        }
        if (strcmp(a, "--timeline-window") == 0) {
            uint64_t from, until;
            if (i + 1 >= argc ||
                lci_timeline_window_parse(argv[i + 1], &from, &until) != 0) {
                fprintf(stderr, "lci-run: --timeline-window expects FROM:TO, "
                                "milliseconds of virtual time with FROM < TO "
                                "(e.g. 1200:1210)\n");
                return 2;
            }
            setenv(LCI_TIMELINE_WINDOW_ENV, argv[++i], 1);
            continue;
        }
        if (strcmp(a, "--timeline") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "lci-run: --timeline expects a file name\n");
                return 2;
            }
            timeline = argv[++i];
            continue;
        }
        const char *name, *value;
        char namebuf[64];
        if (strcmp(a, "-n") == 0) {
            name = "nodes";
        } else if (strncmp(a, "--", 2) == 0) {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            if (len >= sizeof namebuf) {
                len = sizeof namebuf - 1;
            }
            memcpy(namebuf, a + 2, len);
            namebuf[len] = '\0';
            name = namebuf;
            if (eq) {
                value = eq + 1;
                goto apply;
            }
        } else {
            fprintf(stderr,
                    "lci-run: unknown option '%s'; run lci-run --help for "
                    "the list\n",
                    a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "lci-run: option '%s' needs a value\n", a);
            return 2;
        }
        value = argv[++i];
    apply:
        if (lci_options_set(&opt, name, value, err, sizeof err) != LCI_OK) {
            if (strncmp(err, "unknown option", 14) == 0) {
                fprintf(stderr,
                        "lci-run: unknown option '%s'; run lci-run --help "
                        "for the list\n",
                        a);
            } else {
                fprintf(stderr,
                        "lci-run: %s (%s); run lci-run --help for the list\n",
                        err, a);
            }
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "lci-run: no program given\n");
        usage(stderr);
        return 2;
    }
    char **prog = argv + i;

    lci_profile_t prof;
    if (lci_profile_load(opt.profile, &prof, err, sizeof err) != LCI_OK ||
        lci_config_finish(&opt.cfg, err, sizeof err) != LCI_OK ||
        lci_decomp_select(opt.cfg.decomp, err, sizeof err) != LCI_OK) {
        fprintf(stderr, "lci-run: %s\n", err);
        return 2;
    }
    if (timeline != NULL) {
        if (lci_timeline_create(timeline, opt.cfg.nnodes) != 0) {
            fprintf(stderr, "lci-run: cannot create the timeline %s: %s\n",
                    timeline, strerror(errno));
            return 1;
        }
        setenv(LCI_TIMELINE_ENV, timeline, 1); /* inherited by the nodes */
    }
    int live = strcmp(opt.cfg.platform, "live") == 0;
    if ((netns || udp_addrs) &&
        (!live || lci_live_place_check(netns, opt.cfg.nnodes, "netns", err,
                                       sizeof err) != LCI_OK ||
         lci_live_place_check(udp_addrs, opt.cfg.nnodes, "udp-addrs", err,
                              sizeof err) != LCI_OK)) {
        fprintf(stderr, "lci-run: %s\n",
                live ? err : "--netns and --udp-addrs need --platform live");
        return 2;
    }
    if (live) {
        /* Real time: work costs what it costs, compute is real. */
        lci_live_profile(&prof);
        opt.cfg.compute = LCI_COMPUTE_ZERO;
        opt.events = 16; /* the shared event queue is not used */
        pin = 0;
        if (trace_hash) {
            fprintf(stderr, "lci-run: --trace-hash needs --platform sim (a "
                            "live run has no reproducible trace)\n");
            return 2;
        }
    }
    int fibers = 0;
    char fibers_path[4096];
    if (live && strcmp(opt.engine, "fibers") == 0) {
        fprintf(stderr, "lci-run: --engine fibers needs --platform sim\n");
        return 2;
    }
    if (!live) {
        fibers = choose_engine(opt.engine, prog[0], fibers_path,
                               sizeof fibers_path);
        if (fibers < 0) {
            return 2;
        }
    }
    opt.cfg.trace_hash = (uint32_t)trace_hash;
    opt.cfg.stats = (uint32_t)stats;
    opt.cfg.pin = (uint32_t)pin;

    uint64_t size = lci_world_size(&opt.cfg, opt.events);
    int fd = memfd_create("lci-sim", 0); /* inherited by the nodes */
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        fprintf(stderr, "lci-run: cannot create a %llu-byte segment: %s\n",
                (unsigned long long)size, strerror(errno));
        return 1;
    }
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        fprintf(stderr, "lci-run: cannot map the segment: %s\n",
                strerror(errno));
        return 1;
    }
    if (lci_world_init(base, size, &opt.cfg, &prof, opt.events, err,
                       sizeof err) != LCI_OK) {
        fprintf(stderr, "lci-run: %s\n", err);
        return 2;
    }
    lci_world_view(base);
    lci_seg_t *seg = lci_seg();
    atomic_store(&lci_world_host(0)->go, 1); /* node 0 starts */
    char fabrictext[16] = "";
    lci_fabric_t *fabric = NULL;
    if (live) {
        /* The live nodes' fabric: wake-up words, addresses, and the
         * shared-memory wire's rings. */
        int shm = opt.cfg.wire == LCI_WIRE_SHM;
        uint64_t fsize = lci_fabric_size(opt.cfg.nnodes, opt.cfg.packet_size,
                                         shm);
        int ffd = memfd_create("lci-fabric", 0);
        void *fbase = MAP_FAILED;
        if (ffd >= 0 && ftruncate(ffd, (off_t)fsize) == 0) {
            fbase = mmap(NULL, fsize, PROT_READ | PROT_WRITE, MAP_SHARED, ffd,
                         0);
        }
        if (fbase == MAP_FAILED) {
            fprintf(stderr, "lci-run: cannot create a %llu-byte fabric: %s\n",
                    (unsigned long long)fsize, strerror(errno));
            return 1;
        }
        lci_fabric_init(fbase, opt.cfg.nnodes, opt.cfg.packet_size, shm);
        fabric = fbase;
        if (lci_live_auth_new_key(fabric->key) != LCI_OK) {
            fprintf(stderr, "lci-run: cannot draw the job's random key\n");
            return 1;
        }
        fabric->epoch = lci_live_clock();
        snprintf(fabrictext, sizeof fabrictext, "%d", ffd);
    }

    uint32_t n = opt.cfg.nnodes;
    pids = calloc(n, sizeof *pids);
    if (pids == NULL) {
        return 1;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    if (pin) {
        pin_to_one_core();
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char fdtext[16], ranktext[16], sizetext[16];
    snprintf(fdtext, sizeof fdtext, "%d", fd);
    snprintf(sizetext, sizeof sizetext, "%u", n);
    pid_t parent = getpid();
    if (fibers) {
        /* One process runs every node. */
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "lci-run: fork: %s\n", strerror(errno));
            return 1;
        }
        if (pid == 0) {
            die_with_parent(parent);
            setenv("LCI_SIM_FD", fdtext, 1);
            setenv("LCI_SIZE", sizetext, 1);
            char **args = prog - 1; /* argv[i - 1] becomes lci-fibers */
            args[0] = fibers_path;
            execv(fibers_path, args);
            fprintf(stderr, "lci-run: cannot run %s: %s\n", fibers_path,
                    strerror(errno));
            _exit(127);
        }
        pids[0] = pid;
        npids = 1;
    }
    for (uint32_t k = 0; !fibers && k < n; k++) {
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "lci-run: fork: %s\n", strerror(errno));
            kill_all();
            return 1;
        }
        if (pid == 0) {
            die_with_parent(parent);
            snprintf(ranktext, sizeof ranktext, "%u", k);
            setenv("LCI_SIM_FD", fdtext, 1);
            setenv("LCI_RANK", ranktext, 1);
            setenv("LCI_SIZE", sizetext, 1);
            if (live) {
                setenv("LCI_LIVE_FD", fabrictext, 1);
                if (lci_live_place_node(k, netns, udp_addrs, err,
                                        sizeof err) != LCI_OK) {
                    fprintf(stderr, "lci-run: node %u: %s\n", k, err);
                    _exit(127);
                }
            }
            execvp(prog[0], prog);
            fprintf(stderr, "lci-run: node %u: cannot run %s: %s\n", k,
                    prog[0], strerror(errno));
            _exit(127);
        }
        pids[k] = pid;
        npids = k + 1;
    }

    if (progress) {
        alarm_every(5, 0);
    }
    int failed = 0;
    double grace_end = 0; /* live: when survivors of a death are stopped */
    for (uint32_t left = fibers ? 1 : n; left > 0; left--) {
        int status;
        pid_t pid = wait(&status);
        if (pid < 0 && errno == EINTR) {
            left++;
            if (grace_end > 0 && live_grace_over(grace_end)) {
                fprintf(stderr,
                        "lci-run: the surviving nodes did not finish in "
                        "time; stopping them\n");
                kill_all();
                grace_end = 0;
            }
            if (progress_due && progress) {
                progress_due = 0;
                struct timespec tn;
                clock_gettime(CLOCK_MONOTONIC, &tn);
                print_progress(seg, (double)(tn.tv_sec - t0.tv_sec));
            }
            continue;
        }
        if (pid < 0) {
            break;
        }
        uint32_t rank = 0;
        while (rank < n && pids[rank] != pid) {
            rank++;
        }
        if (rank == n) {
            left++;
            continue;
        }
        pids[rank] = 0;
        if (fibers) {
            failed = fibers_outcome(seg, status);
            break;
        }
        if (live && WIFSIGNALED(status)) {
            /* Packets to it are lost from now on, as on a network. */
            atomic_store(&lci_fabric_node(fabric, rank)->dead, 1);
        }
        int ok = node_ok(seg, rank, status);
        if (!ok && !failed) {
            failed = report_failure(seg, rank, status);
            if (live && !atomic_load(&seg->abort) && WIFSIGNALED(status)) {
                /* A real node died: the others find out through their
                 * protocols (return-to-sender), as on a cluster, and get
                 * a bounded time to finish. */
                grace_end = live_grace_start(&seg->cfg);
            } else {
                kill_all();
            }
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (failed) {
        return failed;
    }
    const lci_fault_config_t *fc = &seg->cfg.fault;
    if (fc->drop > 0 || fc->corrupt > 0 || fc->dup > 0 || fc->burst > 0 ||
        fc->drop_nth > 0 || fc->linkdown.dur > 0 || fc->nobuf.dur > 0) {
        fprintf(stderr, "lci-run: %llu wire faults injected\n",
                (unsigned long long)seg->faults_injected);
    }
    if (trace_hash) {
        fprintf(stderr, "lci-run: trace-hash 0x%016llx\n",
                (unsigned long long)seg->trace_hash);
    }
    if (stats) {
        double wall = (double)(t1.tv_sec - t0.tv_sec) +
                      (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        uint64_t vt = 0;
        for (uint32_t k = 0; k < n; k++) {
            if (lci_world_host(k)->clock > vt) {
                vt = lci_world_host(k)->clock;
            }
        }
        print_stats(seg);
        fprintf(stderr,
                "lci-run: %u nodes, %s, %s, virtual time %.3f ms, %llu "
                "events (queue peak %llu), %llu packets on the wire, %llu "
                "hand-offs, wall %.3f s\n",
                n, seg->cfg.decomp, seg->prof.name, vt / 1e6,
                (unsigned long long)seg->events_run,
                (unsigned long long)seg->heap_peak,
                (unsigned long long)seg->packets_on_wire,
                (unsigned long long)seg->handoffs, wall);
        static const char *const names[LCI_EV_MAX] = {
            [LCI_EV_DOORBELL] = "doorbell", [LCI_EV_RING_UPDATE] = "ring",
            [LCI_EV_FW_RUN] = "firmware", [LCI_EV_WIRE_ARRIVE] = "arrival",
            [LCI_EV_TX_DONE] = "tx-done", [LCI_EV_WATCHDOG] = "watchdog",
            [LCI_EV_INTR_ENABLE] = "intr"};
        fprintf(stderr, "lci-run: events by type:");
        for (int t = 1; t < LCI_EV_MAX; t++) {
            if (names[t] != NULL) {
                fprintf(stderr, " %s %llu", names[t],
                        (unsigned long long)seg->events_by_type[t]);
            }
        }
        fprintf(stderr, "; ring releases written without an event %llu\n",
                (unsigned long long)seg->ring_logged);
    }
    return 0;
}
