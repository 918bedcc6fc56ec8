#!/bin/sh
# live_netns.sh - a lossy network on one machine: every node in a network
# namespace of its own, joined by veth pairs to a bridge in a switch
# namespace; nftables rules make the kernel lose datagrams at random
# (numgen random) and damage others (payload mangling, with the UDP
# checksum cleared so the damage reaches LCI's CRC); one run gives the
# receivers a tiny socket buffer, so that they overflow it by themselves.
# The exactly-once node programs then run over UDP for every decomposition:
# the retransmitting ones must deliver exactly once in order, RX_no must
# fail loudly.
#
# Uses only the namespaces and addresses it creates (10.213.77.0/24 inside
# them); every run is limited in time; everything is removed on exit, also
# on failure.  Needs root, ip (iproute2) and nft (nftables); exit 77 when
# they are missing or the kernel refuses.
#
# Exit: 0 passed, 1 failed, 77 skipped.
set -u

top_builddir=${top_builddir:-.}
me=live_netns
nodes=3
net=10.213.77
tag=lci$$ # names unique to this run
lci_run=$top_builddir/lci/lci-run
prog=$top_builddir/tests/e2e/e2e_alltoall

skip() {
    echo "$me: SKIP: $*"
    exit 77
}

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
command -v ip >/dev/null 2>&1 || skip "no ip (Debian: iproute2)"
command -v nft >/dev/null 2>&1 || skip "no nft (Debian: nftables)"
[ -x "$prog" ] || { echo "$me: $prog not built"; exit 99; }

out=$(mktemp) || exit 99
. "${top_srcdir:-$(dirname "$0")/..}/tests/live_netns_lib.sh"
netns_nodes=$nodes netns_tag=$tag
trap 'netns_cleanup; rm -f "$out"' EXIT
trap 'exit 1' INT TERM

netns_setup "$tag" "$nodes" "$net" ||
    skip "cannot create namespaces and veth pairs here"
netns_lossy 0 0 || skip "cannot load nftables rules here"
names=$netns_names addrs=$netns_addrs

failed=0

# run WHAT EXPECT(ok|rxno) DECOMP [ENV=VALUE]: one run across the
# namespaces, at most 120 s.
run() {
    what=$1 expect=$2 d=$3
    shift 3
    env "$@" timeout 120 "$lci_run" -n "$nodes" --platform live --wire udp \
        --netns "$names" --udp-addrs "$addrs" --decomp "$d" \
        --rto 5000000 --max-retries 400 --stats "$prog" -k 300 >"$out" 2>&1
    rc=$?
    retx=$(awk '$1 == "sum" { print $9 }' "$out")
    # damaged datagrams fail the wire's authentication before any CRC
    crc=$(awk '$1 == "node" { for (i = 1; i <= NF; i++) if ($i == "auth") c = i }
        $1 == "sum" && c { print $c }' "$out")
    if [ "$expect" = ok ] && [ $rc = 0 ] && grep -q ': OK' "$out"; then
        echo "PASS: $what: $d delivered exactly once in order" \
            "($retx retransmissions, $crc damaged packets dropped)"
    elif [ "$expect" = rxno ] && [ $rc != 0 ] && [ $rc != 124 ] &&
        grep -q 'RX_no' "$out"; then
        echo "PASS: $what: $d failed loudly"
    else
        echo "FAIL: $what: $d (exit $rc)"
        sed 's/^/    | /' "$out" | tail -15
        failed=1
    fi
}

decomps="rxni-mni rxni-mh rxh-mh rxni-mni-vmmc2 rxh-mh-ssam rxni-mni-am2 rxni-mni-srd rxh-mni"
netns_lossy 10 5 || exit 1
for d in $decomps; do
    run "1% loss, 0.5% damage" ok "$d"
done
for d in rxno-mni rxno-mh; do
    run "1% loss, 0.5% damage" rxno "$d"
done
netns_kernel_losses

netns_lossy 0 0 || exit 1
for d in $decomps; do
    run "4 KiB socket buffers" ok "$d" LCI_UDP_RCVBUF=4096
done
netns_kernel_losses
exit $failed
