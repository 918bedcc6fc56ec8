/*
 * bench_common.c - option parsing, checking, CSV and tables for the
 * microbenchmarks (see bench_common.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bench_common.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench_paper.h"

static const char *bench_prog = "bench";
static int bench_initialised;
static void *bench_zeros;      /* lci_packet_capacity() zero bytes */

/* ---- small helpers ---------------------------------------------------- */

static char *bench_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);

    if (copy == NULL) {
        fprintf(stderr, "%s: out of memory\n", bench_prog);
        exit(1);
    }
    memcpy(copy, s, n);
    return copy;
}

const char *bench_fmt(const char *fmt, ...)
{
    static char ring[64][96];
    static unsigned next;
    char *buf = ring[next++ % 64];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof ring[0], fmt, ap);
    va_end(ap);
    return buf;
}

const char *bench_ratio(double measured, double reference)
{
    if (!(reference > 0.0) || !isfinite(measured)) {
        return "-";
    }
    return bench_fmt("%.2fx", measured / reference);
}

/* ---- sizes -------------------------------------------------------------- */

int bench_parse_size(const char *text, double *value_p)
{
    char *end;
    double mult = 1.0;
    double v;

    if (text == NULL || *text == '\0') {
        return -1;
    }
    errno = 0;
    v = strtod(text, &end);
    if (errno != 0 || end == text || !isfinite(v)) {
        return -1;
    }
    switch (*end) {
    case 'k':
    case 'K':
        mult = 1024.0;
        end++;
        break;
    case 'm':
    case 'M':
        mult = 1024.0 * 1024.0;
        end++;
        break;
    case 'g':
    case 'G':
        mult = 1024.0 * 1024.0 * 1024.0;
        end++;
        break;
    default:
        break;
    }
    if (mult > 1.0 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)) {
        end += strlen(end);
    }
    if (*end != '\0') {
        return -1;
    }
    *value_p = v * mult;
    return 0;
}

void bench_sizes_pow2(bench_sizes_t *sizes, size_t lo, size_t hi)
{
    sizes->n = 0;
    for (size_t s = lo ? lo : 1; s <= hi && sizes->n < BENCH_MAX_SIZES; s *= 2) {
        sizes->v[sizes->n++] = s;
    }
}

static int sizes_add(bench_sizes_t *sizes, double v, double min, double max,
                     const char *item, char *err, size_t errlen)
{
    if (v != floor(v) || v < min || v > max) {
        snprintf(err, errlen, "size '%s' must be a whole number of bytes in [%.0f, %.0f]",
                 item, min, max);
        return -1;
    }
    if (sizes->n >= BENCH_MAX_SIZES) {
        snprintf(err, errlen, "at most %d sizes", BENCH_MAX_SIZES);
        return -1;
    }
    sizes->v[sizes->n++] = (size_t)v;
    return 0;
}

int bench_parse_sizes(const char *text, double min, double max,
                      bench_sizes_t *sizes, char *err, size_t errlen)
{
    char *copy = bench_strdup(text);
    char *item = copy;
    int rc = 0;
    bench_sizes_t out = {0};

    while (rc == 0 && item != NULL) {
        char *comma = strchr(item, ',');
        char *dash;
        double lo, hi;

        if (comma != NULL) {
            *comma = '\0';
        }
        dash = strchr(item, '-');
        if (dash != NULL) {
            /* "LO-HI": LO, 2*LO, 4*LO, ... up to HI */
            *dash = '\0';
            if (bench_parse_size(item, &lo) != 0 || bench_parse_size(dash + 1, &hi) != 0 ||
                lo <= 0.0 || hi < lo) {
                snprintf(err, errlen, "range '%s-%s' must be LO-HI with 0 < LO <= HI", item,
                         dash + 1);
                rc = -1;
            }
            for (double v = lo; rc == 0 && v <= hi; v *= 2.0) {
                rc = sizes_add(&out, v, min, max, item, err, errlen);
            }
        } else if (bench_parse_size(item, &lo) != 0) {
            snprintf(err, errlen, "'%s' is not a size (examples: 64, 2K, 1M)", item);
            rc = -1;
        } else {
            rc = sizes_add(&out, lo, min, max, item, err, errlen);
        }
        item = comma ? comma + 1 : NULL;
    }
    if (rc == 0 && out.n == 0) {
        snprintf(err, errlen, "empty size list");
        rc = -1;
    }
    free(copy);
    if (rc == 0) {
        *sizes = out;
    }
    return rc;
}

/* One size as text: 1M, 2K or a plain number of bytes. */
static void size_text(size_t v, char *out, size_t len)
{
    if (v >= 1048576 && v % 1048576 == 0) {
        snprintf(out, len, "%zuM", v / 1048576);
    } else if (v >= 1024 && v % 1024 == 0) {
        snprintf(out, len, "%zuK", v / 1024);
    } else {
        snprintf(out, len, "%zu", v);
    }
}

static const char *sizes_format(const bench_sizes_t *sizes)
{
    static char buf[1024];
    char item[32];
    size_t off = 0, i = 1;

    buf[0] = '\0';
    while (i < sizes->n && sizes->v[i] == 2 * sizes->v[i - 1]) {
        i++;
    }
    if (sizes->n > 2 && i == sizes->n) {
        /* a run of powers of two: LO-HI */
        size_text(sizes->v[0], item, sizeof item);
        off = (size_t)snprintf(buf, sizeof buf, "%s-", item);
        size_text(sizes->v[sizes->n - 1], buf + off, sizeof buf - off);
        return buf;
    }
    for (i = 0; i < sizes->n && off < sizeof buf - 40; i++) {
        size_text(sizes->v[i], item, sizeof item);
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s", i ? "," : "", item);
    }
    return buf;
}

/* ---- options ------------------------------------------------------------ */

static void opts_help(const bench_info_t *info, const bench_opt_t *opts, size_t nopts)
{
    printf("%s - %s\n\nusage: %s\n\noptions:\n", info->prog, info->summary, info->usage);
    for (size_t i = 0; i < nopts; i++) {
        const bench_opt_t *o = &opts[i];
        char left[64];
        const char *def = "";

        snprintf(left, sizeof left, "%s%s%s", o->name, o->metavar ? " " : "",
                 o->metavar ? o->metavar : "");
        switch (o->kind) {
        case BENCH_OPT_LONG:
            def = bench_fmt(" (default %ld)", *(long *)o->ptr);
            break;
        case BENCH_OPT_DOUBLE:
            def = bench_fmt(" (default %g)", *(double *)o->ptr);
            break;
        case BENCH_OPT_STRING:
            def = *(const char **)o->ptr ? bench_fmt(" (default %s)", *(const char **)o->ptr)
                                         : "";
            break;
        case BENCH_OPT_SET:
            def = *(int *)o->ptr == o->set_value ? " (default)" : "";
            break;
        case BENCH_OPT_SIZES:
            def = bench_fmt(" (default %s)", sizes_format((bench_sizes_t *)o->ptr));
            break;
        }
        printf("  %-20s %s%s\n", left, o->help, def);
    }
    printf("  %-20s %s\n", "--reference", "print the paper's reference values as CSV and exit");
    printf("  %-20s %s\n", "-h, --help", "print this help and exit");
    printf("\nsizes accept K and M suffixes (1024, 1048576); a list is comma-separated,\n"
           "and LO-HI means every power of two times LO up to HI (e.g. 64-1M).\n"
           "--lci-NAME=VALUE arguments are passed to lci_init(); run `lci-run --help`.\n");
    if (info->details != NULL) {
        printf("\n%s\n", info->details);
    }
}

static void opts_expected(const bench_info_t *info, const bench_opt_t *opts, size_t nopts)
{
    fprintf(stderr, "%s: expected one of:", info->prog);
    for (size_t i = 0; i < nopts; i++) {
        fprintf(stderr, " %s%s%s", opts[i].name, opts[i].metavar ? " " : "",
                opts[i].metavar ? opts[i].metavar : "");
    }
    fprintf(stderr, " --reference --help\n");
    fprintf(stderr, "%s: run '%s --help' for details\n", info->prog, info->prog);
}

static void opts_bad_value(const bench_info_t *info, const bench_opt_t *o, const char *value,
                           const char *why)
{
    fprintf(stderr, "%s: %s expects %s, got '%s'\n", info->prog, o->name, why, value);
    fprintf(stderr, "%s: run '%s --help' for details\n", info->prog, info->prog);
    exit(2);
}

static void opts_apply(const bench_info_t *info, const bench_opt_t *o, const char *value)
{
    double v;
    char err[256];

    switch (o->kind) {
    case BENCH_OPT_LONG:
        if (bench_parse_size(value, &v) != 0 || v != floor(v) || v < o->min || v > o->max) {
            opts_bad_value(info, o, value,
                           bench_fmt("an integer in [%.0f, %.0f]", o->min, o->max));
        }
        *(long *)o->ptr = (long)v;
        break;
    case BENCH_OPT_DOUBLE: {
        char *end;

        errno = 0;
        v = strtod(value, &end);
        if (errno != 0 || end == value || *end != '\0' || !isfinite(v) || v < o->min ||
            v > o->max) {
            opts_bad_value(info, o, value, bench_fmt("a number in [%g, %g]", o->min, o->max));
        }
        *(double *)o->ptr = v;
        break;
    }
    case BENCH_OPT_STRING:
        if (*value == '\0') {
            opts_bad_value(info, o, value, "a non-empty value");
        }
        *(const char **)o->ptr = value;
        break;
    case BENCH_OPT_SIZES:
        if (bench_parse_sizes(value, o->min, o->max, (bench_sizes_t *)o->ptr, err,
                              sizeof err) != 0) {
            opts_bad_value(info, o, value, bench_fmt("a size list (%s)", err));
        }
        break;
    case BENCH_OPT_SET:
        *(int *)o->ptr = o->set_value;
        break;
    }
}

void bench_opts_parse(const bench_info_t *info, const bench_opt_t *opts, size_t nopts,
                      int argc, char **argv)
{
    bench_prog = info->prog;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq;
        size_t namelen;
        const bench_opt_t *o = NULL;

        if (strncmp(arg, "--lci-", 6) == 0) {
            continue; /* lci_init() takes these */
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            opts_help(info, opts, nopts);
            exit(0);
        }
        if (strcmp(arg, "--reference") == 0) {
            bench_paper_print_csv(stdout);
            exit(0);
        }
        if (strncmp(arg, "--", 2) != 0) {
            fprintf(stderr, "%s: unexpected argument '%s' (this program takes options only)\n",
                    info->prog, arg);
            opts_expected(info, opts, nopts);
            exit(2);
        }
        eq = strchr(arg, '=');
        namelen = eq ? (size_t)(eq - arg) : strlen(arg);
        for (size_t k = 0; k < nopts; k++) {
            if (strlen(opts[k].name) == namelen && strncmp(opts[k].name, arg, namelen) == 0) {
                o = &opts[k];
                break;
            }
        }
        if (o == NULL) {
            fprintf(stderr, "%s: unknown option '%.*s'\n", info->prog, (int)namelen, arg);
            opts_expected(info, opts, nopts);
            exit(2);
        }
        if (o->kind == BENCH_OPT_SET) {
            if (eq != NULL) {
                fprintf(stderr, "%s: %s takes no value\n", info->prog, o->name);
                opts_expected(info, opts, nopts);
                exit(2);
            }
            opts_apply(info, o, NULL);
            continue;
        }
        if (eq != NULL) {
            opts_apply(info, o, eq + 1);
        } else if (i + 1 < argc) {
            opts_apply(info, o, argv[++i]);
        } else {
            fprintf(stderr, "%s: %s needs a value (%s)\n", info->prog, o->name,
                    o->metavar ? o->metavar : "value");
            opts_expected(info, opts, nopts);
            exit(2);
        }
    }
}

/* ---- LCI set-up and checking -------------------------------------------- */

void bench_init(const char *prog, int *argc, char ***argv)
{
    lci_status_t st;

    bench_prog = prog;
    st = lci_init(argc, argv);
    if (st != LCI_OK) {
        fprintf(stderr, "%s: lci_init failed: %s (%s)\n"
                        "%s: run it through the launcher, e.g. lci-run -n 2 ./%s\n",
                prog, lci_strerror(st), lci_last_error(), prog, prog);
        exit(1);
    }
    bench_initialised = 1;
    bench_zeros = calloc(1, lci_packet_capacity() + 1);
    if (bench_zeros == NULL) {
        bench_fail("out of memory");
    }
}

void bench_finalize(void)
{
    BENCH_CHECK(lci_finalize());
    bench_initialised = 0;
    free(bench_zeros);
    bench_zeros = NULL;
}

int bench_check(int status, const char *what, const char *file, int line)
{
    char msg[512];

    if (status >= 0) {
        return status;
    }
    snprintf(msg, sizeof msg, "%s: rank %d: %s failed: %s (%s) [%s:%d]", bench_prog,
             bench_initialised ? lci_rank() : -1, what, lci_strerror((lci_status_t)status),
             lci_last_error(), file, line);
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    if (bench_initialised) {
        lci_abort(1, msg);
    }
    exit(1);
}

void bench_fail(const char *fmt, ...)
{
    char msg[512];
    int off;
    va_list ap;

    off = snprintf(msg, sizeof msg, "%s: rank %d: ", bench_prog,
                   bench_initialised ? lci_rank() : -1);
    va_start(ap, fmt);
    vsnprintf(msg + off, sizeof msg - (size_t)off, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    if (bench_initialised) {
        lci_abort(1, msg);
    }
    exit(1);
}

void bench_usage_error(const char *fmt, ...)
{
    va_list ap;

    if (!bench_initialised || lci_rank() == 0) {
        fprintf(stderr, "%s: ", bench_prog);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\n%s: run '%s --help' for details\n", bench_prog, bench_prog);
        fflush(stderr);
    }
    if (bench_initialised) {
        bench_finalize();
    }
    exit(2);
}

void bench_send(int dest, const void *src, size_t len)
{
    lci_packet_t *pkt;

    BENCH_CHECK(lci_packet_alloc(&pkt));
    BENCH_CHECK(lci_packet_write(pkt, 0, src ? src : bench_zeros, len));
    BENCH_CHECK(lci_send(pkt, dest, len));
}

double bench_send_raw(int dest, const void *src, size_t len)
{
    double t0 = lci_wtime();

    bench_send(dest, src, len);
    return lci_wtime() - t0;
}

void bench_compute(double seconds)
{
    if (seconds > 0.0) {
        BENCH_CHECK(lci_compute(seconds));
    }
}

void bench_compute_until(double t)
{
    bench_compute(t - lci_wtime());
}

/* ---- the run's identity -------------------------------------------------- */

const char *bench_decomp(void)
{
    const char *name = lci_decomp_name();

    return name ? name : "unknown";
}

size_t bench_packet_size(void)
{
    const char *env = getenv("LCI_PACKET_SIZE");
    double v;
    size_t size = 1;

    if (env != NULL && bench_parse_size(env, &v) == 0 && v > 0.0) {
        return (size_t)v;
    }
    while (size < lci_packet_capacity()) {
        size *= 2;
    }
    return size;
}

const char *bench_platform(void)
{
    const char *env = getenv("LCI_PLATFORM");

    return (env != NULL && *env != '\0') ? env : "sim";
}

int bench_global_clock(void)
{
    return strcmp(bench_platform(), "sim") == 0;
}

int bench_in_paper(const char *decomp)
{
    static const char *const paper[] = {"rxno-mni", "rxno-mh", "rxni-mni", "rxni-mh", "rxh-mh"};

    for (size_t i = 0; decomp != NULL && i < sizeof paper / sizeof paper[0]; i++) {
        if (strcmp(decomp, paper[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

bench_scheme_t bench_scheme_of(const char *decomp)
{
    if (!bench_in_paper(decomp)) {
        return BENCH_RX_UNKNOWN;
    }
    if (strncmp(decomp, "rxno-", 5) == 0) {
        return BENCH_RX_NO;
    }
    if (strncmp(decomp, "rxni-", 5) == 0) {
        return BENCH_RX_NI;
    }
    if (strncmp(decomp, "rxh-", 4) == 0) {
        return BENCH_RX_H;
    }
    return BENCH_RX_UNKNOWN;
}

const char *bench_scheme_name(bench_scheme_t scheme)
{
    static const char *const names[] = {"RX_no", "RX_ni", "RX_h", "?"};

    return names[scheme <= BENCH_RX_UNKNOWN ? scheme : BENCH_RX_UNKNOWN];
}

/* ---- output --------------------------------------------------------------- */

void bench_csv_row(const char *path, const char *bench, const char *metric, double value_us,
                   size_t msg_size, double mb_s)
{
    FILE *f;
    long end;

    if (path == NULL) {
        return;
    }
    f = fopen(path, "a");
    if (f == NULL) {
        bench_fail("cannot open CSV file '%s': %s", path, strerror(errno));
    }
    if (fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0) {
        bench_fail("cannot seek CSV file '%s': %s", path, strerror(errno));
    }
    if (end == 0) {
        fprintf(f, "bench,decomp,packet_size,metric,value_us,msg_size,mb_s,nodes\n");
    }
    fprintf(f, "%s,%s,%zu,%s,%.6f,%zu,", bench, bench_decomp(), bench_packet_size(), metric,
            value_us, msg_size);
    if (mb_s >= 0.0) {
        fprintf(f, "%.6f", mb_s);
    }
    fprintf(f, ",%d\n", lci_size());
    if (fclose(f) != 0) {
        bench_fail("cannot write CSV file '%s': %s", path, strerror(errno));
    }
}

struct bench_table {
    char *title;
    int ncols;
    char **headers;
    char ***rows;
    size_t nrows, cap;
};

bench_table_t *bench_table_create(const char *title, int ncols, const char *const *headers)
{
    bench_table_t *t = calloc(1, sizeof *t);

    if (t == NULL || (t->headers = calloc((size_t)ncols, sizeof *t->headers)) == NULL) {
        bench_fail("out of memory");
    }
    t->title = bench_strdup(title ? title : "");
    t->ncols = ncols;
    for (int c = 0; c < ncols; c++) {
        t->headers[c] = bench_strdup(headers[c]);
    }
    return t;
}

void bench_table_add_row(bench_table_t *t, const char *const *cells)
{
    char **row;

    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char ***rows = realloc(t->rows, cap * sizeof *rows);

        if (rows == NULL) {
            bench_fail("out of memory");
        }
        t->rows = rows;
        t->cap = cap;
    }
    row = calloc((size_t)t->ncols, sizeof *row);
    if (row == NULL) {
        bench_fail("out of memory");
    }
    for (int c = 0; c < t->ncols; c++) {
        row[c] = bench_strdup(cells[c] ? cells[c] : "");
    }
    t->rows[t->nrows++] = row;
}

void bench_table_print(const bench_table_t *t, FILE *out)
{
    size_t width[32] = {0};
    int ncols = t->ncols < 32 ? t->ncols : 32;

    for (int c = 0; c < ncols; c++) {
        width[c] = strlen(t->headers[c]);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t w = strlen(t->rows[r][c]);

            width[c] = w > width[c] ? w : width[c];
        }
    }
    if (t->title[0] != '\0') {
        fprintf(out, "%s\n", t->title);
    }
    for (int c = 0; c < ncols; c++) {
        fprintf(out, c ? "  %*s" : "%-*s", (int)width[c], t->headers[c]);
    }
    fputc('\n', out);
    for (int c = 0; c < ncols; c++) {
        fprintf(out, "%s", c ? "  " : "");
        for (size_t k = 0; k < width[c]; k++) {
            fputc('-', out);
        }
    }
    fputc('\n', out);
    for (size_t r = 0; r < t->nrows; r++) {
        for (int c = 0; c < ncols; c++) {
            fprintf(out, c ? "  %*s" : "%-*s", (int)width[c], t->rows[r][c]);
        }
        fputc('\n', out);
    }
    fflush(out);
}

void bench_table_free(bench_table_t *t)
{
    if (t == NULL) {
        return;
    }
    for (size_t r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            free(t->rows[r][c]);
        }
        free(t->rows[r]);
    }
    for (int c = 0; c < t->ncols; c++) {
        free(t->headers[c]);
    }
    free(t->rows);
    free(t->headers);
    free(t->title);
    free(t);
}

void bench_print_config(const char *prog, FILE *out)
{
    const char *decomp = bench_decomp();

    fprintf(out, "# %s: decomp=%s (%s) packet=%zu B (capacity %zu B) nodes=%d platform=%s\n",
            prog, decomp,
            bench_in_paper(decomp) ? bench_scheme_name(bench_scheme_of(decomp))
                                   : "beyond the paper",
            bench_packet_size(),
            lci_packet_capacity(), lci_size(), bench_platform());
}
