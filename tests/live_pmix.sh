#!/bin/sh
# live_pmix.sh - live nodes started by an existing launcher: Open MPI's
# mpirun starts the unmodified e2e node programs, lci_init takes rank and
# size from PMIx and exchanges the UDP addresses with put/commit/fence/get
# (loopback UDP here).  Every decomposition must deliver exactly once in
# order; RX_no must fail loudly when the wire duplicates.
#
# Exit: 0 passed, 1 failed, 77 skipped (no mpirun, or built without PMIx).
set -u

top_builddir=${top_builddir:-.}
me=live_pmix

if ! command -v mpirun >/dev/null 2>&1; then
    echo "$me: SKIP: mpirun not found (Debian: openmpi-bin)"
    exit 77
fi
if ! grep -q '^#define LCI_HAVE_PMIX 1' "$top_builddir/config.h"; then
    echo "$me: SKIP: built without PMIx (Debian: libpmix-dev)"
    exit 77
fi
as_root=
if [ "$(id -u)" = 0 ]; then
    as_root=--allow-run-as-root # containers and CI run as root
fi
out=$(mktemp) || exit 1
supp=$(mktemp) || exit 1
trap 'rm -f "$out" "$supp"' EXIT INT TERM
# Sanitizer builds: the PMIx client library keeps a few bytes for good.
echo 'leak:libpmix.so' >"$supp"
LSAN_OPTIONS="suppressions=$supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
failed=0

# mpirun_run NP DECOMP FAULT PROGRAM ARGS...: exit status of the job.
mpirun_run() {
    np=$1 decomp=$2 fault=$3
    shift 3
    LCI_DECOMP=$decomp LCI_FAULT=$fault LCI_RTO=5000000 LCI_MAX_RETRIES=400 \
        timeout 120 mpirun $as_root --oversubscribe -np "$np" \
        -x LCI_DECOMP -x LCI_FAULT -x LCI_RTO -x LCI_MAX_RETRIES -x LSAN_OPTIONS \
        "$@" >"$out" 2>&1
}

expect_ok() {
    what=$1
    shift
    if mpirun_run "$@" && grep -q ': OK' "$out"; then
        echo "PASS: $what"
    else
        echo "FAIL: $what"
        sed 's/^/    | /' "$out" | tail -20
        failed=1
    fi
}

prog() {
    echo "$top_builddir/tests/e2e/$1"
}

for d in rxno-mni rxno-mh rxni-mni rxni-mh rxh-mh rxni-mni-vmmc2 rxh-mh-vmmc2 rxh-mh-ssam rxni-mni-am2 rxni-mni-srd rxh-mni; do
    expect_ok "$d all-to-all, 3 nodes under mpirun" \
        3 "$d" seed=1 "$(prog e2e_alltoall)" -k 200
done
expect_ok "rxni-mh multicast, 3 nodes under mpirun" \
    3 rxni-mh seed=1 "$(prog e2e_mcast)" -k 100
expect_ok "rxh-mh fetch-and-add, 2 nodes under mpirun" \
    2 rxh-mh seed=1 "$(prog e2e_fa)" -k 100
expect_ok "rxni-mni over a wire that drops and damages, under mpirun" \
    2 rxni-mni drop=0.02,corrupt=0.01,seed=4 "$(prog e2e_alltoall)" -k 300

# RX_no over a wire that duplicates: the node itself reports the violation
# (there is no lci-run to do it) and the job fails.
if mpirun_run 2 rxno-mni dup=0.05,seed=2 "$(prog e2e_alltoall)" -k 500; then
    echo "FAIL: rxno-mni with duplicates succeeded under mpirun"
    failed=1
elif grep -q 'RX_no' "$out"; then
    echo "PASS: rxno-mni fails loudly under mpirun"
else
    echo "FAIL: rxno-mni failed without naming RX_no"
    sed 's/^/    | /' "$out" | tail -20
    failed=1
fi
exit $failed
