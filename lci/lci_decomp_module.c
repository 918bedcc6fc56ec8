/*
 * lci_decomp_module.c - loadable decompositions: finds lci_decomp_NAME.so
 * in the module directories, loads it with dlopen and takes its one
 * exported symbol, the descriptor lci_decomp_module, with dlsym.  The only
 * file that uses dlopen.
 *
 * Module directories, in search order: each directory in $LCI_MODULE_DIR
 * (separated by ':'; the tests point it at the build tree), then the
 * installed one, LCI_MODULE_DIR_INSTALL ($(pkglibdir)/modules).  Every
 * directory in $LCI_MODULE_DIR must be an absolute path: a relative one
 * would load code from wherever the program happens to run.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lci_decomp.h"

#ifndef LCI_MODULE_DIR_INSTALL
#error "compile with -DLCI_MODULE_DIR_INSTALL=\"<pkglibdir>/modules\""
#endif

#define MODULE_PREFIX "lci_decomp_"
#define MODULE_SUFFIX ".so"
#define MAX_LOADED    64

/* Modules loaded and accepted in this process; they stay loaded. */
static struct {
    char name[LCI_DECOMP_NAME_MAX];
    const lci_decomp_t *d;
} loaded[MAX_LOADED];
static size_t nloaded;

/* A name is a word of [a-z0-9_-], so that it cannot leave the directory. */
static int valid_name(const char *name, size_t len)
{
    if (len == 0 || len >= LCI_DECOMP_NAME_MAX) {
        return 0;
    }
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
              c == '_')) {
            return 0;
        }
    }
    return 1;
}

/* Refuses $LCI_MODULE_DIR if a directory in it is not absolute (empty
 * entries, as in "/a::/b", are skipped as before). */
static lci_status_t check_dirs(char *err, size_t errlen)
{
    const char *p = getenv(LCI_DECOMP_MODULE_ENV);
    while (p != NULL && *p != '\0') {
        size_t len = strcspn(p, ":");
        if (len > 0 && *p != '/') {
            snprintf(err, errlen,
                     "$" LCI_DECOMP_MODULE_ENV " holds '%.*s', which is not "
                     "an absolute path; module directories must start with "
                     "'/'",
                     (int)(len < 1024 ? len : 1024), p);
            return LCI_ERR_CONFIG;
        }
        p += len;
        p += *p == ':';
    }
    return LCI_OK;
}

/* Copies the next directory of the search path into dir; *cursor walks
 * $LCI_MODULE_DIR, then *installed says whether the installed directory
 * has been given.  Returns 0 when there are no more. */
static int next_dir(const char **cursor, int *installed, char *dir,
                    size_t dirlen)
{
    while (*cursor != NULL && **cursor != '\0') {
        const char *end = strchr(*cursor, ':');
        size_t len = end ? (size_t)(end - *cursor) : strlen(*cursor);
        const char *start = *cursor;
        *cursor = end ? end + 1 : start + len;
        if (len > 0 && len < dirlen && *start == '/') {
            memcpy(dir, start, len);
            dir[len] = '\0';
            return 1;
        }
    }
    if (!*installed) {
        *installed = 1;
        snprintf(dir, dirlen, "%s", LCI_MODULE_DIR_INSTALL);
        return 1;
    }
    return 0;
}

lci_status_t lci_decomp_module_load(const char *name, const lci_decomp_t **d,
                                    char *err, size_t errlen)
{
    *d = NULL;
    if (!valid_name(name, strlen(name))) {
        return LCI_OK; /* no module can have this name */
    }
    for (size_t i = 0; i < nloaded; i++) {
        if (strcmp(loaded[i].name, name) == 0) {
            *d = loaded[i].d;
            return LCI_OK;
        }
    }
    lci_status_t st = check_dirs(err, errlen);
    if (st != LCI_OK) {
        return st;
    }
    const char *cursor = getenv(LCI_DECOMP_MODULE_ENV);
    int installed = 0;
    char dir[4096], path[4096 + 2 * LCI_DECOMP_NAME_MAX];
    while (next_dir(&cursor, &installed, dir, sizeof dir)) {
        snprintf(path, sizeof path, "%s/" MODULE_PREFIX "%s" MODULE_SUFFIX, dir,
                 name);
        if (access(path, F_OK) != 0) {
            continue;
        }
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            const char *why = dlerror();
            snprintf(err, errlen, "cannot load decomposition module %s: %s",
                     path, why ? why : "unknown error");
            return LCI_ERR_CONFIG;
        }
        const lci_decomp_t *m = dlsym(h, LCI_DECOMP_MODULE_SYMBOL);
        if (m == NULL) {
            snprintf(err, errlen,
                     "decomposition module %s rejected: it does not export "
                     "the symbol " LCI_DECOMP_MODULE_SYMBOL,
                     path);
            dlclose(h);
            return LCI_ERR_CONFIG;
        }
        char why[512];
        if (lci_decomp_check(m, why, sizeof why) != LCI_OK) {
            snprintf(err, errlen, "decomposition module %s rejected: %s", path,
                     why);
            dlclose(h);
            return LCI_ERR_CONFIG;
        }
        if (strcmp(m->name, name) != 0) {
            snprintf(err, errlen,
                     "decomposition module %s rejected: it describes '%s', "
                     "not '%s'",
                     path, m->name, name);
            dlclose(h);
            return LCI_ERR_CONFIG;
        }
        if (nloaded < MAX_LOADED) {
            snprintf(loaded[nloaded].name, sizeof loaded[nloaded].name, "%s",
                     name);
            loaded[nloaded].d = m;
            nloaded++;
        }
        *d = m;
        return LCI_OK; /* the handle stays open: m points into it */
    }
    return LCI_OK;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

size_t lci_decomp_module_names(char (*names)[LCI_DECOMP_NAME_MAX], size_t max)
{
    size_t n = 0;
    const char *cursor = getenv(LCI_DECOMP_MODULE_ENV);
    int installed = 0;
    char dir[4096];
    const size_t plen = strlen(MODULE_PREFIX), slen = strlen(MODULE_SUFFIX);
    while (next_dir(&cursor, &installed, dir, sizeof dir)) {
        DIR *dp = opendir(dir);
        if (dp == NULL) {
            continue;
        }
        for (struct dirent *e = readdir(dp); e != NULL; e = readdir(dp)) {
            size_t len = strlen(e->d_name);
            if (len <= plen + slen ||
                strncmp(e->d_name, MODULE_PREFIX, plen) != 0 ||
                strcmp(e->d_name + len - slen, MODULE_SUFFIX) != 0 ||
                !valid_name(e->d_name + plen, len - plen - slen)) {
                continue;
            }
            char name[LCI_DECOMP_NAME_MAX];
            memcpy(name, e->d_name + plen, len - plen - slen);
            name[len - plen - slen] = '\0';
            int seen = 0;
            for (size_t i = 0; i < n && !seen; i++) {
                seen = strcmp(names[i], name) == 0;
            }
            if (seen || n >= max) {
                continue;
            }
            /* Only a module that loads and passes the checks is valid;
             * one that an earlier directory shadows is never loaded. */
            const lci_decomp_t *d;
            char err[1024];
            if (lci_decomp_module_load(name, &d, err, sizeof err) == LCI_OK &&
                d != NULL) {
                memcpy(names[n++], name, sizeof name);
            }
        }
        closedir(dp);
    }
    qsort(names, n, sizeof names[0], cmp_names);
    return n;
}
