/*
 * awari_db.h - Awari's endgame databases for apps/awari: what a board's
 * moves are worth, and a sequential build from the definition (the check).
 *
 * db[n] holds the value of every board with n stones (awari_board.h), at
 * its aw_rank.  A move that captures c > 0 stones leads into db[n - c] and
 * is worth c - db[n - c][child] to the mover: an exit, known once the
 * smaller databases are.  A move that captures nothing leads to a board of
 * the same database and is worth minus that board's value.  The value of a
 * board is the best of its moves (-n without a move; 0 for a game that
 * never ends).  For each t from n down to 1, the boards worth at least t
 * (W_t) and at most -t (L_t) are the least sets with
 *   b in W_t  iff  an exit of b is worth >= t, or a move leads into L_t;
 *   b in L_t  iff  every exit of b is worth <= -t and every other move
 *                  leads into W_t;
 * a board in W_t but not in W_{t+1} is worth exactly t, one in L_t but not
 * in L_{t+1} exactly -t, one in no set 0.  apps/awari computes these sets
 * backwards, from each board found to its parents by unmoves; the check
 * here computes them forwards, by sweeping over the boards until nothing
 * changes.
 */
#ifndef AWARI_DB_H
#define AWARI_DB_H

#include <stdint.h>

#include "awari_board.h"

#define AW_UNKNOWN INT8_MIN /* no value yet; also "no exit" */

/* b (n stones): the best exit in *best_exit (-n for a board without a
 * move, AW_UNKNOWN for one whose moves all capture nothing) and the number
 * of moves that capture nothing in *internal.  Needs db[0 .. n-1]. */
void aw_exits(const aw_board_t *b, int8_t *const *db, int *best_exit,
              int *internal);

/* The best of b's moves, looked up in db[0 .. n] (db[n] complete). */
int aw_negamax(const aw_board_t *b, int8_t *const *db);

/* Builds db[0 .. stones] (each of aw_db_size(n) entries, allocated by the
 * caller) from the definition above.  Sequential: for checking. */
void aw_build_sequential(int stones, int8_t *const *db);

#endif /* AWARI_DB_H */
