#!/bin/sh
# fuzz_check.sh - make check's short fuzzing, and make fuzz's long one:
# each libFuzzer harness first replays its committed corpus
# (tests/fuzz/corpus/NAME, regression inputs included), then fuzzes for
# FUZZ_CHECK_SECONDS (3).  New inputs and crashes go to FUZZ_WORK (make
# fuzz: tests/fuzz/work, kept) or a scratch directory (removed), never into
# the source tree.  Skipped (exit 77) when configure found no compiler with
# libFuzzer.
if [ "${LCI_FUZZ:-no}" != yes ]; then
    echo "SKIP: no C compiler with libFuzzer (install clang, rerun configure)"
    exit 77
fi
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
if [ -n "${FUZZ_WORK:-}" ]; then
    work=$FUZZ_WORK
    mkdir -p "$work" || exit 1
else
    work=$(mktemp -d) || exit 1
    trap 'rm -rf "$work"' EXIT INT TERM
fi
failed=0
for name in ${FUZZ_NAMES:-profile fault options}; do
    corpus=$top_srcdir/tests/fuzz/corpus/$name
    mkdir -p "$work/$name" || exit 1
    echo "fuzz_$name: $(ls "$corpus" | wc -l) corpus inputs," \
        "then ${FUZZ_CHECK_SECONDS:-3} s"
    # a harness's own libFuzzer flags, if it has any; one that leaks by
    # design (-detect_leaks=0) is also spared the leak check at exit
    flags=$(cat "$top_srcdir/tests/fuzz/fuzz_$name.flags" 2>/dev/null)
    asan=${ASAN_OPTIONS:-}
    case $flags in
    *-detect_leaks=0*) asan="${asan:+$asan:}detect_leaks=0" ;;
    esac
    # shellcheck disable=SC2086
    if ! ASAN_OPTIONS=$asan "$top_builddir/tests/fuzz/fuzz_$name" $flags \
        -max_total_time="${FUZZ_CHECK_SECONDS:-3}" -print_final_stats=1 \
        -artifact_prefix="$work/" "$work/$name" "$corpus" 2>"$work/log"; then
        cat "$work/log"
        echo "FAIL: fuzz_$name crashed; the input is above"
        for crash in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
            [ -f "$crash" ] && od -c "$crash" | head -20
        done
        failed=1
    else
        grep -E 'stat::number_of_executed_units|INITED|DONE' "$work/log"
    fi
done
exit $failed
