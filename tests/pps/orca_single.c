/*
 * orca_single.c - node program: a single-copy object on node OWNER,
 * invoked from every thread of every node (by RPC, or locally on the
 * owner).
 *
 * Usage: lci-run -n N ./orca_single --mt [-t THREADS] [-k CALLS]
 *        [--owner K]
 *
 * Each thread deposits into its node's slot of an account and checks the
 * running balance it gets back, and sends a note: a bytes argument of
 * 0 .. 3 KiB (several packets) between two scalars, whose checksum the
 * operation returns.  After a barrier every node reads the exact total,
 * the mean (a double argument and result) and the bytes noted.
 */
#include "orca_types.h"

static int nthreads, ncalls;
static orca_object_t *account;

static size_t note_len(int node, int t, int k)
{
    return (size_t)((node * 977 + t * 331 + k * 613) % 3073);
}

static void *client(void *arg)
{
    int t = (int)(intptr_t)arg;
    int me = pan_rank();
    uint8_t note[3072];
    int64_t last = 0;
    for (int k = 0; k < ncalls; k++) {
        orca_value_t dep[2] = {orca_int32(me % ACCOUNT_SLOTS),
                               orca_int64(t + 1)},
                     res;
        orca_test_check(orca_invoke(account, ACCOUNT_DEPOSIT, dep, 2, &res),
                        "account deposit");
        if (res.type != ORCA_INT64 || res.u.i64 <= last) {
            e2e_fail("thread %d: deposit %d left %lld after %lld", t, k,
                     (long long)res.u.i64, (long long)last);
        }
        last = res.u.i64;

        size_t len = note_len(me, t, k);
        e2e_fill(note, len, 7, (uint32_t)me, (uint32_t)t, (uint32_t)k);
        int64_t before = (int64_t)k << 33 | t;
        int32_t tag = me * 1000 + k;
        orca_value_t args[3] = {orca_int64(before), orca_bytes(note, len),
                                orca_int32(tag)};
        orca_test_check(orca_invoke(account, ACCOUNT_NOTE, args, 3, &res),
                        "account note");
        int32_t want = (int32_t)(e2e_checksum(note, len) ^ (uint32_t)tag ^
                                 (uint32_t)before);
        if (res.type != ORCA_INT32 || res.u.i32 != want) {
            e2e_fail("thread %d: note %d of %zu bytes answered %d, expected "
                     "%d",
                     t, k, len, (int)res.u.i32, (int)want);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pps_init(&argc, &argv, "orca_single");
    if (pan_mode() != PAN_MT) {
        e2e_fail("run with --mt");
    }
    nthreads = (int)e2e_opt_long(argc, argv, "-t", 2);
    ncalls = (int)e2e_opt_long(argc, argv, "-k", 8);
    int n = pan_size();
    int owner = (int)e2e_opt_long(argc, argv, "--owner", n - 1);
    orca_test_check(orca_init(), "orca_init");
    orca_type_t *at = account_type();
    orca_test_check(orca_object_create(at, owner, &account),
                    "orca_object_create");

    orca_test_threads(nthreads, client);
    pps_check(pan_barrier(), "pan_barrier");

    int64_t expect = (int64_t)n * ncalls * nthreads * (nthreads + 1) / 2;
    uint64_t expect_noted = 0;
    for (int node = 0; node < n; node++) {
        for (int t = 0; t < nthreads; t++) {
            for (int k = 0; k < ncalls; k++) {
                expect_noted += note_len(node, t, k);
            }
        }
    }
    orca_value_t res, scale = orca_double(2.0);
    orca_test_check(orca_invoke(account, ACCOUNT_TOTAL, NULL, 0, &res),
                    "account total");
    if (res.u.i64 != expect) {
        e2e_fail("the total is %lld, expected %lld", (long long)res.u.i64,
                 (long long)expect);
    }
    orca_test_check(orca_invoke(account, ACCOUNT_MEAN, &scale, 1, &res),
                    "account mean");
    if (res.type != ORCA_DOUBLE ||
        res.u.f64 != 2.0 * (double)expect / ACCOUNT_SLOTS) {
        e2e_fail("the mean is %g, expected %g", res.u.f64,
                 2.0 * (double)expect / ACCOUNT_SLOTS);
    }
    orca_test_check(orca_invoke(account, ACCOUNT_NOTED, NULL, 0, &res),
                    "account noted");
    if ((uint64_t)res.u.i64 != expect_noted) {
        e2e_fail("%lld bytes noted, expected %llu", (long long)res.u.i64,
                 (unsigned long long)expect_noted);
    }
    orca_test_check(orca_end(), "orca_end");
    pps_check(pan_end(), "pan_end");
    return 0;
}
