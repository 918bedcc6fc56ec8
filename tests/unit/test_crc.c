/* test_crc.c - the packet CRC: known CRC-32 values and incremental use. */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <zlib.h>

#include "lci_crc.h"
#include "unit_run.h"

static void fill_pattern(uint8_t *buf, size_t len, uint32_t seed)
{
    for (size_t i = 0; i < len; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (uint8_t)(seed >> 16);
    }
}

static void crc32_of_check_string_is_cbf43926(void)
{
    /* The standard CRC-32 check value. */
    CU_ASSERT_EQUAL(lci_crc32("123456789", 9), 0xCBF43926u);
}

static void crc32_matches_published_vectors(void)
{
    static const char fox[] = "The quick brown fox jumps over the lazy dog";

    CU_ASSERT_EQUAL(lci_crc32(fox, strlen(fox)), 0x414FA339u);
    CU_ASSERT_EQUAL(lci_crc32("a", 1), 0xE8B7BE43u);
}

static void crc32_of_empty_buffer_is_zero(void)
{
    uint8_t byte = 0x55;

    CU_ASSERT_EQUAL(lci_crc32(&byte, 0), 0u);
    CU_ASSERT_EQUAL(lci_crc32(NULL, 0), 0u);
}

static void crc32_update_with_empty_piece_keeps_crc(void)
{
    uint32_t crc = lci_crc32("123456789", 9);

    CU_ASSERT_EQUAL(lci_crc32_update(crc, NULL, 0), crc);
    CU_ASSERT_EQUAL(lci_crc32_update(crc, "x", 0), crc);
}

static void crc32_update_in_pieces_matches_whole(void)
{
    uint8_t buf[1000];

    fill_pattern(buf, sizeof(buf), 7);
    uint32_t whole = lci_crc32(buf, sizeof(buf));

    for (size_t split = 0; split <= sizeof(buf); split++) {
        uint32_t crc = lci_crc32(buf, split);

        crc = lci_crc32_update(crc, buf + split, sizeof(buf) - split);
        CU_ASSERT_EQUAL_FATAL(crc, whole);
    }
    /* Three pieces, too. */
    uint32_t crc = lci_crc32_update(0, buf, 10);

    crc = lci_crc32_update(crc, buf + 10, 500);
    crc = lci_crc32_update(crc, buf + 510, sizeof(buf) - 510);
    CU_ASSERT_EQUAL(crc, whole);
}

static void crc32_detects_every_single_bit_flip(void)
{
    uint8_t buf[64];

    fill_pattern(buf, sizeof(buf), 42);
    uint32_t good = lci_crc32(buf, sizeof(buf));

    for (size_t bit = 0; bit < sizeof(buf) * 8; bit++) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        CU_ASSERT_NOT_EQUAL(lci_crc32(buf, sizeof(buf)), good);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    CU_ASSERT_EQUAL(lci_crc32(buf, sizeof(buf)), good);
}

static void crc32_equals_zlib_at_every_length_and_alignment(void)
{
    /* Whichever library computes it, the CRC is zlib's: packets framed by
     * one build are checked correctly by another. */
    static uint8_t buf[20000];

    fill_pattern(buf, sizeof(buf), 9);
    for (size_t off = 0; off < 8; off++) {
        for (size_t len = 0; len <= 300; len++) {
            CU_ASSERT_EQUAL_FATAL(lci_crc32(buf + off, len),
                                  (uint32_t)crc32(0, buf + off, (uInt)len));
        }
    }
    CU_ASSERT_EQUAL(lci_crc32(buf, sizeof(buf)),
                    (uint32_t)crc32(0, buf, sizeof(buf)));
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"crc32_of_check_string_is_cbf43926",
         crc32_of_check_string_is_cbf43926},
        {"crc32_matches_published_vectors", crc32_matches_published_vectors},
        {"crc32_of_empty_buffer_is_zero", crc32_of_empty_buffer_is_zero},
        {"crc32_update_with_empty_piece_keeps_crc",
         crc32_update_with_empty_piece_keeps_crc},
        {"crc32_update_in_pieces_matches_whole",
         crc32_update_in_pieces_matches_whole},
        {"crc32_detects_every_single_bit_flip",
         crc32_detects_every_single_bit_flip},
        {"crc32_equals_zlib_at_every_length_and_alignment",
         crc32_equals_zlib_at_every_length_and_alignment},
    };

    return lci_unit_run("crc", tests, LCI_UNIT_COUNT(tests));
}
