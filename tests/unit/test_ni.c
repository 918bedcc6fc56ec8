/*
 * test_ni.c - the emulated NI's SRAM layout, its queues, the run
 * configuration (Table 3 windows, fault specifications, options) and the
 * RX_no credit window, driven directly on an in-process two-node world.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lci_config.h"
#include "lci_decomp.h"
#include "lci_event_heap.h"
#include "lci_fw.h"
#include "lci_hw.h"
#include "lci_ni.h"
#include "lci_options.h"
#include "lci_place.h"
#include "lci_platform.h"
#include "lci_sched.h"
#include "lci_world.h"
#include "unit_run.h"

/* The defaults of an RX_no run (Table 3's first columns), whatever the
 * build's default decomposition. */
static void rxno_defaults(lci_config_t *cfg, uint32_t nodes, uint32_t size)
{
    lci_config_defaults(cfg, nodes, size);
    snprintf(cfg->decomp, sizeof cfg->decomp, "%s", "rxno-mni");
}

static lci_ni_t *layout_ni(const lci_config_t *cfg, uint64_t bytes,
                           lci_status_t *st_p, char *err, size_t errlen)
{
    lci_ni_t *ni = aligned_alloc(64, bytes);
    memset(ni, 0, bytes);
    lci_profile_t prof;
    lci_profile_defaults(&prof);
    *st_p = lci_ni_layout(ni, bytes, 0, cfg, &prof, err, errlen);
    return ni;
}

static void table3_configurations_fit_in_one_mib_of_sram(void)
{
    uint32_t sizes[] = {1024, 2048};
    for (int i = 0; i < 2; i++) {
        lci_config_t cfg;
        char err[512];
        rxno_defaults(&cfg, 64, sizes[i]);
        CU_ASSERT_EQUAL_FATAL(lci_config_finish(&cfg, err, sizeof err), LCI_OK);
        lci_status_t st;
        lci_ni_t *ni = layout_ni(&cfg, cfg.sram_bytes, &st, err, sizeof err);
        CU_ASSERT_EQUAL(st, LCI_OK);
        CU_ASSERT(ni->arena_used <= cfg.sram_bytes);
        CU_ASSERT_EQUAL(ni->recv_free.count, cfg.nrecv);
        CU_ASSERT_EQUAL(ni->ni_free_prod, cfg.nsend);
        free(ni);
    }
}

static void sram_too_small_is_a_config_error_with_the_numbers(void)
{
    lci_config_t cfg;
    char err[512] = "";
    rxno_defaults(&cfg, 64, 1024);
    CU_ASSERT_EQUAL_FATAL(lci_config_finish(&cfg, err, sizeof err), LCI_OK);
    lci_status_t st;
    lci_ni_t *ni = layout_ni(&cfg, 256 * 1024, &st, err, sizeof err);
    CU_ASSERT_EQUAL(st, LCI_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "262144"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "512 receive"));
    free(ni);
}

static void window_follows_receive_pool_and_node_count(void)
{
    lci_config_t cfg;
    char err[256];
    rxno_defaults(&cfg, 64, 1024);
    lci_config_finish(&cfg, err, sizeof err);
    CU_ASSERT_EQUAL(cfg.window, 8); /* Table 3, 1 KiB */
    rxno_defaults(&cfg, 64, 2048);
    lci_config_finish(&cfg, err, sizeof err);
    CU_ASSERT_EQUAL(cfg.window, 4); /* Table 3, 2 KiB */
    rxno_defaults(&cfg, 256, 1024);
    lci_config_finish(&cfg, err, sizeof err);
    CU_ASSERT_EQUAL(cfg.window, 2);
    rxno_defaults(&cfg, 2, 1024);
    lci_config_finish(&cfg, err, sizeof err);
    CU_ASSERT_EQUAL(cfg.window, 8);
    rxno_defaults(&cfg, 1024, 1024);
    cfg.nrecv = 512;
    CU_ASSERT_EQUAL(lci_config_finish(&cfg, err, sizeof err), LCI_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "1023 senders"));
}

static void fault_specifications_parse_or_say_what_was_expected(void)
{
    lci_fault_config_t f;
    char err[256];
    memset(&f, 0, sizeof f);
    CU_ASSERT_EQUAL(lci_fault_parse("drop=0.01,corrupt=0.5,drop-nth=7,seed=9",
                                    &f, err, sizeof err),
                    LCI_OK);
    CU_ASSERT_DOUBLE_EQUAL(f.drop, 0.01, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.corrupt, 0.5, 1e-12);
    CU_ASSERT_EQUAL(f.drop_nth, 7);
    CU_ASSERT_EQUAL(f.seed, 9);
    lci_fault_config_t before = f;
    CU_ASSERT_EQUAL(lci_fault_parse("drop=2", &f, err, sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "[0,1]"));
    CU_ASSERT_EQUAL(lci_fault_parse("smoke=1", &f, err, sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected drop"));
    CU_ASSERT_EQUAL(lci_fault_parse("drop", &f, err, sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT_EQUAL(memcmp(&f, &before, sizeof f), 0); /* nothing changed */
}

static void options_reject_bad_values_naming_the_option(void)
{
    lci_options_t opt;
    char err[512];
    lci_options_defaults(&opt);
    CU_ASSERT_EQUAL(lci_options_set(&opt, "nodes", "64", err, sizeof err),
                    LCI_OK);
    CU_ASSERT_EQUAL(opt.cfg.nnodes, 64);
    CU_ASSERT_EQUAL(lci_options_set(&opt, "packet-size", "2048", err,
                                    sizeof err),
                    LCI_OK);
    CU_ASSERT_EQUAL(opt.cfg.nsend, 64); /* Table 3 pools follow the size */
    CU_ASSERT_EQUAL(opt.cfg.nnodes, 64);
    CU_ASSERT_EQUAL(lci_options_set(&opt, "nodes", "0", err, sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "nodes:"));
    CU_ASSERT_EQUAL(lci_options_set(&opt, "compute", "fast", err, sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "'zero' or 'scaled'"));
    CU_ASSERT_EQUAL(lci_options_set(&opt, "colour", "red", err, sizeof err),
                    LCI_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown option"));
}

/* The packet size moves only the Table 3 pools: options given before it
 * keep their values, and pools given explicitly stay as given. */
static void options_keep_their_values_whatever_the_packet_size_order(void)
{
    lci_options_t opt;
    char err[512];
    lci_options_defaults(&opt);
    CU_ASSERT_EQUAL(lci_options_set(&opt, "sram", "64M", err, sizeof err),
                    LCI_OK);
    CU_ASSERT_EQUAL(lci_options_set(&opt, "ring", "512", err, sizeof err),
                    LCI_OK);
    CU_ASSERT_EQUAL(lci_options_set(&opt, "recv-buffers", "100", err,
                                    sizeof err),
                    LCI_OK);
    CU_ASSERT_EQUAL(lci_options_set(&opt, "packet-size", "16384", err,
                                    sizeof err),
                    LCI_OK);
    CU_ASSERT_EQUAL(opt.cfg.packet_size, 16384);
    CU_ASSERT_EQUAL(opt.cfg.sram_bytes, 64u << 20);
    CU_ASSERT_EQUAL(opt.cfg.nring, 512);
    CU_ASSERT_EQUAL(opt.cfg.nrecv, 100); /* explicit */
    lci_options_defaults(&opt);
    CU_ASSERT_EQUAL(lci_options_set(&opt, "packet-size", "1024", err,
                                    sizeof err),
                    LCI_OK);
    CU_ASSERT_EQUAL(opt.cfg.nrecv, 512); /* Table 3, 1 KiB packets */
    CU_ASSERT_EQUAL(lci_options_set(&opt, "packet-size", "2048", err,
                                    sizeof err),
                    LCI_OK);
    CU_ASSERT_EQUAL(opt.cfg.nrecv, 256); /* Table 3, 2 KiB packets */
}

/* strtoull saturates a number beyond 2^64 and negates one with a sign or
 * leading blanks: each is an error naming the option, and nothing changes. */
static void options_reject_numbers_beyond_range_instead_of_saturating(void)
{
    static const struct {
        const char *name, *value;
    } cases[] = {
        {"seed", "99999999999999999999999"},
        {"seed", "18446744073709551616"},
        {"seed", " -1"},
        {"seed", "+5"},
        {"seed", " 5"},
        {"lookahead", "0x10000000000000000"},
        {"nodes", "4294967297"},
        {"sram", "18446744073709551615M"},
        {"events", ""},
        {"fault", ""},
        {"fault", "die=0@1ms,die=1@1ms"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lci_options_t opt, before;
        char err[512] = "";
        char name[64];
        lci_options_defaults(&opt);
        before = opt;
        CU_ASSERT_EQUAL(lci_options_set(&opt, cases[i].name, cases[i].value,
                                        err, sizeof err),
                        LCI_ERR_CONFIG);
        snprintf(name, sizeof name, "%s: ", cases[i].name);
        if (strncmp(err, name, strlen(name)) != 0) {
            printf("\n    %s=%s: %s\n", cases[i].name, cases[i].value, err);
        }
        CU_ASSERT_EQUAL(strncmp(err, name, strlen(name)), 0);
        CU_ASSERT_EQUAL(memcmp(&opt, &before, sizeof opt), 0);
    }
    /* The largest seed is still a seed. */
    lci_options_t opt;
    char err[512];
    lci_options_defaults(&opt);
    CU_ASSERT_EQUAL(lci_options_set(&opt, "seed", "18446744073709551615", err,
                                    sizeof err),
                    LCI_OK);
    CU_ASSERT_EQUAL(opt.cfg.seed, UINT64_MAX);
}

static void fifo_is_first_in_first_out_and_stack_last_in_first_out(void)
{
    lci_config_t cfg;
    char err[256];
    rxno_defaults(&cfg, 2, 1024);
    lci_config_finish(&cfg, err, sizeof err);
    lci_status_t st;
    lci_ni_t *ni = layout_ni(&cfg, cfg.sram_bytes, &st, err, sizeof err);
    CU_ASSERT_EQUAL_FATAL(st, LCI_OK);
    lci_ni_fifo_t *q = &ni->dma_wait;
    for (uint32_t i = 0; i < q->cap; i++) {
        CU_ASSERT_EQUAL(lci_ni_fifo_push(ni, q, 1000 + i), 0);
    }
    CU_ASSERT_EQUAL(lci_ni_fifo_push(ni, q, 1), -1); /* full */
    CU_ASSERT_EQUAL(lci_ni_fifo_pop(ni, q), 1000);
    CU_ASSERT_EQUAL(lci_ni_fifo_push(ni, q, 7), 0); /* wraps around */
    for (uint32_t i = 1; i < q->cap; i++) {
        CU_ASSERT_EQUAL(lci_ni_fifo_pop(ni, q), 1000 + i);
    }
    CU_ASSERT_EQUAL(lci_ni_fifo_pop(ni, q), 7);
    CU_ASSERT_EQUAL(lci_ni_fifo_pop(ni, q), LCI_NONE);
    /* The receive pool is a stack: the buffer freed last is reused first. */
    uint32_t a = lci_ni_stack_pop(ni, &ni->recv_free);
    uint32_t b = lci_ni_stack_pop(ni, &ni->recv_free);
    CU_ASSERT_NOT_EQUAL(a, b);
    lci_ni_fifo_push(ni, &ni->recv_free, a);
    CU_ASSERT_EQUAL(lci_ni_stack_pop(ni, &ni->recv_free), a);
    free(ni);
}

/* ---- RX_no on a two-node world, without the scheduler ------------------ */

static void *world_mem;
/* This test's view of the segment the library builds (lci_world.h). */
lci_world_t lci_world;

static lci_ni_t *two_node_world(uint32_t window)
{
    lci_config_t cfg;
    lci_profile_t prof;
    char err[512];
    rxno_defaults(&cfg, 2, 1024);
    cfg.window = window;
    lci_config_finish(&cfg, err, sizeof err);
    lci_profile_defaults(&prof);
    CU_ASSERT_EQUAL_FATAL(lci_decomp_select("rxno-mni", err, sizeof err),
                          LCI_OK);
    uint64_t events = 4096;
    uint64_t size = lci_world_size(&cfg, events);
    world_mem = aligned_alloc(4096, size);
    memset(world_mem, 0, size);
    CU_ASSERT_EQUAL_FATAL(lci_world_init(world_mem, size, &cfg, &prof, events,
                                         err, sizeof err),
                          LCI_OK);
    lci_world_view(world_mem);
    return lci_world_ni(0);
}

static void rx_send(lci_ni_t *ni, uint32_t buf)
{
    lci_env_t env = lci_place_ni_env(ni);
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof h);
    h.dst = 1;
    h.len = 8;
    h.type = LCI_PKT_DATA;
    *lci_ni_refcnt(ni, buf) = 1; /* the reference send() takes over */
    ni->fw_running = 1;          /* as inside a firmware handler */
    lci_decomp_current()->rx->ops.send(lci_place_ni_rx_state(ni), &env, buf,
                                       &h);
    ni->fw_running = 0;
}

static int rx_accept(lci_ni_t *ni, uint8_t type, uint16_t credits,
                     uint32_t buf, uint32_t status)
{
    lci_env_t env = lci_place_ni_env(ni);
    lci_wire_hdr_t h;
    memset(&h, 0, sizeof h);
    h.type = type;
    h.hop_src = 1;
    h.credits = credits;
    return lci_decomp_current()->rx->ops.accept(lci_place_ni_rx_state(ni), &env,
                                                buf, &h, status);
}

static void rx_released(lci_ni_t *ni)
{
    lci_env_t env = lci_place_ni_env(ni);
    lci_decomp_current()->rx->ops.released(lci_place_ni_rx_state(ni), &env, 1);
}

static void closed_window_queues_and_returned_credits_drain_in_order(void)
{
    lci_ni_t *ni = two_node_world(4);
    for (uint32_t b = 0; b < 6; b++) {
        rx_send(ni, b);
    }
    CU_ASSERT_EQUAL(ni->counters.pkts_sent_data, 4);
    CU_ASSERT_EQUAL(ni->counters.window_stalls, 2);
    /* One credit releases exactly one waiting packet. */
    CU_ASSERT_EQUAL(rx_accept(ni, LCI_PKT_CREDIT, 1, LCI_BUF_NONE, LCI_HW_OK), 0);
    CU_ASSERT_EQUAL(ni->counters.pkts_sent_data, 5);
    /* A seventh send must queue behind the sixth, even with a credit. */
    rx_send(ni, 6);
    CU_ASSERT_EQUAL(ni->counters.window_stalls, 3);
    /* Two credits piggybacked on a data packet release both, in order. */
    CU_ASSERT_EQUAL(rx_accept(ni, LCI_PKT_DATA, 2, ni->nsend, LCI_HW_OK), 1);
    CU_ASSERT_EQUAL(ni->counters.pkts_sent_data, 7);
    free(world_mem);
}

/* ---- ring releases: words in NI memory, read when needed ------------- */

/* Takes the earliest pending event as the scheduler would run it. */
static lci_event_t take_event(void)
{
    lci_seg_t *s = lci_seg();
    CU_ASSERT_FATAL(s->heap_count > 0);
    lci_event_t ev = lci_event_heap_pop(lci_world_heap(), &s->heap_count);
    s->event_seq = ev.seq;
    return ev;
}

/* Runs a doorbell event for node 0 at time t in place seq. */
static void doorbell_event_at(uint64_t t, uint64_t seq)
{
    lci_event_t ev = {.time = t, .seq = seq, .type = LCI_EV_DOORBELL};
    lci_seg()->event_seq = seq;
    lci_fw_on_doorbell(&ev);
}

static void ring_release_waits_in_ni_memory_until_the_ni_needs_space(void)
{
    lci_ni_t *ni = two_node_world(4);
    lci_seg_t *s = lci_seg();
    ni->ni_ring_limit = ni->ni_ring_prod; /* the host ring is full */
    uint32_t limit = ni->ni_ring_limit + 1;
    /* The host frees a slot; its word lands at 1 us.  The NI waits for no
     * space, so no event. */
    lci_platform_current()->doorbell(ni, 1000, LCI_EV_RING_UPDATE, limit);
    CU_ASSERT_EQUAL(s->heap_count, 0);
    CU_ASSERT_EQUAL(ni->ring_log_count, 1);
    CU_ASSERT_EQUAL(s->ring_logged, 1);
    /* At 0.5 us a packet must go up and finds no space: it waits, and the
     * pending release becomes the event its doorbell would have been. */
    ni->now = ni->run_time = 500;
    ni->run_seq = s->next_seq++;
    ni->fw_running = 1;
    lci_fw_deliver(ni, ni->nsend);
    ni->fw_running = 0;
    CU_ASSERT_EQUAL(ni->dma_wait.count, 1);
    CU_ASSERT_EQUAL(ni->ring_log_count, 0);
    CU_ASSERT_EQUAL_FATAL(s->heap_count, 1);
    lci_event_t ev = take_event();
    CU_ASSERT_EQUAL(ev.type, LCI_EV_RING_UPDATE);
    CU_ASSERT_EQUAL(ev.time, 1000);
    CU_ASSERT_EQUAL(ev.a, limit);
    /* At 1 us the slot is free: the packet's host DMA starts then, not at
     * 0.5 us. */
    lci_event_handler(ev.type)(&ev);
    CU_ASSERT_EQUAL(ni->dma_wait.count, 0);
    CU_ASSERT_EQUAL(ni->ni_ring_prod, limit);
    CU_ASSERT(ni->hdma_free >= 1000 + (uint64_t)lci_prof()->ni_dma_setup_ns);
    free(world_mem);
}

static void ring_release_is_seen_in_the_order_its_event_would_have_had(void)
{
    lci_ni_t *ni = two_node_world(4);
    lci_seg_t *s = lci_seg();
    uint32_t limit = ni->ni_ring_limit + 3;
    s->next_seq = 100; /* as after a hundred events: room for earlier ones */
    uint64_t seq = s->next_seq;
    lci_platform_current()->doorbell(ni, 2000, LCI_EV_RING_UPDATE, limit);
    CU_ASSERT_EQUAL_FATAL(ni->ring_log_count, 1);
    /* Firmware running before the word lands does not see it: earlier... */
    doorbell_event_at(1999, seq + 1);
    CU_ASSERT_EQUAL(ni->ring_log_count, 1);
    /* ...or at the same time, in an event posted before the host wrote. */
    doorbell_event_at(2000, seq - 1);
    CU_ASSERT_EQUAL(ni->ring_log_count, 1);
    CU_ASSERT_NOT_EQUAL(ni->ni_ring_limit, limit);
    /* In an event after it, at that time, it does. */
    doorbell_event_at(2000, seq + 1);
    CU_ASSERT_EQUAL(ni->ring_log_count, 0);
    CU_ASSERT_EQUAL(ni->ni_ring_limit, limit);
    /* An older word taken in late never lowers what the NI knows. */
    lci_event_t old = {.time = 2000, .seq = seq + 2,
                       .type = LCI_EV_RING_UPDATE, .a = limit - 2};
    lci_event_handler(old.type)(&old);
    CU_ASSERT_EQUAL(ni->ni_ring_limit, limit);
    free(world_mem);
}

/* A run posted for a time the processor has since become busy past must
 * not do, inside that earlier event, work that belongs after the events
 * in between: it waits for the processor. */
static void firmware_run_waits_for_a_processor_busy_past_it(void)
{
    lci_ni_t *ni = two_node_world(4);
    lci_seg_t *s = lci_seg();
    uint32_t buf = ni->nsend; /* a receive buffer a transmission freed */
    *lci_ni_refcnt(ni, buf) = 1;
    lci_ni_fifo_push(ni, &ni->tx_freed, buf);
    lci_platform_current()->post(1000, LCI_EV_FW_RUN, 0, 0, 0);
    ni->fw_sched_time = 1000;
    ni->cpu_free = 3000; /* other work meanwhile, until 3 us */
    s->horizon = 2000;   /* a host may act from 2 us on */
    lci_event_t ev = take_event();
    lci_event_handler(ev.type)(&ev);
    CU_ASSERT_EQUAL(ni->tx_freed.count, 1); /* nothing done at 1 us */
    CU_ASSERT_EQUAL_FATAL(s->heap_count, 1);
    ev = take_event();
    CU_ASSERT_EQUAL(ev.type, LCI_EV_FW_RUN);
    CU_ASSERT_EQUAL(ev.time, 3000);
    lci_event_handler(ev.type)(&ev);
    CU_ASSERT_EQUAL(ni->tx_freed.count, 0); /* done at 3 us */
    CU_ASSERT_EQUAL(ni->cpu_free, 3000 + (uint64_t)lci_prof()->ni_credit_ns);
    /* When nothing can come first (no event, no host before 5 us), the
     * run does it at once, at the time the processor is free. */
    lci_ni_fifo_push(ni, &ni->tx_freed, buf);
    *lci_ni_refcnt(ni, buf) = 1;
    lci_platform_current()->post(3100, LCI_EV_FW_RUN, 0, 0, 0);
    ni->fw_sched_time = 3100;
    ni->cpu_free = 4000;
    s->horizon = 5000;
    ev = take_event();
    lci_event_handler(ev.type)(&ev);
    CU_ASSERT_EQUAL(ni->tx_freed.count, 0);
    CU_ASSERT(ni->cpu_free >= 4000 + (uint64_t)lci_prof()->ni_credit_ns);
    for (uint64_t i = 0; i < s->heap_count; i++) {
        CU_ASSERT_NOT_EQUAL(lci_world_heap()[i].type, LCI_EV_FW_RUN);
    }
    free(world_mem);
}

static void freed_buffers_ride_on_reverse_traffic_or_a_half_window_ack(void)
{
    lci_ni_t *ni = two_node_world(8);
    rx_released(ni);
    rx_released(ni);
    CU_ASSERT_EQUAL(ni->counters.pkts_sent_ack, 0);
    rx_send(ni, 0); /* carries the two freed buffers back */
    rx_released(ni);
    rx_released(ni);
    CU_ASSERT_EQUAL(ni->counters.pkts_sent_ack, 0); /* 2 < W/2 since then */
    rx_released(ni);
    rx_released(ni);
    CU_ASSERT_EQUAL(ni->counters.pkts_sent_ack, 1); /* W/2 = 4 released */
    free(world_mem);
}

static void any_hardware_fault_stops_rx_no_and_delivers_nothing(void)
{
    static const uint32_t faults[] = {LCI_HW_CRC, LCI_HW_SEQ_GAP,
                                      LCI_HW_SEQ_DUP};
    static const uint32_t expect[] = {LCI_FW_RXNO_CRC, LCI_FW_RXNO_LOST,
                                      LCI_FW_RXNO_DUP};
    for (int i = 0; i < 3; i++) {
        lci_ni_t *ni = two_node_world(8);
        CU_ASSERT_EQUAL(rx_accept(ni, LCI_PKT_DATA, 0, ni->nsend, faults[i]),
                        0);
        CU_ASSERT_EQUAL(ni->fault, expect[i]);
        CU_ASSERT_EQUAL(ni->fault_a, 1);
        CU_ASSERT_EQUAL(lci_fw_fault_status(ni->fault), LCI_ERR_PROTOCOL);
        free(world_mem);
    }
    /* A data packet the NI had no buffer for breaks RX_no's promise too. */
    lci_ni_t *ni = two_node_world(8);
    CU_ASSERT_EQUAL(rx_accept(ni, LCI_PKT_DATA, 0, LCI_BUF_NONE, LCI_HW_OK), 0);
    CU_ASSERT_EQUAL(ni->fault, LCI_FW_RXNO_NOBUF);
    free(world_mem);
}

/* The receiving link hardware stores an intact packet in a receive buffer
 * whatever its link sequence says (the packet after a loss may be just
 * the retransmission a go-back-N receiver waits for), and a damaged one
 * never. */
static void link_stores_intact_packets_after_a_gap_never_damaged_ones(void)
{
    lci_ni_t *ni = two_node_world(8), *from = lci_world_ni(1);
    static const char payload[8] = "payload";
    unsigned char pkt[256];
    lci_wire_hdr_t h, got;
    uint32_t buf;
    memset(&h, 0, sizeof h);
    h.type = LCI_PKT_DATA;
    h.len = sizeof payload;
    h.dst = 0;
    h.hop_src = 1;
    uint32_t bytes = lci_hw_frame(from, &h, payload, pkt, 1);
    CU_ASSERT_EQUAL(lci_hw_rx_frame(ni, 0, pkt, bytes, 1, &got, &buf),
                    LCI_HW_OK);
    CU_ASSERT_NOT_EQUAL(buf, LCI_NONE);
    lci_hw_frame(from, &h, payload, pkt, 1); /* lost on the way */
    bytes = lci_hw_frame(from, &h, payload, pkt, 1);
    CU_ASSERT_EQUAL(lci_hw_rx_frame(ni, 0, pkt, bytes, 1, &got, &buf),
                    LCI_HW_SEQ_GAP);
    CU_ASSERT_NOT_EQUAL_FATAL(buf, LCI_NONE);
    CU_ASSERT_EQUAL(memcmp(lci_ni_buf(ni, buf) + sizeof h, payload,
                           sizeof payload),
                    0);
    CU_ASSERT_EQUAL(lci_hw_rx_frame(ni, 0, pkt, bytes, 1, &got, &buf),
                    LCI_HW_SEQ_DUP); /* the same bytes again */
    CU_ASSERT_NOT_EQUAL(buf, LCI_NONE);
    bytes = lci_hw_frame(from, &h, payload, pkt, 1);
    pkt[bytes - 1] ^= 0x10; /* damaged */
    CU_ASSERT_EQUAL(lci_hw_rx_frame(ni, 0, pkt, bytes, 1, &got, &buf),
                    LCI_HW_CRC);
    CU_ASSERT_EQUAL(buf, LCI_NONE);
    free(world_mem);
}

/* The link writes a packet's CRC field itself, never the header's: a
 * header taken from an arrival on the live wire carries the slot's stamp
 * there, which framed in a slot could pass for the next packet's stamp
 * (lci_live_shm.c).  Without CRC the field is zero; with, the CRC. */
static void link_writes_the_crc_field_not_the_headers(void)
{
    lci_ni_t *ni = two_node_world(8), *from = lci_world_ni(1);
    static const char payload[8] = "payload";
    unsigned char pkt[256];
    lci_wire_hdr_t h, got;
    uint32_t buf, first;
    memset(&h, 0, sizeof h);
    h.type = LCI_PKT_DATA;
    h.len = sizeof payload;
    h.dst = 0;
    h.crc = 0x80ab0028u; /* a compact stamp, as an arrival would carry */
    memset(pkt, 0xff, sizeof pkt);
    uint32_t bytes = lci_hw_frame(from, &h, payload, pkt, 0);
    memcpy(&first, pkt, sizeof first);
    CU_ASSERT_EQUAL(first, 0);
    CU_ASSERT_EQUAL(lci_hw_rx_frame(ni, 0, pkt, bytes, 0, &got, &buf),
                    LCI_HW_OK);
    bytes = lci_hw_frame(from, &h, payload, pkt, 1);
    memcpy(&first, pkt, sizeof first);
    CU_ASSERT_NOT_EQUAL(first, h.crc);
    CU_ASSERT_EQUAL(lci_hw_rx_frame(ni, 0, pkt, bytes, 1, &got, &buf),
                    LCI_HW_OK);
    free(world_mem);
}

int main(void)
{
    static const lci_unit_test_t tests[] = {
        {"link_writes_the_crc_field_not_the_headers",
         link_writes_the_crc_field_not_the_headers},
        {"link_stores_intact_packets_after_a_gap_never_damaged_ones",
         link_stores_intact_packets_after_a_gap_never_damaged_ones},
        {"table3_configurations_fit_in_one_mib_of_sram",
         table3_configurations_fit_in_one_mib_of_sram},
        {"sram_too_small_is_a_config_error_with_the_numbers",
         sram_too_small_is_a_config_error_with_the_numbers},
        {"window_follows_receive_pool_and_node_count",
         window_follows_receive_pool_and_node_count},
        {"fault_specifications_parse_or_say_what_was_expected",
         fault_specifications_parse_or_say_what_was_expected},
        {"options_reject_bad_values_naming_the_option",
         options_reject_bad_values_naming_the_option},
        {"options_reject_numbers_beyond_range_instead_of_saturating",
         options_reject_numbers_beyond_range_instead_of_saturating},
        {"options_keep_their_values_whatever_the_packet_size_order",
         options_keep_their_values_whatever_the_packet_size_order},
        {"fifo_is_first_in_first_out_and_stack_last_in_first_out",
         fifo_is_first_in_first_out_and_stack_last_in_first_out},
        {"closed_window_queues_and_returned_credits_drain_in_order",
         closed_window_queues_and_returned_credits_drain_in_order},
        {"freed_buffers_ride_on_reverse_traffic_or_a_half_window_ack",
         freed_buffers_ride_on_reverse_traffic_or_a_half_window_ack},
        {"any_hardware_fault_stops_rx_no_and_delivers_nothing",
         any_hardware_fault_stops_rx_no_and_delivers_nothing},
        {"ring_release_waits_in_ni_memory_until_the_ni_needs_space",
         ring_release_waits_in_ni_memory_until_the_ni_needs_space},
        {"ring_release_is_seen_in_the_order_its_event_would_have_had",
         ring_release_is_seen_in_the_order_its_event_would_have_had},
        {"firmware_run_waits_for_a_processor_busy_past_it",
         firmware_run_waits_for_a_processor_busy_past_it},
    };
    /* These tests drive RX_no on rxno-mni: skip (77) in a build that
     * offers it neither built in nor as a module (configure --with-decomp). */
    char err[1024];
    if (lci_decomp_select("rxno-mni", err, sizeof err) != LCI_OK) {
        printf("ni: SKIPPED: %s\n", err);
        return 77;
    }
    return lci_unit_run("ni", tests, LCI_UNIT_COUNT(tests));
}
