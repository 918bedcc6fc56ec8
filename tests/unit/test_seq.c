/* test_seq.c - 16-bit sequence numbers and their wrap-safe comparison. */
#include "config.h"

#include "lci_seq.h"
#include "unit_run.h"

/* Distances used against every starting sequence number: the edges of the
 * valid range (|d| < 2^15) and everything near zero. */
static const int32_t seq_distances[] = {
    -32767, -32766, -32000, -16384, -1000, -256, -3,    -2,    -1,    0,
    1,      2,      3,      255,    256,   1000, 16384, 32000, 32766, 32767,
};

#define NDIST (sizeof(seq_distances) / sizeof(seq_distances[0]))

static void seq_diff_of_equal_numbers_is_zero(void)
{
    for (uint32_t a = 0; a <= UINT16_MAX; a++) {
        CU_ASSERT_EQUAL_FATAL(lci_seq_diff((lci_seq_t)a, (lci_seq_t)a), 0);
    }
}

static void seq_lt_holds_across_wraparound(void)
{
    CU_ASSERT_TRUE(lci_seq_lt(65535, 0));
    CU_ASSERT_TRUE(lci_seq_lt(65530, 5));
    CU_ASSERT_FALSE(lci_seq_lt(5, 65530));
    CU_ASSERT_TRUE(lci_seq_le(65535, 0));
    CU_ASSERT_EQUAL(lci_seq_diff(65535, 0), 1);
    CU_ASSERT_EQUAL(lci_seq_diff(0, 65535), -1);
    CU_ASSERT_EQUAL(lci_seq_diff(65000, 1000), 1000 + 65536 - 65000);
}

static void seq_lt_is_irreflexive_and_le_is_reflexive(void)
{
    for (uint32_t a = 0; a <= UINT16_MAX; a++) {
        CU_ASSERT_FALSE_FATAL(lci_seq_lt((lci_seq_t)a, (lci_seq_t)a));
        CU_ASSERT_TRUE_FATAL(lci_seq_le((lci_seq_t)a, (lci_seq_t)a));
    }
}

static void seq_add_wraps_modulo_65536(void)
{
    CU_ASSERT_EQUAL(lci_seq_add(65535, 1), 0);
    CU_ASSERT_EQUAL(lci_seq_add(65000, 1000), 464);
    CU_ASSERT_EQUAL(lci_seq_add(1234, 65536), 1234);
    CU_ASSERT_EQUAL(lci_seq_add(1234, 0), 1234);
    CU_ASSERT_EQUAL(lci_seq_add(0, UINT32_MAX), 65535);
}

static void seq_diff_is_the_signed_distance_within_half_range(void)
{
    for (uint32_t a = 0; a <= UINT16_MAX; a++) {
        for (size_t i = 0; i < NDIST; i++) {
            int32_t d = seq_distances[i];
            lci_seq_t b = (lci_seq_t)(a + (uint32_t)d);

            CU_ASSERT_EQUAL_FATAL(lci_seq_diff((lci_seq_t)a, b), d);
            CU_ASSERT_EQUAL_FATAL(lci_seq_diff(b, (lci_seq_t)a), -d);
            CU_ASSERT_EQUAL_FATAL(lci_seq_lt((lci_seq_t)a, b), d > 0);
            CU_ASSERT_EQUAL_FATAL(lci_seq_le((lci_seq_t)a, b), d >= 0);
            CU_ASSERT_EQUAL_FATAL(lci_seq_lt(b, (lci_seq_t)a), d < 0);
        }
    }
}

static void seq_add_then_diff_recovers_the_increment(void)
{
    for (uint32_t a = 0; a <= UINT16_MAX; a += 97) {
        for (uint32_t n = 0; n < 32768; n += 131) {
            lci_seq_t b = lci_seq_add((lci_seq_t)a, n);

            CU_ASSERT_EQUAL_FATAL(lci_seq_diff((lci_seq_t)a, b), (int32_t)n);
        }
    }
}

static void seq_lt_is_transitive_along_a_window(void)
{
    /* A go-back-N window of 2^14 numbers straddling the wrap. */
    lci_seq_t base = 65535 - 8000;

    for (uint32_t i = 0; i + 1 < 16384; i += 7) {
        lci_seq_t x = lci_seq_add(base, i);
        lci_seq_t y = lci_seq_add(base, i + 1);
        lci_seq_t z = lci_seq_add(base, i + 500);

        CU_ASSERT_TRUE_FATAL(lci_seq_lt(x, y));
        CU_ASSERT_TRUE_FATAL(lci_seq_lt(y, z));
        CU_ASSERT_TRUE_FATAL(lci_seq_lt(x, z));
    }
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"seq_diff_of_equal_numbers_is_zero",
         seq_diff_of_equal_numbers_is_zero},
        {"seq_lt_holds_across_wraparound", seq_lt_holds_across_wraparound},
        {"seq_lt_is_irreflexive_and_le_is_reflexive",
         seq_lt_is_irreflexive_and_le_is_reflexive},
        {"seq_add_wraps_modulo_65536", seq_add_wraps_modulo_65536},
        {"seq_diff_is_the_signed_distance_within_half_range",
         seq_diff_is_the_signed_distance_within_half_range},
        {"seq_add_then_diff_recovers_the_increment",
         seq_add_then_diff_recovers_the_increment},
        {"seq_lt_is_transitive_along_a_window",
         seq_lt_is_transitive_along_a_window},
    };

    return lci_unit_run("seq", tests, LCI_UNIT_COUNT(tests));
}
