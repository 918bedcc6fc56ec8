/*
 * test_awari_rules.c - Awari's rules for apps/awari (CUnit): the board
 * numbering is a bijection, unmoves give exactly the moves that capture
 * nothing (compared with every move of every board), captures follow the
 * rules, and the sequential databases satisfy the negamax equation.
 */
#include <stdlib.h>
#include <string.h>

#include "awari_board.h"
#include "awari_db.h"
#include "unit_run.h"

#define CHECKED_UP_TO 8 /* stones: every board of these databases */

static void board_numbering_is_a_bijection(void)
{
    for (int n = 0; n <= CHECKED_UP_TO; n++) {
        uint32_t size = aw_db_size(n);
        for (uint32_t i = 0; i < size; i++) {
            aw_board_t b;
            aw_unrank(n, i, &b);
            CU_ASSERT_EQUAL_FATAL(aw_stones(&b), n);
            CU_ASSERT_EQUAL_FATAL(aw_rank(&b), i);
        }
    }
    CU_ASSERT_EQUAL(aw_db_size(0), 1);
    CU_ASSERT_EQUAL(aw_db_size(1), 12);
    CU_ASSERT_EQUAL(aw_db_size(13), 2496144); /* C(24, 11) */
}

static int cmp_edge(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

/* Every (parent, child) pair as parent's rank * 2^32 + child's. */
static void unmoves_give_exactly_the_moves_that_capture_nothing(void)
{
    for (int n = 1; n <= CHECKED_UP_TO; n++) {
        uint32_t size = aw_db_size(n);
        uint64_t *fwd = malloc((size_t)size * AW_SIDE * sizeof *fwd);
        uint64_t *back = malloc((size_t)size * AW_MAX_UNMOVES * sizeof *back);
        CU_ASSERT_FATAL(fwd != NULL && back != NULL);
        size_t nf = 0, nb = 0;
        aw_board_t parents[AW_MAX_UNMOVES];
        for (uint32_t i = 0; i < size; i++) {
            aw_board_t b, child;
            aw_unrank(n, i, &b);
            for (int pit = 0; pit < AW_SIDE; pit++) {
                int taken;
                if (aw_play(&b, pit, &child, &taken) && taken == 0) {
                    fwd[nf++] = (uint64_t)i << 32 | aw_rank(&child);
                }
            }
            int np = aw_unmoves(&b, parents);
            for (int k = 0; k < np; k++) {
                CU_ASSERT_EQUAL_FATAL(aw_stones(&parents[k]), n);
                back[nb++] = (uint64_t)aw_rank(&parents[k]) << 32 | i;
            }
        }
        CU_ASSERT_EQUAL_FATAL(nf, nb);
        qsort(fwd, nf, sizeof *fwd, cmp_edge);
        qsort(back, nb, sizeof *back, cmp_edge);
        CU_ASSERT_EQUAL(memcmp(fwd, back, nf * sizeof *fwd), 0);
        free(fwd);
        free(back);
    }
}

static aw_board_t board_of(const uint8_t pits[AW_PITS])
{
    aw_board_t b;
    memcpy(b.pit, pits, AW_PITS);
    return b;
}

static void moves_sow_capture_and_turn_the_board(void)
{
    aw_board_t child;
    int taken;
    /* Pit 5's one stone makes pit 6 hold 2: captured. */
    aw_board_t b = board_of((const uint8_t[]){0, 0, 0, 0, 0, 1, 1, 0, 0, 0,
                                              0, 4});
    CU_ASSERT_TRUE(aw_play(&b, 5, &child, &taken));
    CU_ASSERT_EQUAL(taken, 2);
    /* The new mover's pits 0..5 were pits 6..11. */
    const uint8_t want1[AW_PITS] = {0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0};
    CU_ASSERT_EQUAL(memcmp(child.pit, want1, AW_PITS), 0);
    /* Pit 4's three stones end in pit 7 (3): 7 and 6 (2) go, 5 is ours. */
    b = board_of((const uint8_t[]){0, 0, 0, 0, 3, 0, 1, 2, 0, 5, 0, 0});
    CU_ASSERT_TRUE(aw_play(&b, 4, &child, &taken));
    CU_ASSERT_EQUAL(taken, 5);
    const uint8_t want2[AW_PITS] = {0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1};
    CU_ASSERT_EQUAL(memcmp(child.pit, want2, AW_PITS), 0);
    /* Twelve stones from pit 0 skip pit 0: pit 1 gets two. */
    b = board_of((const uint8_t[]){12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    CU_ASSERT_TRUE(aw_play(&b, 0, &child, &taken));
    CU_ASSERT_EQUAL(taken, 0);
    const uint8_t want3[AW_PITS] = {1, 1, 1, 1, 1, 1, 0, 2, 1, 1, 1, 1};
    CU_ASSERT_EQUAL(memcmp(child.pit, want3, AW_PITS), 0);
    /* An empty pit is no move. */
    CU_ASSERT_FALSE(aw_play(&b, 3, &child, &taken));
}

static void sequential_databases_satisfy_the_negamax_equation(void)
{
    enum { STONES = 6 };
    int8_t *db[STONES + 1];
    for (int n = 0; n <= STONES; n++) {
        db[n] = malloc(aw_db_size(n));
        CU_ASSERT_FATAL(db[n] != NULL);
    }
    aw_build_sequential(STONES, db);
    int terminal = 0, nonzero = 0;
    for (int n = 1; n <= STONES; n++) {
        for (uint32_t i = 0; i < aw_db_size(n); i++) {
            aw_board_t b;
            aw_unrank(n, i, &b);
            int v = db[n][i];
            CU_ASSERT_TRUE_FATAL(v >= -n && v <= n);
            CU_ASSERT_EQUAL_FATAL(v, aw_negamax(&b, db));
            int mover = b.pit[0] + b.pit[1] + b.pit[2] + b.pit[3] +
                        b.pit[4] + b.pit[5];
            if (mover == 0) {
                terminal++;
                CU_ASSERT_EQUAL(v, -n);
            }
            nonzero += v != 0;
        }
    }
    CU_ASSERT(terminal > 0);
    CU_ASSERT(nonzero > 0);
    for (int n = 0; n <= STONES; n++) {
        free(db[n]);
    }
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"board numbering is a bijection", board_numbering_is_a_bijection},
        {"unmoves give exactly the moves that capture nothing",
         unmoves_give_exactly_the_moves_that_capture_nothing},
        {"moves sow, capture and turn the board",
         moves_sow_capture_and_turn_the_board},
        {"sequential databases satisfy the negamax equation",
         sequential_databases_satisfy_the_negamax_equation},
    };
    return lci_unit_run("awari_rules", tests, LCI_UNIT_COUNT(tests));
}
