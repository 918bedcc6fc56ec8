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
cleanup() {
    for k in $(seq 0 $((nodes - 1))); do
        ip netns del "$tag-n$k" 2>/dev/null
    done
    ip netns del "$tag-sw" 2>/dev/null
    rm -f "$out"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the network ------------------------------------------------------
setup() {
    ip netns add "$tag-sw" &&
        ip -n "$tag-sw" link add br0 type bridge &&
        ip -n "$tag-sw" link set br0 up || return 1
    for k in $(seq 0 $((nodes - 1))); do
        ns=$tag-n$k
        ip netns add "$ns" &&
            ip link add "$tag-v$k" netns "$ns" type veth peer name "p$k" \
                netns "$tag-sw" &&
            ip -n "$ns" link set "$tag-v$k" name eth0 &&
            ip -n "$ns" addr add "$net.$((k + 1))/24" dev eth0 &&
            ip -n "$ns" link set eth0 up &&
            ip -n "$ns" link set lo up &&
            ip -n "$tag-sw" link set "p$k" master br0 &&
            ip -n "$tag-sw" link set "p$k" up || return 1
    done
}

# lossy DROP_PER_MILLE DAMAGE_PER_MILLE: rules on every node's way in.
lossy() {
    for k in $(seq 0 $((nodes - 1))); do
        ip netns exec "$tag-n$k" nft -f - <<EOF || return 1
flush ruleset
table inet lossy {
    chain in {
        type filter hook prerouting priority -300;
        ip saddr $net.0/24 meta l4proto udp numgen random mod 1000 < $1 counter drop
        ip saddr $net.0/24 meta l4proto udp numgen random mod 1000 < $2 counter udp checksum set 0 @th,160,32 set 0x5a5a5a5a
    }
}
EOF
    done
}

# Counters of the rules and the kernel's receive-buffer drops, all nodes.
kernel_losses() {
    dropped=0 damaged=0 overflow=0
    for k in $(seq 0 $((nodes - 1))); do
        c=$(ip netns exec "$tag-n$k" nft list table inet lossy 2>/dev/null |
            sed -n 's/.*counter packets \([0-9]*\).*/\1/p' | tr '\n' ' ')
        set -- $c 0 0
        dropped=$((dropped + $1))
        damaged=$((damaged + $2))
        o=$(ip netns exec "$tag-n$k" awk '/^Udp: [0-9]/ { print $6 }' \
            /proc/net/snmp)
        overflow=$((overflow + ${o:-0}))
    done
    echo "kernel: $dropped dropped, $damaged damaged, $overflow receive-buffer overflows"
}

setup || skip "cannot create namespaces and veth pairs here"
lossy 0 0 || skip "cannot load nftables rules here"

names=$tag-n0 addrs=$net.1
for k in $(seq 1 $((nodes - 1))); do
    names=$names,$tag-n$k
    addrs=$addrs,$net.$((k + 1))
done

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
    crc=$(awk '$1 == "sum" { print $10 }' "$out")
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

decomps="rxni-mni rxni-mh rxh-mh"
lossy 10 5 || exit 1
for d in $decomps; do
    run "1% loss, 0.5% damage" ok "$d"
done
for d in rxno-mni rxno-mh; do
    run "1% loss, 0.5% damage" rxno "$d"
done
kernel_losses

lossy 0 0 || exit 1
for d in $decomps; do
    run "4 KiB socket buffers" ok "$d" LCI_UDP_RCVBUF=4096
done
kernel_losses
exit $failed
