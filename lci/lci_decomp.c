/*
 * lci_decomp.c - the registry of decompositions: every built-in one is a
 * line in this table, and nowhere else.  Which lines are compiled in is
 * decided at configure time (--with-decomp; the LCI_DECOMP_* 0/1 macros);
 * the descriptors themselves are in lci_decomp_defs.h.  A name that is not
 * built in is looked for as a loadable module (lci_decomp_module.c).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "lci_decomp.h"
#include "lci_decomp_defs.h"
#include "lci_fw.h"

#if !defined(LCI_DECOMP_RXNO_MNI) || !defined(LCI_DECOMP_RXNO_MH) ||           \
    !defined(LCI_DECOMP_RXNI_MNI) || !defined(LCI_DECOMP_RXNI_MH) ||           \
    !defined(LCI_DECOMP_RXH_MH) || !defined(LCI_DECOMP_RXNI_MNI_VMMC2) ||     \
    !defined(LCI_DECOMP_RXNI_MH_VMMC2) || !defined(LCI_DECOMP_RXH_MH_VMMC2) ||   \
    !defined(LCI_DECOMP_RXH_MH_SSAM) || !defined(LCI_DECOMP_RXNI_MNI_AM2) ||   \
    !defined(LCI_DECOMP_RXNI_MNI_SRD) || !defined(LCI_DECOMP_RXH_MNI)
#error "config.h must define every LCI_DECOMP_* macro (0 or 1)"
#endif

static const lci_decomp_t builtin[] = {
#if LCI_DECOMP_RXNO_MNI
    LCI_DECOMP_RXNO_MNI_INIT,
#endif
#if LCI_DECOMP_RXNO_MH
    LCI_DECOMP_RXNO_MH_INIT,
#endif
#if LCI_DECOMP_RXNI_MNI
    LCI_DECOMP_RXNI_MNI_INIT,
#endif
#if LCI_DECOMP_RXNI_MH
    LCI_DECOMP_RXNI_MH_INIT,
#endif
#if LCI_DECOMP_RXH_MH
    LCI_DECOMP_RXH_MH_INIT,
#endif
#if LCI_DECOMP_RXNI_MNI_VMMC2
    LCI_DECOMP_RXNI_MNI_VMMC2_INIT,
#endif
#if LCI_DECOMP_RXNI_MH_VMMC2
    LCI_DECOMP_RXNI_MH_VMMC2_INIT,
#endif
#if LCI_DECOMP_RXH_MH_VMMC2
    LCI_DECOMP_RXH_MH_VMMC2_INIT,
#endif
#if LCI_DECOMP_RXH_MH_SSAM
    LCI_DECOMP_RXH_MH_SSAM_INIT,
#endif
#if LCI_DECOMP_RXNI_MNI_AM2
    LCI_DECOMP_RXNI_MNI_AM2_INIT,
#endif
#if LCI_DECOMP_RXNI_MNI_SRD
    LCI_DECOMP_RXNI_MNI_SRD_INIT,
#endif
#if LCI_DECOMP_RXH_MNI
    LCI_DECOMP_RXH_MNI_INIT,
#endif
};

const lci_decomp_t *lci_decomp_active = &builtin[0];

const lci_decomp_t *lci_decomp_current(void)
{
    return lci_decomp_active;
}

size_t lci_decomp_count(void)
{
    return sizeof builtin / sizeof builtin[0];
}

const lci_decomp_t *lci_decomp_at(size_t i)
{
    return i < lci_decomp_count() ? &builtin[i] : NULL;
}

const lci_decomp_t *lci_decomp_find(const char *name)
{
    for (size_t i = 0; i < lci_decomp_count(); i++) {
        if (strcmp(builtin[i].name, name) == 0) {
            return &builtin[i];
        }
    }
    return NULL;
}

/* ---- completeness and version ------------------------------------------ */

/* Names the first op that is not set (set[i] == 0; names in order). */
static const char *first_null(const int *set, const char *const *names,
                              size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!set[i]) {
            return names[i];
        }
    }
    return NULL;
}

#define CHECK_FAIL(...)                                                        \
    do {                                                                       \
        snprintf(err, errlen, __VA_ARGS__);                                    \
        return LCI_ERR_CONFIG;                                                 \
    } while (0)

lci_status_t lci_decomp_check(const lci_decomp_t *d, char *err, size_t errlen)
{
    if (d == NULL || d->name == NULL || d->name[0] == '\0') {
        CHECK_FAIL("decomposition has no name");
    }
    if (strlen(d->name) >= LCI_DECOMP_NAME_MAX) {
        CHECK_FAIL("decomposition name '%.20s...' is longer than %d "
                   "characters",
                   d->name, LCI_DECOMP_NAME_MAX - 1);
    }
    if (d->description == NULL) {
        CHECK_FAIL("decomposition '%s' has no description", d->name);
    }
    if (d->abi != LCI_POLICY_ABI) {
        CHECK_FAIL("decomposition '%s' has policy ABI %u, this library "
                   "expects %u",
                   d->name, (unsigned)d->abi, (unsigned)LCI_POLICY_ABI);
    }
    if (d->rx == NULL || d->mc == NULL || d->fa == NULL) {
        CHECK_FAIL("decomposition '%s' has no %s component", d->name,
                   d->rx == NULL   ? "rx"
                   : d->mc == NULL ? "mc"
                                   : "fa");
    }
    struct {
        const char *framework;
        const char *name;
        uint32_t abi;
    } comps[] = {{"rx", d->rx->name, d->rx->abi},
                 {"mc", d->mc->name, d->mc->abi},
                 {"fa", d->fa->name, d->fa->abi}};
    for (size_t i = 0; i < sizeof comps / sizeof comps[0]; i++) {
        if (comps[i].name == NULL) {
            CHECK_FAIL("decomposition '%s': its %s component has no name",
                       d->name, comps[i].framework);
        }
        if (comps[i].abi != LCI_POLICY_ABI) {
            CHECK_FAIL("decomposition '%s': %s component '%s' has policy ABI "
                       "%u, this library expects %u",
                       d->name, comps[i].framework, comps[i].name,
                       (unsigned)comps[i].abi, (unsigned)LCI_POLICY_ABI);
        }
    }
    if (d->rx_place != LCI_PLACE_HOST && d->rx_place != LCI_PLACE_NI) {
        CHECK_FAIL("decomposition '%s': rx placement %d is neither host nor "
                   "NI",
                   d->name, (int)d->rx_place);
    }
    if (d->mc_place != LCI_PLACE_HOST && d->mc_place != LCI_PLACE_NI) {
        CHECK_FAIL("decomposition '%s': mc placement %d is neither host nor "
                   "NI",
                   d->name, (int)d->mc_place);
    }
    if (d->fa_place != LCI_PLACE_HOST && d->fa_place != LCI_PLACE_NI) {
        CHECK_FAIL("decomposition '%s': fa placement %d is neither host nor "
                   "NI",
                   d->name, (int)d->fa_place);
    }

    if (d->rx_place == LCI_PLACE_HOST && d->fa_place == LCI_PLACE_NI) {
        /* With reliability on the host the NI has no rx state (lci_fw.c):
         * it cannot send a packet of the host's streams, which an F&A
         * reply would be.  (Multicast on the NI sends unsequenced early
         * copies ahead of the host's reliable ones: rxh-mni.) */
        CHECK_FAIL("decomposition '%s': fetch-and-add on the NI needs "
                   "reliability on the NI too, but rx is placed on the host",
                   d->name);
    }

    if (d->rx->flags & ~(uint32_t)LCI_RX_FLAGS_KNOWN) {
        CHECK_FAIL("decomposition '%s': rx component '%s' has flags 0x%x "
                   "this library does not know (known: 0x%x)",
                   d->name, d->rx->name, (unsigned)d->rx->flags,
                   (unsigned)LCI_RX_FLAGS_KNOWN);
    }
    if ((d->rx->flags & LCI_RX_UNORDERED) && d->rx_place == LCI_PLACE_HOST) {
        /* The host restores FIFO order for what the NI hands up
         * (lci/lci_reorder.c); an rx on the host decides delivery itself,
         * and nothing between it and the client would reorder. */
        CHECK_FAIL("decomposition '%s': rx component '%s' delivers out of "
                   "order (LCI_RX_UNORDERED), so it must be placed on the "
                   "NI: the host library restores FIFO order only for what "
                   "the NI hands up, and nothing would reorder behind an rx "
                   "on the host",
                   d->name, d->rx->name);
    }

    const lci_rx_ops_t *rx = &d->rx->ops;
    const int rx_set[] = {
        rx->state_size != NULL, rx->timers != NULL,  rx->init != NULL,
        rx->send != NULL,       rx->accept != NULL,  rx->released != NULL,
        rx->handled != NULL,    rx->timer != NULL,   rx->pending != NULL,
    };
    static const char *const rx_names[] = {
        "state_size", "timers",  "init",  "send",    "accept",
        "released",   "handled", "timer", "pending",
    };
    /* A new op in lci_policy.h must be added here too. */
    _Static_assert(sizeof rx_set / sizeof rx_set[0] ==
                       sizeof(lci_rx_ops_t) / sizeof(void (*)(void)),
                   "lci_decomp_check must check every rx op");
    const int mc_set[] = {d->mc->ops.forward != NULL};
    static const char *const mc_names[] = {"forward"};
    _Static_assert(sizeof(lci_mc_ops_t) == sizeof(void (*)(void)),
                   "lci_decomp_check must check every mc op");
    const int fa_set[] = {d->fa->ops.apply != NULL, d->fa->ops.serve != NULL};
    static const char *const fa_names[] = {"apply", "serve"};
    _Static_assert(sizeof(lci_fa_ops_t) == 2 * sizeof(void (*)(void)),
                   "lci_decomp_check must check every fa op");

    const char *missing =
        first_null(rx_set, rx_names, sizeof rx_set / sizeof rx_set[0]);
    if (missing != NULL) {
        CHECK_FAIL("decomposition '%s': rx component '%s' leaves op '%s' "
                   "NULL (an op it cannot do must return "
                   "LCI_ERR_UNSUPPORTED)",
                   d->name, d->rx->name, missing);
    }
    missing = first_null(mc_set, mc_names, 1);
    if (missing != NULL) {
        CHECK_FAIL("decomposition '%s': mc component '%s' leaves op '%s' "
                   "NULL",
                   d->name, d->mc->name, missing);
    }
    missing = first_null(fa_set, fa_names, 2);
    if (missing != NULL) {
        CHECK_FAIL("decomposition '%s': fa component '%s' leaves op '%s' "
                   "NULL",
                   d->name, d->fa->name, missing);
    }
    return LCI_OK;
}

/* ---- selection ---------------------------------------------------------- */

#define MAX_MODULES 64

/* Appends ", name" (or " name" first) to err at *off. */
static void append_name(char *err, size_t errlen, size_t *off, int *first,
                        const char *name)
{
    if (*off >= errlen) {
        return;
    }
    int n =
        snprintf(err + *off, errlen - *off, "%s %s", *first ? "" : ",", name);
    *first = 0;
    *off = n < 0 ? errlen : *off + (size_t)n;
}

/* Appends "valid values are: a, b, c" (built-in, then modules) to err. */
static void append_valid(char *err, size_t errlen, size_t off)
{
    char names[MAX_MODULES][LCI_DECOMP_NAME_MAX];
    if (off >= errlen) {
        return;
    }
    int n = snprintf(err + off, errlen - off, "valid values are:");
    off = n < 0 ? errlen : off + (size_t)n;
    int first = 1;
    for (size_t i = 0; i < lci_decomp_count(); i++) {
        append_name(err, errlen, &off, &first, builtin[i].name);
    }
    size_t nmod = lci_decomp_module_names(names, MAX_MODULES);
    for (size_t i = 0; i < nmod; i++) {
        if (lci_decomp_find(names[i]) == NULL) {
            append_name(err, errlen, &off, &first, names[i]);
        }
    }
}

lci_status_t lci_decomp_select(const char *name, char *err, size_t errlen)
{
    const lci_decomp_t *d = lci_decomp_find(name);
    if (d == NULL) {
        lci_status_t st = lci_decomp_module_load(name, &d, err, errlen);
        if (st != LCI_OK) {
            /* err says why the module was rejected; add the valid names. */
            size_t off = strnlen(err, errlen);
            if (off + 2 < errlen) {
                snprintf(err + off, errlen - off, "; ");
                append_valid(err, errlen, off + 2);
            }
            return st;
        }
    }
    if (d == NULL) {
        int n = snprintf(err, errlen, "unknown decomposition '%s'; ", name);
        append_valid(err, errlen, n < 0 ? errlen : (size_t)n);
        return LCI_ERR_CONFIG;
    }
    lci_decomp_active = d;
    /* The decomposition's firmware now receives what the hardware of this
     * process reports. */
    lci_fw_sink_register();
    return LCI_OK;
}

void lci_decomp_list(FILE *out)
{
    char names[MAX_MODULES][LCI_DECOMP_NAME_MAX];
    for (size_t i = 0; i < lci_decomp_count(); i++) {
        fprintf(out, "%s\n", builtin[i].name);
    }
    size_t nmod = lci_decomp_module_names(names, MAX_MODULES);
    for (size_t i = 0; i < nmod; i++) {
        if (lci_decomp_find(names[i]) == NULL) {
            fprintf(out, "%s\n", names[i]);
        }
    }
}
