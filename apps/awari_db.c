/*
 * awari_db.c - what Awari's moves are worth, and the sequential build of
 * the endgame databases from their definition (awari_db.h).
 */
#include "awari_db.h"

/* b's moves: the boards they give in child and the stones each captures
 * in taken; returns how many there are. */
static int moves_of(const aw_board_t *b, aw_board_t child[AW_SIDE],
                    int taken[AW_SIDE])
{
    int moves = 0;
    for (int pit = 0; pit < AW_SIDE; pit++) {
        moves += aw_play(b, pit, &child[moves], &taken[moves]);
    }
    return moves;
}

void aw_exits(const aw_board_t *b, int8_t *const *db, int *best_exit,
              int *internal)
{
    aw_board_t child[AW_SIDE];
    int taken[AW_SIDE], n = aw_stones(b), best = AW_UNKNOWN, inside = 0;
    int moves = moves_of(b, child, taken);
    for (int m = 0; m < moves; m++) {
        if (taken[m] == 0) {
            inside++; /* db[n] is not built yet */
            continue;
        }
        int worth = taken[m] - db[n - taken[m]][aw_rank(&child[m])];
        best = worth > best ? worth : best;
    }
    *best_exit = moves == 0 ? -n : best;
    *internal = inside;
}

int aw_negamax(const aw_board_t *b, int8_t *const *db)
{
    aw_board_t child[AW_SIDE];
    int taken[AW_SIDE], n = aw_stones(b), best = -n;
    int moves = moves_of(b, child, taken);
    for (int m = 0; m < moves; m++) {
        int worth = taken[m] - db[n - taken[m]][aw_rank(&child[m])];
        best = m == 0 || worth > best ? worth : best;
    }
    return best;
}

/* One board's standing at threshold t from its moves: +t if it is in W_t,
 * -t if in L_t, else AW_UNKNOWN (db[n] holds the sets found so far). */
static int standing(const aw_board_t *b, int n, int t, int8_t *const *db)
{
    aw_board_t child[AW_SIDE];
    int taken[AW_SIDE], wins = 0, all_lose = 1;
    int moves = moves_of(b, child, taken);
    for (int m = 0; m < moves; m++) {
        int v = db[n - taken[m]][aw_rank(&child[m])];
        if (taken[m] > 0) {
            wins |= taken[m] - v >= t;
            all_lose &= taken[m] - v <= -t;
        } else if (v == AW_UNKNOWN) {
            all_lose = 0;
        } else {
            wins |= v <= -t;
            all_lose &= v >= t;
        }
    }
    if (moves == 0) {
        return n >= t ? -t : AW_UNKNOWN; /* worth -n */
    }
    return wins ? t : all_lose ? -t : AW_UNKNOWN;
}

void aw_build_sequential(int stones, int8_t *const *db)
{
    db[0][0] = 0; /* the empty board: no move, nothing left */
    for (int n = 1; n <= stones; n++) {
        uint32_t size = aw_db_size(n);
        for (uint32_t i = 0; i < size; i++) {
            db[n][i] = AW_UNKNOWN;
        }
        for (int t = n; t >= 1; t--) {
            /* Sweep until a fixpoint; a board placed in a sweep counts
             * for the boards after it in the same sweep. */
            int changed = 1;
            while (changed) {
                changed = 0;
                for (uint32_t i = 0; i < size; i++) {
                    if (db[n][i] != AW_UNKNOWN) {
                        continue;
                    }
                    aw_board_t b;
                    aw_unrank(n, i, &b);
                    int s = standing(&b, n, t, db);
                    if (s != AW_UNKNOWN) {
                        db[n][i] = (int8_t)s;
                        changed = 1;
                    }
                }
            }
        }
        for (uint32_t i = 0; i < size; i++) {
            if (db[n][i] == AW_UNKNOWN) {
                db[n][i] = 0;
            }
        }
    }
}
