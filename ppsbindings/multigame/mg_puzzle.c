/*
 * mg_puzzle.c - an example search on the Multigame-like layer: how many
 * positions of the 8-puzzle (3x3 sliding tiles) lie within D moves of the
 * solved position?
 *
 * Usage: lci-run -n N ./mg_puzzle [--depth D] [-k K] [--work-us W]
 *
 * A job says "visit position P with R moves left".  It goes to the owner
 * of P's table entry (the key is P's permutation rank), which keeps the
 * most moves-left it has seen for P: a job that brings no more is dropped
 * (a transposition), otherwise the owner records it and submits one job
 * per move with R-1 left.  The positions recorded are exactly those within
 * D moves, whatever order the jobs run in; node 0 adds up every node's
 * count (with LCI fetch-and-add) and checks it against a serial
 * breadth-first search.  Exit status 0 iff they agree.  --work-us charges
 * W microseconds of computation per recorded position (a stand-in for the
 * evaluation a game search does there), so nodes stay busy and batches
 * fill up as in a real search.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lci.h"
#include "mg.h"

#define CELLS     9
#define POSITIONS 362880u /* 9! */

typedef struct {
    uint8_t *best;     /* per position: moves left + 1 (0 = not seen) */
    uint64_t distinct; /* positions this node recorded */
    double work_s;     /* computation charged per recorded position */
} puzzle_t;

static uint32_t rank_of(const uint8_t s[CELLS])
{
    static const uint32_t fact[CELLS] = {40320, 5040, 720, 120, 24, 6, 2, 1, 1};
    uint32_t r = 0;
    for (int i = 0; i < CELLS; i++) {
        uint32_t smaller = 0;
        for (int j = i + 1; j < CELLS; j++) {
            smaller += s[j] < s[i];
        }
        r += smaller * fact[i];
    }
    return r;
}

static void unrank(uint32_t r, uint8_t s[CELLS])
{
    static const uint32_t fact[CELLS] = {40320, 5040, 720, 120, 24, 6, 2, 1, 1};
    uint8_t left[CELLS] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    int n = CELLS;
    for (int i = 0; i < CELLS; i++) {
        uint32_t d = r / fact[i];
        r %= fact[i];
        s[i] = left[d];
        memmove(left + d, left + d + 1, (size_t)(n - (int)d - 1));
        n--;
    }
}

/* The positions one move away (the blank, tile 0, trades places with a
 * neighbour); returns how many. */
static int moves(const uint8_t s[CELLS], uint32_t out[4])
{
    static const int dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1};
    int b = 0, n = 0;
    while (s[b] != 0) {
        b++;
    }
    for (int m = 0; m < 4; m++) {
        int r = b / 3 + dr[m], c = b % 3 + dc[m];
        if (r < 0 || r > 2 || c < 0 || c > 2) {
            continue;
        }
        uint8_t t[CELLS];
        memcpy(t, s, CELLS);
        t[b] = t[r * 3 + c];
        t[r * 3 + c] = 0;
        out[n++] = rank_of(t);
    }
    return n;
}

static void submit(uint32_t pos, uint8_t left)
{
    mg_job_t job = {.key = pos};
    job.data[0] = left;
    mg_status_t st = mg_submit(&job);
    if (st != MG_OK) {
        fprintf(stderr, "mg_puzzle: mg_submit: %s\n", mg_last_error());
        exit(1);
    }
}

static void visit(const mg_job_t *job, void *arg)
{
    puzzle_t *pz = arg;
    uint32_t pos = (uint32_t)job->key;
    uint8_t left = job->data[0];
    if (pz->best[pos] > left) {
        return; /* seen with at least as many moves left */
    }
    pz->distinct += pz->best[pos] == 0;
    pz->best[pos] = (uint8_t)(left + 1);
    if (pz->work_s > 0) {
        lci_compute(pz->work_s);
    }
    if (left == 0) {
        return;
    }
    uint8_t s[CELLS];
    uint32_t next[4];
    unrank(pos, s);
    int n = moves(s, next);
    for (int i = 0; i < n; i++) {
        submit(next[i], (uint8_t)(left - 1));
    }
}

/* Positions within depth moves of start, by breadth-first search. */
static uint64_t serial_count(uint32_t start, int depth)
{
    uint8_t *dist = malloc(POSITIONS);
    uint32_t *queue = malloc(POSITIONS * sizeof *queue);
    uint64_t count = 0;
    if (dist == NULL || queue == NULL) {
        fprintf(stderr, "mg_puzzle: out of memory\n");
        exit(1);
    }
    memset(dist, 0xff, POSITIONS);
    size_t head = 0, tail = 0;
    dist[start] = 0;
    queue[tail++] = start;
    while (head < tail) {
        uint32_t p = queue[head++];
        count++;
        if (dist[p] == depth) {
            continue;
        }
        uint8_t s[CELLS];
        uint32_t next[4];
        unrank(p, s);
        int n = moves(s, next);
        for (int i = 0; i < n; i++) {
            if (dist[next[i]] == 0xff) {
                dist[next[i]] = (uint8_t)(dist[p] + 1);
                queue[tail++] = next[i];
            }
        }
    }
    free(dist);
    free(queue);
    return count;
}

static long opt(int argc, char **argv, const char *name, long def, long lo,
                long hi)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            char *end;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end != '\0' || v < lo || v > hi) {
                fprintf(stderr, "mg_puzzle: %s expects a number in %ld..%ld\n",
                        name, lo, hi);
                exit(2);
            }
            return v;
        }
    }
    return def;
}

static void check_lci(lci_status_t st, const char *what)
{
    if (st != LCI_OK) {
        fprintf(stderr, "mg_puzzle: %s: %s\n", what, lci_last_error());
        exit(1);
    }
}

int main(int argc, char **argv)
{
    puzzle_t pz = {.best = calloc(POSITIONS, 1)};
    if (pz.best == NULL) {
        fprintf(stderr, "mg_puzzle: out of memory\n");
        return 1;
    }
    int depth = (int)opt(argc, argv, "--depth", 14, 0, 31);
    pz.work_s = (double)opt(argc, argv, "--work-us", 0, 0, 1000000) * 1e-6;
    mg_config_t cfg = {.k = (unsigned)opt(argc, argv, "-k", 16, 1, MG_K_MAX),
                       .handler = visit,
                       .arg = &pz};
    if (mg_init(&argc, &argv, &cfg) != MG_OK) {
        fprintf(stderr, "mg_puzzle: mg_init: %s\n", mg_last_error());
        return 1;
    }
    int me = lci_rank();
    const uint8_t solved[CELLS] = {1, 2, 3, 4, 5, 6, 7, 8, 0};
    uint32_t start = rank_of(solved);
    int64_t base = 0, base_jobs = 0, total = 0;
    if (me == 0) {
        check_lci(lci_fetch_add(0, 0, 0, &base), "lci_fetch_add");
        check_lci(lci_fetch_add(0, 1, 0, &base_jobs), "lci_fetch_add");
        submit(start, (uint8_t)depth);
    }
    double t0 = lci_wtime();
    mg_stats_t st;
    if (mg_run(&st) != MG_OK) {
        fprintf(stderr, "mg_puzzle: mg_run: %s\n", mg_last_error());
        return 1;
    }
    double secs = lci_wtime() - t0;
    int64_t old;
    check_lci(lci_fetch_add(0, 0, (int64_t)pz.distinct, &old), "lci_fetch_add");
    check_lci(lci_fetch_add(0, 1, (int64_t)st.jobs_processed, &old),
              "lci_fetch_add");
    check_lci(lci_barrier(), "lci_barrier");
    int rc = 0;
    if (me == 0) {
        int64_t jobs;
        check_lci(lci_fetch_add(0, 0, 0, &total), "lci_fetch_add");
        check_lci(lci_fetch_add(0, 1, 0, &jobs), "lci_fetch_add");
        total -= base;
        uint64_t want = serial_count(start, depth);
        int ok = (uint64_t)total == want;
        printf("mg_puzzle: %d nodes, k %u, depth %d, work %.0f us: %" PRId64
               " positions (serial search: %" PRIu64 "), %" PRId64
               " jobs, %.6f s: %s\n",
               lci_size(), cfg.k, depth, pz.work_s * 1e6, total, want,
               jobs - base_jobs, secs, ok ? "OK" : "MISMATCH");
        rc = !ok;
    }
    free(pz.best);
    if (mg_finalize() != MG_OK) {
        fprintf(stderr, "mg_puzzle: mg_finalize: %s\n", mg_last_error());
        return 1;
    }
    return rc;
}
