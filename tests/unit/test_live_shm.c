/* test_live_shm.c - the shared-memory wire delivers every packet exactly
 * once and in order per pair of nodes, lap after lap of its rings: a slot
 * still holding an older packet is never taken again, a full ring pushes
 * back instead of dropping, and a dead node's packets are lost. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lci_live.h"
#include "lci_live_nic.h"
#include "unit_run.h"

#define NODES 3
#define PKT 1024 /* the fabric's packet size */

static lci_fabric_t *fabric;
static lci_live_t node[NODES];

/* What node `at` took off the wire, in the order it took it. */
typedef struct {
    uint32_t src;
    uint32_t bytes;
    uint32_t value;
    uint32_t first; /* the first word as it arrived */
} taken_t;

static taken_t taken[4096];
static unsigned ntaken;

static void setup(void)
{
    uint64_t size = lci_fabric_size(NODES, PKT, 1);
    fabric = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fabric);
    memset(fabric, 0, size);
    lci_fabric_init(fabric, NODES, PKT, 1);
    for (uint32_t k = 0; k < NODES; k++) {
        char err[128];
        memset(&node[k], 0, sizeof node[k]);
        node[k].rank = k;
        node[k].size = NODES;
        node[k].fabric = fabric;
        node[k].wire = &lci_live_wire_shm;
        CU_ASSERT_EQUAL_FATAL(lci_live_wire_shm.open(&node[k], err, sizeof err),
                              LCI_OK);
    }
    ntaken = 0;
}

static void teardown(void)
{
    for (uint32_t k = 0; k < NODES; k++) {
        free(node[k].wire_state); /* the shm wire's own layout */
    }
    free(fabric);
}

/* Whether bytes 4.. of pkt are the pattern that follows value. */
static int pattern_follows(const unsigned char *pkt, uint32_t bytes,
                           uint32_t value)
{
    for (uint32_t i = 4; i < bytes; i++) {
        if (pkt[i] != (unsigned char)(value + i)) {
            return 0;
        }
    }
    return 1;
}

static void take(lci_live_t *L, const unsigned char *pkt, uint32_t bytes,
                 uint32_t src)
{
    (void)L;
    CU_ASSERT_FATAL(ntaken < sizeof taken / sizeof taken[0]);
    taken[ntaken].src = src;
    taken[ntaken].bytes = bytes;
    uint32_t value;
    memcpy(&value, pkt, sizeof value);
    taken[ntaken].first = value;
    /* The first word is the CRC field: a packet sent with zero there may
     * arrive with the wire's own word in it (a compact slot's stamp, whose
     * low byte is the length, never a multiple of 256). */
    if (!pattern_follows(pkt, bytes, value) && bytes <= 64 &&
        pattern_follows(pkt, bytes, 0)) {
        value = 0;
    }
    taken[ntaken].value = value;
    /* Every other byte arrived as sent: the pattern follows the value. */
    CU_ASSERT(pattern_follows(pkt, bytes, value));
    ntaken++;
}

/* Polls node at until nothing more arrives; returns how many it took. */
static unsigned poll_all(uint32_t at)
{
    unsigned n = 0, got;
    while ((got = lci_live_wire_shm.poll(&node[at], take)) > 0) {
        n += got;
    }
    return n;
}

/* A packet of bytes bytes carrying value (and a pattern from it). */
static int send_value(uint32_t src, uint32_t dst, uint32_t value,
                      uint32_t bytes)
{
    unsigned char pkt[PKT];
    memcpy(pkt, &value, sizeof value);
    for (uint32_t i = 4; i < bytes; i++) {
        pkt[i] = (unsigned char)(value + i);
    }
    return lci_live_wire_shm.send(&node[src], dst, pkt, bytes);
}

static void packets_arrive_once_in_order_over_many_laps(void)
{
    setup();
    uint32_t laps = 5 * fabric->nslots, next = 0;
    /* Bursts of varying length, so the ring's ends meet everywhere. */
    for (uint32_t sent = 0; sent < laps;) {
        uint32_t burst = 1 + sent % 7;
        burst = burst < laps - sent ? burst : laps - sent;
        for (uint32_t i = 0; i < burst; i++, sent++) {
            CU_ASSERT_EQUAL(send_value(0, 1, sent, 8 + sent % 200), 0);
        }
        ntaken = 0;
        CU_ASSERT_EQUAL(poll_all(1), burst);
        CU_ASSERT_EQUAL(ntaken, burst);
        for (unsigned i = 0; i < ntaken; i++, next++) {
            CU_ASSERT_EQUAL(taken[i].src, 0);
            CU_ASSERT_EQUAL(taken[i].value, next);
            CU_ASSERT_EQUAL(taken[i].bytes, 8 + next % 200);
        }
        /* Taken once: the slots that held them are not taken again. */
        CU_ASSERT_EQUAL(lci_live_wire_shm.poll(&node[1], take), 0);
    }
    CU_ASSERT_EQUAL(next, laps);
    teardown();
}

static void full_ring_pushes_back_and_loses_nothing(void)
{
    setup();
    uint32_t n = 0;
    while (send_value(2, 0, n, 64) == 0) {
        n++;
        CU_ASSERT_FATAL(n <= fabric->nslots);
    }
    CU_ASSERT_EQUAL(n, fabric->nslots);
    /* Refused, not lost: once the receiver has read, the sender goes on. */
    ntaken = 0;
    CU_ASSERT_EQUAL(poll_all(0), n);
    CU_ASSERT_EQUAL(send_value(2, 0, n, 64), 0);
    CU_ASSERT_EQUAL(lci_live_wire_shm.poll(&node[0], take), 1);
    CU_ASSERT_EQUAL(ntaken, n + 1);
    for (unsigned i = 0; i < ntaken; i++) {
        CU_ASSERT_EQUAL(taken[i].value, i);
    }
    teardown();
}

static void framed_in_place_like_sent(void)
{
    setup();
    for (uint32_t v = 0; v < 3 * fabric->nslots; v++) {
        unsigned char *slot = lci_live_wire_shm.reserve(&node[1], 2, 100);
        CU_ASSERT_PTR_NOT_NULL_FATAL(slot);
        memcpy(slot, &v, sizeof v);
        for (uint32_t i = 4; i < 100; i++) {
            slot[i] = (unsigned char)(v + i);
        }
        /* Nothing is visible before the commit. */
        ntaken = 0;
        CU_ASSERT_EQUAL(lci_live_wire_shm.poll(&node[2], take), 0);
        lci_live_wire_shm.commit(&node[1], 2, 100);
        CU_ASSERT_EQUAL(lci_live_wire_shm.poll(&node[2], take), 1);
        CU_ASSERT_EQUAL(taken[0].value, v);
        CU_ASSERT_EQUAL(taken[0].src, 1);
    }
    teardown();
}

/* A packet of up to 64 bytes whose first word (the CRC field) is zero
 * travels in the slot's first cache line alone; every size with a byte
 * after the CRC field arrives whole, sent or framed in place, compact or
 * not, lap after lap.  Framed in place, the CRC field is the link's: it
 * writes it zero, as on this wire it always does. */
static void small_packets_take_one_line_and_arrive_whole(void)
{
    setup();
    /* A canary in every slot's second line: a compact packet leaves it. */
    unsigned char *rings = (unsigned char *)fabric + fabric->off_rings;
    memset(rings, 0xa5, (size_t)NODES * NODES * fabric->ring_bytes);
    for (uint32_t k = 0; k < NODES * NODES; k++) {
        memset(rings + k * fabric->ring_bytes, 0, 128); /* the ring's head */
    }
    uint32_t n = 0;
    for (uint32_t lap = 0; lap < 3; lap++) {
        for (uint32_t bytes = 5; bytes <= 80; bytes++, n++) {
            uint32_t value = bytes % 3 == 0 && lap != 1 ? n : 0;
            if (lap == 1) {
                unsigned char *p = lci_live_wire_shm.reserve(&node[0], 1, bytes);
                CU_ASSERT_PTR_NOT_NULL_FATAL(p);
                memcpy(p, &value, sizeof value);
                for (uint32_t i = 4; i < bytes; i++) {
                    p[i] = (unsigned char)(value + i);
                }
                lci_live_wire_shm.commit(&node[0], 1, bytes);
            } else {
                CU_ASSERT_EQUAL(send_value(0, 1, value, bytes), 0);
            }
            ntaken = 0;
            CU_ASSERT_EQUAL(poll_all(1), 1);
            CU_ASSERT_EQUAL(taken[0].bytes, bytes);
            CU_ASSERT_EQUAL(taken[0].value, value);
            if (value == 0 && bytes <= 64) {
                uint32_t pos = n % fabric->nslots;
                const unsigned char *line2 =
                    rings + (0 * NODES + 1) * fabric->ring_bytes + 128 +
                    (uint64_t)pos * fabric->slot_bytes + 64;
                CU_ASSERT_EQUAL(line2[0], 0xa5);
                CU_ASSERT_EQUAL(line2[63], 0xa5);
            }
        }
    }
    teardown();
}

/* A small packet framed in its slot is not taken before its commit,
 * whatever its number: the zero the link writes into the CRC field, where
 * the stamp goes, never passes for a stamp, not even when the number's
 * low bits wrap to zero (past 2^16 packets on one ring). */
static void framed_small_packet_waits_for_its_commit_at_every_number(void)
{
    setup();
    for (uint32_t v = 0; v < (1u << 16) + 2 * fabric->nslots; v++) {
        unsigned char *p = lci_live_wire_shm.reserve(&node[0], 1, 40);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        memset(p, 0, 4); /* the CRC field, as the link frames it */
        for (uint32_t i = 4; i < 40; i++) {
            p[i] = (unsigned char)i;
        }
        ntaken = 0;
        if (lci_live_wire_shm.poll(&node[1], take) != 0) {
            CU_FAIL_FATAL("a packet framed in place was taken before its "
                          "commit");
        }
        lci_live_wire_shm.commit(&node[0], 1, 40);
        if (lci_live_wire_shm.poll(&node[1], take) != 1 || ntaken != 1 ||
            taken[0].bytes != 40) {
            CU_FAIL_FATAL("a committed packet was not taken whole");
        }
    }
    teardown();
}

/* A link that computes CRCs sends nothing compact, not even a packet whose
 * CRC happens to be zero: its receiver checks the CRC field, which must
 * arrive as sent, never holding the slot's stamp. */
static void a_crc_link_sends_a_zero_crc_field_as_it_is(void)
{
    setup();
    node[0].crc_on = 1;
    for (uint32_t bytes = 8; bytes <= 64; bytes += 8) {
        CU_ASSERT_EQUAL(send_value(0, 1, 0, bytes), 0);
        ntaken = 0;
        CU_ASSERT_EQUAL(poll_all(1), 1);
        CU_ASSERT_EQUAL(taken[0].first, 0);
        CU_ASSERT_EQUAL(taken[0].bytes, bytes);
    }
    /* Without CRCs the same packets go compact: the field holds the
     * stamp on arrival (which the receiver ignores). */
    node[0].crc_on = 0;
    CU_ASSERT_EQUAL(send_value(0, 1, 0, 16), 0);
    ntaken = 0;
    CU_ASSERT_EQUAL(poll_all(1), 1);
    CU_ASSERT_NOT_EQUAL(taken[0].first, 0);
    CU_ASSERT_EQUAL(taken[0].value, 0);
    teardown();
}

static void each_pair_keeps_its_own_order(void)
{
    setup();
    /* Nodes 0 and 2 interleave their packets to node 1 (and node 1 sends
     * to itself): each sender's arrive in its order. */
    for (uint32_t v = 0; v < 40; v++) {
        CU_ASSERT_EQUAL(send_value(0, 1, 1000 + v, 16), 0);
        CU_ASSERT_EQUAL(send_value(2, 1, 2000 + v, 16), 0);
        CU_ASSERT_EQUAL(send_value(1, 1, 3000 + v, 16), 0);
    }
    ntaken = 0;
    CU_ASSERT_EQUAL(poll_all(1), 120);
    uint32_t next[NODES] = {1000, 3000, 2000};
    for (unsigned i = 0; i < ntaken; i++) {
        CU_ASSERT_EQUAL(taken[i].value, next[taken[i].src]);
        next[taken[i].src]++;
    }
    CU_ASSERT_EQUAL(next[0], 1040);
    CU_ASSERT_EQUAL(next[1], 3040);
    CU_ASSERT_EQUAL(next[2], 2040);
    teardown();
}

static void a_poll_takes_a_bounded_batch_from_a_streaming_sender(void)
{
    setup();
    /* A poll leaves what keeps arriving to the next one, so the host gets
     * to deliver in between; nothing is lost or reordered by it. */
    for (uint32_t v = 0; v < 100; v++) {
        CU_ASSERT_EQUAL(send_value(0, 1, v, 16), 0);
    }
    ntaken = 0;
    unsigned first = lci_live_wire_shm.poll(&node[1], take);
    CU_ASSERT(first > 0);
    CU_ASSERT(first < 100);
    CU_ASSERT_EQUAL(first + poll_all(1), 100);
    for (unsigned i = 0; i < ntaken; i++) {
        CU_ASSERT_EQUAL(taken[i].value, i);
    }
    teardown();
}

static void oversized_packet_is_refused(void)
{
    setup();
    unsigned char big[2 * PKT] = {0};
    CU_ASSERT_EQUAL(lci_live_wire_shm.send(&node[0], 1, big,
                                           (uint32_t)fabric->slot_bytes),
                    -1);
    CU_ASSERT_PTR_NULL(lci_live_wire_shm.reserve(
        &node[0], 1, (uint32_t)fabric->slot_bytes));
    ntaken = 0;
    CU_ASSERT_EQUAL(lci_live_wire_shm.poll(&node[1], take), 0);
    teardown();
}

static void packets_to_a_dead_node_are_lost(void)
{
    setup();
    atomic_store(&lci_fabric_node(fabric, 2)->dead, 1);
    CU_ASSERT_EQUAL(send_value(0, 2, 7, 32), 0); /* taken, and lost */
    CU_ASSERT_PTR_NULL(lci_live_wire_shm.reserve(&node[0], 2, 32));
    ntaken = 0;
    CU_ASSERT_EQUAL(lci_live_wire_shm.poll(&node[2], take), 0);
    teardown();
}

/* The hints (will_send before an answer, the slot a vain poll demotes)
 * change nothing a ping-pong sees over many laps of both rings, and a
 * hint for a node that is not there is ignored. */
static void hints_leave_a_ping_pong_as_it_was(void)
{
    setup();
    uint32_t laps = 3 * fabric->nslots;
    for (uint32_t i = 0; i < laps; i++) {
        uint32_t from = i % 2, to = 1 - from;
        lci_live_wire_shm.will_send(&node[from], to);
        lci_live_wire_shm.will_send(&node[from], from); /* itself */
        lci_live_wire_shm.will_send(&node[from], UINT32_MAX / 2); /* nobody */
        CU_ASSERT_EQUAL(send_value(from, to, i, 8 + i % 60), 0);
        ntaken = 0;
        CU_ASSERT_EQUAL(lci_live_wire_shm.poll(&node[to], take), 1);
        CU_ASSERT_EQUAL(ntaken, 1);
        CU_ASSERT_EQUAL(taken[0].src, from);
        CU_ASSERT_EQUAL(taken[0].value, i);
        CU_ASSERT_EQUAL(taken[0].bytes, 8 + i % 60);
        /* Vain polls on both sides, as a waiting node makes them. */
        CU_ASSERT_EQUAL(lci_live_wire_shm.poll(&node[to], take), 0);
        CU_ASSERT_EQUAL(lci_live_wire_shm.poll(&node[from], take), 0);
    }
    teardown();
}

/* ---- waking a blocked node ------------------------------------------- */

#define WAKE_ROUNDS 20000
#define WAKE_TIMEOUT_NS 1000000000ull /* far beyond any wake-up */

static _Atomic uint32_t wake_taken; /* packets the blocking node took */
static _Atomic uint32_t wake_lost;  /* a block ended by its timeout */
static unsigned wake_wrong;         /* packets out of order or unknown */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void count_taken(lci_live_t *L, const unsigned char *pkt,
                        uint32_t bytes, uint32_t src)
{
    (void)L;
    uint32_t value;
    memcpy(&value, pkt, sizeof value);
    uint32_t n = atomic_load(&wake_taken);
    wake_wrong += src != 0 || bytes != 64 || value != n + 1 ||
                  !pattern_follows(pkt, bytes, value);
    atomic_store(&wake_taken, n + 1);
}

/* Blocks node L for work; 0 (and the test ends) if the block ran into its
 * timeout: half of it, woken late by many scheduler slices, is still a
 * wake-up; left to the timeout, a lost one. */
static int block_woken(lci_live_t *L)
{
    uint64_t t0 = mono_ns();
    lci_live_wire_shm.block(L, WAKE_TIMEOUT_NS);
    if (mono_ns() - t0 > WAKE_TIMEOUT_NS / 2) {
        atomic_store(&wake_lost, 1);
        return 0;
    }
    return 1;
}

/* Node 1: polls, and blocks whenever nothing has arrived. */
static void *blocking_node(void *arg)
{
    (void)arg;
    while (atomic_load(&wake_taken) < WAKE_ROUNDS) {
        if (lci_live_wire_shm.poll(&node[1], count_taken) == 0 &&
            !block_woken(&node[1])) {
            break;
        }
    }
    return NULL;
}

/* A node that blocks for a packet is woken by the packet, round after
 * round, each sent as the node goes to sleep: with the fences where the
 * nodes rarely block (the sleeper's, from the kernel) and where they
 * block all the time (the wakers'). */
static void a_blocked_node_wakes_for_every_packet(int fences_by_sleepers)
{
    setup();
    for (uint32_t k = 0; k < NODES; k++) {
        lci_live_fabric_fences(&node[k], fences_by_sleepers);
    }
    if (!fences_by_sleepers) {
        CU_ASSERT(atomic_load(&fabric->wakers_fence));
    }
    atomic_store(&wake_taken, 0);
    atomic_store(&wake_lost, 0);
    wake_wrong = 0;
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, blocking_node, NULL), 0);
    unsigned refused = 0;
    for (uint32_t i = 0; i < WAKE_ROUNDS && !atomic_load(&wake_lost); i++) {
        while (atomic_load(&wake_taken) < i && !atomic_load(&wake_lost)) {
            /* the previous one is not taken yet */
        }
        /* Not 0, which would go compact (and arrive with a stamp). */
        refused += send_value(0, 1, i + 1, 64) != 0;
    }
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(refused, 0);
    CU_ASSERT_EQUAL(atomic_load(&wake_taken), WAKE_ROUNDS);
    CU_ASSERT_EQUAL(wake_wrong, 0);
    CU_ASSERT_EQUAL(atomic_load(&wake_lost), 0);
    teardown();
}

static void a_blocked_node_wakes_fenced_by_sleepers(void)
{
    a_blocked_node_wakes_for_every_packet(1);
}

static void a_blocked_node_wakes_fenced_by_wakers(void)
{
    a_blocked_node_wakes_for_every_packet(0);
}

/* Thread mode: the NIC thread looks for work and blocks; the host posts
 * work and kicks it, which finds no sleeper if it comes just before the
 * block.  The block must then not sleep (the wire keeps the kick): round
 * after round, each posted as the thread goes to sleep. */
static _Atomic uint32_t work_posted; /* work items the host posted */
static _Atomic uint32_t work_taken;  /* and the NIC thread took */

static void *nic_like_thread(void *arg)
{
    lci_live_t *L = arg;
    while (atomic_load(&work_taken) < WAKE_ROUNDS) {
        uint32_t posted = atomic_load(&work_posted);
        if (posted > atomic_load(&work_taken)) {
            atomic_store(&work_taken, posted);
        } else if (!block_woken(L)) {
            break;
        }
    }
    return NULL;
}

static void a_kick_before_the_block_wakes_it(int fences_by_sleepers)
{
    setup();
    lci_live_t *L = &node[1];
    lci_live_fabric_fences(L, fences_by_sleepers);
    atomic_store(&wake_lost, 0);
    /* Kicked with nobody asleep: the next block returns at once. */
    lci_live_wire_shm.kick(L);
    CU_ASSERT(block_woken(L));

    atomic_store(&work_posted, 0);
    atomic_store(&work_taken, 0);
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, nic_like_thread, L), 0);
    for (uint32_t i = 1; i <= WAKE_ROUNDS && !atomic_load(&wake_lost); i++) {
        while (atomic_load(&work_taken) < i - 1 && !atomic_load(&wake_lost)) {
            /* the previous one is not taken yet */
        }
        atomic_store(&work_posted, i);
        lci_live_wire_shm.kick(L);
    }
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(atomic_load(&wake_lost), 0);
    CU_ASSERT_EQUAL(atomic_load(&work_taken), WAKE_ROUNDS);
    teardown();
}

static void a_kick_wakes_fenced_by_sleepers(void)
{
    a_kick_before_the_block_wakes_it(1);
}

static void a_kick_wakes_fenced_by_wakers(void)
{
    a_kick_before_the_block_wakes_it(0);
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"packets_arrive_once_in_order_over_many_laps",
         packets_arrive_once_in_order_over_many_laps},
        {"full_ring_pushes_back_and_loses_nothing",
         full_ring_pushes_back_and_loses_nothing},
        {"framed_in_place_like_sent", framed_in_place_like_sent},
        {"framed_small_packet_waits_for_its_commit_at_every_number",
         framed_small_packet_waits_for_its_commit_at_every_number},
        {"small_packets_take_one_line_and_arrive_whole",
         small_packets_take_one_line_and_arrive_whole},
        {"a_crc_link_sends_a_zero_crc_field_as_it_is",
         a_crc_link_sends_a_zero_crc_field_as_it_is},
        {"each_pair_keeps_its_own_order", each_pair_keeps_its_own_order},
        {"a_poll_takes_a_bounded_batch_from_a_streaming_sender",
         a_poll_takes_a_bounded_batch_from_a_streaming_sender},
        {"oversized_packet_is_refused", oversized_packet_is_refused},
        {"packets_to_a_dead_node_are_lost", packets_to_a_dead_node_are_lost},
        {"hints_leave_a_ping_pong_as_it_was",
         hints_leave_a_ping_pong_as_it_was},
        {"a_blocked_node_wakes_fenced_by_sleepers",
         a_blocked_node_wakes_fenced_by_sleepers},
        {"a_blocked_node_wakes_fenced_by_wakers",
         a_blocked_node_wakes_fenced_by_wakers},
        {"a_kick_wakes_fenced_by_sleepers", a_kick_wakes_fenced_by_sleepers},
        {"a_kick_wakes_fenced_by_wakers", a_kick_wakes_fenced_by_wakers},
    };
    return lci_unit_run("live_shm", tests, LCI_UNIT_COUNT(tests));
}
