/*
 * lci_profile.c - cost profiles: parse, load, format (see lci_profile.h).
 *
 * Host-only code (stdio and malloc are fine here).  Every field list comes
 * from LCI_PROFILE_FIELDS, so adding a field is a one-line change there.
 */
#include "config.h"

#include "lci_profile.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest line the parser accepts, comment included. */
#define LCI_PROFILE_LINE_MAX 1024

/* Largest profile file read: a full profile is about 4 KiB, so anything
 * near this is not a profile (a device such as /dev/zero, a log file). */
#define LCI_PROFILE_FILE_MAX (1024 * 1024)

/*
 * Physical ranges.  Every value must make sense for the quantity it
 * describes and must keep the simulator's arithmetic defined:
 *
 * - A time is at most 1e12 ns (1000 s for one operation; real costs are
 *   nanoseconds to milliseconds).  The virtual clock counts ns in a
 *   uint64_t (up to 1.8e19), so a run can charge some 1.8e7 operations at
 *   the maximum before it overflows, and converting a cost to uint64_t
 *   stays defined (a double beyond 2^64 is undefined behaviour).  Zero is
 *   allowed: an operation can be free.
 * - A time per byte is at most 1e7 ns (10 ms a byte), so that one 64 KiB
 *   packet costs at most 6.6e11 ns, within the bound on one operation.
 * - A rate is a divisor: strictly positive, at least 1e-3 MB/s (a byte a
 *   millisecond; a 64 KiB packet then takes 6.6e10 ns), which also keeps
 *   zero and subnormal numbers out.  At most 1e9 MB/s (1 PB/s, a thousand
 *   times any link or bus built so far).
 * - host_speed multiplies measured CPU time: at least 1e-3 (a simulated
 *   host a thousand times faster than this one), at most 1e6 (one second
 *   of CPU time becomes 1e15 ns, eleven days).
 */
typedef struct {
    double lo, hi;
} lci_profile_range_t;

static const lci_profile_range_t lci_profile_range_time = {0.0, 1e12};
static const lci_profile_range_t lci_profile_range_per_byte = {0.0, 1e7};
static const lci_profile_range_t lci_profile_range_rate = {1e-3, 1e9};
static const lci_profile_range_t lci_profile_range_factor = {1e-3, 1e6};

typedef struct {
    const char *name;
    double def;
    lci_unit_t unit;
    const char *desc;
    size_t offset; /* of the double in lci_profile_t */
} lci_profile_field_t;

static const lci_profile_field_t lci_profile_fields[] = {
#define LCI_PROFILE_ROW(field, def, unit, desc)                                \
    {#field, def, unit, desc, offsetof(lci_profile_t, field)},
    LCI_PROFILE_FIELDS(LCI_PROFILE_ROW)
#undef LCI_PROFILE_ROW
};

#define LCI_PROFILE_NFIELDS                                                    \
    (sizeof(lci_profile_fields) / sizeof(lci_profile_fields[0]))

static double *lci_profile_slot(lci_profile_t *p, const lci_profile_field_t *f)
{
    return (double *)(void *)((char *)p + f->offset);
}

static double lci_profile_get(const lci_profile_t *p,
                              const lci_profile_field_t *f)
{
    return *(const double *)(const void *)((const char *)p + f->offset);
}

static void lci_profile_seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void lci_profile_seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0) {
        return;
    }
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Numbers in profiles always use '.', whatever locale the application set:
 * switch this thread to the C locale for LC_NUMERIC while parsing or
 * formatting. */
typedef struct {
    locale_t c_locale;
    locale_t saved;
} lci_profile_locale_t;

static void lci_profile_locale_enter(lci_profile_locale_t *l)
{
    l->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    l->saved = (locale_t)0;
    if (l->c_locale != (locale_t)0) {
        l->saved = uselocale(l->c_locale);
    }
}

static void lci_profile_locale_leave(lci_profile_locale_t *l)
{
    if (l->c_locale != (locale_t)0) {
        uselocale(l->saved);
        freelocale(l->c_locale);
    }
}

void lci_profile_defaults(lci_profile_t *profile)
{
    if (profile == NULL) {
        return;
    }
    memset(profile, 0, sizeof(*profile));
    for (size_t i = 0; i < LCI_PROFILE_NFIELDS; i++) {
        *lci_profile_slot(profile, &lci_profile_fields[i]) =
            lci_profile_fields[i].def;
    }
    snprintf(profile->name, sizeof(profile->name), "%s", "default");
}

static lci_profile_range_t lci_profile_range(const lci_profile_field_t *f)
{
    switch (f->unit) {
    case LCI_UNIT_TIME:
        return strstr(f->name, "_per_byte") != NULL
                   ? lci_profile_range_per_byte
                   : lci_profile_range_time;
    case LCI_UNIT_RATE:
        return lci_profile_range_rate;
    case LCI_UNIT_FACTOR:
        break;
    }
    return lci_profile_range_factor;
}

static const char *lci_profile_unit_name(lci_unit_t unit)
{
    return unit == LCI_UNIT_TIME ? " ns" : unit == LCI_UNIT_RATE ? " MB/s" : "";
}

/* Writes "expected a time from 0 to 1e+12 ns" for field f. */
static void lci_profile_range_text(const lci_profile_field_t *f, char *out,
                                   size_t outlen)
{
    lci_profile_range_t r = lci_profile_range(f);
    const char *unit = lci_profile_unit_name(f->unit);

    snprintf(out, outlen, "expected %s from %g%s to %g%s",
             f->unit == LCI_UNIT_TIME   ? "a time"
             : f->unit == LCI_UNIT_RATE ? "a rate"
                                        : "a number",
             r.lo, unit, r.hi, unit);
}

static const lci_profile_field_t *lci_profile_find(const char *name)
{
    for (size_t i = 0; i < LCI_PROFILE_NFIELDS; i++) {
        if (strcmp(lci_profile_fields[i].name, name) == 0) {
            return &lci_profile_fields[i];
        }
    }
    return NULL;
}

static const char *lci_profile_unit_kind(lci_unit_t unit)
{
    switch (unit) {
    case LCI_UNIT_TIME:
        return "a time (ns, us, ms, s)";
    case LCI_UNIT_RATE:
        return "a rate (MB/s)";
    case LCI_UNIT_FACTOR:
        return "a plain number";
    }
    return "?";
}

/* Scale to the stored unit for a unit suffix, or 0 if the suffix is not a
 * unit at all; *kind tells which kind of quantity it denotes. */
static double lci_profile_unit_scale(const char *suffix, lci_unit_t *kind)
{
    static const struct {
        const char *text;
        lci_unit_t kind;
        double scale;
    } units[] = {
        {"ns", LCI_UNIT_TIME, 1.0},   {"us", LCI_UNIT_TIME, 1e3},
        {"ms", LCI_UNIT_TIME, 1e6},   {"s", LCI_UNIT_TIME, 1e9},
        {"MB/s", LCI_UNIT_RATE, 1.0},
    };

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(units[i].text, suffix) == 0) {
            *kind = units[i].kind;
            return units[i].scale;
        }
    }
    return 0.0;
}

static char *lci_profile_trim(char *s)
{
    while (*s == ' ' || *s == '\t') {
        s++;
    }
    size_t n = strlen(s);

    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) {
        s[--n] = '\0';
    }
    return s;
}

/* Parses one line (already copied, NUL-terminated) into *p, recording the
 * fields seen in seen[].  Returns false with a message (without the
 * "FILE:LINE: " prefix) in msg. */
static bool lci_profile_parse_line(char *line, lci_profile_t *p, bool *seen,
                                   char *msg, size_t msglen)
{
    char *hash = strchr(line, '#');

    if (hash != NULL) {
        *hash = '\0';
    }
    char *s = lci_profile_trim(line);

    if (*s == '\0') {
        return true;
    }
    char *eq = strchr(s, '=');

    if (eq == NULL) {
        snprintf(msg, msglen, "expected \"name = value [unit]\", got \"%s\"",
                 s);
        return false;
    }
    *eq = '\0';
    char *name = lci_profile_trim(s);
    char *value = lci_profile_trim(eq + 1);

    if (*name == '\0') {
        snprintf(msg, msglen, "missing field name before '='");
        return false;
    }
    const lci_profile_field_t *f = lci_profile_find(name);

    if (f == NULL) {
        snprintf(msg, msglen, "unknown field \"%s\"", name);
        return false;
    }
    size_t idx = (size_t)(f - lci_profile_fields);

    if (seen[idx]) {
        snprintf(msg, msglen, "duplicate field \"%s\"", name);
        return false;
    }
    if (*value == '\0') {
        snprintf(msg, msglen, "missing value for \"%s\"", name);
        return false;
    }
    char *end = NULL;
    char range[128];

    lci_profile_range_text(f, range, sizeof(range));
    /* Overflow gives HUGE_VAL, caught by isfinite(); underflow (a number
     * too small for a normal double) sets ERANGE and is refused below. */
    errno = 0;
    double v = strtod(value, &end);
    int range_error = errno == ERANGE;

    /* strtod also takes hex floats, "inf" and "nan", and stops quietly in
     * "1.2.3": allow only a whole plain decimal number. */
    size_t numlen = (size_t)(end - value);

    if (end == value ||
        strspn(value, "0123456789.eE+-") != numlen ||
        (*end != '\0' && strchr("0123456789.eE+-", *end) != NULL)) {
        snprintf(msg, msglen, "bad number \"%s\" for \"%s\"", value, name);
        return false;
    }
    if (v < 0.0 || signbit(v)) {
        snprintf(msg, msglen, "negative value %s for \"%s\" (%s)", value,
                 name, range);
        return false;
    }
    char *suffix = lci_profile_trim(end);

    if (*suffix != '\0') {
        lci_unit_t kind = LCI_UNIT_FACTOR;
        double scale = lci_profile_unit_scale(suffix, &kind);

        if (scale == 0.0) {
            snprintf(msg, msglen,
                     "unknown unit \"%s\" for \"%s\" (expected %s)", suffix,
                     name, lci_profile_unit_kind(f->unit));
            return false;
        }
        if (kind != f->unit) {
            snprintf(msg, msglen, "wrong unit \"%s\" for \"%s\": expected %s",
                     suffix, name, lci_profile_unit_kind(f->unit));
            return false;
        }
        v *= scale;
    }
    lci_profile_range_t r = lci_profile_range(f);

    if (range_error || !(v >= r.lo && v <= r.hi)) {
        snprintf(msg, msglen, "%s = %s is out of range (%s)", name, value,
                 range);
        return false;
    }
    *lci_profile_slot(p, f) = v;
    seen[idx] = true;
    return true;
}

lci_status_t lci_profile_parse_bytes(const char *data, size_t size,
                                     const char *origin,
                                     lci_profile_t *profile, char *err,
                                     size_t errlen)
{
    if (origin == NULL) {
        origin = "<profile>";
    }
    if (data == NULL || profile == NULL) {
        lci_profile_seterr(err, errlen, "%s: no profile text", origin);
        return LCI_ERR_INVAL;
    }
    if (size > LCI_PROFILE_FILE_MAX) {
        lci_profile_seterr(err, errlen,
                           "%s: larger than %d bytes, too large for a profile",
                           origin, LCI_PROFILE_FILE_MAX);
        return LCI_ERR_CONFIG;
    }
    /* Parse into a copy: *profile changes only if every line is good. */
    lci_profile_t copy = *profile;
    bool seen[LCI_PROFILE_NFIELDS] = {false};
    char line[LCI_PROFILE_LINE_MAX + 1];
    char msg[LCI_PROFILE_LINE_MAX + 256];
    lci_profile_locale_t loc;
    lci_status_t status = LCI_OK;
    unsigned lineno = 0;
    const char *p = data;
    const char *stop = data + size;

    lci_profile_locale_enter(&loc);
    while (p < stop) {
        const char *nl = memchr(p, '\n', (size_t)(stop - p));
        size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(stop - p);

        lineno++;
        if (len > LCI_PROFILE_LINE_MAX) {
            lci_profile_seterr(err, errlen, "%s:%u: line longer than %d bytes",
                               origin, lineno, LCI_PROFILE_LINE_MAX);
            status = LCI_ERR_CONFIG;
            break;
        }
        if (memchr(p, '\0', len) != NULL) {
            lci_profile_seterr(err, errlen,
                               "%s:%u: NUL byte in the line (a profile is "
                               "text)",
                               origin, lineno);
            status = LCI_ERR_CONFIG;
            break;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        if (!lci_profile_parse_line(line, &copy, seen, msg, sizeof(msg))) {
            lci_profile_seterr(err, errlen, "%s:%u: %s", origin, lineno, msg);
            status = LCI_ERR_CONFIG;
            break;
        }
        p += len;
        if (p < stop) {
            p++; /* the newline */
        }
    }
    lci_profile_locale_leave(&loc);
    if (status == LCI_OK) {
        *profile = copy;
        if (err != NULL && errlen > 0) {
            err[0] = '\0';
        }
    }
    return status;
}

lci_status_t lci_profile_parse(const char *text, const char *origin,
                               lci_profile_t *profile, char *err, size_t errlen)
{
    return lci_profile_parse_bytes(text, text != NULL ? strlen(text) : 0,
                                   origin, profile, err, errlen);
}

/* Reads a whole file, but no more than LCI_PROFILE_FILE_MAX + 1 bytes, so
 * that an endless file (/dev/zero) stops at once; *size_p tells how much
 * was read.  Returns NULL with errno set on failure. */
static char *lci_profile_read_file(FILE *fp, size_t *size_p)
{
    size_t cap = 4096;
    size_t len = 0;
    char *buf = malloc(cap);

    if (buf == NULL) {
        return NULL;
    }
    while (len <= LCI_PROFILE_FILE_MAX) {
        if (len == cap) {
            size_t bigger_cap = cap * 2;

            if (bigger_cap > LCI_PROFILE_FILE_MAX + 1) {
                bigger_cap = LCI_PROFILE_FILE_MAX + 1;
            }
            char *bigger = realloc(buf, bigger_cap);

            if (bigger == NULL) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = bigger;
            cap = bigger_cap;
        }
        size_t n = fread(buf + len, 1, cap - len, fp);

        len += n;
        if (n == 0) {
            break;
        }
    }
    if (ferror(fp)) {
        int saved = errno != 0 ? errno : EIO;

        free(buf);
        errno = saved;
        return NULL;
    }
    *size_p = len;
    return buf;
}

static lci_status_t lci_profile_load_file(const char *path, FILE *fp,
                                          lci_profile_t *profile, char *err,
                                          size_t errlen)
{
    errno = 0;
    size_t size = 0;
    char *text = lci_profile_read_file(fp, &size);

    if (text == NULL) {
        lci_profile_seterr(err, errlen, "%s: cannot read profile: %s", path,
                           strerror(errno));
        return LCI_ERR_CONFIG;
    }
    lci_profile_t copy;

    lci_profile_defaults(&copy);
    lci_status_t status =
        lci_profile_parse_bytes(text, size, path, &copy, err, errlen);

    free(text);
    if (status != LCI_OK) {
        return status;
    }
    const char *base = strrchr(path, '/');

    base = base != NULL ? base + 1 : path;
    snprintf(copy.name, sizeof(copy.name), "%s", base);
    *profile = copy;
    return LCI_OK;
}

lci_status_t lci_profile_load(const char *spec, lci_profile_t *profile,
                              char *err, size_t errlen)
{
    if (spec == NULL || *spec == '\0' || profile == NULL) {
        lci_profile_seterr(err, errlen, "no profile name given");
        return LCI_ERR_CONFIG;
    }
    if (strchr(spec, '/') != NULL) {
        FILE *fp = fopen(spec, "r");

        if (fp == NULL) {
            lci_profile_seterr(err, errlen, "%s: cannot open profile: %s", spec,
                               strerror(errno));
            return LCI_ERR_CONFIG;
        }
        lci_status_t status =
            lci_profile_load_file(spec, fp, profile, err, errlen);

        fclose(fp);
        return status;
    }

    /* A bare name: search the directories in order. */
    const char *env = getenv("LCI_PROFILE_DIR");
    const char *dirs[3];
    size_t ndirs = 0;

    if (env != NULL && *env != '\0') {
        dirs[ndirs++] = env;
    }
    dirs[ndirs++] = LCI_PROFILE_DIR_BUILD;
    dirs[ndirs++] = LCI_PROFILE_DIR_INSTALL;

    char tried[1024] = "";
    size_t tried_len = 0;

    for (size_t i = 0; i < ndirs; i++) {
        char path[4096];
        int n = snprintf(path, sizeof(path), "%s/%s", dirs[i], spec);

        if (n < 0 || (size_t)n >= sizeof(path)) {
            continue;
        }
        FILE *fp = fopen(path, "r");

        if (fp != NULL) {
            lci_status_t status =
                lci_profile_load_file(path, fp, profile, err, errlen);

            fclose(fp);
            return status;
        }
        if (errno != ENOENT && errno != ENOTDIR) {
            lci_profile_seterr(err, errlen, "%s: cannot open profile: %s", path,
                               strerror(errno));
            return LCI_ERR_CONFIG;
        }
        if (tried_len < sizeof(tried)) {
            int m = snprintf(tried + tried_len, sizeof(tried) - tried_len,
                             "%s%s%s", i > 0 ? ", " : "", dirs[i],
                             dirs[i] == env ? " ($LCI_PROFILE_DIR)" : "");

            if (m > 0) {
                tried_len += (size_t)m;
            }
        }
    }
    lci_profile_seterr(err, errlen, "profile \"%s\" not found; looked in: %s",
                       spec, tried);
    return LCI_ERR_CONFIG;
}

/* Writes v with the fewest significant digits (15 to 17) that read back
 * as exactly v: %.17g always does, but prints 0.15 as 0.14999999999999999. */
static void lci_profile_format_number(double v, char *out, size_t outlen)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(out, outlen, "%.*g", digits, v);
        if (strtod(out, NULL) == v) {
            return;
        }
    }
}

int lci_profile_format(const lci_profile_t *profile, char *buf, size_t len)
{
    if (profile == NULL || (buf == NULL && len > 0)) {
        return -1;
    }
    lci_profile_locale_t loc;
    size_t total = 0;
    int status = 0;

    lci_profile_locale_enter(&loc);
    /* Like snprintf: write what fits, return the full length. */
#define LCI_PROFILE_EMIT(...)                                                  \
    do {                                                                       \
        int n_ = snprintf(total < len ? buf + total : NULL,                    \
                          total < len ? len - total : 0, __VA_ARGS__);         \
        if (n_ < 0) {                                                          \
            status = -1;                                                       \
        } else {                                                               \
            total += (size_t)n_;                                               \
        }                                                                      \
    } while (0)

    /* The name goes into a comment: stop it at a newline, and at the end
     * of the array should it lack its NUL. */
    int name_len = (int)strnlen(profile->name, sizeof(profile->name));

    const char *newline = memchr(profile->name, '\n', (size_t)name_len);

    if (newline != NULL) {
        name_len = (int)(newline - profile->name);
    }
    LCI_PROFILE_EMIT("# LCI cost profile \"%.*s\"\n", name_len, profile->name);
    for (size_t i = 0; i < LCI_PROFILE_NFIELDS && status == 0; i++) {
        const lci_profile_field_t *f = &lci_profile_fields[i];
        const char *unit = lci_profile_unit_name(f->unit);

        char number[32];

        lci_profile_format_number(lci_profile_get(profile, f), number,
                                  sizeof(number));
        LCI_PROFILE_EMIT("%s = %s%s  # %s\n", f->name, number, unit, f->desc);
    }
#undef LCI_PROFILE_EMIT
    lci_profile_locale_leave(&loc);
    if (status != 0 || total > (size_t)2147483647) {
        return -1;
    }
    return (int)total;
}
