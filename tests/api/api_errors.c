/*
 * api_errors.c - every misuse of the LCI API returns the documented status.
 *
 * Usage: lci-run -n 2 ./api_errors
 *
 * A two-node program.  Before lci_init, every node records what the API
 * answers (LCI_ERR_STATE everywhere).  Node 0 then runs a CUnit suite of
 * misuse cases (bad ranks, sizes, NULL pointers, F&A variables, groups,
 * status texts) while node 1 waits in lci_barrier, counting the three valid
 * boundary packets node 0 sends it.  After lci_finalize both nodes check
 * that the API answers LCI_ERR_STATE again.  Exit status 0 iff all passed.
 *
 * Where lci.h leaves two codes plausible (a rank out of range inside a
 * group's member list is both "rank out of range" and "malformed group"),
 * the test accepts either and says so.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "lci.h"

/* ---- helpers -------------------------------------------------------- */

static int api_rank = -1;
static int api_failures; /* node 1's own failures (no CUnit there) */

/* Asserts that `call` returns `want`, printing the values on mismatch. */
#define EXPECT_ST(call, want)                                                  \
    do {                                                                       \
        int got_ = (int)(call);                                                \
        int want_ = (int)(want);                                               \
        if (got_ != want_) {                                                   \
            printf("\n    %s:%d: %s returned %d (%s), expected %d (%s); "      \
                   "last error: %s",                                           \
                   __FILE__, __LINE__, #call, got_,                            \
                   lci_strerror((lci_status_t)got_), want_,                    \
                   lci_strerror((lci_status_t)want_), lci_last_error());       \
        }                                                                      \
        CU_ASSERT_EQUAL(got_, want_);                                          \
    } while (0)

/* Asserts that `call` returns one of two codes. */
#define EXPECT_ST2(call, want1, want2)                                         \
    do {                                                                       \
        int got_ = (int)(call);                                                \
        if (got_ != (int)(want1) && got_ != (int)(want2)) {                    \
            printf("\n    %s:%d: %s returned %d (%s), expected %s or %s",      \
                   __FILE__, __LINE__, #call, got_,                            \
                   lci_strerror((lci_status_t)got_), #want1, #want2);          \
        }                                                                      \
        CU_ASSERT(got_ == (int)(want1) || got_ == (int)(want2));               \
    } while (0)

/* For node 1 (no CUnit): counts a mismatch. */
static void expect_plain(int got, int want, const char *what)
{
    if (got != want) {
        fprintf(stderr,
                "api_errors: node %d: %s returned %d (%s), expected %d "
                "(%s); last error: %s\n",
                api_rank, what, got, lci_strerror((lci_status_t)got), want,
                lci_strerror((lci_status_t)want), lci_last_error());
        api_failures++;
    }
}

static lci_packet_t *fresh_packet(void)
{
    lci_packet_t *p = NULL;
    lci_status_t st = lci_packet_alloc(&p);

    CU_ASSERT_FATAL(st == LCI_OK && p != NULL);
    return p;
}

static int contains(const char *hay, const char *needle)
{
    return hay != NULL && strstr(hay, needle) != NULL;
}

/* ---- what the API answered before lci_init -------------------------- */

#define PRE_MAX 32
static struct {
    const char *what;
    int got;
} pre[PRE_MAX];
static int npre;
static int pre_last_error_nonempty;

static void pre_record(const char *what, int got)
{
    if (npre < PRE_MAX) {
        pre[npre].what = what;
        pre[npre].got = got;
        npre++;
    }
}

static void record_calls_before_init(void)
{
    lci_packet_t *p = NULL;
    lci_group_t *g = NULL;
    lci_counters_t c;
    int64_t old;
    int r0 = 0;
    const char *le;

    pre_record("lci_packet_alloc", lci_packet_alloc(&p));
    pre_record("lci_packet_try_alloc", lci_packet_try_alloc(&p));
    pre_record("lci_poll", lci_poll());
    pre_record("lci_poll_wait", lci_poll_wait());
    pre_record("lci_barrier", lci_barrier());
    pre_record("lci_fetch_add", lci_fetch_add(0, 0, 1, &old));
    pre_record("lci_group_create", lci_group_create(&r0, 1, &g));
    pre_record("lci_intr_enable", lci_intr_enable());
    pre_record("lci_counters_get", lci_counters_get(&c));
    pre_record("lci_compute", lci_compute(0.0));
    pre_record("lci_copy", lci_copy(&old, &old, sizeof old));
    pre_record("lci_finalize", lci_finalize());
    le = lci_last_error();
    pre_last_error_nonempty = le != NULL && le[0] != '\0';
}

static void test_calls_before_init_return_err_state(void)
{
    for (int i = 0; i < npre; i++) {
        if (pre[i].got != LCI_ERR_STATE) {
            printf("\n    before lci_init: %s returned %d (%s), expected "
                   "LCI_ERR_STATE",
                   pre[i].what, pre[i].got,
                   lci_strerror((lci_status_t)pre[i].got));
        }
        CU_ASSERT_EQUAL(pre[i].got, LCI_ERR_STATE);
    }
    CU_ASSERT(pre_last_error_nonempty);
}

/* ---- status texts --------------------------------------------------- */

static void test_strerror_gives_distinct_text_for_every_code(void)
{
    static const lci_status_t codes[] = {LCI_OK,
                                         LCI_INPROGRESS,
                                         LCI_AGAIN,
                                         LCI_ERR_INVAL,
                                         LCI_ERR_RANK,
                                         LCI_ERR_SIZE,
                                         LCI_ERR_STATE,
                                         LCI_ERR_NOMEM,
                                         LCI_ERR_CONFIG,
                                         LCI_ERR_UNSUPPORTED,
                                         LCI_ERR_PROTOCOL,
                                         LCI_ERR_PLATFORM,
                                         LCI_ERR_DEADLOCK,
                                         LCI_ERR_GROUP,
                                         LCI_ERR_UNREACHABLE};
    const size_t n = sizeof(codes) / sizeof(codes[0]);

    for (size_t i = 0; i < n; i++) {
        const char *a = lci_strerror(codes[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        CU_ASSERT(a[0] != '\0');
        for (size_t j = 0; j < i; j++) {
            const char *b = lci_strerror(codes[j]);
            if (strcmp(a, b) == 0) {
                printf("\n    lci_strerror(%d) == lci_strerror(%d) == \"%s\"",
                       (int)codes[i], (int)codes[j], a);
            }
            CU_ASSERT(strcmp(a, b) != 0);
        }
    }
}

static void test_strerror_of_unknown_code_is_text(void)
{
    const char *s = lci_strerror((lci_status_t)-1000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT(s[0] != '\0');
    s = lci_strerror((lci_status_t)1000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT(s[0] != '\0');
}

static void test_last_error_names_the_offending_rank(void)
{
    lci_packet_t *p = fresh_packet();
    const char *le;

    EXPECT_ST(lci_send(p, 12345, 0), LCI_ERR_RANK);
    le = lci_last_error();
    CU_ASSERT_PTR_NOT_NULL_FATAL(le);
    if (le == NULL) {
        return; /* not reached: the assertion above is fatal */
    }
    CU_ASSERT(le[0] != '\0');
    if (!contains(le, "12345")) {
        printf("\n    lci_last_error() after lci_send to rank 12345: \"%s\"",
               le);
    }
    CU_ASSERT(contains(le, "12345"));
}

/* ---- life cycle and queries ----------------------------------------- */

static void test_init_twice_returns_err_state(void)
{
    EXPECT_ST(lci_init(NULL, NULL), LCI_ERR_STATE);
}

static void test_queries_after_init_are_sane(void)
{
    const char *d = lci_decomp_name();
    double t0, t1;

    CU_ASSERT_EQUAL(lci_size(), 2);
    CU_ASSERT_EQUAL(lci_rank(), 0);
    CU_ASSERT(lci_packet_capacity() >= 64);
    CU_ASSERT(lci_fa_count() >= 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT(strcmp(d, "rxno-mni") == 0 || strcmp(d, "rxno-mh") == 0 ||
              strcmp(d, "rxni-mni") == 0 || strcmp(d, "rxni-mh") == 0 ||
              strcmp(d, "rxh-mh") == 0 || strcmp(d, "rxh-mni") == 0 ||
              strcmp(d, "rxni-mni-vmmc2") == 0 ||
              strcmp(d, "rxni-mh-vmmc2") == 0 || strcmp(d, "rxh-mh-vmmc2") == 0 ||
              strcmp(d, "rxh-mh-ssam") == 0 ||
              strcmp(d, "rxni-mni-am2") == 0 ||
              strcmp(d, "rxni-mni-srd") == 0);
    t0 = lci_wtime();
    t1 = lci_wtime();
    CU_ASSERT(t0 >= 0.0);
    CU_ASSERT(t1 >= t0);
}

/* ---- sending -------------------------------------------------------- */

static void test_send_to_rank_out_of_range_returns_err_rank(void)
{
    EXPECT_ST(lci_send(fresh_packet(), -1, 0), LCI_ERR_RANK);
    EXPECT_ST(lci_send(fresh_packet(), lci_size(), 0), LCI_ERR_RANK);
    EXPECT_ST(lci_send(fresh_packet(), INT_MAX, 0), LCI_ERR_RANK);
    EXPECT_ST(lci_send(fresh_packet(), INT_MIN, 0), LCI_ERR_RANK);
}

static void test_send_longer_than_capacity_returns_err_size(void)
{
    size_t cap = lci_packet_capacity();

    EXPECT_ST(lci_send(fresh_packet(), 1, cap + 1), LCI_ERR_SIZE);
    EXPECT_ST(lci_send(fresh_packet(), 1, SIZE_MAX), LCI_ERR_SIZE);
    EXPECT_ST(lci_broadcast(fresh_packet(), cap + 1), LCI_ERR_SIZE);
}

static void test_write_beyond_capacity_returns_err_size(void)
{
    size_t cap = lci_packet_capacity();
    lci_packet_t *p = fresh_packet();
    char *buf = calloc(cap + 8, 1);

    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    EXPECT_ST(lci_packet_write(p, 0, buf, cap + 1), LCI_ERR_SIZE);
    EXPECT_ST(lci_packet_write(p, cap, buf, 1), LCI_ERR_SIZE);
    EXPECT_ST(lci_packet_write(p, 1, buf, cap), LCI_ERR_SIZE);
    /* offset + len wraps around: must not pass a naive bounds check. */
    EXPECT_ST(lci_packet_write(p, SIZE_MAX, buf, 2), LCI_ERR_SIZE);
    EXPECT_ST(lci_packet_write(p, 2, buf, SIZE_MAX), LCI_ERR_SIZE);
    /* The exact boundaries are fine. */
    EXPECT_ST(lci_packet_write(p, 0, buf, cap), LCI_OK);
    EXPECT_ST(lci_packet_write(p, cap - 1, buf, 1), LCI_OK);
    EXPECT_ST(lci_packet_write(p, cap, buf, 0), LCI_OK);
    EXPECT_ST(lci_packet_free(p), LCI_OK);
    free(buf);
}

static void test_writev_checks_every_piece(void)
{
    size_t cap = lci_packet_capacity();
    lci_packet_t *p = fresh_packet();
    char *buf = calloc(cap + 8, 1);

    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    struct iovec fits[3] = {{buf, 1}, {buf, cap - 2}, {buf, 1}};
    struct iovec over[3] = {{buf, 1}, {buf, cap - 1}, {buf, 1}};
    struct iovec wraps[2] = {{buf, 2}, {buf, SIZE_MAX}};
    struct iovec nobase[2] = {{buf, 1}, {NULL, 1}};
    struct iovec empty[2] = {{NULL, 0}, {buf, 0}};
    EXPECT_ST(lci_packet_writev(p, 0, fits, 3), LCI_OK);
    EXPECT_ST(lci_packet_writev(p, 1, fits, 3), LCI_ERR_SIZE);
    EXPECT_ST(lci_packet_writev(p, 0, over, 3), LCI_ERR_SIZE);
    EXPECT_ST(lci_packet_writev(p, 0, wraps, 2), LCI_ERR_SIZE);
    EXPECT_ST(lci_packet_writev(p, SIZE_MAX, fits, 1), LCI_ERR_SIZE);
    EXPECT_ST(lci_packet_writev(p, 0, nobase, 2), LCI_ERR_INVAL);
    EXPECT_ST(lci_packet_writev(p, 0, NULL, 1), LCI_ERR_INVAL);
    EXPECT_ST(lci_packet_writev(p, 0, fits, -1), LCI_ERR_INVAL);
    EXPECT_ST(lci_packet_writev(NULL, 0, fits, 1), LCI_ERR_INVAL);
    /* Nothing to write is fine, at the very end too. */
    EXPECT_ST(lci_packet_writev(p, cap, empty, 2), LCI_OK);
    EXPECT_ST(lci_packet_writev(p, 0, NULL, 0), LCI_OK);
    EXPECT_ST(lci_packet_free(p), LCI_OK);
    EXPECT_ST(lci_packet_writev(p, 0, fits, 1), LCI_ERR_STATE);
    free(buf);
}

static void test_null_packet_or_out_param_returns_err_inval(void)
{
    lci_packet_t *p = fresh_packet();
    char byte = 0;

    EXPECT_ST(lci_packet_alloc(NULL), LCI_ERR_INVAL);
    EXPECT_ST(lci_packet_try_alloc(NULL), LCI_ERR_INVAL);
    EXPECT_ST(lci_packet_write(NULL, 0, &byte, 1), LCI_ERR_INVAL);
    EXPECT_ST(lci_packet_write(p, 0, NULL, 1), LCI_ERR_INVAL);
    EXPECT_ST(lci_packet_free(NULL), LCI_ERR_INVAL);
    EXPECT_ST(lci_send(NULL, 1, 0), LCI_ERR_INVAL);
    EXPECT_ST(lci_broadcast(NULL, 0), LCI_ERR_INVAL);
    EXPECT_ST(lci_release(NULL), LCI_ERR_INVAL);
    EXPECT_ST(lci_counters_get(NULL), LCI_ERR_INVAL);
    /* A NULL group is a bad argument or an unknown group: either is fine. */
    EXPECT_ST2(lci_group_free(NULL), LCI_ERR_INVAL, LCI_ERR_GROUP);
    EXPECT_ST(lci_fetch_add(1, 0, 1, NULL), LCI_ERR_INVAL);
    EXPECT_ST(lci_packet_free(p), LCI_OK);
}

static void test_negative_compute_time_returns_err_inval(void)
{
    EXPECT_ST(lci_compute(-1.0), LCI_ERR_INVAL);
    EXPECT_ST(lci_compute(0.0), LCI_OK);
}

static void test_copy_with_null_buffer_returns_err_inval_and_copies(void)
{
    char src[8] = "abcdefg", dst[8] = {0};
    EXPECT_ST(lci_copy(NULL, src, sizeof src), LCI_ERR_INVAL);
    EXPECT_ST(lci_copy(dst, NULL, sizeof src), LCI_ERR_INVAL);
    double t0 = lci_wtime();
    EXPECT_ST(lci_copy(dst, src, sizeof src), LCI_OK);
    CU_ASSERT_STRING_EQUAL(dst, "abcdefg");
    CU_ASSERT(lci_wtime() > t0); /* the copy is charged */
}

static void test_failed_sends_do_not_leak_send_buffers(void)
{
    /* lci_send owns the packet even when it fails; if failed sends leaked
     * their buffers, the NI's send pool would run dry long before this. */
    for (int i = 0; i < 2000; i++) {
        lci_packet_t *p = NULL;
        lci_status_t st = lci_packet_try_alloc(&p);
        for (int tries = 0; st == LCI_AGAIN && tries < 100; tries++) {
            lci_poll();
            st = lci_packet_try_alloc(&p);
        }
        if (st != LCI_OK) {
            printf("\n    lci_packet_try_alloc failed after %d failed sends: "
                   "%d (%s)",
                   i, (int)st, lci_strerror(st));
            CU_FAIL("send buffers leaked by failed sends");
            return;
        }
        st = lci_send(p, (i % 2) ? -1 : lci_size(), 0);
        if (st != LCI_ERR_RANK) {
            CU_FAIL("lci_send to a bad rank did not return LCI_ERR_RANK");
            return;
        }
    }
    /* After 2000 failed sends a buffer is still there to take. */
    lci_packet_t *last = NULL;
    CU_ASSERT_EQUAL(lci_packet_alloc(&last), LCI_OK);
    CU_ASSERT_EQUAL(lci_packet_free(last), LCI_OK);
}

static void test_sends_of_exactly_capacity_and_zero_bytes_succeed(void)
{
    size_t cap = lci_packet_capacity();
    lci_packet_t *p = fresh_packet();
    char *buf = calloc(cap, 1);

    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    memset(buf, 0x5A, cap);
    EXPECT_ST(lci_packet_write(p, 0, buf, cap), LCI_OK);
    EXPECT_ST(lci_send(p, 1, cap), LCI_OK);
    EXPECT_ST(lci_send(fresh_packet(), 1, 0), LCI_OK);
    free(buf);
}

/* lci_sendv checks everything before it takes a buffer: a refused call
 * sends nothing and keeps nothing (node 1 counts what arrives). */
static void test_sendv_refuses_bad_calls_and_sends_the_pieces_in_order(void)
{
    size_t cap = lci_packet_capacity();
    char *buf = calloc(cap + 1, 1);

    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    struct iovec over[2] = {{buf, cap}, {buf, 1}};
    struct iovec nobase[1] = {{NULL, 1}};
    struct iovec two[2] = {{"ab", 2}, {"cde", 3}};
    EXPECT_ST(lci_sendv(-1, two, 2), LCI_ERR_RANK);
    EXPECT_ST(lci_sendv(lci_size(), two, 2), LCI_ERR_RANK);
    EXPECT_ST(lci_sendv(1, over, 2), LCI_ERR_SIZE);
    EXPECT_ST(lci_sendv(1, nobase, 1), LCI_ERR_INVAL);
    EXPECT_ST(lci_sendv(1, NULL, 1), LCI_ERR_INVAL);
    EXPECT_ST(lci_sendv(1, two, -1), LCI_ERR_INVAL);
    for (int i = 0; i < 2000; i++) { /* no buffer kept by a refusal */
        if (lci_sendv(1, over, 2) != LCI_ERR_SIZE) {
            CU_FAIL("lci_sendv over capacity did not return LCI_ERR_SIZE");
            break;
        }
    }
    EXPECT_ST(lci_sendv(1, two, 2), LCI_OK); /* node 1 checks "abcde" */
    free(buf);
}

/* ---- fetch-and-add -------------------------------------------------- */

static void test_fetch_add_on_missing_variable_returns_err_inval(void)
{
    int64_t old = 0;

    EXPECT_ST(lci_fetch_add(1, lci_fa_count(), 1, &old), LCI_ERR_INVAL);
    EXPECT_ST(lci_fetch_add(0, lci_fa_count(), 1, &old), LCI_ERR_INVAL);
    EXPECT_ST(lci_fetch_add(1, UINT_MAX, 1, &old), LCI_ERR_INVAL);
}

static void test_fetch_add_on_rank_out_of_range_returns_err_rank(void)
{
    int64_t old = 0;

    EXPECT_ST(lci_fetch_add(-1, 0, 1, &old), LCI_ERR_RANK);
    EXPECT_ST(lci_fetch_add(lci_size(), 0, 1, &old), LCI_ERR_RANK);
}

/* ---- groups --------------------------------------------------------- */

static lci_group_t *group_of_node1; /* created by both nodes in main() */
static lci_status_t group_of_node1_status;

static void test_group_with_duplicate_rank_returns_err_group(void)
{
    int dup[] = {0, 1, 0};
    lci_group_t *g = NULL;

    EXPECT_ST(lci_group_create(dup, 3, &g), LCI_ERR_GROUP);
    CU_ASSERT_PTR_NULL(g); /* out-parameters are set only on success */
}

static void test_group_with_rank_out_of_range_is_rejected(void)
{
    /* lci.h: ERR_RANK is "rank out of range", ERR_GROUP "malformed
     * multicast group"; a bad member rank is both, so either is fine. */
    int bad_hi[] = {0, 2};
    int bad_lo[] = {-1, 0};
    lci_group_t *g = NULL;

    EXPECT_ST2(lci_group_create(bad_hi, 2, &g), LCI_ERR_GROUP, LCI_ERR_RANK);
    EXPECT_ST2(lci_group_create(bad_lo, 2, &g), LCI_ERR_GROUP, LCI_ERR_RANK);
    CU_ASSERT_PTR_NULL(g);
}

static void test_group_with_bad_arguments_is_rejected(void)
{
    int one[] = {0};
    lci_group_t *g = NULL;

    EXPECT_ST(lci_group_create(NULL, 1, &g), LCI_ERR_INVAL);
    EXPECT_ST(lci_group_create(one, 1, NULL), LCI_ERR_INVAL);
    EXPECT_ST2(lci_group_create(one, 0, &g), LCI_ERR_GROUP, LCI_ERR_INVAL);
    EXPECT_ST2(lci_group_create(one, -1, &g), LCI_ERR_GROUP, LCI_ERR_INVAL);
    CU_ASSERT_PTR_NULL(g);
}

static void test_multicast_by_non_member_returns_err_group(void)
{
    EXPECT_ST(group_of_node1_status, LCI_OK);
    if (group_of_node1 == NULL) {
        return;
    }
    EXPECT_ST(lci_multicast(fresh_packet(), group_of_node1, 0), LCI_ERR_GROUP);
}

static void test_multicast_with_bad_arguments_is_rejected(void)
{
    size_t cap = lci_packet_capacity();

    /* NULL group: "bad argument" or "unknown group", either is fine. */
    EXPECT_ST2(lci_multicast(fresh_packet(), NULL, 0), LCI_ERR_INVAL,
               LCI_ERR_GROUP);
    if (group_of_node1 != NULL) {
        EXPECT_ST(lci_multicast(NULL, group_of_node1, 0), LCI_ERR_INVAL);
        EXPECT_ST2(lci_multicast(fresh_packet(), group_of_node1, cap + 1),
                   LCI_ERR_SIZE, LCI_ERR_GROUP);
    }
}

/* ---- after lci_finalize --------------------------------------------- */

static void check_calls_after_finalize(int use_cunit)
{
    lci_packet_t *p = NULL;
    int64_t old;
    struct {
        const char *what;
        int got;
    } r[] = {
        {"lci_packet_alloc", lci_packet_alloc(&p)},
        {"lci_poll", lci_poll()},
        {"lci_barrier", lci_barrier()},
        {"lci_fetch_add", lci_fetch_add(0, 0, 1, &old)},
        {"lci_finalize", lci_finalize()},
    };

    for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
        if (use_cunit) {
            if (r[i].got != LCI_ERR_STATE) {
                printf("\n    after lci_finalize: %s returned %d (%s)",
                       r[i].what, r[i].got,
                       lci_strerror((lci_status_t)r[i].got));
            }
            CU_ASSERT_EQUAL(r[i].got, LCI_ERR_STATE);
        } else {
            expect_plain(r[i].got, LCI_ERR_STATE, r[i].what);
        }
    }
}

static void test_calls_after_finalize_return_err_state(void)
{
    check_calls_after_finalize(1);
}

/* ---- node 1 --------------------------------------------------------- */

static uint64_t node1_received;
static size_t node1_lens[3];
static char node1_third[8]; /* the lci_sendv packet's bytes */

static lci_upcall_result_t node1_upcall(lci_rpacket_t *p, void *arg)
{
    (void)arg;
    if (node1_received < 3) {
        node1_lens[node1_received] = p->len;
    }
    if (node1_received == 2 && p->len < sizeof node1_third) {
        memcpy(node1_third, p->data, p->len);
    }
    node1_received++;
    return LCI_UPCALL_RELEASE;
}

static int run_node1(void)
{
    expect_plain(lci_upcall_set(node1_upcall, NULL), LCI_OK, "lci_upcall_set");
    expect_plain(lci_barrier(), LCI_OK, "lci_barrier");
    while (node1_received < 3) {
        int n = lci_poll_wait();
        if (n < 0) {
            expect_plain(n, LCI_OK, "lci_poll_wait for node 0's 3 packets");
            break;
        }
    }
    if (node1_received != 3 || node1_lens[0] != lci_packet_capacity() ||
        node1_lens[1] != 0 || node1_lens[2] != 5 ||
        strcmp(node1_third, "abcde") != 0) {
        fprintf(stderr,
                "api_errors: node 1: expected packets of %zu, 0 and 5 bytes "
                "(\"abcde\"), got %" PRIu64 " (%zu, %zu, %zu: \"%s\")\n",
                lci_packet_capacity(), node1_received, node1_lens[0],
                node1_lens[1], node1_lens[2], node1_third);
        api_failures++;
    }
    if (group_of_node1 != NULL) {
        expect_plain(lci_group_free(group_of_node1), LCI_OK, "lci_group_free");
    }
    expect_plain(lci_finalize(), LCI_OK, "lci_finalize");
    check_calls_after_finalize(0);
    for (int i = 0; i < npre; i++) {
        expect_plain(pre[i].got, LCI_ERR_STATE, pre[i].what);
    }
    return api_failures == 0 ? 0 : 1;
}

/* ---- node 0 --------------------------------------------------------- */

struct api_test {
    const char *name;
    CU_TestFunc func;
};

static const struct api_test suite_running[] = {
    {"calls_before_init_return_ERR_STATE",
     test_calls_before_init_return_err_state},
    {"strerror_gives_distinct_text_for_every_code",
     test_strerror_gives_distinct_text_for_every_code},
    {"strerror_of_unknown_code_is_text", test_strerror_of_unknown_code_is_text},
    {"init_twice_returns_ERR_STATE", test_init_twice_returns_err_state},
    {"queries_after_init_are_sane", test_queries_after_init_are_sane},
    {"last_error_names_the_offending_rank",
     test_last_error_names_the_offending_rank},
    {"send_to_rank_out_of_range_returns_ERR_RANK",
     test_send_to_rank_out_of_range_returns_err_rank},
    {"send_longer_than_capacity_returns_ERR_SIZE",
     test_send_longer_than_capacity_returns_err_size},
    {"write_beyond_capacity_returns_ERR_SIZE",
     test_write_beyond_capacity_returns_err_size},
    {"writev_checks_every_piece", test_writev_checks_every_piece},
    {"null_packet_or_out_param_returns_ERR_INVAL",
     test_null_packet_or_out_param_returns_err_inval},
    {"negative_compute_time_returns_ERR_INVAL",
     test_negative_compute_time_returns_err_inval},
    {"copy_with_null_buffer_returns_ERR_INVAL_and_copies_is_charged",
     test_copy_with_null_buffer_returns_err_inval_and_copies},
    {"failed_sends_do_not_leak_send_buffers",
     test_failed_sends_do_not_leak_send_buffers},
    {"sends_of_exactly_capacity_and_zero_bytes_succeed",
     test_sends_of_exactly_capacity_and_zero_bytes_succeed},
    {"sendv_refuses_bad_calls_and_sends_the_pieces_in_order",
     test_sendv_refuses_bad_calls_and_sends_the_pieces_in_order},
    {"fetch_add_on_missing_variable_returns_ERR_INVAL",
     test_fetch_add_on_missing_variable_returns_err_inval},
    {"fetch_add_on_rank_out_of_range_returns_ERR_RANK",
     test_fetch_add_on_rank_out_of_range_returns_err_rank},
    {"group_with_duplicate_rank_returns_ERR_GROUP",
     test_group_with_duplicate_rank_returns_err_group},
    {"group_with_rank_out_of_range_is_rejected",
     test_group_with_rank_out_of_range_is_rejected},
    {"group_with_bad_arguments_is_rejected",
     test_group_with_bad_arguments_is_rejected},
    {"multicast_by_non_member_returns_ERR_GROUP",
     test_multicast_by_non_member_returns_err_group},
    {"multicast_with_bad_arguments_is_rejected",
     test_multicast_with_bad_arguments_is_rejected},
};

static const struct api_test suite_finalized[] = {
    {"calls_after_finalize_return_ERR_STATE",
     test_calls_after_finalize_return_err_state},
};

static int run_suite(const char *name, const struct api_test *tests, size_t n)
{
    CU_pSuite suite;
    unsigned failures;

    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "api_errors: CUnit: %s\n", CU_get_error_msg());
        return 1;
    }
    suite = CU_add_suite(name, NULL, NULL);
    if (suite == NULL) {
        fprintf(stderr, "api_errors: CUnit: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (CU_add_test(suite, tests[i].name, tests[i].func) == NULL) {
            fprintf(stderr, "api_errors: CUnit: %s\n", CU_get_error_msg());
            CU_cleanup_registry();
            return 1;
        }
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failures == 0 ? 0 : 1;
}

static int run_node0(void)
{
    int rc;

    rc = run_suite("api_misuse_while_running", suite_running,
                   sizeof(suite_running) / sizeof(suite_running[0]));
    if (lci_barrier() != LCI_OK) {
        fprintf(stderr, "api_errors: node 0: lci_barrier: %s\n",
                lci_last_error());
        rc = 1;
    }
    if (group_of_node1 != NULL && lci_group_free(group_of_node1) != LCI_OK) {
        fprintf(stderr, "api_errors: node 0: lci_group_free: %s\n",
                lci_last_error());
        rc = 1;
    }
    if (lci_finalize() != LCI_OK) {
        fprintf(stderr, "api_errors: node 0: lci_finalize: %s\n",
                lci_last_error());
        rc = 1;
    }
    rc |= run_suite("api_misuse_after_finalize", suite_finalized,
                    sizeof(suite_finalized) / sizeof(suite_finalized[0]));
    return rc;
}

int main(int argc, char **argv)
{
    lci_status_t st;
    int node1[] = {1};

    record_calls_before_init();
    st = lci_init(&argc, &argv);
    if (st != LCI_OK) {
        fprintf(stderr, "api_errors: lci_init returned %d (%s): %s\n", (int)st,
                lci_strerror(st), lci_last_error());
        return 1;
    }
    api_rank = lci_rank();
    if (lci_size() != 2) {
        fprintf(stderr, "api_errors: run me with lci-run -n 2 (not %d)\n",
                lci_size());
        return 1;
    }
    /* Both nodes create the group {1}, in the same order. */
    group_of_node1_status = lci_group_create(node1, 1, &group_of_node1);
    if (group_of_node1_status != LCI_OK) {
        group_of_node1 = NULL;
    }
    if (api_rank == 0) {
        return run_node0();
    }
    return run_node1();
}
