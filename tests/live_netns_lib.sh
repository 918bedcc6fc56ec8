# live_netns_lib.sh - a lossy network of network namespaces on one machine,
# for tests/live_netns.sh and bench/live-compare (sourced, not run).
#
# netns_setup TAG NODES NET: a switch namespace TAG-sw with a bridge, and
#   namespaces TAG-n0 .. TAG-n(NODES-1), each joined to the bridge by a
#   veth pair, with address NET.(k+1)/24 on its eth0.  Sets netns_names and
#   netns_addrs (lci-run's --netns and --udp-addrs lists).
# netns_lossy DROP DAMAGE: nftables rules on every node's way in that drop
#   DROP and damage DAMAGE of every thousand datagrams (numgen random;
#   the damage clears the UDP checksum, so it reaches LCI's CRC).
# netns_kernel_losses: one line with the rules' and the kernel's counts.
# netns_cleanup: removes every namespace (and with it every veth).
# Every function returns nonzero if the kernel refuses.

netns_setup() {
    netns_tag=$1 netns_nodes=$2 netns_net=$3
    netns_names= netns_addrs=
    ip netns add "$netns_tag-sw" &&
        ip -n "$netns_tag-sw" link add br0 type bridge &&
        ip -n "$netns_tag-sw" link set br0 up || return 1
    for k in $(seq 0 $((netns_nodes - 1))); do
        ns=$netns_tag-n$k
        ip netns add "$ns" &&
            ip link add "$netns_tag-v$k" netns "$ns" type veth peer \
                name "p$k" netns "$netns_tag-sw" &&
            ip -n "$ns" link set "$netns_tag-v$k" name eth0 &&
            ip -n "$ns" addr add "$netns_net.$((k + 1))/24" dev eth0 &&
            ip -n "$ns" link set eth0 up &&
            ip -n "$ns" link set lo up &&
            ip -n "$netns_tag-sw" link set "p$k" master br0 &&
            ip -n "$netns_tag-sw" link set "p$k" up || return 1
        netns_names=${netns_names:+$netns_names,}$ns
        netns_addrs=${netns_addrs:+$netns_addrs,}$netns_net.$((k + 1))
    done
}

netns_lossy() {
    for k in $(seq 0 $((netns_nodes - 1))); do
        ip netns exec "$netns_tag-n$k" nft -f - <<RULES || return 1
flush ruleset
table inet lossy {
    chain in {
        type filter hook prerouting priority -300;
        ip saddr $netns_net.0/24 meta l4proto udp numgen random mod 1000 < $1 counter drop
        ip saddr $netns_net.0/24 meta l4proto udp numgen random mod 1000 < $2 counter udp checksum set 0 @th,160,32 set 0x5a5a5a5a
    }
}
RULES
    done
}

netns_kernel_losses() {
    dropped=0 damaged=0 overflow=0
    for k in $(seq 0 $((netns_nodes - 1))); do
        c=$(ip netns exec "$netns_tag-n$k" nft list table inet lossy \
            2>/dev/null | sed -n 's/.*counter packets \([0-9]*\).*/\1/p' |
            tr '\n' ' ')
        set -- $c 0 0
        dropped=$((dropped + $1))
        damaged=$((damaged + $2))
        # RcvbufErrors: datagrams the kernel dropped for a full socket.
        o=$(ip netns exec "$netns_tag-n$k" awk '/^Udp: [0-9]/ { print $6 }' \
            /proc/net/snmp)
        overflow=$((overflow + ${o:-0}))
    done
    echo "kernel: $dropped dropped, $damaged damaged," \
        "$overflow receive-buffer overflows"
}

netns_cleanup() {
    for k in $(seq 0 $((netns_nodes - 1))); do
        ip netns del "$netns_tag-n$k" 2>/dev/null
    done
    ip netns del "$netns_tag-sw" 2>/dev/null
}
