/*
 * barnes.c - the paper's Barnes-Hut N-body simulation on CRL (a CRL
 * program: crl.h, lci.h for the clock, and the C library).
 *
 * Usage: lci-run -n N ./barnes [--bodies B] [--steps S] [--theta T]
 *                              [--seed X] [--quick]
 *
 * A Plummer-model galaxy of B bodies (default 16384, the paper's; --quick
 * 512 bodies and 2 steps) of equal mass 1/B, in the units of SPLASH-2's
 * Barnes (time step 0.025, softening 0.05), from a fixed seed.  Every node
 * makes the same model, orders the bodies along a space-filling curve
 * (Morton order) and owns the B/N bodies of its run, as body regions
 * homed on it.  Each time step (all S are timed):
 *   1. tree: every node builds the oct-tree of its own bodies in cell
 *      regions homed on it and broadcasts the pieces other nodes need to
 *      find them; every node builds the few cells above them alike
 *      (barnes_tree.c);
 *   2. force: every node walks the tree from the root for each of its
 *      bodies (theta 1.0 by default, as SPLASH-2); remote cells and bodies
 *      are CRL read misses, the phase's communication (barnes_force.c);
 *   3. update: after a barrier, every node moves its bodies (v += a dt,
 *      x += v dt) and writes them into their regions.
 * The check, in the last step after the force phase (not timed): every
 * node gets all positions (broadcasts) and compares the acceleration of
 * its share of 64 sample bodies with a direct sum over all bodies.  The
 * error is relative to the body's acceleration, or to half the samples'
 * mean if that is more; the mean must stay below 8% theta^2 and the
 * largest below 40% theta^2 (about twice the worst a right tree gave over
 * 90 models of 256..1024 bodies: monopoles only).  The tree's total mass
 * and centre of mass must equal the bodies'.  Rank 0 prints "barnes: ...
 * time_s T ... checksum C: OK" (C, a sum over all accelerations, is the
 * same for the same run on any platform and decomposition with the same
 * node count); exit status 0 iff the check holds.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "barnes.h"
#include "crl.h"
#include "lci.h"

#define SAMPLES 64 /* bodies whose forces are checked */
/* The relative force errors allowed, times theta^2: about twice the
 * worst a right tree gives with monopoles only (at theta 1, over 90
 * models of 256..1024 bodies: mean 3%, max 20%; at 16384: 0.8%, 2.8%). */
#define MEAN_TOL       8e-2
#define MAX_TOL        40e-2
#define GATHER_PER_MSG 64

void barnes_fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "barnes: node %d: %s\n", crl_self_addr, msg);
    fflush(stderr);
    exit(1);
}

void barnes_crl(crl_status_t st, const char *what)
{
    if (st != CRL_OK) {
        barnes_fail("%s: %s", what, crl_last_error());
    }
}

void *barnes_alloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p == NULL) {
        barnes_fail("out of memory (%zu x %zu bytes)", n, size);
    }
    return p;
}

typedef struct {
    long bodies, steps;
    double theta;
    unsigned long seed;
} opts_t;

static int usage(const char *bad)
{
    if (crl_self_addr == 0) {
        fprintf(stderr,
                "barnes: %s\nusage: barnes [--bodies B (2..1048576)] "
                "[--steps S (1..1000)] [--theta T (0.1..1.0)] [--seed X] "
                "[--quick]\n",
                bad);
    }
    return 2;
}

static int parse(int argc, char **argv, opts_t *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) {
            o->bodies = 512;
            o->steps = 2;
            continue;
        }
        if (strcmp(a, "--bodies") != 0 && strcmp(a, "--steps") != 0 &&
            strcmp(a, "--theta") != 0 && strcmp(a, "--seed") != 0) {
            return usage("unknown option");
        }
        if (i + 1 >= argc) {
            return usage("an option lacks its value");
        }
        char *end;
        const char *v = argv[++i];
        if (strcmp(a, "--bodies") == 0) {
            o->bodies = strtol(v, &end, 10);
            if (*end != '\0' || o->bodies < 2 || o->bodies > 1048576) {
                return usage("--bodies expects 2..1048576");
            }
        } else if (strcmp(a, "--steps") == 0) {
            o->steps = strtol(v, &end, 10);
            if (*end != '\0' || o->steps < 1 || o->steps > 1000) {
                return usage("--steps expects 1..1000");
            }
        } else if (strcmp(a, "--theta") == 0) {
            o->theta = strtod(v, &end);
            if (*end != '\0' || !(o->theta >= 0.1 && o->theta <= 1.0)) {
                return usage("--theta expects 0.1..1.0");
            }
        } else {
            o->seed = strtoul(v, &end, 10);
            if (*end != '\0' || *v == '\0' || *v == '-') {
                return usage("--seed expects a number");
            }
        }
    }
    return 0;
}

/* ---- the initial model ------------------------------------------------ */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

static void random_direction(uint64_t *s, double scale, double out[3])
{
    double r2;
    do {
        r2 = 0;
        for (int k = 0; k < 3; k++) {
            out[k] = 2 * rng_unit(s) - 1;
            r2 += out[k] * out[k];
        }
    } while (r2 > 1 || r2 < 1e-6);
    double f = scale / sqrt(r2);
    for (int k = 0; k < 3; k++) {
        out[k] *= f;
    }
}

/* A Plummer model (Aarseth, Henon and Wielen 1974, as SPLASH-2 makes it):
 * radii truncated at 9 scale lengths, speeds by rejection, then moved to
 * the centre-of-mass frame. */
static void plummer(long n, uint64_t seed, double (*pos)[3], double (*vel)[3])
{
    const double rsc = 3 * M_PI / 16, vsc = sqrt(1 / rsc);
    uint64_t s = seed;
    double cp[3] = {0, 0, 0}, cv[3] = {0, 0, 0};
    for (long i = 0; i < n; i++) {
        double r;
        do {
            r = 1 / sqrt(pow(0.999 * rng_unit(&s) + 1e-12, -2.0 / 3) - 1);
        } while (r > 9);
        random_direction(&s, rsc * r, pos[i]);
        double x, y;
        do {
            x = rng_unit(&s);
            y = 0.1 * rng_unit(&s);
        } while (y > x * x * pow(1 - x * x, 3.5));
        double v = sqrt(2.0) * x / pow(1 + r * r, 0.25);
        random_direction(&s, vsc * v, vel[i]);
        for (int k = 0; k < 3; k++) {
            cp[k] += pos[i][k];
            cv[k] += vel[i][k];
        }
    }
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            pos[i][k] -= cp[k] / (double)n;
            vel[i][k] -= cv[k] / (double)n;
        }
    }
}

static const uint64_t *sort_keys;
static int by_key(const void *pa, const void *pb)
{
    long a = *(const long *)pa, c = *(const long *)pb;
    return sort_keys[a] < sort_keys[c]   ? -1
           : sort_keys[a] > sort_keys[c] ? 1
                                         : (a > c) - (a < c);
}

/* Every node makes the whole model, orders it along the Morton curve and
 * keeps its run of it, in body regions homed here. */
static void make_bodies(barnes_t *b, uint64_t seed)
{
    long n = b->nbodies;
    double(*pos)[3] = barnes_alloc((size_t)n, sizeof *pos);
    double(*vel)[3] = barnes_alloc((size_t)n, sizeof *vel);
    plummer(n, seed, pos, vel);
    double lo[3] = {INFINITY, INFINITY, INFINITY};
    double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (long i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], pos[i][k]);
            hi[k] = fmax(hi[k], pos[i][k]);
        }
    }
    barnes_set_cube(b, lo, hi);
    uint64_t *keys = barnes_alloc((size_t)n, sizeof *keys);
    long *order = barnes_alloc((size_t)n, sizeof *order);
    for (long i = 0; i < n; i++) {
        keys[i] = barnes_key(b, pos[i]);
        order[i] = i;
    }
    sort_keys = keys;
    qsort(order, (size_t)n, sizeof *order, by_key);

    b->first = (long)((long long)b->me * n / b->n);
    b->nb = (long)((long long)(b->me + 1) * n / b->n) - b->first;
    size_t nb = (size_t)b->nb;
    b->pos = barnes_alloc(nb, sizeof *b->pos);
    b->vel = barnes_alloc(nb, sizeof *b->vel);
    b->acc = barnes_alloc(nb, sizeof *b->acc);
    b->mass = barnes_alloc(nb, sizeof *b->mass);
    b->rid = barnes_alloc(nb, sizeof *b->rid);
    b->map = barnes_alloc(nb, sizeof *b->map);
    b->key = barnes_alloc(nb, sizeof *b->key);
    b->order = barnes_alloc(nb, sizeof *b->order);
    for (long i = 0; i < b->nb; i++) {
        long g = order[b->first + i];
        memcpy(b->pos[i], pos[g], sizeof pos[g]);
        memcpy(b->vel[i], vel[g], sizeof vel[g]);
        b->mass[i] = 1.0 / (double)n;
        b->rid[i] = rgn_create(sizeof(body_rgn_t));
        if (b->rid[i] == CRL_RID_NONE) {
            barnes_fail("rgn_create: %s", crl_last_error());
        }
        b->map[i] = barnes_map(b, b->rid[i]);
        body_rgn_t *r = b->map[i];
        barnes_crl(rgn_start_write(r), "rgn_start_write");
        memcpy(r->pos, b->pos[i], sizeof r->pos);
        memcpy(r->vel, b->vel[i], sizeof r->vel);
        r->mass = b->mass[i];
        r->index = (uint32_t)g;
        barnes_crl(rgn_end_write(r), "rgn_end_write");
    }
    free(pos);
    free(vel);
    free(keys);
    free(order);
}

/* ---- the time step ---------------------------------------------------- */

static void update(barnes_t *b)
{
    for (long i = 0; i < b->nb; i++) {
        for (int k = 0; k < 3; k++) {
            b->vel[i][k] += b->acc[i][k] * b->dt;
            b->pos[i][k] += b->vel[i][k] * b->dt;
        }
        body_rgn_t *r = b->map[i];
        barnes_crl(rgn_start_write(r), "rgn_start_write");
        memcpy(r->pos, b->pos[i], sizeof r->pos);
        memcpy(r->vel, b->vel[i], sizeof r->vel);
        memcpy(r->acc, b->acc[i], sizeof r->acc);
        barnes_crl(rgn_end_write(r), "rgn_end_write");
    }
}

/* ---- the check -------------------------------------------------------- */

typedef struct {
    int32_t from, count;
    int64_t first;
    double pm[GATHER_PER_MSG][4]; /* position, mass */
} gather_msg_t;

/* All bodies' positions and masses, by global number, on every node. */
static double (*gather(barnes_t *b))[4]
{
    double(*all)[4] = barnes_alloc((size_t)b->nbodies, sizeof *all);
    for (long i = 0; i < b->nb; i++) {
        memcpy(all[b->first + i], b->pos[i], sizeof b->pos[i]);
        all[b->first + i][3] = b->mass[i];
    }
    if (b->n == 1) {
        return all;
    }
    barnes_crl(rgn_barrier(), "rgn_barrier");
    gather_msg_t *m = barnes_alloc(1, sizeof *m);
    for (long s = 0; s < b->nb; s += GATHER_PER_MSG) {
        memset(m, 0, sizeof *m);
        m->from = b->me;
        m->first = b->first + s;
        m->count =
            (int32_t)(b->nb - s < GATHER_PER_MSG ? b->nb - s : GATHER_PER_MSG);
        memcpy(m->pm, all[b->first + s], (size_t)m->count * sizeof *all);
        barnes_crl(rgn_bcast_send(sizeof *m, m), "rgn_bcast_send");
    }
    for (long got = b->nb; got < b->nbodies; got += m->count) {
        barnes_crl(rgn_bcast_recv(sizeof *m, m), "rgn_bcast_recv");
        if (m->count <= 0 || m->first < 0 || m->first + m->count > b->nbodies) {
            barnes_fail("a bad position message from node %d", (int)m->from);
        }
        memcpy(all[m->first], m->pm, (size_t)m->count * sizeof *all);
    }
    free(m);
    /* Nobody sends more before everybody has all. */
    barnes_crl(rgn_barrier(), "rgn_barrier");
    return all;
}

typedef struct {
    double mean_err, max_err, samples;
    int ok;
} check_t;

static double max_tol(double theta)
{
    return MAX_TOL * theta * theta;
}

static check_t check(barnes_t *b)
{
    check_t c = {.ok = 1};
    double(*all)[4] = gather(b);
    long stride = b->nbodies / SAMPLES > 0 ? b->nbodies / SAMPLES : 1;
    double(*direct)[3] = barnes_alloc((size_t)b->nb, sizeof *direct);
    double sum_err = 0, max_err = 0, count = 0, sum_norm = 0;
    for (long i = 0; i < b->nb; i++) {
        if ((b->first + i) % stride != 0) {
            continue;
        }
        double *a = direct[i];
        for (long j = 0; j < b->nbodies; j++) {
            double d[3], r2 = b->eps2;
            for (int k = 0; k < 3; k++) {
                d[k] = all[j][k] - b->pos[i][k];
                r2 += d[k] * d[k];
            }
            double inv = 1 / sqrt(r2), f = all[j][3] * inv * inv * inv;
            for (int k = 0; k < 3; k++) {
                a[k] += f * d[k];
            }
        }
        sum_norm += sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        count++;
    }
    /* Errors relative to the body's acceleration, but to no less than half
     * the samples' mean: near the centre the pulls cancel, and a small
     * absolute error would look large. */
    c.samples = rgn_reduce_dadd(count);
    double least = rgn_reduce_dadd(sum_norm) / c.samples / 2;
    for (long i = 0; i < b->nb; i++) {
        if ((b->first + i) % stride != 0) {
            continue;
        }
        const double *a = direct[i];
        double diff = 0, norm = 0;
        for (int k = 0; k < 3; k++) {
            diff += (b->acc[i][k] - a[k]) * (b->acc[i][k] - a[k]);
            norm += a[k] * a[k];
        }
        double err = sqrt(diff) / fmax(sqrt(norm), least);
        if (!(err <= max_tol(b->theta))) {
            fprintf(stderr,
                    "barnes: node %d: body %ld: acceleration (%.6g %.6g "
                    "%.6g), direct sum (%.6g %.6g %.6g): relative error "
                    "%.3g\n",
                    b->me, b->first + i, b->acc[i][0], b->acc[i][1],
                    b->acc[i][2], a[0], a[1], a[2], err);
        }
        sum_err += err;
        max_err = !(err <= max_err) ? err : max_err;
    }
    free(direct);

    /* The tree holds all the mass, with the bodies' centre of mass. */
    double mass = 0, cm[3] = {0, 0, 0};
    for (long j = 0; j < b->nbodies; j++) {
        mass += all[j][3];
        for (int k = 0; k < 3; k++) {
            cm[k] += all[j][3] * all[j][k];
        }
    }
    const double *tcm = b->root >= 0 ? b->top[b->root].cm : b->items[0].cm;
    double tmass = b->root >= 0 ? b->top[b->root].mass : b->items[0].mass;
    double off = 0;
    for (int k = 0; k < 3; k++) {
        off = fmax(off, fabs(cm[k] / mass - tcm[k]));
    }
    if (!(fabs(tmass - mass) <= 1e-12 * mass) || !(off <= 1e-9 * b->side)) {
        fprintf(stderr,
                "barnes: node %d: the tree's mass %.17g and centre of mass "
                "(%.9g %.9g %.9g) differ from the bodies' %.17g and (%.9g "
                "%.9g %.9g)\n",
                b->me, tmass, tcm[0], tcm[1], tcm[2], mass, cm[0] / mass,
                cm[1] / mass, cm[2] / mass);
        c.ok = 0;
    }
    free(all);

    c.mean_err = rgn_reduce_dadd(sum_err) / c.samples;
    c.max_err = rgn_reduce_dmax(max_err);
    double all_ok = rgn_reduce_dmin(c.ok);
    if (isnan(least) || isnan(c.max_err) || isnan(all_ok)) {
        barnes_fail("a reduction failed: %s", crl_last_error());
    }
    c.ok = all_ok == 1 && c.max_err <= max_tol(b->theta) &&
           c.mean_err <= MEAN_TOL * b->theta * b->theta;
    return c;
}

static uint64_t misses(void)
{
    crl_stats_t s;
    barnes_crl(crl_stats_get(&s), "crl_stats_get");
    return s.read_misses + s.write_misses;
}

int main(int argc, char **argv)
{
    crl_status_t st = crl_init(&argc, &argv);
    if (st != CRL_OK) {
        fprintf(stderr, "barnes: crl_init: %s\n", crl_last_error());
        return 1;
    }
    opts_t o = {.bodies = 16384, .steps = 4, .theta = 1.0, .seed = 123};
    int bad = parse(argc, argv, &o);
    if (bad != 0) {
        crl_finalize();
        return bad;
    }
    barnes_t b = {.me = crl_self_addr,
                  .n = crl_num_nodes,
                  .nbodies = o.bodies,
                  .theta = o.theta,
                  .eps2 = 0.05 * 0.05,
                  .dt = 0.025};
    make_bodies(&b, o.seed);
    barnes_crl(rgn_barrier(), "rgn_barrier");

    uint64_t misses0 = misses();
    double t0 = lci_wtime(), untimed = 0, checksum = 0;
    check_t c = {0};
    for (long s = 0; s < o.steps; s++) {
        barnes_build_tree(&b);
        for (long i = 0; i < b.nb; i++) {
            barnes_force(&b, i, b.acc[i]);
        }
        if (s == o.steps - 1) {
            double t1 = lci_wtime();
            c = check(&b);
            for (long i = 0; i < b.nb; i++) {
                checksum +=
                    sqrt(b.acc[i][0] * b.acc[i][0] + b.acc[i][1] * b.acc[i][1] +
                         b.acc[i][2] * b.acc[i][2]);
            }
            checksum = rgn_reduce_dadd(checksum);
            untimed = lci_wtime() - t1;
        }
        barnes_crl(rgn_barrier(), "rgn_barrier");
        update(&b);
    }
    double mine = lci_wtime() - t0 - untimed;
    double slowest = rgn_reduce_dmax(mine);
    double total_misses = rgn_reduce_dadd((double)(misses() - misses0));
    if (b.me == 0) {
        printf("barnes: %ld bodies, %ld steps, theta %.2f, %d nodes: time_s "
               "%.6f, %.0f misses (%.0f a step), force error mean %.2e max "
               "%.2e (%.0f bodies), checksum %.12e: %s\n",
               o.bodies, o.steps, o.theta, b.n, slowest, total_misses,
               total_misses / (double)o.steps, c.mean_err, c.max_err, c.samples,
               checksum, c.ok ? "OK" : "WRONG");
        fflush(stdout);
    }
    barnes_crl(crl_finalize(), "crl_finalize");
    free(b.pos);
    free(b.vel);
    free(b.acc);
    free(b.mass);
    free(b.rid);
    free(b.map);
    free(b.key);
    free(b.order);
    free(b.others);
    free(b.pool);
    free(b.pool_map);
    free(b.cache_rid);
    free(b.cache_ptr);
    free(b.items);
    free(b.top);
    return c.ok ? 0 : 1;
}
