/*
 * test_e2e.c - end-to-end tests (CUnit): runs the node programs in tests/e2e
 * and tests/api through lci-run and checks exit statuses and diagnostics.
 *
 * Finds lci-run and the programs under $top_builddir (set by make check;
 * "." otherwise).  Each run gets its own stdout/stderr files and a time
 * limit (E2E_TIMEOUT seconds, default 300); on expiry the whole process
 * group is killed and the test fails.
 *
 * Exit status: 0 if every assertion passed, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "e2e_runner.h"

/* ---- correctness at scale ------------------------------------------- */

static void check_prog(const char *program, const char *n, const char *k,
                       const char *extra)
{
    struct e2e_run r;

    if (extra != NULL) {
        e2e_run(&r, "-n", n, program, "-k", k, extra, NULL);
    } else {
        e2e_run(&r, "-n", n, program, "-k", k, NULL);
    }
    e2e_expect_success(&r);
    e2e_run_free(&r);
}

static void test_alltoall_2_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(ALLTOALL, "2", "200", NULL);
}

static void test_alltoall_7_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(ALLTOALL, "7", "200", NULL);
}

static void test_alltoall_64_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(ALLTOALL, "64", "20", NULL);
}

static void test_alltoall_7_nodes_with_interrupts_delivers_everything(void)
{
    check_prog(ALLTOALL, "7", "50", "--intr");
}

/* With two send buffers the host writes a buffer again while the packet
 * sent from it is still on the simulated wire, whose slot reads the
 * payload from the buffer until it arrives: it must take its copy first
 * (the program checks every payload byte). */
static void test_alltoall_with_two_send_buffers_keeps_payloads_in_flight(void)
{
    struct e2e_run r;

    if (e2e_skip_unless_offered("rxno-mni")) {
        return;
    }
    e2e_run(&r, "-n", "5", "--decomp", "rxno-mni", "--send-buffers", "2",
            ALLTOALL, "-k", "40", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
}

static void test_mcast_2_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(MCAST, "2", "200", NULL);
}

static void test_mcast_7_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(MCAST, "7", "200", NULL);
}

static void test_mcast_64_nodes_delivers_exactly_once_in_fifo_order(void)
{
    check_prog(MCAST, "64", "20", NULL);
}

static void test_fa_2_nodes_returns_distinct_old_values(void)
{
    check_prog(FA, "2", "200", NULL);
}

static void test_fa_7_nodes_returns_distinct_old_values(void)
{
    check_prog(FA, "7", "200", NULL);
}

static void test_fa_64_nodes_returns_distinct_old_values(void)
{
    check_prog(FA, "64", "20", NULL);
}

static void test_fa_7_nodes_on_the_last_node_returns_distinct_old_values(void)
{
    struct e2e_run r;

    e2e_run(&r, "-n", "7", FA, "-k", "100", "--target", "-1", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
}

static void test_api_misuse_returns_documented_status_codes(void)
{
    struct e2e_run r;

    e2e_run(&r, "-n", "2", API_ERRORS, NULL);
    /* Show the node program's own CUnit report (on failure, expect_success
     * shows it with the stderr). */
    if (e2e_expect_success(&r)) {
        e2e_print_tail("api_errors stdout", r.out, 20000);
    }
    e2e_run_free(&r);
}

/* ---- every decomposition, reliable and lossy wires ------------------ */

static void check_decomp(const char *d)
{
    struct e2e_run r;

    if (e2e_skip_unless_offered(d)) {
        return;
    }
    e2e_run(&r, "-n", "7", "--decomp", d, ALLTOALL, "-k", "50", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
    e2e_run(&r, "-n", "7", "--decomp", d, MCAST, "-k", "20", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
    e2e_run(&r, "-n", "7", "--decomp", d, FA, "-k", "50", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
    e2e_run(&r, "-n", "5", "--decomp", d, ENDPOINTS, "-e", "4", "-k", "20",
            NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
}

/* On a lossy, corrupting wire the retransmitting decompositions still
 * deliver everything exactly once, in order, intact. */
static void check_lossy(const char *d)
{
    struct e2e_run r;
    const char *fault = "drop=0.02,corrupt=0.01,seed=3";

    if (e2e_skip_unless_offered(d)) {
        return;
    }
    e2e_run(&r, "-n", "4", "--decomp", d, "--fault", fault, ALLTOALL, "-k",
            "100", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
    e2e_run(&r, "-n", "7", "--decomp", d, "--fault", fault, MCAST, "-k", "20",
            NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
    e2e_run(&r, "-n", "4", "--decomp", d, "--fault", fault, FA, "-k", "50",
            NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
    e2e_run(&r, "-n", "4", "--decomp", d, "--fault", fault, ENDPOINTS, "-e",
            "8", "-k", "20", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
}

/* Every name lci-run offers is a known one, and there is one. */
static void test_list_decomps_names_only_known_decompositions(void)
{
    char list[sizeof e2e_decomp_list];
    snprintf(list, sizeof list, "%s", e2e_decomp_list);
    int names = 0;
    for (char *save = NULL, *w = strtok_r(list, " \n", &save); w != NULL;
         w = strtok_r(NULL, " \n", &save)) {
        int known = 0;
        for (size_t i = 0; i < E2E_NDECOMPS; i++) {
            known |= strcmp(w, e2e_decomps[i]) == 0;
        }
        if (!known) {
            printf("\n    lci-run --list-decomps names unknown '%s'\n", w);
        }
        CU_ASSERT(known);
        names++;
    }
    CU_ASSERT(names >= 1);
}

static void test_rxno_mni_runs_all_programs(void)
{
    check_decomp("rxno-mni");
}

static void test_rxno_mh_runs_all_programs(void)
{
    check_decomp("rxno-mh");
}

static void test_rxni_mni_runs_all_programs(void)
{
    check_decomp("rxni-mni");
}

static void test_rxni_mh_runs_all_programs(void)
{
    check_decomp("rxni-mh");
}

static void test_rxh_mh_runs_all_programs(void)
{
    check_decomp("rxh-mh");
}

static void test_vmmc2_runs_all_programs(void)
{
    check_decomp("rxni-mni-vmmc2");
    check_decomp("rxni-mh-vmmc2");
    check_decomp("rxh-mh-vmmc2");
}

/* A packet the link damaged while it waited to leave, then merged with a
 * newer ack for the same node, is still caught by the CRC: this run once
 * delivered such a payload (content differs). */
static void test_damaged_waiting_copy_is_not_repaired_by_a_merge(void)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered("rxni-mni")) {
        return;
    }
    e2e_run(&r, "-n", "64", "--decomp", "rxni-mni", "--fault",
            "drop=0.02,corrupt=0.01,seed=3", ALLTOALL, "-k", "20", NULL);
    e2e_expect_success(&r);
    CU_ASSERT(e2e_contains(r.out, ": OK"));
    e2e_run_free(&r);
}

static void test_ssam_runs_all_programs(void)
{
    check_decomp("rxh-mh-ssam");
}

static void test_am2_runs_all_programs(void)
{
    check_decomp("rxni-mni-am2");
}

static void test_am2_recovers_from_drops_and_corruption(void)
{
    check_lossy("rxni-mni-am2");
}

static void test_rxh_mni_runs_all_programs(void)
{
    check_decomp("rxh-mni");
}

static void test_rxh_mni_recovers_from_drops_and_corruption(void)
{
    check_lossy("rxh-mni");
}

static void test_srd_runs_all_programs(void)
{
    check_decomp("rxni-mni-srd");
}

static void test_srd_recovers_from_drops_and_corruption(void)
{
    check_lossy("rxni-mni-srd");
}

/* More endpoints than NI frames: every packet still lands exactly once,
 * in order per endpoint pair, through endpoint faults and NACKs. */
static void test_am2_pages_endpoints_in_and_out(void)
{
    struct e2e_run r;
    if (e2e_skip_unless_offered("rxni-mni-am2")) {
        return;
    }
    e2e_run(&r, "-n", "3", "--decomp", "rxni-mni-am2", "--ep-frames", "3",
            "--rto", "200000", "--stats", ENDPOINTS, "-e", "8", "-k", "5",
            NULL);
    e2e_expect_success(&r);
    CU_ASSERT(e2e_contains(r.out, ": OK"));
    e2e_run_free(&r);
}

static void test_ssam_recovers_from_drops_and_corruption(void)
{
    check_lossy("rxh-mh-ssam");
}

static void test_vmmc2_recovers_from_drops_and_corruption(void)
{
    check_lossy("rxni-mni-vmmc2");
    check_lossy("rxni-mh-vmmc2");
    check_lossy("rxh-mh-vmmc2");
}

static void test_rxni_mni_recovers_from_drops_and_corruption(void)
{
    check_lossy("rxni-mni");
}

static void test_rxni_mh_recovers_from_drops_and_corruption(void)
{
    check_lossy("rxni-mh");
}

static void test_rxh_mh_recovers_from_drops_and_corruption(void)
{
    check_lossy("rxh-mh");
}

/* ---- RX_no fails loudly on unreliable hardware ---------------------- */

static void test_rxno_mni_stops_loudly_when_a_packet_is_dropped(void)
{
    struct e2e_run r;

    if (e2e_skip_unless_offered("rxno-mni")) {
        return;
    }
    e2e_run(&r, "-n", "2", "--decomp", "rxno-mni", "--fault", "drop-nth=5",
            ALLTOALL, "-k", "50", NULL);
    e2e_expect_failure(&r, "RX_no", "reliable", NULL);
    e2e_run_free(&r);
}

static void test_rxno_mni_stops_loudly_when_packets_are_corrupted(void)
{
    struct e2e_run r;

    if (e2e_skip_unless_offered("rxno-mni")) {
        return;
    }
    e2e_run(&r, "-n", "4", "--decomp", "rxno-mni", "--fault",
            "corrupt=0.01,seed=1", ALLTOALL, "-k", "200", NULL);
    e2e_expect_failure(&r, "RX_no", "reliable", NULL);
    e2e_run_free(&r);
}

static void test_rxno_mh_stops_loudly_when_a_packet_is_dropped(void)
{
    struct e2e_run r;

    if (e2e_skip_unless_offered("rxno-mh")) {
        return;
    }
    e2e_run(&r, "-n", "7", "--decomp", "rxno-mh", "--fault", "drop-nth=5",
            MCAST, "-k", "20", NULL);
    e2e_expect_failure(&r, "RX_no", NULL);
    e2e_run_free(&r);
}

/* ---- determinism ---------------------------------------------------- */

static void test_same_seed_gives_same_trace_hash_and_other_program_differs(void)
{
    struct e2e_run a, b, c;
    char ha[19], hb[19], hc[19];

    e2e_run(&a, "-n", "7", "--seed", "7", "--compute", "zero", "--trace-hash",
            ALLTOALL, "-k", "50", NULL);
    e2e_run(&b, "-n", "7", "--seed", "7", "--compute", "zero", "--trace-hash",
            ALLTOALL, "-k", "50", NULL);
    e2e_run(&c, "-n", "7", "--seed", "7", "--compute", "zero", "--trace-hash",
            MCAST, "-k", "10", NULL);
    if (e2e_expect_success(&a) && e2e_expect_success(&b) &&
        e2e_expect_success(&c)) {
        int ok = e2e_trace_hash(&a, ha) && e2e_trace_hash(&b, hb) &&
                 e2e_trace_hash(&c, hc);
        if (!ok) {
            printf(
                "\n    no \"lci-run: trace-hash 0x<16 hex>\" line on stderr");
            e2e_print_tail("stderr", a.err, 2000);
        }
        CU_ASSERT_FATAL(ok);
        printf("\n    alltoall: %s, again: %s; mcast: %s\n    ", ha, hb, hc);
        if (strcmp(ha, hb) != 0) {
            printf("\n    same seed, different hashes: %s vs %s", ha, hb);
        }
        CU_ASSERT(strcmp(ha, hb) == 0);
        if (strcmp(ha, hc) == 0) {
            printf("\n    alltoall and mcast have the same hash %s", ha);
        }
        CU_ASSERT(strcmp(ha, hc) != 0);
    }
    e2e_run_free(&a);
    e2e_run_free(&b);
    e2e_run_free(&c);
}

static void test_same_fault_seed_gives_same_trace_hash(void)
{
    struct e2e_run a, b;
    char ha[19], hb[19];
    const char *d = "rxh-mh";

    if (!e2e_offered(d)) {
        d = "rxni-mni";
    }
    if (e2e_skip_unless_offered(d)) {
        return;
    }
    e2e_run(&a, "-n", "4", "--decomp", d, "--compute", "zero", "--fault",
            "drop=0.05,seed=5", "--trace-hash", ALLTOALL, "-k", "50", NULL);
    e2e_run(&b, "-n", "4", "--decomp", d, "--compute", "zero", "--fault",
            "drop=0.05,seed=5", "--trace-hash", ALLTOALL, "-k", "50", NULL);
    if (e2e_expect_success(&a) && e2e_expect_success(&b)) {
        CU_ASSERT_FATAL(e2e_trace_hash(&a, ha) && e2e_trace_hash(&b, hb));
        if (strcmp(ha, hb) != 0) {
            printf("\n    same fault seed, different hashes: %s vs %s", ha, hb);
        }
        CU_ASSERT(strcmp(ha, hb) == 0);
    }
    e2e_run_free(&a);
    e2e_run_free(&b);
}

/* ---- launcher options ----------------------------------------------- */

static void test_unknown_decomp_is_rejected_listing_valid_names(void)
{
    struct e2e_run r;

    e2e_run(&r, "-n", "2", "--decomp", "rxyz-mq", ALLTOALL, NULL);
    if (e2e_expect_failure(&r, "rxyz-mq", "valid values are", NULL)) {
        /* Every decomposition this build offers is named as valid. */
        for (size_t i = 0; i < E2E_NDECOMPS; i++) {
            if (e2e_offered(e2e_decomps[i]) &&
                !e2e_contains(r.err, e2e_decomps[i])) {
                printf("\n    the error does not list %s, which "
                       "--list-decomps offers",
                       e2e_decomps[i]);
                CU_FAIL("unknown --decomp error lists every valid name");
            }
        }
    }
    e2e_run_free(&r);
}

static void test_bad_flags_are_rejected_saying_what_was_expected(void)
{
    struct e2e_run r;

    e2e_run(&r, "--no-such-flag", "-n", "2", ALLTOALL, NULL);
    e2e_expect_failure(&r, "no-such-flag", NULL);
    e2e_run_free(&r);

    e2e_run(&r, "-n", "zero", ALLTOALL, NULL);
    e2e_expect_failure(&r, "number of nodes", "zero", NULL);
    e2e_run_free(&r);

    e2e_run(&r, "-n", "0", ALLTOALL, NULL);
    e2e_expect_failure(&r, "number of nodes", NULL);
    e2e_run_free(&r);

    e2e_run(&r, "-n", "2", "--packet-size", "999", ALLTOALL, NULL);
    e2e_expect_failure(&r, "1024", "2048", NULL);
    e2e_run_free(&r);

    e2e_run(&r, "-n", "2", "--compute", "sometimes", ALLTOALL, NULL);
    e2e_expect_failure(&r, "zero", "scaled", NULL);
    e2e_run_free(&r);

    e2e_run(&r, "-n", "2", "--fault", "drop=1.5", ALLTOALL, NULL);
    e2e_expect_failure(&r, "drop", NULL);
    e2e_run_free(&r);

    e2e_run(&r, "-n", "2", "--fault", "explode=1", ALLTOALL, NULL);
    e2e_expect_failure(&r, "explode", NULL);
    e2e_run_free(&r);

    e2e_run(&r, "-n", "2", "--platform", "moon", ALLTOALL, NULL);
    e2e_expect_failure(&r, "moon", "sim", NULL);
    e2e_run_free(&r);

    e2e_run(&r, "-n", "2", "--profile", "no-such-profile", ALLTOALL, NULL);
    e2e_expect_failure(&r, "no-such-profile", NULL);
    e2e_run_free(&r);

    e2e_run(&r, "-n", "2", NULL);
    e2e_expect_failure(&r, NULL);
    e2e_run_free(&r);

    e2e_run(&r, "-n", "2", e2e_prog_path("tests/e2e/no-such-program"), NULL);
    e2e_expect_failure(&r, "no-such-program", NULL);
    e2e_run_free(&r);
}

static void test_packet_size_2048_carries_larger_payloads(void)
{
    struct e2e_run r1, r2;
    const char *key = "payload up to ";
    const char *p1, *p2;

    e2e_run(&r1, "-n", "2", "--packet-size", "1024", ALLTOALL, "-k", "40",
            NULL);
    e2e_run(&r2, "-n", "2", "--packet-size", "2048", ALLTOALL, "-k", "40",
            NULL);
    if (e2e_expect_success(&r1) && e2e_expect_success(&r2)) {
        p1 = strstr(r1.out, key);
        p2 = strstr(r2.out, key);
        if (p1 == NULL || p2 == NULL) {
            printf("\n    rank 0's summary line is missing from stdout");
            CU_FAIL("no summary line");
        } else {
            long c1 = strtol(p1 + strlen(key), NULL, 10);
            long c2 = strtol(p2 + strlen(key), NULL, 10);
            printf("\n    capacity: %ld bytes at 1024, %ld at 2048", c1, c2);
            CU_ASSERT(c1 > 512 && c1 < 1024);
            CU_ASSERT(c2 > 1024 && c2 < 2048);
            CU_ASSERT(c2 - c1 == 1024);
        }
    }
    e2e_run_free(&r1);
    e2e_run_free(&r2);
}

static void test_profiles_compute_modes_and_stats_run(void)
{
    static const char *const profiles[] = {"myrinet-1999", "smartnic-2024"};
    struct e2e_run r;

    for (size_t i = 0; i < 2; i++) {
        char path[4096];
        struct stat sb;
        if (e2e_top_srcdir != NULL) {
            snprintf(path, sizeof(path), "%s/profiles/%s", e2e_top_srcdir,
                     profiles[i]);
            if (stat(path, &sb) != 0) {
                printf("\n    SKIPPED profile %s: %s does not exist",
                       profiles[i], path);
                continue;
            }
        }
        e2e_run(&r, "-n", "7", "--profile", profiles[i], ALLTOALL, "-k", "20",
                NULL);
        e2e_expect_success(&r);
        e2e_run_free(&r);
    }
    e2e_run(&r, "-n", "2", "--platform", "sim", "--compute", "scaled", ALLTOALL,
            "-k", "20", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
    e2e_run(&r, "-n", "2", "--stats", ALLTOALL, "-k", "20", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
    e2e_run(&r, "-n", "1", ALLTOALL, "-k", "20", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
}

/* The value in column name of the "sum" row of lci-run --stats; -1 if the
 * table is not in text. */
static long stats_sum(const char *text, const char *name)
{
    const char *head = strstr(text, " node ");
    const char *sum = strstr(text, "  sum ");
    if (head == NULL || sum == NULL) {
        return -1;
    }
    int col = -1, k = 0;
    char word[32];
    int used;
    const char *p = head;
    while (*p != '\n' && sscanf(p, "%31s%n", word, &used) == 1) {
        if (strcmp(word, name) == 0) {
            col = k;
        }
        k++;
        p += used;
        while (*p == ' ') {
            p++;
        }
    }
    if (col < 0) {
        return -1;
    }
    p = sum;
    for (k = 0; k <= col; k++) {
        if (sscanf(p, "%31s%n", word, &used) != 1) {
            return -1;
        }
        p += used;
    }
    return strtol(word, NULL, 10);
}

/* RX_h backs up its soft timers with NI clock interrupts only when a timer
 * fell due while the host did not poll.  A receiver that only polls, with
 * no timer running, must never take one. */
static void test_rxh_mh_polling_receiver_takes_no_clock_interrupts(void)
{
    struct e2e_run r;

    if (!e2e_offered("rxh-mh")) {
        printf("\n    SKIPPED: rxh-mh not built");
        return;
    }
    e2e_run(&r, "-n", "2", "--decomp", "rxh-mh", "--stats", ALLTOALL, "-k",
            "400", "--sender", "0", NULL);
    if (e2e_expect_success(&r)) {
        long intr = stats_sum(r.err, "intr");
        long deliv = stats_sum(r.err, "deliv");
        CU_ASSERT_EQUAL(deliv, 400);
        CU_ASSERT_EQUAL(intr, 0);
        if (intr != 0) {
            e2e_print_tail("lci-run stderr", r.err, 2000);
        }
    }
    e2e_run_free(&r);
}

/* A host that computes while it owes an acknowledgement (RX_h's delayed
 * ack) is brought in by the NI's clock interrupt to send it: its sender
 * never times out, however long the computation. */
static void test_rxh_mh_computing_receiver_acks_by_clock_interrupt(void)
{
    struct e2e_run r;

    if (!e2e_offered("rxh-mh")) {
        printf("\n    SKIPPED: rxh-mh not built");
        return;
    }
    e2e_run(&r, "-n", "2", "--decomp", "rxh-mh", "--stats",
            e2e_prog_path("tests/e2e/e2e_compute_ack"), NULL);
    if (e2e_expect_success(&r)) {
        long retx = stats_sum(r.err, "retx");
        long intr = stats_sum(r.err, "intr");
        CU_ASSERT_EQUAL(retx, 0);
        CU_ASSERT(intr >= 1);
        if (retx != 0 || intr < 1) {
            e2e_print_tail("lci-run stderr", r.err, 2000);
        }
    }
    e2e_run_free(&r);
}

/* --timeline writes trace-event JSON with host and NI spans of every node. */
static void test_timeline_holds_host_and_ni_spans_of_every_node(void)
{
    struct e2e_run r;
    char path[4096];

    snprintf(path, sizeof path, "%s/timeline-%d.json", e2e_top_builddir,
             (int)getpid());
    e2e_run(&r, "-n", "3", "--timeline", path, ALLTOALL, "-k", "5", NULL);
    if (e2e_expect_success(&r)) {
        FILE *f = fopen(path, "r");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        char line[512];
        int first = 1, bad = 0;
        long host[3] = {0, 0, 0}, ni[3] = {0, 0, 0};
        while (fgets(line, sizeof line, f) != NULL) {
            if (first) {
                CU_ASSERT_STRING_EQUAL(line, "[\n");
                first = 0;
                continue;
            }
            unsigned pid;
            int tid;
            size_t n = strlen(line);
            if (n < 3 || line[0] != '{' || strcmp(line + n - 3, "},\n") != 0) {
                bad++;
                continue;
            }
            const char *p = strstr(line, "\"pid\":");
            const char *t = strstr(line, "\"tid\":");
            if (strstr(line, "\"ph\":\"X\"") == NULL || p == NULL ||
                t == NULL) {
                continue; /* metadata */
            }
            if (sscanf(p, "\"pid\":%u", &pid) != 1 ||
                sscanf(t, "\"tid\":%d", &tid) != 1 || pid >= 3) {
                bad++;
                continue;
            }
            if (tid == 0) {
                host[pid]++;
            } else {
                ni[pid]++;
            }
        }
        fclose(f);
        CU_ASSERT_EQUAL(first, 0);
        CU_ASSERT_EQUAL(bad, 0);
        for (int k = 0; k < 3; k++) {
            CU_ASSERT(host[k] > 0);
            CU_ASSERT(ni[k] > 0);
        }
    }
    remove(path);
    e2e_run_free(&r);
}

/* Reads the spans of a timeline: their count and the first and last
 * microsecond any of them covers; every span's [ts, ts+dur] is checked
 * against [lo, hi] (µs) and those outside it are counted in *outside. */
static long timeline_spans(const char *path, double lo, double hi,
                           double *first, double *last, long *outside)
{
    FILE *f = fopen(path, "r");
    long n = 0;
    char line[512];

    *first = 1e300;
    *last = 0;
    *outside = 0;
    if (f == NULL) {
        return -1;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        const char *ts = strstr(line, "\"ts\":");
        const char *dur = strstr(line, "\"dur\":");
        double t, d;
        if (strstr(line, "\"ph\":\"X\"") == NULL || ts == NULL ||
            dur == NULL || sscanf(ts, "\"ts\":%lf", &t) != 1 ||
            sscanf(dur, "\"dur\":%lf", &d) != 1) {
            continue;
        }
        n++;
        *first = t < *first ? t : *first;
        *last = t + d > *last ? t + d : *last;
        if (t >= hi || t + d <= lo) {
            (*outside)++;
        }
    }
    fclose(f);
    return n;
}

/* --timeline-window FROM:TO keeps exactly the spans that overlap that
 * stretch of virtual time; a window that is not FROM < TO is refused. */
static void test_timeline_window_keeps_only_the_spans_inside_it(void)
{
    struct e2e_run r;
    char path[4096], window[64];
    double first, last;
    long outside;

    snprintf(path, sizeof path, "%s/timeline-window-%d.json",
             e2e_top_builddir, (int)getpid());
    e2e_run(&r, "-n", "3", "--timeline", path, ALLTOALL, "-k", "20", NULL);
    int ok = e2e_expect_success(&r);
    e2e_run_free(&r);
    long all = timeline_spans(path, 0, 1e300, &first, &last, &outside);
    CU_ASSERT_FATAL(ok && all > 100);

    /* The middle third of the run, in ms. */
    double lo = first + (last - first) / 3, hi = first + 2 * (last - first) / 3;
    snprintf(window, sizeof window, "%.6f:%.6f", lo / 1e3, hi / 1e3);
    e2e_run(&r, "-n", "3", "--timeline", path, "--timeline-window", window,
            ALLTOALL, "-k", "20", NULL);
    ok = e2e_expect_success(&r);
    e2e_run_free(&r);
    long kept = timeline_spans(path, lo, hi, &first, &last, &outside);
    CU_ASSERT(ok);
    CU_ASSERT(kept > 0);
    CU_ASSERT(kept < all);
    CU_ASSERT_EQUAL(outside, 0);

    e2e_run(&r, "-n", "3", "--timeline", path, "--timeline-window", "5:3",
            ALLTOALL, NULL);
    e2e_expect_failure(&r, "--timeline-window expects FROM:TO", NULL);
    e2e_run_free(&r);
    remove(path);
}

/* Every node answers each request from inside its upcall while more
 * requests arrive: its send buffers must come back even then (under rxh-mh
 * through the acknowledgements the host takes in during the upcall), with
 * drops too where the decomposition retransmits. */
static void test_replies_sent_from_upcalls_flow_on_every_decomposition(void)
{
    struct e2e_run r;
    const char *echo = e2e_prog_path("tests/e2e/e2e_echo");

    for (size_t i = 0; i < E2E_NDECOMPS; i++) {
        const char *d = e2e_decomps[i];
        if (!e2e_offered(d)) {
            continue;
        }
        e2e_run(&r, "-n", "3", "--decomp", d, echo, "-k", "1500", NULL);
        e2e_expect_success(&r);
        e2e_run_free(&r);
        if (strncmp(d, "rxno-", 5) != 0) {
            e2e_run(&r, "-n", "3", "--decomp", d, "--fault", "drop=0.01,seed=3",
                    echo, "-k", "600", NULL);
            e2e_expect_success(&r);
            e2e_run_free(&r);
        }
    }
}

/* A packet that reaches the host ring while an upcall runs (and is sent
 * by a host that lags behind) is delivered by the same poll once the
 * upcall returns: the host looks at its ring at its clock, after the
 * events up to it, on both engines. */
static void test_packet_arriving_during_an_upcall_is_delivered_by_that_poll(void)
{
    struct e2e_run r;
    const char *prog = e2e_prog_path("tests/e2e/e2e_upcall_time");
    const char *engines[] = {"fibers", "processes"};

    for (size_t i = 0; i < E2E_NDECOMPS; i++) {
        const char *d = e2e_decomps[i];
        if (!e2e_offered(d)) {
            continue;
        }
        for (size_t k = 0; k < 2; k++) {
            e2e_run(&r, "-n", "2", "--engine", engines[k], "--decomp", d, prog,
                    NULL);
            if (e2e_expect_success(&r)) {
                CU_ASSERT(e2e_contains(r.out, "upcalls in the first poll: 2"));
            } else {
                printf("\n    %s, %s engine", d, engines[k]);
            }
            e2e_run_free(&r);
        }
    }
}

/* ---- failures of nodes are reported --------------------------------- */

static void test_node_calling_lci_abort_ends_the_run_with_its_message(void)
{
    struct e2e_run r;

    e2e_run(&r, "-n", "4", MISBEHAVE, "--mode", "abort", NULL);
    e2e_expect_failure(&r, "deliberate abort", NULL);
    e2e_run_free(&r);
}

static void test_all_nodes_waiting_is_reported_as_deadlock(void)
{
    struct e2e_run r;

    e2e_run(&r, "-n", "4", MISBEHAVE, "--mode", "deadlock", NULL);
    e2e_expect_failure(&r, "deadlock", NULL);
    e2e_run_free(&r);
}

static void test_node_exiting_early_fails_the_run_naming_it(void)
{
    struct e2e_run r;

    e2e_run(&r, "-n", "7", MISBEHAVE, "--mode", "exit", NULL);
    e2e_expect_failure(&r, "node 6", NULL);
    e2e_run_free(&r);
}

static void test_node_killed_by_a_signal_fails_the_run_naming_it(void)
{
    struct e2e_run r;

    e2e_run(&r, "-n", "4", MISBEHAVE, "--mode", "kill", NULL);
    e2e_expect_failure(&r, "node 1", NULL);
    e2e_run_free(&r);
}

static void test_well_behaved_control_run_succeeds(void)
{
    struct e2e_run r;

    e2e_run(&r, "-n", "4", MISBEHAVE, "--mode", "ok", NULL);
    e2e_expect_success(&r);
    e2e_run_free(&r);
}

/* ---- no orphans --------------------------------------------------------- */

/* Starts lci-run (argv after the program path) in a process group of its
 * own, lets it run, kills it with SIGKILL and returns 1 if every process
 * of the group is gone within two seconds. */
static int group_ends_after_launcher_killed(char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
        execv(e2e_lci_run_path, argv);
        _exit(127);
    }
    if (pid < 0) {
        return 0;
    }
    setpgid(pid, pid);
    struct timespec pause = {0, 500 * 1000 * 1000};
    nanosleep(&pause, NULL); /* the nodes are up and running */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    for (int i = 0; i < 200; i++) {
        if (kill(-pid, 0) != 0 && errno == ESRCH) {
            return 1;
        }
        struct timespec tick = {0, 10 * 1000 * 1000};
        nanosleep(&tick, NULL);
    }
    kill(-pid, SIGKILL); /* clean up what outlived it */
    return 0;
}

static void test_nodes_end_when_the_launcher_is_killed(void)
{
    const char *speed = e2e_prog_path("bench/lci_simspeed");
    const char *engines[] = {"fibers", "processes"};
    for (int e = 0; e < 2; e++) {
        char *argv[] = {e2e_lci_run_path, "-n", "8", "--engine",
                        (char *)engines[e], (char *)speed, "--packets",
                        "1000000000", NULL};
        CU_ASSERT(group_ends_after_launcher_killed(argv));
    }
    char *live[] = {e2e_lci_run_path, "--platform", "live", "-n", "2",
                    (char *)speed, "--packets", "1000000000", NULL};
    CU_ASSERT(group_ends_after_launcher_killed(live));
}

/* ---- main ----------------------------------------------------------- */

struct e2e_test {
    const char *name;
    CU_TestFunc func;
};

#define T(name)                                                                \
    {                                                                          \
#name, test_##name                                                     \
    }

static const struct e2e_test launcher_tests[] = {
    T(unknown_decomp_is_rejected_listing_valid_names),
    T(bad_flags_are_rejected_saying_what_was_expected),
    T(list_decomps_names_only_known_decompositions),
    T(node_calling_lci_abort_ends_the_run_with_its_message),
    T(all_nodes_waiting_is_reported_as_deadlock),
    T(node_exiting_early_fails_the_run_naming_it),
    T(node_killed_by_a_signal_fails_the_run_naming_it),
    T(well_behaved_control_run_succeeds),
    T(nodes_end_when_the_launcher_is_killed),
};

static const struct e2e_test delivery_tests[] = {
    T(api_misuse_returns_documented_status_codes),
    T(alltoall_2_nodes_delivers_exactly_once_in_fifo_order),
    T(alltoall_7_nodes_delivers_exactly_once_in_fifo_order),
    T(alltoall_64_nodes_delivers_exactly_once_in_fifo_order),
    T(alltoall_7_nodes_with_interrupts_delivers_everything),
    T(alltoall_with_two_send_buffers_keeps_payloads_in_flight),
    T(mcast_2_nodes_delivers_exactly_once_in_fifo_order),
    T(mcast_7_nodes_delivers_exactly_once_in_fifo_order),
    T(mcast_64_nodes_delivers_exactly_once_in_fifo_order),
    T(fa_2_nodes_returns_distinct_old_values),
    T(fa_7_nodes_returns_distinct_old_values),
    T(fa_64_nodes_returns_distinct_old_values),
    T(fa_7_nodes_on_the_last_node_returns_distinct_old_values),
    T(packet_size_2048_carries_larger_payloads),
    T(profiles_compute_modes_and_stats_run),
    T(rxh_mh_polling_receiver_takes_no_clock_interrupts),
    T(rxh_mh_computing_receiver_acks_by_clock_interrupt),
    T(timeline_holds_host_and_ni_spans_of_every_node),
    T(timeline_window_keeps_only_the_spans_inside_it),
};

static const struct e2e_test decomp_tests[] = {
    T(rxno_mni_runs_all_programs),
    T(rxno_mh_runs_all_programs),
    T(rxni_mni_runs_all_programs),
    T(rxni_mh_runs_all_programs),
    T(rxh_mh_runs_all_programs),
    T(vmmc2_runs_all_programs),
    T(ssam_runs_all_programs),
    T(damaged_waiting_copy_is_not_repaired_by_a_merge),
    T(am2_runs_all_programs),
    T(am2_pages_endpoints_in_and_out),
    T(srd_runs_all_programs),
    T(rxh_mni_runs_all_programs),
    T(rxno_mni_stops_loudly_when_a_packet_is_dropped),
    T(rxno_mni_stops_loudly_when_packets_are_corrupted),
    T(rxno_mh_stops_loudly_when_a_packet_is_dropped),
    T(rxni_mni_recovers_from_drops_and_corruption),
    T(rxni_mh_recovers_from_drops_and_corruption),
    T(rxh_mh_recovers_from_drops_and_corruption),
    T(vmmc2_recovers_from_drops_and_corruption),
    T(ssam_recovers_from_drops_and_corruption),
    T(am2_recovers_from_drops_and_corruption),
    T(srd_recovers_from_drops_and_corruption),
    T(rxh_mni_recovers_from_drops_and_corruption),
    T(same_seed_gives_same_trace_hash_and_other_program_differs),
    T(same_fault_seed_gives_same_trace_hash),
    T(replies_sent_from_upcalls_flow_on_every_decomposition),
    T(packet_arriving_during_an_upcall_is_delivered_by_that_poll),
};

static int add_suite(const char *name, const struct e2e_test *tests, size_t n)
{
    CU_pSuite s = CU_add_suite(name, NULL, NULL);

    if (s == NULL) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (CU_add_test(s, tests[i].name, tests[i].func) == NULL) {
            return -1;
        }
    }
    return 0;
}

#define ADD_SUITE(name, arr) add_suite(name, arr, sizeof(arr) / sizeof(arr[0]))

int main(int argc, char **argv)
{
    unsigned failed;
    const char *only = argc > 1 ? argv[1] : NULL;

    if (e2e_runner_init() != 0) {
        return 99; /* hard error: the build is incomplete */
    }
    if (CU_initialize_registry() != CUE_SUCCESS ||
        ADD_SUITE("launcher", launcher_tests) != 0 ||
        ADD_SUITE("delivery", delivery_tests) != 0 ||
        ADD_SUITE("decompositions", decomp_tests) != 0) {
        fprintf(stderr, "test_e2e: CUnit: %s\n", CU_get_error_msg());
        return 99;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    if (only != NULL) {
        /* test_e2e SUITE [TEST]: run a part, for debugging. */
        CU_pSuite s = CU_get_suite(only);
        if (s == NULL) {
            fprintf(stderr, "test_e2e: no suite %s\n", only);
            return 99;
        }
        if (argc > 2) {
            CU_pTest t = CU_get_test(s, argv[2]);
            if (t == NULL) {
                fprintf(stderr, "test_e2e: no test %s in %s\n", argv[2], only);
                return 99;
            }
            CU_basic_run_test(s, t);
        } else {
            CU_basic_run_suite(s);
        }
    } else {
        CU_basic_run_tests();
    }
    failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    printf("\n");
    CU_cleanup_registry();
    e2e_runner_cleanup();
    return failed == 0 ? 0 : 1;
}
