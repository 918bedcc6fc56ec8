/*
 * awari_board.h - Awari for apps/awari: boards, their numbering inside a
 * database, moves and unmoves.
 *
 * A board is always seen from the side to move: pits 0..5 are the mover's,
 * 6..11 the opponent's, sown counter-clockwise (pit k to pit k + 1 mod 12).
 * The rules (doc/apps.md says where they differ from tournament Awari):
 *   - the mover takes every stone of one non-empty pit of his and sows them
 *     one a pit from the next pit on, skipping the emptied pit;
 *   - if the last stone lands in an opponent's pit that then holds 2 or 3,
 *     those stones are captured, and so are the preceding opponent's pits'
 *     while they hold 2 or 3 (a capture of every opponent stone counts);
 *   - a mover without stones has no move: the game ends and the opponent
 *     takes the stones left (all on his side);
 *   - a game that never ends scores 0 from where its cycle begins.
 * The value of a board is the mover's stones minus the opponent's from here
 * on, with best play by both: an integer in [-n, n] for n stones.
 */
#ifndef AWARI_BOARD_H
#define AWARI_BOARD_H

#include <stdint.h>

#define AW_PITS       12
#define AW_SIDE       6
#define AW_MAX_STONES 16
/* Unmoves into one board: at most one per (pit, stones sown). */
#define AW_MAX_UNMOVES (AW_SIDE * AW_MAX_STONES)

typedef struct {
    uint8_t pit[AW_PITS];
} aw_board_t;

/* Boards with exactly n stones: C(n + 11, 11) (n <= AW_MAX_STONES). */
uint32_t aw_db_size(int n);

/* The stones on the board. */
int aw_stones(const aw_board_t *b);

/* A board's number among the boards with its stones (0 .. size - 1), and
 * back: the two are inverse bijections. */
uint32_t aw_rank(const aw_board_t *b);
void aw_unrank(int n, uint32_t index, aw_board_t *b);

/* Plays pit (0..5) of the mover's side: 0 if the pit is empty, else 1 with
 * the board after the move, from the new mover's side, in *child and the
 * stones captured in *captured. */
int aw_play(const aw_board_t *b, int pit, aw_board_t *child, int *captured);

/* Every board from which one move captures nothing and gives child: one
 * entry per such (board, pit), so a board reached by two pits appears
 * twice.  Returns how many went into parents (at most AW_MAX_UNMOVES). */
int aw_unmoves(const aw_board_t *child, aw_board_t *parents);

#endif /* AWARI_BOARD_H */
