/*
 * bench_common.h - what the LCI microbenchmarks share: option parsing with
 * uniform --help and error messages, LCI status checking, the CSV format,
 * plain-text tables and the decomposition's reliability scheme.
 *
 * Every benchmark is a normal LCI client: it includes lci.h and nothing of
 * the runtime's internals, so it runs unchanged on every platform and every
 * decomposition.  Life of a benchmark:
 *   1. bench_opts_parse() before lci_init() (so --help and bad flags work
 *      without a launcher; --lci-* arguments are left to lci_init());
 *   2. lci_init(), then BENCH_CHECK() around every LCI call: a failure
 *      prints lci_strerror() and lci_last_error() and stops the whole run;
 *   3. measure with lci_wtime() (virtual time on the simulated platform);
 *   4. rank 0 prints a table and, with --csv FILE, appends CSV rows.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lci.h"

/* ---- options -------------------------------------------------------- */

#define BENCH_MAX_SIZES 64

/* A list of message sizes in bytes ("64,1K,1M" or "64-1M" for powers of 2). */
typedef struct {
    size_t n;
    size_t v[BENCH_MAX_SIZES];
} bench_sizes_t;

typedef enum {
    BENCH_OPT_LONG,   /* long *ptr, in [min, max]; accepts K/M/G suffixes */
    BENCH_OPT_DOUBLE, /* double *ptr, in [min, max] */
    BENCH_OPT_STRING, /* const char **ptr */
    BENCH_OPT_SET,    /* int *ptr = set_value; takes no argument */
    BENCH_OPT_SIZES   /* bench_sizes_t *ptr, each in [min, max] */
} bench_opt_kind_t;

typedef struct {
    const char *name; /* "--iters" */
    bench_opt_kind_t kind;
    void *ptr;
    double min, max;    /* range for numbers and sizes */
    int set_value;      /* for BENCH_OPT_SET */
    const char *metavar; /* "N", "FILE", ... (NULL for BENCH_OPT_SET) */
    const char *help;
} bench_opt_t;

/* What a benchmark tells the parser about itself, for --help. */
typedef struct {
    const char *prog;    /* "lci_logp" */
    const char *summary; /* one line */
    const char *usage;   /* the launcher command line example */
    const char *details; /* paragraphs printed after the options, or NULL */
} bench_info_t;

/* Parses argv (skipping --lci-* arguments, which belong to lci_init()).
 * --help/-h prints the help and exits 0; --reference prints the paper's
 * reference values as CSV and exits 0; anything unexpected prints what was
 * expected and exits 2. */
void bench_opts_parse(const bench_info_t *info, const bench_opt_t *opts,
                      size_t nopts, int argc, char **argv);

/* Parses a size such as "64", "2K", "1M" (powers of 1024).  0 on success. */
int bench_parse_size(const char *text, double *value_p);

/* Parses a size list into *sizes.  0 on success, -1 with a message in err. */
int bench_parse_sizes(const char *text, double min, double max,
                      bench_sizes_t *sizes, char *err, size_t errlen);

/* Fills *sizes with the powers of two from lo to hi. */
void bench_sizes_pow2(bench_sizes_t *sizes, size_t lo, size_t hi);

/* ---- LCI set-up and checking ---------------------------------------- */

/* lci_init() with checking; remembers the program name for messages. */
void bench_init(const char *prog, int *argc, char ***argv);

/* lci_finalize() with checking. */
void bench_finalize(void);

/* Stops the run if status < 0, naming the call, lci_strerror() and
 * lci_last_error().  Returns status (>= 0) otherwise. */
int bench_check(int status, const char *what, const char *file, int line);
#define BENCH_CHECK(call) bench_check((call), #call, __FILE__, __LINE__)

/* Stops the run with a formatted message (a failed verification). */
void bench_fail(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));

/* A bad option value found after lci_init() (e.g. larger than the packet
 * capacity): rank 0 prints it, every node finalises, and the program exits
 * 2.  All nodes see the same arguments, so all take this path. */
void bench_usage_error(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));

/* Sends one raw packet of len bytes (payload copied from src, which may be
 * NULL for zeros) to dest. */
void bench_send(int dest, const void *src, size_t len);
/* The same, timed: returns the time spent in alloc+write+send (two reads
 * of the clock on top: not for latency on the live platform). */
double bench_send_raw(int dest, const void *src, size_t len);

/* Charges seconds of compute if positive (a wait or modelled work). */
void bench_compute(double seconds);

/* Computes until lci_wtime() reaches t. */
void bench_compute_until(double t);

/* ---- the run's identity --------------------------------------------- */

/* Decomposition name (lci_decomp_name()). */
const char *bench_decomp(void);

/* Packet size in bytes: $LCI_PACKET_SIZE when set, else the payload
 * capacity rounded up to a power of two. */
size_t bench_packet_size(void);

/* Platform name from $LCI_PLATFORM ("sim" when unset: lci-run's default). */
const char *bench_platform(void);

/* True when lci_wtime() is one clock shared by all nodes (sim platform). */
int bench_global_clock(void);

/* The paper's reliability schemes (Table 4 columns). */
typedef enum {
    BENCH_RX_NO = 0,
    BENCH_RX_NI = 1,
    BENCH_RX_H = 2,
    BENCH_RX_UNKNOWN = 3
} bench_scheme_t;

/* True for the five decompositions the paper measured; the others are
 * beyond it (another system's protocol, or a split the paper did not
 * build) and have no published number to be compared with. */
int bench_in_paper(const char *decomp);

/* "rxno-*" -> RX_no, "rxni-*" -> RX_ni, "rxh-*" -> RX_h for the paper's
 * five; BENCH_RX_UNKNOWN for any other decomposition, even one whose name
 * starts the same way, so that no paper column is taken for its own. */
bench_scheme_t bench_scheme_of(const char *decomp);
const char *bench_scheme_name(bench_scheme_t scheme);

/* ---- output ----------------------------------------------------------- */

/* Appends one row to the CSV file path (writing the header first if the file
 * is new or empty).  Columns:
 *   bench,decomp,packet_size,metric,value_us,msg_size,mb_s,nodes
 * value_us is a time in microseconds (for throughput rows: time per
 * message); mb_s is 10^6 bytes/s or negative for "not a throughput";
 * msg_size is the payload size in bytes. */
void bench_csv_row(const char *path, const char *bench, const char *metric,
                   double value_us, size_t msg_size, double mb_s);

/* A formatted string from a small ring of static buffers (valid for the next
 * 63 calls): for table cells. */
const char *bench_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* measured/reference as "0.93x", or "-" without a reference. */
const char *bench_ratio(double measured, double reference);

/* A text table with aligned columns. */
typedef struct bench_table bench_table_t;
bench_table_t *bench_table_create(const char *title, int ncols,
                                  const char *const *headers);
void bench_table_add_row(bench_table_t *table, const char *const *cells);
void bench_table_print(const bench_table_t *table, FILE *out);
void bench_table_free(bench_table_t *table);

/* Prints the benchmark's configuration line (decomp, packet size, nodes). */
void bench_print_config(const char *prog, FILE *out);

#endif
