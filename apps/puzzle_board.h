/*
 * puzzle_board.h - the 15-puzzle for apps/puzzle: boards, moves, the
 * Manhattan-distance heuristic, the built-in instances and a sequential
 * IDA* search (the parallel search's subtrees and its check).
 */
#ifndef PUZZLE_BOARD_H
#define PUZZLE_BOARD_H

#include <stdint.h>

#define PZ_CELLS     16
#define PZ_MAX_MOVES 80 /* no 15-puzzle position needs more */
#define PZ_MAX_PATH  96 /* room for a path of moves */
#define PZ_NO_DIR    4  /* "no previous move" */

/* A position: the tile on each cell (0 is the blank, the goal has the
 * blank on cell 0 and tile t on cell t, as in Korf's instances). */
typedef struct {
    uint8_t cell[PZ_CELLS];
    int blank;
} pz_board_t;

/* A built-in instance, with its optimal solution length from the
 * literature (Korf 1985) where it has one, else 0. */
typedef struct {
    const char *name;
    uint8_t cell[PZ_CELLS];
    int optimal;
} pz_instance_t;

extern const pz_instance_t pz_instances[];
extern const int pz_ninstances;

/* Directions the blank moves in: up, left, right, down (d and 3 - d are
 * opposite). */
extern const char pz_dir_name[4];

/* Parses 16 numbers 0..15, each once, separated by spaces or commas;
 * 0 on success, else -1 with a message in err. */
int pz_parse(const char *text, pz_board_t *b, char *err, unsigned errlen);
void pz_from_cells(const uint8_t cell[PZ_CELLS], pz_board_t *b);
/* Whether the goal can be reached (permutation parity against the
 * blank's distance from its goal cell). */
int pz_solvable(const pz_board_t *b);
int pz_manhattan(const pz_board_t *b);
/* The blank's cell after moving in dir, or -1 off the board. */
int pz_target(int blank, int dir);
/* Moves the blank in dir (must be on the board); returns the change of
 * the Manhattan distance. */
int pz_move(pz_board_t *b, int dir);
int pz_is_goal(const pz_board_t *b);

/* Board <-> 64 bits (a nibble per cell). */
uint64_t pz_pack(const pz_board_t *b);
void pz_unpack(uint64_t bits, pz_board_t *b);

/* One IDA* iteration's depth-first search below a position. */
typedef struct {
    pz_board_t b;
    int bound;
    uint64_t nodes;            /* positions visited (also those cut off) */
    uint8_t path[PZ_MAX_PATH]; /* moves from the start to the current node */
    int found;                 /* solutions seen */
    uint8_t best[PZ_MAX_PATH]; /* the first solution in move order */
    int best_len;
    void (*tick)(void); /* called every 2^16 nodes, may be NULL */
} pz_search_t;

/* Visits the current position s->b at depth g with heuristic h (s->path
 * holds the g moves that lead to it, last the last of them or PZ_NO_DIR);
 * searches the whole iteration below it (it does not stop at a solution),
 * recording the least solution in move order. */
void pz_dfs(pz_search_t *s, int g, int h, int last);

/* Keeps path (len moves) in best if it precedes it (shorter, or the same
 * length and lexicographically smaller); returns whether it did. */
int pz_keep_least(uint8_t *best, int *best_len, const uint8_t *path, int len);

/* Sequential IDA*: the optimal length, the least optimal solution in
 * path, and the positions visited over all iterations in *nodes. */
int pz_ida(const pz_board_t *start, uint8_t path[PZ_MAX_PATH], uint64_t *nodes,
           void (*tick)(void));

/* Whether applying the len moves in path to start reaches the goal (and
 * every move stays on the board). */
int pz_path_solves(const pz_board_t *start, const uint8_t *path, int len);

#endif
