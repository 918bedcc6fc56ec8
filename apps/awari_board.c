/*
 * awari_board.c - Awari's rules for apps/awari (awari_board.h): the
 * numbering of boards inside a database, moves and unmoves.
 */
#include "awari_board.h"

/* comp(s, q): the ways of putting s stones into q pits, C(s + q - 1, q - 1);
 * filled on first use (q >= 1). */
static uint32_t comp_table[AW_MAX_STONES + 1][AW_PITS + 1];
static int comp_ready;

static void comp_fill(void)
{
    for (int s = 0; s <= AW_MAX_STONES; s++) {
        comp_table[s][1] = 1;
        for (int q = 2; q <= AW_PITS; q++) {
            /* The first pit holds j = 0..s stones, the rest s - j. */
            uint32_t sum = 0;
            for (int j = 0; j <= s; j++) {
                sum += comp_table[s - j][q - 1];
            }
            comp_table[s][q] = sum;
        }
    }
    comp_ready = 1;
}

static uint32_t comp(int s, int q)
{
    if (!comp_ready) {
        comp_fill();
    }
    return comp_table[s][q];
}

uint32_t aw_db_size(int n)
{
    return comp(n, AW_PITS);
}

int aw_stones(const aw_board_t *b)
{
    int n = 0;
    for (int k = 0; k < AW_PITS; k++) {
        n += b->pit[k];
    }
    return n;
}

/* Boards are numbered in lexicographic order of their pits: pit k holding
 * v skips every board that agrees on pits 0..k-1 and holds less there. */
uint32_t aw_rank(const aw_board_t *b)
{
    int left = aw_stones(b);
    uint32_t index = 0;
    for (int k = 0; k < AW_PITS - 1; k++) {
        for (int j = 0; j < b->pit[k]; j++) {
            index += comp(left - j, AW_PITS - 1 - k);
        }
        left -= b->pit[k];
    }
    return index;
}

void aw_unrank(int n, uint32_t index, aw_board_t *b)
{
    int left = n;
    for (int k = 0; k < AW_PITS - 1; k++) {
        int v = 0;
        for (;;) {
            uint32_t with_v = comp(left - v, AW_PITS - 1 - k);
            if (index < with_v) {
                break;
            }
            index -= with_v;
            v++;
        }
        b->pit[k] = (uint8_t)v;
        left -= v;
    }
    b->pit[AW_PITS - 1] = (uint8_t)left;
}

/* The pit after k in sowing order for a move from pit origin. */
static int next_pit(int k, int origin)
{
    k = (k + 1) % AW_PITS;
    return k == origin ? (k + 1) % AW_PITS : k;
}

static int capturable(int count)
{
    return count == 2 || count == 3;
}

/* The board from the other side: pit k becomes pit k + 6 mod 12 (its own
 * inverse). */
static void turn(const uint8_t *from, aw_board_t *to)
{
    for (int k = 0; k < AW_PITS; k++) {
        to->pit[k] = from[(k + AW_SIDE) % AW_PITS];
    }
}

int aw_play(const aw_board_t *b, int pit, aw_board_t *child, int *captured)
{
    int stones = b->pit[pit];
    if (stones == 0) {
        return 0;
    }
    uint8_t after[AW_PITS];
    for (int k = 0; k < AW_PITS; k++) {
        after[k] = b->pit[k];
    }
    after[pit] = 0;
    int k = pit;
    for (; stones > 0; stones--) {
        k = next_pit(k, pit);
        after[k]++;
    }
    int taken = 0;
    while (k >= AW_SIDE && capturable(after[k])) {
        taken += after[k];
        after[k] = 0;
        k--;
    }
    turn(after, child);
    *captured = taken;
    return 1;
}

int aw_unmoves(const aw_board_t *child, aw_board_t *parents)
{
    aw_board_t after; /* the board right after the move, mover's side */
    turn(child->pit, &after);
    int stones = aw_stones(&after), count = 0;
    for (int origin = 0; origin < AW_SIDE; origin++) {
        if (after.pit[origin] != 0) {
            continue; /* a move empties its pit and never sows into it */
        }
        uint8_t sown[AW_PITS] = {0};
        int k = origin;
        for (int s = 1; s <= stones; s++) {
            k = next_pit(k, origin);
            if (++sown[k] > after.pit[k]) {
                break; /* more stones would need even more here */
            }
            if (k >= AW_SIDE && capturable(after.pit[k])) {
                continue; /* that move would have captured */
            }
            aw_board_t *p = &parents[count++];
            for (int j = 0; j < AW_PITS; j++) {
                p->pit[j] = (uint8_t)(after.pit[j] - sown[j]);
            }
            p->pit[origin] = (uint8_t)s;
        }
    }
    return count;
}
