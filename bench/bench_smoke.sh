#!/bin/sh
# bench_smoke.sh - the microbenchmarks run end to end on a small simulated
# cluster and print their tables; bad flags exit 2; the sweep script writes
# its CSV and report, and the main sweep its report.  Short runs only: this checks the programs, not the
# numbers.

set -u
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
run=$top_builddir/lci/lci-run
bench=$top_builddir/bench
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_smoke.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

[ -x "$run" ] || { echo "SKIP: $run not built"; exit 77; }
decomp=$("$run" --list-decomps | head -n 1)
[ -n "$decomp" ] || { echo "FAIL: lci-run --list-decomps printed nothing"; exit 1; }

# expect_ok NAME PATTERN COMMAND...: COMMAND exits 0 and prints PATTERN
expect_ok() {
    name=$1 pattern=$2
    shift 2
    if ! timeout 120 "$@" >"$tmp/out" 2>&1; then
        echo "FAIL: $name: exit status $? from: $*"
        sed 's/^/    /' "$tmp/out"
        fail=1
    elif ! grep -q -- "$pattern" "$tmp/out"; then
        echo "FAIL: $name: output lacks '$pattern'"
        sed 's/^/    /' "$tmp/out"
        fail=1
    else
        echo "ok: $name"
    fi
}

# expect_usage NAME COMMAND...: COMMAND exits 2
expect_usage() {
    name=$1
    shift
    timeout 60 "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ $rc -ne 2 ]; then
        echo "FAIL: $name: exit status $rc, expected 2, from: $*"
        sed 's/^/    /' "$tmp/out"
        fail=1
    else
        echo "ok: $name"
    fi
}

csv=$tmp/smoke.csv
sim="--platform sim --compute zero --decomp $decomp"

# shellcheck disable=SC2086
{
    expect_ok "lci_logp table" "end-to-end" \
        "$run" -n 2 $sim "$bench/lci_logp" --iters 20 --warmup 2 --burst 50 --csv "$csv"
    expect_ok "lci_fa table" "values consistent" \
        "$run" -n 3 $sim "$bench/lci_fa" --iters 20 --warmup 2 --csv "$csv"
    expect_ok "lci_throughput table" "peak without copy" \
        "$run" -n 2 $sim "$bench/lci_throughput" --sizes 64,3000 --iters 3 --warmup 1 --csv "$csv"
    expect_ok "lci_bcast table" "Broadcast throughput" \
        "$run" -n 8 $sim "$bench/lci_bcast" --iters 3 --warmup 1 --sizes 2500 --csv "$csv"
}
for m in o_s o_r g L end-to-end fa tput_copy tput_nocopy bcast_lat bcast_tput_copy; do
    if ! grep -q ",$m," "$csv"; then
        echo "FAIL: CSV lacks metric $m"
        fail=1
    fi
done
head -n 1 "$csv" | grep -qx 'bench,decomp,packet_size,metric,value_us,msg_size,mb_s,nodes' ||
    { echo "FAIL: CSV header: $(head -n 1 "$csv")"; fail=1; }

for p in lci_logp lci_fa lci_throughput lci_bcast; do
    expect_ok "$p --help" "usage:" "$bench/$p" --help
    expect_usage "$p bad flag" "$bench/$p" --no-such-flag
done
expect_usage "lci_logp bad number" "$bench/lci_logp" --iters many
expect_usage "lci_throughput bad size list" "$bench/lci_throughput" --sizes 64,lots

LCI_RUN=$run
LCI_BENCH_DIR=$bench
export LCI_RUN LCI_BENCH_DIR
expect_ok "lci-microbench --quick" "LogP" \
    "$top_srcdir/bench/lci-microbench" --quick -n 4 --decomp "$decomp" --packet-size 1024 \
    --out "$tmp/results"
for f in microbench.csv microbench.md; do
    [ -s "$tmp/results/$f" ] || { echo "FAIL: lci-microbench wrote no $f"; fail=1; }
done
expect_usage "lci-microbench bad flag" "$top_srcdir/bench/lci-microbench" --no-such-flag

# The figures: drawn from the CSV when gnuplot is there.
if command -v gnuplot >/dev/null 2>&1; then
    for f in throughput-1024.png throughput-1024.svg bcast-latency.png logp.svg; do
        [ -s "$tmp/results/$f" ] || { echo "FAIL: lci-microbench drew no $f"; fail=1; }
    done
else
    echo "note: gnuplot not found; figures not checked"
fi
expect_usage "lci-plot bad flag" "$top_srcdir/bench/lci-plot" --no-such-flag

# The main sweep (lci-sweep), on small inputs: two decompositions, every
# part, its report; run again, it finds every cell done and runs none.
LCI_BUILD_DIR=$top_builddir
export LCI_BUILD_DIR
sweep="$top_srcdir/bench/lci-sweep --quick -n 4 --decomp $decomp,rxh-mh --apps SOR,QR --out $tmp/sweep"
# shellcheck disable=SC2086
expect_ok "lci-sweep --quick" "wrote .*report.md" $sweep
for f in report.md apps.csv; do
    [ -s "$tmp/sweep/$f" ] || { echo "FAIL: lci-sweep wrote no $f"; fail=1; }
done
for section in "Table 4\|LogP" "Table 5" "Table 6" "Figure 7" "paper's claims"; do
    grep -q "$section" "$tmp/sweep/report.md" ||
        { echo "FAIL: report.md lacks '$section'"; fail=1; }
done
# every application cell ran and checked its answer: 2 apps x 2 decomps x 2 sizes + 2 T_1
rows=$(grep -c ',SOR,\|,QR,' "$tmp/sweep/apps.csv")
[ "$rows" -eq 10 ] || { echo "FAIL: apps.csv has $rows application rows, expected 10"; fail=1; }
# shellcheck disable=SC2086
expect_ok "lci-sweep resumes" "(15 already done)" $sweep
# A decomposition beyond the paper's five, when one is built, comes after
# the paper's in the report, even when named first, marked with a dagger.
beyond=$("$run" --list-decomps |
    grep -vxF -e rxno-mni -e rxno-mh -e rxni-mni -e rxni-mh -e rxh-mh | head -n 1)
if [ -n "$beyond" ] && [ "$beyond" != "$decomp" ]; then
    expect_ok "lci-sweep beyond the paper" "wrote .*report.md" \
        "$top_srcdir/bench/lci-sweep" --quick -n 4 --decomp "$beyond,$decomp" --apps SOR \
        --parts apps --out "$tmp/beyond"
    grep -q "^| application | $decomp | $beyond † |" "$tmp/beyond/report.md" ||
        { echo "FAIL: report.md does not put $beyond, marked, after $decomp"; fail=1; }
    grep -q "^† marks a decomposition beyond the paper" "$tmp/beyond/report.md" ||
        { echo "FAIL: report.md does not say what † marks"; fail=1; }
fi
expect_usage "lci-sweep bad flag" "$top_srcdir/bench/lci-sweep" --no-such-flag
expect_usage "lci-sweep bad --jobs" "$top_srcdir/bench/lci-sweep" --jobs 0

# The engines side by side (needs the fiber engine).
if [ -x "$top_builddir/lci/lci-fibers" ]; then
    expect_ok "engine-compare --quick" "processes / fibers" \
        env LCI_RUN="$run" sh -c "cd '$top_builddir' && '$top_srcdir/bench/engine-compare' --quick --runs 1 --nodes 8"
fi
expect_usage "engine-compare bad flag" "$top_srcdir/bench/engine-compare" --no-such-flag

exit $fail
