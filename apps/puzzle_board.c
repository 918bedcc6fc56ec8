/*
 * puzzle_board.c - the 15-puzzle: boards, moves, the Manhattan-distance
 * heuristic, built-in instances and a sequential IDA* search.
 */
#include "puzzle_board.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Korf (1985), "Depth-first iterative-deepening", instances 1, 2, 4, 5
 * and 9 with their optimal lengths; then two short positions for tests
 * (random walks from the goal, 32 and 38 moves, solved sequentially). */
const pz_instance_t pz_instances[] = {
    {"korf1", {14, 13, 15, 7, 11, 12, 9, 5, 6, 0, 2, 1, 4, 8, 10, 3}, 57},
    {"korf2", {13, 5, 4, 10, 9, 12, 8, 14, 2, 3, 7, 1, 0, 15, 11, 6}, 55},
    {"korf4", {5, 12, 10, 7, 15, 11, 14, 0, 8, 2, 1, 13, 3, 4, 9, 6}, 56},
    {"korf5", {4, 7, 14, 13, 10, 3, 9, 12, 11, 5, 6, 15, 1, 2, 8, 0}, 56},
    {"korf9", {3, 14, 9, 11, 5, 4, 8, 2, 13, 12, 6, 7, 10, 1, 15, 0}, 46},
    {"short32", {4, 1, 2, 10, 8, 0, 5, 3, 12, 6, 11, 7, 15, 9, 13, 14}, 0},
    {"short38", {0, 5, 2, 14, 1, 4, 8, 7, 10, 3, 6, 15, 12, 9, 13, 11}, 0},
};
const int pz_ninstances = (int)(sizeof pz_instances / sizeof pz_instances[0]);

const char pz_dir_name[4] = {'U', 'L', 'R', 'D'};

static const int dir_step[4] = {-4, -1, 1, 4};

/* md[t][c]: the Manhattan distance of tile t on cell c from its goal. */
static int md[PZ_CELLS][PZ_CELLS];
static int md_ready;

static void md_init(void)
{
    if (md_ready) {
        return;
    }
    for (int t = 1; t < PZ_CELLS; t++) {
        for (int c = 0; c < PZ_CELLS; c++) {
            md[t][c] = abs(t / 4 - c / 4) + abs(t % 4 - c % 4);
        }
    }
    md_ready = 1;
}

void pz_from_cells(const uint8_t cell[PZ_CELLS], pz_board_t *b)
{
    memcpy(b->cell, cell, PZ_CELLS);
    b->blank = 0;
    for (int c = 0; c < PZ_CELLS; c++) {
        if (cell[c] == 0) {
            b->blank = c;
        }
    }
}

int pz_parse(const char *text, pz_board_t *b, char *err, unsigned errlen)
{
    uint8_t cell[PZ_CELLS];
    int seen = 0, n = 0;
    const char *p = text;
    while (*p != '\0') {
        if (*p == ' ' || *p == ',' || *p == '\t') {
            p++;
            continue;
        }
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 15) {
            snprintf(err, errlen, "--board expects 16 numbers 0..15");
            return -1;
        }
        if (n == PZ_CELLS || (seen & (1 << v)) != 0) {
            snprintf(err, errlen,
                     "--board expects 16 numbers 0..15, each once");
            return -1;
        }
        seen |= 1 << v;
        cell[n++] = (uint8_t)v;
        p = end;
    }
    if (n != PZ_CELLS) {
        snprintf(err, errlen, "--board expects 16 numbers 0..15, got %d", n);
        return -1;
    }
    pz_from_cells(cell, b);
    return 0;
}

int pz_solvable(const pz_board_t *b)
{
    int inv = 0;
    for (int i = 0; i < PZ_CELLS; i++) {
        for (int j = i + 1; j < PZ_CELLS; j++) {
            inv += b->cell[j] < b->cell[i];
        }
    }
    /* Each move is one transposition (blank and tile) and moves the blank
     * one cell: the permutation's parity follows the blank's distance. */
    int dist = b->blank / 4 + b->blank % 4;
    return (inv + dist) % 2 == 0;
}

int pz_manhattan(const pz_board_t *b)
{
    md_init();
    int h = 0;
    for (int c = 0; c < PZ_CELLS; c++) {
        if (b->cell[c] != 0) {
            h += md[b->cell[c]][c];
        }
    }
    return h;
}

int pz_target(int blank, int dir)
{
    int r = blank / 4, c = blank % 4;
    switch (dir) {
    case 0:
        return r > 0 ? blank - 4 : -1;
    case 1:
        return c > 0 ? blank - 1 : -1;
    case 2:
        return c < 3 ? blank + 1 : -1;
    default:
        return r < 3 ? blank + 4 : -1;
    }
}

int pz_move(pz_board_t *b, int dir)
{
    md_init();
    int to = b->blank + dir_step[dir];
    int t = b->cell[to];
    int delta = md[t][b->blank] - md[t][to];
    b->cell[b->blank] = (uint8_t)t;
    b->cell[to] = 0;
    b->blank = to;
    return delta;
}

int pz_is_goal(const pz_board_t *b)
{
    for (int c = 0; c < PZ_CELLS; c++) {
        if (b->cell[c] != c) {
            return 0;
        }
    }
    return 1;
}

uint64_t pz_pack(const pz_board_t *b)
{
    uint64_t bits = 0;
    for (int c = 0; c < PZ_CELLS; c++) {
        bits |= (uint64_t)b->cell[c] << (4 * c);
    }
    return bits;
}

void pz_unpack(uint64_t bits, pz_board_t *b)
{
    for (int c = 0; c < PZ_CELLS; c++) {
        b->cell[c] = (uint8_t)((bits >> (4 * c)) & 15);
        if (b->cell[c] == 0) {
            b->blank = c;
        }
    }
}

int pz_keep_least(uint8_t *best, int *best_len, const uint8_t *path, int len)
{
    if (*best_len >= 0 &&
        (len > *best_len ||
         (len == *best_len && memcmp(path, best, (size_t)len) >= 0))) {
        return 0;
    }
    memcpy(best, path, (size_t)len);
    *best_len = len;
    return 1;
}

void pz_dfs(pz_search_t *s, int g, int h, int last)
{
    s->nodes++;
    if ((s->nodes & 0xffff) == 0 && s->tick != NULL) {
        s->tick();
    }
    if (g + h > s->bound) {
        return;
    }
    if (h == 0) {
        s->found++;
        pz_keep_least(s->best, &s->best_len, s->path, g);
        return;
    }
    if (g >= PZ_MAX_PATH) {
        return; /* cannot happen below an admissible bound of <= 80 */
    }
    for (int d = 0; d < 4; d++) {
        if (d == 3 - last || pz_target(s->b.blank, d) < 0) {
            continue;
        }
        int dh = pz_move(&s->b, d);
        s->path[g] = (uint8_t)d;
        pz_dfs(s, g + 1, h + dh, d);
        pz_move(&s->b, 3 - d);
    }
}

int pz_ida(const pz_board_t *start, uint8_t path[PZ_MAX_PATH], uint64_t *nodes,
           void (*tick)(void))
{
    pz_search_t *s = calloc(1, sizeof *s);
    if (s == NULL) {
        fprintf(stderr, "puzzle: out of memory\n");
        exit(1);
    }
    s->b = *start;
    s->tick = tick;
    s->best_len = -1;
    int h = pz_manhattan(start);
    /* Every f = g + h has h's parity: the bounds go up in steps of 2. */
    for (s->bound = h; s->found == 0; s->bound += 2) {
        pz_dfs(s, 0, h, PZ_NO_DIR);
    }
    *nodes = s->nodes;
    int len = s->best_len;
    memcpy(path, s->best, (size_t)len);
    free(s);
    return len;
}

int pz_path_solves(const pz_board_t *start, const uint8_t *path, int len)
{
    pz_board_t b = *start;
    for (int i = 0; i < len; i++) {
        if (path[i] > 3 || pz_target(b.blank, path[i]) < 0) {
            return 0;
        }
        pz_move(&b, path[i]);
    }
    return pz_is_goal(&b);
}
