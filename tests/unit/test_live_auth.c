/* test_live_auth.c - the UDP wire admits only the job's own datagrams:
 * authentic ones once each, in any order within the window; forged,
 * damaged, truncated, replayed, misaddressed and other jobs' never. */
#include "config.h"

#include <string.h>

#include "lci_live_auth.h"
#include "unit_run.h"

#define NODES 4
#define PKT 200

static unsigned char key_a[LCI_AUTH_KEY_BYTES], key_b[LCI_AUTH_KEY_BYTES];
static int use_aes; /* the suite runs with each algorithm this CPU has */
static lci_live_auth_t node[NODES];

static void setup(void)
{
    CU_ASSERT_EQUAL_FATAL(lci_live_auth_new_key(key_a), LCI_OK);
    CU_ASSERT_EQUAL_FATAL(lci_live_auth_new_key(key_b), LCI_OK);
    for (uint32_t k = 0; k < NODES; k++) {
        CU_ASSERT_EQUAL_FATAL(lci_live_auth_init(&node[k], key_a, k, NODES,
                                                 use_aes),
                              LCI_OK);
    }
}

static void teardown(void)
{
    for (uint32_t k = 0; k < NODES; k++) {
        lci_live_auth_fini(&node[k]);
    }
}

/* A datagram of node src to node dst carrying a packet filled with fill. */
static uint32_t datagram(unsigned char *d, uint32_t src, uint32_t dst,
                         unsigned char fill)
{
    memset(d, fill, PKT);
    lci_live_auth_seal(&node[src], dst, d, PKT, d + PKT);
    return PKT + LCI_AUTH_TRAILER_BYTES;
}

static lci_auth_verdict_t open_at(uint32_t dst, const unsigned char *d,
                                  uint32_t bytes, uint32_t *src)
{
    uint32_t len = 0;
    return lci_live_auth_open(&node[dst], d, bytes, src, &len);
}

static void authentic_datagram_is_taken_once_with_its_sender(void)
{
    setup();
    unsigned char d[PKT + LCI_AUTH_TRAILER_BYTES];
    uint32_t bytes = datagram(d, 2, 1, 0x5a), src = 99, len = 0;
    CU_ASSERT_EQUAL(lci_live_auth_open(&node[1], d, bytes, &src, &len),
                    LCI_AUTH_OK);
    CU_ASSERT_EQUAL(src, 2);
    CU_ASSERT_EQUAL(len, PKT);
    CU_ASSERT_EQUAL(open_at(1, d, bytes, &src), LCI_AUTH_REPLAY);
    teardown();
}

static void any_changed_byte_fails_the_tag(void)
{
    setup();
    unsigned char d[PKT + LCI_AUTH_TRAILER_BYTES], e[sizeof d];
    uint32_t bytes = datagram(d, 0, 3, 0x11), src;
    for (uint32_t i = 0; i < bytes; i++) {
        memcpy(e, d, bytes);
        e[i] ^= 0x04;
        lci_auth_verdict_t v = open_at(3, e, bytes, &src);
        /* the sender's rank is in the nonce: changing it is a forgery,
         * or names no node */
        CU_ASSERT_TRUE_FATAL(v == LCI_AUTH_TAG || v == LCI_AUTH_SENDER);
    }
    CU_ASSERT_EQUAL(open_at(3, d, bytes, &src), LCI_AUTH_OK);
    teardown();
}

static void truncated_and_tiny_datagrams_are_refused(void)
{
    setup();
    unsigned char d[PKT + LCI_AUTH_TRAILER_BYTES];
    uint32_t bytes = datagram(d, 1, 0, 0x22), src;
    CU_ASSERT_EQUAL(open_at(0, d, 0, &src), LCI_AUTH_SHORT);
    CU_ASSERT_EQUAL(open_at(0, d, 5, &src), LCI_AUTH_SHORT);
    CU_ASSERT_EQUAL(open_at(0, d, LCI_AUTH_TRAILER_BYTES, &src),
                    LCI_AUTH_SHORT);
    CU_ASSERT_NOT_EQUAL(open_at(0, d, bytes - 1, &src), LCI_AUTH_OK);
    CU_ASSERT_NOT_EQUAL(open_at(0, d + 1, bytes - 1, &src), LCI_AUTH_OK);
    CU_ASSERT_EQUAL(open_at(0, d, bytes, &src), LCI_AUTH_OK);
    teardown();
}

static void datagram_for_another_node_or_job_is_refused(void)
{
    setup();
    unsigned char d[PKT + LCI_AUTH_TRAILER_BYTES];
    uint32_t bytes = datagram(d, 1, 2, 0x33), src;
    CU_ASSERT_EQUAL(open_at(3, d, bytes, &src), LCI_AUTH_TAG);
    CU_ASSERT_EQUAL(open_at(1, d, bytes, &src), LCI_AUTH_TAG);
    lci_live_auth_t other;
    CU_ASSERT_EQUAL_FATAL(lci_live_auth_init(&other, key_b, 2, NODES, use_aes),
                          LCI_OK);
    uint32_t len;
    CU_ASSERT_EQUAL(lci_live_auth_open(&other, d, bytes, &src, &len),
                    LCI_AUTH_TAG);
    lci_live_auth_fini(&other);
    CU_ASSERT_EQUAL(open_at(2, d, bytes, &src), LCI_AUTH_OK);
    teardown();
}

static void sender_beyond_the_job_is_refused(void)
{
    setup();
    unsigned char d[PKT + LCI_AUTH_TRAILER_BYTES];
    uint32_t bytes = datagram(d, 1, 2, 0x44), src;
    d[PKT] = NODES; /* the trailer's sender, low byte */
    CU_ASSERT_EQUAL(open_at(2, d, bytes, &src), LCI_AUTH_SENDER);
    CU_ASSERT_EQUAL(lci_live_auth_claimed_sender(d, bytes), NODES);
    teardown();
}

static void reordered_datagrams_within_the_window_are_taken_once_each(void)
{
    setup();
    enum { N = 40 };
    static unsigned char d[N][PKT + LCI_AUTH_TRAILER_BYTES];
    uint32_t bytes = 0, src;
    for (int i = 0; i < N; i++) {
        bytes = datagram(d[i], 3, 0, (unsigned char)i);
    }
    /* newest first, then the rest backwards, each twice */
    for (int i = N - 1; i >= 0; i--) {
        CU_ASSERT_EQUAL_FATAL(open_at(0, d[i], bytes, &src), LCI_AUTH_OK);
        CU_ASSERT_EQUAL_FATAL(open_at(0, d[i], bytes, &src), LCI_AUTH_REPLAY);
    }
    teardown();
}

static void datagram_older_than_the_window_is_refused(void)
{
    setup();
    enum { N = LCI_AUTH_WINDOW + 2 };
    static unsigned char d[N][PKT + LCI_AUTH_TRAILER_BYTES];
    uint32_t bytes = 0, src;
    for (int i = 0; i < N; i++) {
        bytes = datagram(d[i], 0, 1, (unsigned char)i);
    }
    CU_ASSERT_EQUAL(open_at(1, d[N - 1], bytes, &src), LCI_AUTH_OK);
    /* counter 1 is LCI_AUTH_WINDOW + 1 behind: too old to tell */
    CU_ASSERT_EQUAL(open_at(1, d[0], bytes, &src), LCI_AUTH_REPLAY);
    /* counter 3 is just inside */
    CU_ASSERT_EQUAL(open_at(1, d[2], bytes, &src), LCI_AUTH_OK);
    teardown();
}

static void forgery_does_not_move_the_real_senders_window(void)
{
    setup();
    unsigned char d[PKT + LCI_AUTH_TRAILER_BYTES], f[sizeof d];
    uint32_t bytes = datagram(d, 2, 3, 0x66), src;
    memcpy(f, d, bytes);
    /* a far-ahead counter with a made-up tag */
    memset(f + PKT + 4, 0x7f, 8);
    CU_ASSERT_EQUAL(open_at(3, f, bytes, &src), LCI_AUTH_TAG);
    CU_ASSERT_EQUAL(open_at(3, d, bytes, &src), LCI_AUTH_OK);
    teardown();
}

static void init_refuses_a_rank_outside_the_job(void)
{
    lci_live_auth_t a;
    unsigned char key[LCI_AUTH_KEY_BYTES] = {0};
    CU_ASSERT_NOT_EQUAL(lci_live_auth_init(&a, key, 4, 4, use_aes), LCI_OK);
    CU_ASSERT_NOT_EQUAL(lci_live_auth_init(&a, key, 0, 0, use_aes), LCI_OK);
    CU_ASSERT_NOT_EQUAL(
        lci_live_auth_init(&a, key, 0, LCI_MAX_NODES + 1, use_aes), LCI_OK);
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"authentic_datagram_is_taken_once_with_its_sender",
         authentic_datagram_is_taken_once_with_its_sender},
        {"any_changed_byte_fails_the_tag", any_changed_byte_fails_the_tag},
        {"truncated_and_tiny_datagrams_are_refused",
         truncated_and_tiny_datagrams_are_refused},
        {"datagram_for_another_node_or_job_is_refused",
         datagram_for_another_node_or_job_is_refused},
        {"sender_beyond_the_job_is_refused", sender_beyond_the_job_is_refused},
        {"reordered_datagrams_within_the_window_are_taken_once_each",
         reordered_datagrams_within_the_window_are_taken_once_each},
        {"datagram_older_than_the_window_is_refused",
         datagram_older_than_the_window_is_refused},
        {"forgery_does_not_move_the_real_senders_window",
         forgery_does_not_move_the_real_senders_window},
        {"init_refuses_a_rank_outside_the_job",
         init_refuses_a_rank_outside_the_job},
    };
    int rc = lci_unit_run("live_auth_chacha20poly1305", tests,
                          LCI_UNIT_COUNT(tests));
    if (rc == 0 && lci_live_auth_aes_here()) {
        use_aes = 1;
        rc = lci_unit_run("live_auth_aes256gcm", tests, LCI_UNIT_COUNT(tests));
    }
    return rc;
}
