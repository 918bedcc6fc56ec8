/*
 * lci_init.c - starting and stopping a node: attaching to the cluster's
 * shared segment (or, run without lci-run, simulating a one-node cluster),
 * time accounting, and the small queries.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lci_compute_clock.h"
#include "lci_decomp.h"
#include "lci_engine.h"
#include "lci_host.h"
#include "lci_live.h"
#include "lci_options.h"
#include "lci_platform.h"
#include "lci_reorder.h"
#include "lci_timeline.h"

static lci_host_t host_initial;
lci_host_t *lci_host = &host_initial;

/* The host library's memory, at lci_finalize or when the node dies. */
static void host_release(void)
{
    lci_host->inited = 0;
    free(lci_host->hbuf_kept);
    free(lci_host->slot_taken);
    free(lci_host->rpackets);
    free(lci_host->packets);
    free(lci_host->spare);
    free(lci_host->unreachable);
    lci_reorder_free(lci_host->reorder);
    lci_host->reorder = NULL;
    lci_host_place_fini();
}

/* Fault injection on the host: a host that stops polling for a while
 * (it computes), and a node that dies. */
static void host_faults(void)
{
    const lci_fault_config_t *f = &lci_seg()->cfg.fault;
    uint64_t now = lci_host->hs->clock;
    if (f->nopoll.dur > 0 && f->nopoll.a == lci_host->rank &&
        !lci_host->nopoll_done && now >= f->nopoll.start) {
        lci_host->nopoll_done = 1;
        lci_platform->stall(lci_host->rank, f->nopoll.dur);
        return;
    }
    if (f->die.dur > 0 && f->die.a == lci_host->rank && now >= f->die.start) {
        /* The node dies: it takes no further part, and its NI is dead
         * from the same moment (core/hw). */
        lci_host->hs->died = 1;
        lci_platform->die(lci_host->rank, host_release);
    }
}

/* Only the outermost entry counts: the library entering itself (a send
 * inside a poll, say) does not mean the host had stopped polling. */
static void host_entered(void)
{
    if (!lci_host->in_lci) {
        lci_host->in_lci = 1;
        lci_host->entered_at = lci_host->hs->clock;
    }
}

/* The soft timers a computation must let run (the platform's charge and
 * compute operations). */
static const lci_platform_timers_t host_timers = {
    .due = lci_host_clock_interrupt_at,
    .fire = lci_host_clock_interrupt,
};

void lci_host_account(void)
{
    lci_platform->enter(lci_host->rank);
    lci_host_step();
    if (!lci_host->scaled || lci_host->in_lci) {
        host_entered(); /* inner entries: the library's own work */
        return;
    }
    uint64_t delta = lci_compute_clock_stop();
    uint64_t charged = (uint64_t)((double)delta * lci_host->prof->host_speed);
    if (charged > 0) {
        lci_platform->charge(lci_host->rank, charged, &host_timers);
        lci_host->computed_since_poll = 1;
    }
    host_entered();
}

void lci_host_step(void)
{
    if (lci_host->host_faults) {
        host_faults();
    }
}

void lci_host_charge_ns(const char *what, uint64_t n)
{
    lci_timeline_span(lci_host->rank, LCI_TRACK_HOST, what, lci_host->hs->clock,
                      lci_host->hs->clock + n);
    lci_host->hs->clock += n;
    lci_host->hs->busy_ns += n;
}

int lci_host_enter(void)
{
    lci_host_account();
    lci_platform->sync(lci_host->rank);
    lci_host_timers_run(); /* soft timers: polled on every LCI call */
    lci_ni_t *ni = lci_host->ni;
    if (ni->ni_intr_pending && ni->ni_intr_time <= lci_host->hs->clock &&
        !lci_host->in_upcall) {
        /* A network interrupt: taken here, at the next LCI call. */
        ni->ni_intr_pending = 0;
        lci_host_charge("intr", lci_host->prof->host_intr_ns);
        uint64_t next;
        return lci_host_deliver(&next);
    }
    return 0;
}

/* The client's upcall is application code: with --compute scaled its
 * computation is charged like the computation between LCI calls (an LCI
 * call it makes charges the part before it, as usual). */
void lci_host_upcall_begin(void)
{
    if (lci_seg()->cfg.compute == LCI_COMPUTE_SCALED) {
        lci_host->in_lci = 0;
        lci_compute_clock_start();
    }
}

void lci_host_upcall_end(void)
{
    if (lci_seg()->cfg.compute == LCI_COMPUTE_SCALED && !lci_host->in_lci) {
        uint64_t charged = (uint64_t)((double)lci_compute_clock_stop() *
                                      lci_host->prof->host_speed);
        lci_timeline_span(lci_host->rank, LCI_TRACK_HOST, "upcall",
                          lci_host->hs->clock, lci_host->hs->clock + charged);
        lci_host->hs->clock += charged;
        host_entered();
    }
}

void lci_host_leave(void)
{
    lci_host->left_at = lci_host->hs->clock; /* the host stops polling here */
    if (!lci_host->in_upcall && !lci_host->delivering) {
        /* Only the outermost call lets the NIC thread in: a send from an
         * upcall returns into a delivery still under way. */
        lci_platform->leave(lci_host->rank);
    }
    lci_host->in_lci = 0;
    if (lci_host->scaled) {
        lci_compute_clock_start();
    }
}

void lci_host_post_ni(uint16_t type, uint32_t a)
{
    lci_platform->doorbell(lci_host->ni,
                           lci_host->hs->clock +
                               (uint64_t)lci_host->prof->host_doorbell_ns,
                           type, a);
}

/* Removes --lci-NAME=VALUE arguments; under lci-run they are refused since
 * the cluster's configuration is fixed by lci-run. */
static lci_status_t take_args(int *argc, char ***argv, lci_options_t *opt,
                              int apply)
{
    if (argc == NULL || argv == NULL || *argv == NULL) {
        return LCI_OK;
    }
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        char *a = (*argv)[i];
        if (strncmp(a, "--lci-", 6) != 0) {
            (*argv)[out++] = a;
            continue;
        }
        char name[64];
        const char *eq = strchr(a + 6, '=');
        size_t len = eq ? (size_t)(eq - (a + 6)) : strlen(a + 6);
        if (len >= sizeof name) {
            len = sizeof name - 1;
        }
        memcpy(name, a + 6, len);
        name[len] = '\0';
        if (!apply) {
            return lci_error(LCI_ERR_CONFIG,
                             "lci_init: %s must be given to lci-run as "
                             "--%s, not to the program",
                             a, name);
        }
        char err[600];
        lci_status_t st =
            lci_options_set(opt, name, eq ? eq + 1 : NULL, err, sizeof err);
        if (st != LCI_OK) {
            return lci_error(st, "lci_init: %s", err);
        }
    }
    (*argv)[out] = NULL;
    *argc = out;
    return LCI_OK;
}

/* Without lci-run: a private one-node cluster; or, under mpirun or srun,
 * this process's node of a live cluster. */
static lci_status_t standalone_world(int *argc, char ***argv)
{
    lci_options_t opt;
    char err[600];
    lci_options_defaults(&opt);
    lci_status_t st = lci_options_from_env(&opt, err, sizeof err);
    if (st != LCI_OK) {
        return lci_error(st, "lci_init: %s", err);
    }
    st = take_args(argc, argv, &opt, 1);
    if (st != LCI_OK) {
        return st;
    }
    /* Started by mpirun or srun: a live node over UDP, rank and size from
     * the launcher through PMIx. */
    uint32_t rank = 0;
    int pmix = lci_live_pmix_launched();
    if (pmix) {
        st = lci_live_pmix_init(&rank, &opt.cfg.nnodes, err, sizeof err);
        if (st != LCI_OK) {
            return lci_error(st, "lci_init: %s", err);
        }
        snprintf(opt.cfg.platform, sizeof opt.cfg.platform, "live");
        opt.cfg.wire = LCI_WIRE_UDP;
        opt.cfg.compute = LCI_COMPUTE_ZERO;
    }
    if (!pmix) {
        /* Without a launcher, a one-node cluster is always simulated. */
        snprintf(opt.cfg.platform, sizeof opt.cfg.platform, "sim");
    }
    if (opt.cfg.nnodes != 1 && !pmix) {
        return lci_error(LCI_ERR_CONFIG,
                         "lci_init: %u nodes requested; start the program "
                         "with lci-run -n %u",
                         opt.cfg.nnodes, opt.cfg.nnodes);
    }
    lci_profile_t prof;
    st = lci_profile_load(opt.profile, &prof, err, sizeof err);
    if (st == LCI_OK) {
        st = lci_config_finish(&opt.cfg, err, sizeof err);
    }
    if (st == LCI_OK) {
        st = lci_decomp_select(opt.cfg.decomp, err, sizeof err);
    }
    if (st == LCI_OK) {
        st = lci_platform_select(opt.cfg.platform, err, sizeof err);
    }
    if (st != LCI_OK) {
        return lci_error(st, "lci_init: %s", err);
    }
    if (pmix) {
        lci_live_profile(&prof); /* real time: no charges */
    }
    opt.events = pmix ? 16 : 1u << 16;
    uint64_t size = lci_world_size(&opt.cfg, opt.events);
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        return lci_error(LCI_ERR_NOMEM, "lci_init: cannot map %llu bytes: %s",
                         (unsigned long long)size, strerror(errno));
    }
    st = lci_world_init(base, size, &opt.cfg, &prof, opt.events, err,
                        sizeof err);
    if (st != LCI_OK) {
        munmap(base, size);
        return lci_error(st, "lci_init: %s", err);
    }
    atomic_store(&lci_world_host(0)->go, 1);
    lci_host->standalone = 1;
    lci_host->seg_base = base;
    lci_host->seg_size = size;
    lci_host->rank = rank;
    st = lci_platform->attach(rank, err, sizeof err);
    if (st != LCI_OK) {
        return lci_error(st, "lci_init: %s", err);
    }
    return LCI_OK;
}

static lci_status_t attach_world(const char *fd_text, int *argc, char ***argv)
{
    lci_status_t st = take_args(argc, argv, NULL, 0);
    if (st != LCI_OK) {
        return st;
    }
    if (lci_engine->running() >= 0) {
        /* Several nodes in this process: the engine attached the segment
         * and says which node this is. */
        lci_host->rank = (uint32_t)lci_engine->running();
        char *e = lci_host->last_error;
        size_t elen = sizeof lci_host->last_error;
        return lci_decomp_select(lci_seg()->cfg.decomp, e, elen) == LCI_OK &&
                       lci_platform_select(lci_seg()->cfg.platform, e,
                                           elen) == LCI_OK &&
                       lci_platform->attach(lci_host->rank, e, elen) == LCI_OK
                   ? LCI_OK
                   : LCI_ERR_CONFIG;
    }
    int fd = atoi(fd_text);
    const char *rank_text = getenv("LCI_RANK");
    struct stat sb;
    if (rank_text == NULL || fstat(fd, &sb) != 0) {
        return lci_error(LCI_ERR_PLATFORM,
                         "lci_init: LCI_SIM_FD=%s is set but the segment or "
                         "LCI_RANK is missing",
                         fd_text);
    }
    void *base = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE,
                      MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        return lci_error(LCI_ERR_PLATFORM, "lci_init: cannot map segment: %s",
                         strerror(errno));
    }
    close(fd);
    if (lci_world_attach(base) != LCI_OK) {
        return lci_error(LCI_ERR_PLATFORM, "lci_init: not an LCI segment");
    }
    char err[600];
    st = lci_decomp_select(lci_seg()->cfg.decomp, err, sizeof err);
    if (st != LCI_OK) {
        return lci_error(st, "lci_init: %s", err);
    }
    lci_host->seg_base = base;
    lci_host->seg_size = (uint64_t)sb.st_size;
    lci_host->rank = (uint32_t)atoi(rank_text);
    if (lci_host->rank >= lci_seg()->cfg.nnodes) {
        return lci_error(LCI_ERR_PLATFORM, "lci_init: LCI_RANK %s out of range",
                         rank_text);
    }
    st = lci_platform_select(lci_seg()->cfg.platform, err, sizeof err);
    if (st == LCI_OK) {
        st = lci_platform->attach(lci_host->rank, err, sizeof err);
    }
    if (st != LCI_OK) {
        return lci_error(st, "lci_init: %s", err);
    }
    return LCI_OK;
}

lci_status_t lci_init(int *argc, char ***argv)
{
    lci_status_t st = lci_node_local((void **)&lci_host, sizeof *lci_host);
    if (st != LCI_OK) {
        return st;
    }
    if (lci_host->inited) {
        return lci_error(LCI_ERR_STATE, "lci_init: already initialised");
    }
    memset(lci_host, 0, sizeof *lci_host);
    const char *fd_text = getenv("LCI_SIM_FD");
    st = fd_text ? attach_world(fd_text, argc, argv)
                              : standalone_world(argc, argv);
    if (st != LCI_OK) {
        return st;
    }
    if (lci_timeline_open() != 0) {
        return lci_error(LCI_ERR_PLATFORM,
                         "lci_init: cannot open the timeline %s: %s",
                         getenv(LCI_TIMELINE_ENV), strerror(errno));
    }
    lci_seg_t *s = lci_seg();
    lci_host->size = s->cfg.nnodes;
    lci_host->ni = lci_world_ni(lci_host->rank);
    lci_host->hs = lci_world_host(lci_host->rank);
    lci_host->hs->pid = (int32_t)getpid();
    lci_host->prof = &s->prof;
    /* Asked on every entry and exit: decided once. */
    lci_host->scaled = s->cfg.compute == LCI_COMPUTE_SCALED;
    lci_host->host_faults =
        s->cfg.fault.nopoll.dur > 0 || s->cfg.fault.die.dur > 0;
    if (lci_host->scaled) {
        lci_compute_clock_init(lci_platform != &lci_platform_sim ||
                               lci_engine->thread_sleeps);
    }
    uint32_t nring = s->cfg.nring, nsend = s->cfg.nsend;
    lci_host->hbuf_kept = calloc(nring, 1);
    lci_host->slot_taken = calloc(nring, 1);
    lci_host->rpackets = calloc(nring, sizeof *lci_host->rpackets);
    lci_host->packets = calloc(nsend, sizeof *lci_host->packets);
    lci_host->spare = calloc(nsend, sizeof *lci_host->spare);
    lci_host->unreachable = calloc(s->cfg.nnodes, 1);
    if (!lci_host->hbuf_kept || !lci_host->slot_taken || !lci_host->rpackets ||
        !lci_host->packets || !lci_host->spare || !lci_host->unreachable) {
        return lci_error(LCI_ERR_NOMEM, "lci_init: out of memory");
    }
    for (uint32_t i = 0; i < nsend; i++) {
        lci_host->packets[i].buf = i;
    }
    lci_host->ring_reported = nring;
    lci_host->ngroups_used = 1; /* group 0: every node */
    lci_host->groups[0].id = 0;
    lci_host->groups[0].live = 1;
    st = lci_host_place_init();
    if (st == LCI_OK) {
        st = lci_host_reorder_init(&s->cfg);
    }
    if (st != LCI_OK) {
        return st;
    }
    lci_host->inited = 1;
    lci_platform->start(lci_host->rank);
    lci_host_leave();
    return LCI_OK;
}

lci_status_t lci_finalize(void)
{
    LCI_CHECK_INIT();
    if (lci_host->in_upcall) {
        return lci_error(LCI_ERR_STATE, "lci_finalize: called from an upcall");
    }
    lci_status_t st = lci_barrier();
    if (st != LCI_OK) {
        return st;
    }
    lci_host_enter();
    lci_host_place_drain();
    lci_platform->exit(lci_host->rank);
    host_release();
    if (lci_host->standalone) {
        munmap(lci_host->seg_base, lci_host->seg_size);
    }
    /* Under lci-run the segment stays mapped until exit: the turn may
     * still pass through this process's memory map in no case, but
     * unmapping buys nothing either. */
    return LCI_OK;
}

void lci_abort(int code, const char *message)
{
    if (lci_world.seg != NULL) {
        lci_sched_fail((int)lci_host->rank, LCI_ERR_STATE, "lci_abort(%d): %s",
                       code, message ? message : "");
    }
    fprintf(stderr, "lci_abort(%d): %s\n", code, message ? message : "");
    exit(code ? code : 1);
}

int lci_rank(void)
{
    return lci_host->inited ? (int)lci_host->rank : -1;
}

int lci_size(void)
{
    return lci_host->inited ? (int)lci_host->size : -1;
}

const char *lci_decomp_name(void)
{
    return lci_decomp_active->name;
}

double lci_wtime(void)
{
    if (!lci_host->inited) {
        return 0.0;
    }
    lci_host_account();
    double t = (double)lci_platform->now(lci_host->rank) * 1e-9;
    lci_host_leave();
    return t;
}

lci_status_t lci_compute(double seconds)
{
    LCI_CHECK_INIT();
    if (!(seconds >= 0.0) || seconds > 1e6) {
        return lci_error(LCI_ERR_INVAL,
                         "lci_compute: %g seconds is not in [0, 1e6]", seconds);
    }
    lci_host_account();
    lci_host_leave(); /* computing: the host polls nothing meanwhile */
    lci_platform->compute(lci_host->rank, (uint64_t)(seconds * 1e9 + 0.5),
                          &host_timers);
    lci_host->computed_since_poll = 1;
    return LCI_OK;
}

lci_status_t lci_copy(void *dst, const void *src, size_t len)
{
    LCI_CHECK_INIT();
    if ((dst == NULL || src == NULL) && len > 0) {
        return lci_error(LCI_ERR_INVAL, "lci_copy: NULL buffer");
    }
    lci_host_account();
    if (len > 0) {
        memmove(dst, src, len);
    }
    /* Charged from the profile; the real copy is not also charged as
     * measured compute. */
    lci_host_charge("copy",
                    (double)len * 1000.0 / lci_host->prof->host_copy_mb_s);
    lci_host_leave();
    return LCI_OK;
}

unsigned lci_fa_count(void)
{
    return lci_host->inited ? lci_seg()->cfg.nfa : 0;
}

size_t lci_packet_capacity(void)
{
    return lci_host->inited ? lci_host->ni->payload_max : 0;
}

lci_status_t lci_counters_get(lci_counters_t *counters_p)
{
    LCI_CHECK_INIT();
    if (counters_p == NULL) {
        return lci_error(LCI_ERR_INVAL, "lci_counters_get: NULL pointer");
    }
    *counters_p = lci_host->ni->counters;
    counters_p->pkts_delivered = lci_host->hs->delivered;
    counters_p->host_busy_ns = lci_host->hs->busy_ns;
    return LCI_OK;
}
