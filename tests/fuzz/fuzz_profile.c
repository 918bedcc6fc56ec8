/* fuzz_profile.c - libFuzzer harness for the cost-profile parser
 * (core/lci_profile.c): any bytes, as lci_profile_load() hands a file's
 * contents to lci_profile_parse_bytes().  Beyond the sanitizers it checks
 * that an error leaves the profile untouched with a terminated message,
 * that every accepted value lies in its field's range, and that
 * format-then-parse gives back every field bit for bit. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lci_profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Field values in table order. */
static void values(const lci_profile_t *p, double *out)
{
    size_t i = 0;
#define GET(field, def, unit, desc) out[i++] = p->field;
    LCI_PROFILE_FIELDS(GET)
#undef GET
}

/* How many fields the table has. */
#define COUNT(field, def, unit, desc) +1
enum { NFIELDS = 0 LCI_PROFILE_FIELDS(COUNT) };
#undef COUNT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lci_profile_t p, before, back;
    char err[300];
    double a[NFIELDS], b[NFIELDS];

    lci_profile_defaults(&p);
    before = p;
    memset(err, 'x', sizeof err);
    lci_status_t st = lci_profile_parse_bytes((const char *)data, size, "fuzz",
                                              &p, err, sizeof err);
    if (memchr(err, '\0', sizeof err) == NULL) {
        abort(); /* the message must be terminated */
    }
    if (st != LCI_OK) {
        if (st != LCI_ERR_CONFIG || memcmp(&p, &before, sizeof p) != 0 ||
            strncmp(err, "fuzz", 4) != 0) {
            abort();
        }
        return 0;
    }
    values(&p, a);
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
        /* Every range lies within [0, 1e12]. */
        if (!(a[i] >= 0.0 && a[i] <= 1e12)) {
            abort();
        }
    }
    char text[8192];
    int n = lci_profile_format(&p, text, sizeof text);
    if (n <= 0 || (size_t)n >= sizeof text) {
        abort();
    }
    lci_profile_defaults(&back);
    if (lci_profile_parse(text, "format", &back, err, sizeof err) != LCI_OK) {
        abort();
    }
    values(&back, b);
    if (memcmp(a, b, sizeof a) != 0) {
        abort();
    }
    return 0;
}
