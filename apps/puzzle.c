/*
 * puzzle.c - the paper's Puzzle-4 and Puzzle-64: parallel IDA* for the
 * 15-puzzle on the Multigame-like search layer (mg.h).
 *
 * Usage: lci-run -n N ./puzzle [-k K] [--quick] [--instance NAME|I]
 *        [--board "t0 t1 ... t15"] [--cutoff S] [--check-sequential]
 *
 * -k is the number of jobs aggregated per message: -k 4 is Puzzle-4,
 * -k 64 (the default) Puzzle-64.  The heuristic is the Manhattan distance;
 * every IDA* iteration (cost bound) is one mg_run.  A job is a position:
 * its key is a hash of the board, so it runs on the owner of the
 * position's table entry, and its 24 bytes hold the board (16 nibbles),
 * its depth g, the bound, the last move (not undone) and the moves from
 * the start.  The owner expands it: while its slack (the bound less the
 * estimated cost g + h) exceeds the cut-off S, the children within the
 * bound become jobs for their owners; at slack S or less the owner
 * searches the subtree sequentially.  Slack never grows along a path (a
 * move adds 0 or 2 to g + h), so the jobs are the tree's upper part, and
 * a subtree's size depends mostly on its slack, so every job's sequential
 * part is about the same size whatever the instance and bound (S = 5: a
 * few hundred positions on average).  An iteration runs to its end (also after
 * a solution is found), so the counts of positions and jobs do not depend on
 * timing; the nodes then add their solution counts on node 0 with LCI
 * fetch-and-add, and the search stops at the first bound with a solution.  Each
 * node keeps the least of its solutions (shortest, then first in move order U L
 * R D) and sends it to node 0 as one more job; node 0 keeps the least of them.
 *
 * The check: node 0 applies the moves to the start position and requires
 * the goal after exactly that many moves, the length equal to the
 * literature's optimum for Korf's instances, and, for small instances (or
 * with --check-sequential), the same length, the same least solution and
 * the same number of positions as a sequential IDA* run.  The sequential
 * run comes after mg_finalize, so its time is neither timed nor charged.
 * Rank 0 prints "puzzle: ... time_s T ...: OK"; exit status 0 iff the
 * check holds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "mg.h"
#include "puzzle_board.h"

#define JOB_SEARCH 0
#define JOB_PATH   1
#define PREFIX_MAX 48 /* moves a search job carries: 12 bytes */
#define PATH_MAX_J 88 /* moves a path job carries: 22 bytes */

/* Fetch-and-add variables on node 0. */
enum {
    V_FOUND,
    V_NODES,
    V_JOBS,
    V_MSGS,
    V_PACKETS,
    V_COUNT
};

/* Instances up to this many sequential positions are checked against a
 * sequential run by default. */
#define SEQ_CHECK_NODES 20000000u

typedef struct {
    unsigned k;
    int cutoff;   /* R: bound - g above it distributes, else sequential */
    int instance; /* index into pz_instances, or -1 for --board */
    pz_board_t start;
    int check_seq; /* 1 force, 0 by size */
} opts_t;

typedef struct {
    int bound, cutoff;         /* cutoff: S, see above */
    pz_search_t s;             /* this node's sequential search (and counts) */
    uint8_t best[PZ_MAX_PATH]; /* on node 0: the least solution received */
    int best_len;
} app_t;

static void fatal(const char *what, const char *detail)
{
    fprintf(stderr, "puzzle: %s: %s\n", what, detail);
    exit(1);
}

static void check_lci(lci_status_t st, const char *what)
{
    if (st != LCI_OK) {
        fatal(what, lci_last_error());
    }
}

static void submit(const mg_job_t *job)
{
    if (mg_submit(job) != MG_OK) {
        fatal("mg_submit", mg_last_error());
    }
}

static uint64_t board_key(uint64_t bits)
{
    /* splitmix64's finaliser: owners spread evenly over the nodes. */
    uint64_t z = bits + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void put_moves(unsigned char *dst, const uint8_t *moves, int n)
{
    for (int i = 0; i < n; i++) {
        dst[i / 4] = (unsigned char)(dst[i / 4] | moves[i] << (2 * (i % 4)));
    }
}

static void get_moves(const unsigned char *src, uint8_t *moves, int n)
{
    for (int i = 0; i < n; i++) {
        moves[i] = (uint8_t)((src[i / 4] >> (2 * (i % 4))) & 3);
    }
}

/* A search job for s->b at depth g, reached by s->path[0..g-1]. */
static void submit_position(const app_t *a, int g, int last)
{
    mg_job_t job;
    memset(&job, 0, sizeof job);
    uint64_t bits = pz_pack(&a->s.b);
    job.key = board_key(bits);
    job.data[0] = JOB_SEARCH;
    job.data[1] = (unsigned char)g;
    job.data[2] = (unsigned char)a->bound;
    job.data[3] = (unsigned char)last;
    for (int i = 0; i < 8; i++) {
        job.data[4 + i] = (unsigned char)(bits >> (8 * i));
    }
    put_moves(job.data + 12, a->s.path, g);
    submit(&job);
}

/* Visits s->b at depth g as pz_dfs does, but makes its children jobs. */
static void expand_as_jobs(app_t *a, int g, int h, int last)
{
    pz_search_t *s = &a->s;
    s->nodes++;
    if (g + h > s->bound) {
        return;
    }
    if (h == 0) {
        s->found++;
        pz_keep_least(s->best, &s->best_len, s->path, g);
        return;
    }
    for (int d = 0; d < 4; d++) {
        if (d == 3 - last || pz_target(s->b.blank, d) < 0) {
            continue;
        }
        int dh = pz_move(&s->b, d);
        s->path[g] = (uint8_t)d;
        if (g + 1 + h + dh > s->bound) {
            s->nodes++; /* cut off here, as pz_dfs would count it */
        } else {
            submit_position(a, g + 1, d);
        }
        pz_move(&s->b, 3 - d);
    }
}

static void handle(const mg_job_t *job, void *arg)
{
    app_t *a = arg;
    if (job->data[0] == JOB_PATH) {
        uint8_t moves[PATH_MAX_J];
        int len = job->data[1];
        get_moves(job->data + 2, moves, len);
        pz_keep_least(a->best, &a->best_len, moves, len);
        return;
    }
    int g = job->data[1], last = job->data[3];
    if (job->data[2] != a->bound) {
        fatal("a job", "carries another iteration's bound");
    }
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++) {
        bits |= (uint64_t)job->data[4 + i] << (8 * i);
    }
    pz_unpack(bits, &a->s.b);
    get_moves(job->data + 12, a->s.path, g);
    int h = pz_manhattan(&a->s.b);
    if (a->bound - g - h > a->cutoff && g < PREFIX_MAX) {
        expand_as_jobs(a, g, h, last);
    } else {
        pz_dfs(&a->s, g, h, last);
    }
}

/* ---- options ----------------------------------------------------------- */

static int usage(int rank, const char *bad)
{
    if (rank == 0) {
        fprintf(stderr,
                "puzzle: %s\nusage: puzzle [-k K (1..%d)] [--quick] "
                "[--instance NAME|0..%d] [--board \"16 tiles 0..15\"] "
                "[--cutoff S (0..80)] [--check-sequential]\n",
                bad, MG_K_MAX, pz_ninstances - 1);
    }
    return 2;
}

static int find_instance(const char *v)
{
    for (int i = 0; i < pz_ninstances; i++) {
        if (strcmp(v, pz_instances[i].name) == 0) {
            return i;
        }
    }
    char *end;
    long i = strtol(v, &end, 10);
    if (*v != '\0' && *end == '\0' && i >= 0 && i < pz_ninstances) {
        return (int)i;
    }
    return -1;
}

static int parse(int argc, char **argv, int rank, opts_t *o)
{
    char msg[160];
    int quick = 0, have_board = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) {
            quick = 1;
            continue;
        }
        if (strcmp(a, "--check-sequential") == 0) {
            o->check_seq = 1;
            continue;
        }
        if (strcmp(a, "-k") != 0 && strcmp(a, "--instance") != 0 &&
            strcmp(a, "--board") != 0 && strcmp(a, "--cutoff") != 0) {
            return usage(rank, "unknown option");
        }
        if (i + 1 >= argc) {
            snprintf(msg, sizeof msg, "%s lacks its value", a);
            return usage(rank, msg);
        }
        const char *v = argv[++i];
        char *end;
        if (strcmp(a, "-k") == 0) {
            long k = strtol(v, &end, 10);
            if (*v == '\0' || *end != '\0' || k < 1 || k > MG_K_MAX) {
                snprintf(msg, sizeof msg, "-k expects 1..%d", MG_K_MAX);
                return usage(rank, msg);
            }
            o->k = (unsigned)k;
        } else if (strcmp(a, "--cutoff") == 0) {
            long r = strtol(v, &end, 10);
            if (*v == '\0' || *end != '\0' || r < 0 || r > 80) {
                return usage(rank, "--cutoff expects 0..80");
            }
            o->cutoff = (int)r;
        } else if (strcmp(a, "--instance") == 0) {
            o->instance = find_instance(v);
            if (o->instance < 0) {
                snprintf(msg, sizeof msg,
                         "--instance expects a name (korf1, ...) or 0..%d",
                         pz_ninstances - 1);
                return usage(rank, msg);
            }
            have_board = 0;
        } else {
            if (pz_parse(v, &o->start, msg, sizeof msg) != 0) {
                return usage(rank, msg);
            }
            if (!pz_solvable(&o->start)) {
                return usage(rank, "--board: this position cannot reach the "
                                   "goal (wrong permutation parity)");
            }
            have_board = 1;
        }
    }
    if (quick && !have_board) {
        o->instance = find_instance("korf9");
    }
    if (have_board) {
        o->instance = -1;
    } else {
        pz_from_cells(pz_instances[o->instance].cell, &o->start);
    }
    return 0;
}

/* ---- the run ----------------------------------------------------------- */

static int64_t fa(unsigned var, int64_t add)
{
    int64_t old;
    check_lci(lci_fetch_add(0, var, add, &old), "lci_fetch_add");
    return old;
}

/* A key whose owner is node 0. */
static uint64_t key_on_node0(void)
{
    uint64_t key = 0;
    while (mg_owner(key) != 0) {
        key++;
    }
    return key;
}

int main(int argc, char **argv)
{
    static app_t a;
    /* mg_init needs k; the options are checked after it (it removes the
     * --lci options), so a bad -k falls back to 64 until then. */
    mg_config_t cfg = {.k = 64, .handler = handle, .arg = &a};
    for (int i = 1; i + 1 < argc; i++) {
        char *end;
        long k = strcmp(argv[i], "-k") == 0 ? strtol(argv[i + 1], &end, 10) : 0;
        if (k >= 1 && k <= MG_K_MAX && *end == '\0') {
            cfg.k = (unsigned)k;
        }
    }
    if (mg_init(&argc, &argv, &cfg) != MG_OK) {
        fatal("mg_init", mg_last_error());
    }
    int me = lci_rank(), nodes = lci_size();
    opts_t o = {.k = 64, .cutoff = 5, .instance = 0};
    int bad = parse(argc, argv, me, &o);
    if (bad != 0) {
        mg_finalize();
        return bad;
    }
    if (lci_fa_count() < V_COUNT) {
        fatal("lci_fa_count", "too few fetch-and-add variables");
    }
    a.cutoff = o.cutoff;
    a.s.best_len = -1;
    a.best_len = -1;
    int h0 = pz_manhattan(&o.start);

    check_lci(lci_barrier(), "lci_barrier");
    double t0 = lci_wtime();
    mg_stats_t st, sum = {0};
    int found = 0, iterations = 0;
    /* No position needs more than 80 moves: a search that finds nothing
     * by then is wrong (and stops there). */
    for (a.bound = h0; !found && a.bound <= PZ_MAX_MOVES; a.bound += 2) {
        a.s.bound = a.bound;
        if (me == 0) {
            a.s.b = o.start;
            submit_position(&a, 0, PZ_NO_DIR);
        }
        if (mg_run(&st) != MG_OK) {
            fatal("mg_run", mg_last_error());
        }
        iterations++;
        sum.jobs_processed += st.jobs_processed;
        sum.msgs_sent += st.msgs_sent;
        sum.packets_sent += st.packets_sent;
        /* Solutions found anywhere in this iteration (the counts are
         * cumulative: the search stops at the first that has one). */
        fa(V_FOUND, a.s.found);
        check_lci(lci_barrier(), "lci_barrier");
        found = fa(V_FOUND, 0) > 0;
        if (found) {
            break;
        }
    }
    if (!found) {
        a.bound -= 2; /* the last bound searched */
    }
    double secs = lci_wtime() - t0; /* after a barrier: the slowest node's */

    /* Node 0 collects the least solution and the counts. */
    if (a.s.found > 0) {
        mg_job_t job;
        memset(&job, 0, sizeof job);
        job.key = key_on_node0();
        job.data[0] = JOB_PATH;
        job.data[1] = (unsigned char)a.s.best_len;
        put_moves(job.data + 2, a.s.best, a.s.best_len);
        submit(&job);
    }
    if (mg_run(NULL) != MG_OK) {
        fatal("mg_run", mg_last_error());
    }
    fa(V_NODES, (int64_t)a.s.nodes);
    fa(V_JOBS, (int64_t)sum.jobs_processed);
    fa(V_MSGS, (int64_t)sum.msgs_sent);
    fa(V_PACKETS, (int64_t)sum.packets_sent);
    check_lci(lci_barrier(), "lci_barrier");
    int64_t total_nodes = 0, jobs = 0, msgs = 0, packets = 0;
    if (me == 0) {
        total_nodes = fa(V_NODES, 0);
        jobs = fa(V_JOBS, 0);
        msgs = fa(V_MSGS, 0);
        packets = fa(V_PACKETS, 0);
    }
    if (mg_finalize() != MG_OK) {
        fatal("mg_finalize", mg_last_error());
    }
    if (me != 0) {
        return 0;
    }

    /* The check, on node 0, after the parallel run. */
    const char *name =
        o.instance >= 0 ? pz_instances[o.instance].name : "board";
    int literature = o.instance >= 0 ? pz_instances[o.instance].optimal : 0;
    int len = a.best_len, ok = 1;
    char why[200] = "";
    if (len < 0) {
        ok = 0;
        snprintf(why, sizeof why, "no solution within %d moves", a.bound);
    } else if (!pz_path_solves(&o.start, a.best, len)) {
        ok = 0;
        snprintf(why, sizeof why, "the moves found do not solve the puzzle");
    } else if (len != a.bound) {
        ok = 0;
        snprintf(why, sizeof why, "%d moves, but the bound was %d", len,
                 a.bound);
    } else if (literature > 0 && len != literature) {
        ok = 0;
        snprintf(why, sizeof why, "%d moves, the optimum is %d", len,
                 literature);
    }
    const char *checked =
        literature > 0 ? "optimum from the literature" : "optimum not checked";
    if (ok && (o.check_seq || literature == 0 ||
               (uint64_t)total_nodes <= SEQ_CHECK_NODES)) {
        uint8_t path[PZ_MAX_PATH];
        uint64_t seq_nodes;
        int seq_len = pz_ida(&o.start, path, &seq_nodes, NULL);
        checked = "sequential IDA*";
        if (seq_len != len || memcmp(path, a.best, (size_t)len) != 0 ||
            seq_nodes != (uint64_t)total_nodes) {
            ok = 0;
            snprintf(why, sizeof why,
                     "the sequential search found %d moves in %" PRIu64
                     " positions, the parallel one %d in %" PRId64,
                     seq_len, seq_nodes, len, total_nodes);
        }
    }
    char moves[PZ_MAX_PATH + 1];
    for (int i = 0; i < len && i < PZ_MAX_PATH; i++) {
        moves[i] = pz_dir_name[a.best[i]];
    }
    moves[len > 0 ? len : 0] = '\0';
    if (!ok) {
        fprintf(stderr, "puzzle: WRONG: %s\n", why);
    }
    printf("puzzle: %s, k %u, %d nodes, cutoff %d: %d moves (%s), "
           "%d iterations, %" PRId64 " positions, %" PRId64 " jobs, %" PRId64
           " msgs, %" PRId64 " packets, time_s %.6f, moves %s: %s\n",
           name, o.k, nodes, o.cutoff, len, checked, iterations, total_nodes,
           jobs, msgs, packets, secs, moves, ok ? "OK" : "WRONG");
    return ok ? 0 : 1;
}
