/* fuzz_fw.c - libFuzzer harness for the receive path behind the UDP wire's
 * gate: what a node of the job itself may send (a bug, or a node gone bad)
 * reaching the link hardware (lci_hw_rx_frame: CRC, link sequence, buffer)
 * and the firmware (header checks, the decomposition's reliability and
 * multicast protocols).  A two-node world per input, on a platform of the
 * harness's own: the firmware's work items run at once, everything else it
 * schedules is dropped, and a run it stops (RX_no seeing a gap, say)
 * returns here.  The input: a decomposition (first byte), then packets to
 * node 0 from node 1:
 *
 *   flags (bit 0: stamp a valid CRC) | length u16 | bytes
 *
 * Beyond the sanitizers: nothing here may crash, hang or overflow a queue
 * of the NI; a malformed packet is dropped and counted. */
#include "config.h"

#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lci_config.h"
#include "lci_crc.h"
#include "lci_decomp.h"
#include "lci_fw.h"
#include "lci_hw.h"
#include "lci_hw_sink.h"
#include "lci_platform.h"
#include "lci_profile.h"
#include "lci_sched.h"
#include "lci_world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static jmp_buf stopped;
static lci_event_t queue[4096];
static unsigned nqueue;

static void fz_post(uint64_t time, uint16_t type, uint32_t node, uint32_t a,
                    uint64_t b)
{
    if (type == LCI_EV_FW_RUN && node == 0 && nqueue < 4096) {
        queue[nqueue++] = (lci_event_t){
            .time = time, .type = type, .node = (uint16_t)node, .a = a,
            .b = b};
    }
}

static int fz_can_run_now(uint64_t t)
{
    (void)t;
    return 0;
}

static void fz_trace(uint64_t t, uint16_t type, uint32_t node)
{
    (void)t;
    (void)type;
    (void)node;
}

static void fz_wake(uint32_t node, uint64_t time)
{
    (void)node;
    (void)time;
}

static void fz_transmit(struct lci_ni *ni, uint64_t now,
                        const lci_wire_hdr_t *hdr, const void *payload,
                        uint32_t buf)
{
    (void)hdr;
    (void)payload;
    if (buf != LCI_NONE) {
        lci_hw_sink->tx_done(ni, now, buf); /* sent into the void */
    }
}

static lci_status_t fz_attach(uint32_t self, char *err, size_t errlen)
{
    (void)self;
    (void)err;
    (void)errlen;
    return LCI_OK;
}

static void fz_self(uint32_t self)
{
    (void)self;
}

static int fz_wait(uint32_t self, lci_host_status_t how)
{
    (void)self;
    (void)how;
    return 1;
}

static void fz_doorbell(struct lci_ni *ni, uint64_t at, uint16_t type,
                        uint32_t a)
{
    (void)ni;
    (void)at;
    (void)type;
    (void)a;
}

static void fz_post_written(uint64_t time, uint64_t seq, uint16_t type,
                            uint32_t node, uint32_t a)
{
    (void)seq;
    fz_post(time, type, node, a, 0);
}

static uint64_t fz_event_seq(void)
{
    return UINT64_MAX;
}

static void fz_send_buffer_reused(lci_ni_t *ni, uint32_t buf)
{
    (void)ni;
    (void)buf;
}

static uint64_t fz_now(uint32_t self)
{
    (void)self;
    return 0;
}

static void fz_charge(uint32_t self, uint64_t ns,
                      const lci_platform_timers_t *timers)
{
    (void)self;
    (void)ns;
    (void)timers;
}

static void fz_stall(uint32_t self, uint64_t ns)
{
    (void)self;
    (void)ns;
}

static __attribute__((noreturn)) void fz_die(uint32_t self,
                                            void (*release)(void))
{
    (void)self;
    (void)release;
    abort();
}

static void fz_failed(int node, const char *msg)
{
    (void)node;
    (void)msg;
    longjmp(stopped, 1); /* stopped loudly, as it should */
}

static const lci_platform_ops_t fz_platform = {
    .name = "fuzz",
    .description = "one NI's firmware, work items run at once",
    .abi_version = LCI_PLATFORM_ABI_VERSION,
    .post = fz_post,
    .post_written = fz_post_written,
    .can_run_now = fz_can_run_now,
    .event_seq = fz_event_seq,
    .trace = fz_trace,
    .wake = fz_wake,
    .wake_arrival = fz_wake,
    .transmit = fz_transmit,
    .attach = fz_attach,
    .start = fz_self,
    .sync = fz_self,
    .wait = fz_wait,
    .exit = fz_self,
    .doorbell = fz_doorbell,
    .send_buffer_reused = fz_send_buffer_reused,
    .enter = fz_self,
    .leave = fz_self,
    .now = fz_now,
    .charge = fz_charge,
    .compute = fz_charge,
    .stall = fz_stall,
    .die = fz_die,
    .failed = fz_failed,
};

static const char *const decomps[] = {"rxno-mni",       "rxno-mh",
                                      "rxni-mni",       "rxni-mh",
                                      "rxh-mh",         "rxni-mni-vmmc2",
                                      "rxni-mh-vmmc2",  "rxh-mh-vmmc2",
                                      "rxh-mh-ssam",    "rxni-mni-am2",
                                      "rxni-mni-srd",   "rxh-mni"};

static void *world_mem;
static uint64_t world_bytes;

static lci_ni_t *two_node_world(const char *decomp)
{
    lci_config_t cfg;
    lci_profile_t prof;
    char err[512];
    lci_config_defaults(&cfg, 2, 1024);
    snprintf(cfg.decomp, sizeof cfg.decomp, "%s", decomp);
    if (lci_config_finish(&cfg, err, sizeof err) != LCI_OK ||
        lci_decomp_select(decomp, err, sizeof err) != LCI_OK) {
        abort();
    }
    lci_profile_defaults(&prof);
    uint64_t size = lci_world_size(&cfg, 4096);
    if (world_mem == NULL) {
        world_bytes = size;
        world_mem = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
    }
    if (world_mem == NULL || size > world_bytes) {
        abort();
    }
    memset(world_mem, 0, size);
    if (lci_world_init(world_mem, size, &cfg, &prof, 4096, err, sizeof err) !=
        LCI_OK) {
        abort();
    }
    return lci_world_ni(0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned char pkt[2048];
    static size_t at;
    static uint64_t now;
    if (size < 1) {
        return 0;
    }
    lci_fw_sink_register();
    lci_platform = &fz_platform;
    lci_ni_t *ni = two_node_world(decomps[data[0] % (sizeof decomps / sizeof *decomps)]);
    nqueue = 0;
    now = 1000;
    if (setjmp(stopped) != 0) {
        return 0;
    }
    for (at = 1; at + 3 <= size;) {
        uint8_t flags = data[at];
        size_t len = (size_t)(data[at + 1] | data[at + 2] << 8) % sizeof pkt;
        at += 3;
        if (len > size - at) {
            len = size - at;
        }
        memcpy(pkt, data + at, len);
        at += len;
        if ((flags & 1) && len >= 4) {
            uint32_t crc = lci_crc32(pkt + 4, len - 4);
            memcpy(pkt, &crc, 4);
        }
        lci_wire_hdr_t hdr;
        uint32_t buf;
        uint32_t status =
            lci_hw_rx_frame(ni, now, pkt, (uint32_t)len, 1, &hdr, &buf);
        ni->counters.pkts_recv++;
        lci_hw_sink->arrived(ni, now, &hdr, buf, status, 1);
        lci_hw_sink->fault_check(0);
        /* the firmware's work items, in order, until it is idle */
        for (unsigned i = 0; i < nqueue && i < 4096; i++) {
            lci_event_t ev = queue[i];
            if (ev.time > now) {
                now = ev.time;
            }
            lci_fw_on_run(&ev);
            lci_hw_sink->fault_check(0);
        }
        nqueue = 0;
        now += 1000;
    }
    return 0;
}
