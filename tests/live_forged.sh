#!/bin/sh
# live_forged.sh - a process outside the job attacks a live UDP run: it
# finds the nodes' sockets and sends them forged datagrams (a valid CRC,
# a real peer's rank, plausible sequence numbers), truncated and random
# ones, and (as root) authentic datagrams replayed from their sender's
# address.  On every decomposition the run's answer must be right (the
# all-to-all checks exactly-once FIFO delivery and every byte), and every
# datagram the attacker sent must be counted as turned away (--stats,
# column auth): none reached the firmware, none stopped the run.
#
# Exit: 0 passed, 1 failed.
set -u

top_builddir=${top_builddir:-.}
me=live_forged
run=$top_builddir/lci/lci-run
a2a=$top_builddir/tests/e2e/e2e_alltoall
forger=$top_builddir/tests/e2e/udp_forger
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
replay=0
if [ "$(id -u)" = 0 ]; then
    replay=20 # capturing on lo and spoofing a source take root
fi
failed=0

# The value in column NAME of the "sum" row of a --stats table in FILE.
stat_sum() {
    awk -v name="$1" '$1 == "node" { for (i = 1; i <= NF; i++) if ($i == name) c = i }
        $1 == "sum" && c { print $c }' "$2"
}

for decomp in rxno-mni rxno-mh rxni-mni rxni-mh rxh-mh rxni-mni-vmmc2 rxh-mh-ssam rxni-mni-am2 rxni-mni-srd rxh-mni; do
    rm -f "$dir/go" "$dir/done"
    timeout 120 "$run" -n 4 --platform live --wire udp --decomp "$decomp" \
        --stats "$a2a" -k 300 --hold-until "$dir/go" \
        --hold-after "$dir/done" >"$dir/out" 2>"$dir/err" &
    pid=$!
    if ! timeout 60 "$forger" --launcher "$pid" -n 4 --go "$dir/go" \
        --done "$dir/done" --replay "$replay" >"$dir/forger" 2>&1; then
        echo "$me: $decomp: the attacker failed: $(cat "$dir/forger")"
        touch "$dir/go" "$dir/done"
        wait "$pid"
        failed=1
        continue
    fi
    wait "$pid"
    rc=$?
    sent=$(awk '{ print $2 }' "$dir/forger")
    replayed=$(awk '{ print $6 }' "$dir/forger")
    auth=$(stat_sum auth "$dir/err")
    if [ "$rc" != 0 ]; then
        echo "$me: $decomp: the run failed (exit $rc) under attack:"
        tail -5 "$dir/err"
        failed=1
    elif [ "${auth:-x}" != "$sent" ]; then
        echo "$me: $decomp: sent $sent datagrams, counted ${auth:-none}"
        failed=1
    elif [ "$replay" != 0 ] && [ "$replayed" = 0 ]; then
        echo "$me: $decomp: captured nothing to replay"
        failed=1
    else
        echo "$me: $decomp: $sent turned away ($replayed replayed), answer right"
    fi
done
exit $failed
