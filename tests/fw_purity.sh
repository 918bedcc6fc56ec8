#!/bin/sh
# fw_purity.sh - proves mechanically that firmware code obeys firmware rules.
#
# Code that may run on the emulated NI is collected in the convenience
# library libfw (.libs/libfw.a).  Firmware keeps all its state in the NI's
# SRAM arena and never calls malloc, stdio, locks, clocks or blocking
# calls (DESIGN.md section 2, "Firmware is firmware").  This script lists
# every symbol the libfw objects reference but do not define (nm -u) and
# fails on any that is not on the allow-list:
#
#   the firmware's environment: lci_platform (the platform's ops table:
#   events, the trace, waking the host, the wire), lci_sched_fail
#   (stopping the run), lci_world, lci_decomp_active
#   lci_timeline_on, lci_timeline_from, lci_timeline_until,
#   lci_timeline_record       (the optional timeline and its window)
#   memcpy memset memmove memcmp, and their _FORTIFY_SOURCE forms
#   crc32 crc32_gzip_refl       the packet CRC (zlib or ISA-L), as the NI's
#                               hardware computes it
#   __stack_chk_fail            stack protector
#   __asan_* __ubsan_* __sanitizer_*  sanitizer instrumentation
#   _GLOBAL_OFFSET_TABLE_       position-independent code
#
# Symbols defined by another libfw object are firmware too and allowed.
#
# Before checking libfw it checks itself: it builds a tiny object that
# calls malloc and printf and makes sure the checker rejects it, so this
# test can fail.
#
# Environment (exported by make check): top_builddir, NM; CC (optional).
# Exit: 0 pure, 1 impure, 99 hard error (no libfw.a, checker broken).

set -u

top_builddir=${top_builddir:-.}
NM=${NM:-nm}
lib=$top_builddir/.libs/libfw.a

me=fw_purity

# Calls that break a firmware rule and deserve to be named as such.
forbidden_re='^(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|valloc|memalign|strdup|strndup|printf|fprintf|vfprintf|vprintf|sprintf|snprintf|vsnprintf|vsprintf|puts|fputs|putchar|fputc|fwrite|fread|fopen|fclose|fflush|perror|write|read|open|close|pthread_.*|sem_.*|mtx_.*|cnd_.*|thrd_.*|clock_gettime|gettimeofday|time|clock|nanosleep|usleep|sleep|sched_yield|poll|select|epoll_.*|futex|syscall|abort|exit|_exit|rand|random|srand|getenv|mmap|munmap|sendto|recvfrom|send|recv)$'

allowed_re='^(lci_platform|lci_timeline_on|lci_timeline_from|lci_timeline_until|lci_timeline_record|lci_sched_fail|lci_world|lci_decomp_active|memcpy|memset|memmove|memcmp|__memcpy_chk|__memset_chk|__memmove_chk|crc32|crc32_gzip_refl|__stack_chk_fail|__asan_.*|__ubsan_.*|__sanitizer_.*|_GLOBAL_OFFSET_TABLE_)$'

# check_archive ARCHIVE: prints "object: symbol" for every disallowed
# undefined symbol; exit status 0 if none, 1 if some, 2 if nm failed.
check_archive() {
    archive=$1
    defined=$(mktemp) || return 2
    undefined=$(mktemp) || { rm -f "$defined"; return 2; }
    # Global symbols defined anywhere in the archive.
    if ! $NM --defined-only -g "$archive" >"$defined.raw" 2>"$defined.err"; then
        cat "$defined.err" >&2
        rm -f "$defined" "$defined.raw" "$defined.err" "$undefined"
        return 2
    fi
    awk 'NF >= 3 { print $3 }' "$defined.raw" | sort -u >"$defined"
    # "object: symbol" for each undefined reference.
    if ! $NM -u "$archive" >"$undefined.raw" 2>"$defined.err"; then
        cat "$defined.err" >&2
        rm -f "$defined" "$defined.raw" "$defined.err" "$undefined" \
            "$undefined.raw"
        return 2
    fi
    awk '
        /:$/ { obj = substr($0, 1, length($0) - 1); next }
        NF >= 2 && ($(NF-1) == "U" || $(NF-1) == "w" || $(NF-1) == "v") {
            print obj ": " $NF
        }' "$undefined.raw" >"$undefined"
    bad=0
    while IFS= read -r line; do
        sym=${line##*: }
        sym=${sym%%@*} # strip symbol versions (memcpy@GLIBC_2.14)
        if printf '%s\n' "$sym" | grep -Eq "$allowed_re"; then
            continue
        fi
        if grep -qxF -- "$sym" "$defined"; then
            continue
        fi
        if printf '%s\n' "$sym" | grep -Eq "$forbidden_re"; then
            printf '%s  (FORBIDDEN in firmware)\n' "$line"
        else
            printf '%s  (not on the allow-list)\n' "$line"
        fi
        bad=1
    done <"$undefined"
    rm -f "$defined" "$defined.raw" "$defined.err" "$undefined" \
        "$undefined.raw"
    return $bad
}

# ---- self-check: an impure object must be rejected -------------------
cc=${CC:-}
if [ -z "$cc" ] && [ -f "$top_builddir/libtool" ]; then
    cc=$(sed -n 's/^LTCC="\(.*\)"$/\1/p' "$top_builddir/libtool" | head -n 1)
fi
[ -n "$cc" ] || cc=cc
AR=${AR:-ar}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fw_purity.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
cat >"$tmp/impure.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
void *lci_fw_impure_example(void);
void *lci_fw_impure_example(void)
{
    void *p = malloc(64);
    printf("firmware must not print\n");
    return p;
}
EOF
cat >"$tmp/pure.c" <<'EOF'
#include <string.h>
struct ops { void (*post)(void); };
extern const struct ops *lci_platform;
void lci_fw_pure_example(char *dst, const char *src);
void lci_fw_pure_example(char *dst, const char *src)
{
    memcpy(dst, src, 16);
    lci_platform->post(); /* the firmware's environment */
}
EOF
if ! $cc -c -o "$tmp/impure.o" "$tmp/impure.c" 2>"$tmp/cc.err" ||
    ! $cc -c -o "$tmp/pure.o" "$tmp/pure.c" 2>>"$tmp/cc.err" ||
    ! "$AR" cr "$tmp/libimpure.a" "$tmp/impure.o" "$tmp/pure.o" ||
    ! "$AR" cr "$tmp/libpure.a" "$tmp/pure.o"; then
    cat "$tmp/cc.err" >&2
    echo "$me: ERROR: cannot build the self-check objects with '$cc'" >&2
    exit 99
fi
check_archive "$tmp/libimpure.a" >"$tmp/impure.out"
rc=$?
if [ $rc -ne 1 ] || ! grep -q 'malloc  (FORBIDDEN' "$tmp/impure.out" ||
    ! grep -q 'printf\|puts' "$tmp/impure.out"; then
    echo "$me: ERROR: self-check failed: an object calling malloc and" \
        "printf was not rejected (status $rc):" >&2
    cat "$tmp/impure.out" >&2
    exit 99
fi
if ! check_archive "$tmp/libpure.a" >"$tmp/pure.out"; then
    echo "$me: ERROR: self-check failed: a pure object was rejected:" >&2
    cat "$tmp/pure.out" >&2
    exit 99
fi
echo "$me: self-check: the checker rejects an object calling malloc/printf:"
sed 's/^/    /' "$tmp/impure.out"

# ---- the real check --------------------------------------------------
if [ ! -f "$lib" ]; then
    echo "$me: ERROR: $lib not found (build libfw.la first)" >&2
    exit 99
fi
members=$("$AR" t "$lib" 2>/dev/null | grep -c '\.o$')
if [ "${members:-0}" -eq 0 ]; then
    echo "$me: ERROR: $lib holds no objects: nothing to check" >&2
    exit 99
fi
echo "$me: checking $members firmware objects in $lib"
check_archive "$lib" >"$tmp/fw.out"
rc=$?
if [ $rc -eq 2 ]; then
    echo "$me: ERROR: $NM failed on $lib" >&2
    exit 99
fi
if [ $rc -ne 0 ]; then
    echo "$me: FAIL: firmware objects reference symbols outside the" \
        "allow-list:"
    sed 's/^/    /' "$tmp/fw.out"
    echo "$me: firmware keeps its state in NI SRAM and may call only LCI" \
        "functions, mem*, crc32 and compiler/sanitizer support."
    exit 1
fi
"$AR" t "$lib" | sed 's/^/    pure: /'
echo "$me: PASS: every undefined symbol in libfw is on the allow-list"
exit 0
