#!/usr/bin/env bash
# A many-host test bed on one Linux machine: each host is a network namespace with its own address,
# joined to the others and to the machine's own namespace by a bridge. Links can be capped (tbf),
# cut (nftables drops every packet, so peers get no reset) and healed. Everything a bed is made of
# carries its name, and `down` removes exactly that. Needs root.
#
# A host reaches no name server (nothing routes past the bridge), and a lookup the resolver sends
# there waits out its timeouts: 10 s for a reverse lookup, or for an AAAA query that /etc/hosts does
# not answer, each time a JVM starts (a Spark executor took 14 s to register). Each host therefore
# gets a resolv.conf of its own, pointing at its loopback, where nothing listens: lookups that
# /etc/hosts does not answer fail at once, as they do on a machine whose name server knows nothing
# of the bed. `ip netns exec` mounts /etc/netns/NAMESPACE/resolv.conf over /etc/resolv.conf.
#
#   netbed.sh check                      exit 0 when beds can be made here (installs nftables when
#                                        missing); otherwise print why and exit 2
#   netbed.sh up BED NET HOST...         bridge BED-br at 10.NET.0.1/24; host i (from 0) gets the
#                                        namespace BED-HOST at 10.NET.0.(10+i)
#   netbed.sh exec BED HOST CMD...       runs CMD inside the host's namespace
#   netbed.sh cap BED HOST RATE          caps the host's link, both ways, to RATE (e.g. 100mbit)
#   netbed.sh uncap BED HOST
#   netbed.sh cut BED HOST               drops every packet to and from the host
#   netbed.sh heal BED HOST
#   netbed.sh down BED                   kills the bed's processes, removes its namespaces, links
#                                        and the resolv.conf files it wrote under /etc/netns
set -euo pipefail

die() { echo "netbed: $*" >&2; exit 2; }

ns() { echo "$1-$2"; }

# The first line of the resolv.conf a bed writes: `down` removes only files that begin with it.
RESOLV_MARK="# netbed.sh: this host of a test bed has no name server"

# The machine-side end of a host's link: interface names have at most 15 characters.
link() {
  local index
  index=$(ip netns exec "$(ns "$1" "$2")" cat /sys/class/net/eth0/iflink)
  ip -o link show | awk -F': ' -v i="$index" '$1 == i { sub(/@.*/, "", $2); print $2 }'
}

check() {
  [ "$(id -u)" = 0 ] || die "network namespaces need root (running as uid $(id -u))"
  command -v ip >/dev/null || die "the ip command (Debian package iproute2) is missing"
  command -v tc >/dev/null || die "the tc command (Debian package iproute2) is missing"
  if ! command -v nft >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q nftables >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q nftables >/dev/null 2>&1; } \
      || die "nftables is missing and apt-get could not install it"
  fi
  local probe="netbed-check-$$"
  ip netns add "$probe" 2>/dev/null || die "this kernel or sandbox refuses network namespaces"
  ip netns del "$probe"
}

# Best effort: where /etc/netns cannot be written, or holds a resolv.conf that is not ours, the
# host keeps the machine's resolver (and its slow failures).
resolver() {
  local dir="/etc/netns/$1"
  if [ -e "$dir/resolv.conf" ] && [ "$(head -n1 "$dir/resolv.conf")" != "$RESOLV_MARK" ]; then
    echo "netbed: leaving $dir/resolv.conf alone: it was not written by netbed.sh" >&2
    return 0
  fi
  { mkdir -p "$dir" && printf '%s\nnameserver 127.0.0.1\noptions timeout:1 attempts:1\n' \
      "$RESOLV_MARK" > "$dir/resolv.conf"; } 2>/dev/null \
    || echo "netbed: could not write $dir/resolv.conf: lookups on $1 will be slow" >&2
}

up() {
  local bed=$1 net=$2
  shift 2
  [[ "$bed" =~ ^[a-z][a-z0-9]{0,5}$ ]] || die "bed names are 1-6 lower-case letters and digits"
  [[ "$net" =~ ^[0-9]+$ ]] && [ "$net" -ge 1 ] && [ "$net" -le 254 ] || die "NET is 1-254"
  ip link add "$bed-br" type bridge
  ip addr add "10.$net.0.1/24" dev "$bed-br"
  ip link set "$bed-br" up
  local i=0 host
  for host in "$@"; do
    [[ "$host" =~ ^[a-z][a-z0-9]{0,7}$ ]] || die "host names are 1-8 lower-case letters and digits"
    ip netns add "$(ns "$bed" "$host")"
    ip link add "$bed-v$i" type veth peer name "$bed-p$i"
    ip link set "$bed-p$i" netns "$(ns "$bed" "$host")"
    ip link set "$bed-v$i" master "$bed-br" up
    ip netns exec "$(ns "$bed" "$host")" ip link set "$bed-p$i" name eth0
    ip netns exec "$(ns "$bed" "$host")" ip addr add "10.$net.0.$((10 + i))/24" dev eth0
    ip netns exec "$(ns "$bed" "$host")" ip link set eth0 up
    ip netns exec "$(ns "$bed" "$host")" ip link set lo up
    ip netns exec "$(ns "$bed" "$host")" ip route add default via "10.$net.0.1"
    resolver "$(ns "$bed" "$host")"
    i=$((i + 1))
  done
}

cap() {
  local bed=$1 host=$2 rate=$3
  # tbf holds at most 50 ms of traffic at the rate; the burst is one millisecond's worth, at least
  # a 64 KiB segment (offloads hand tbf large segments).
  ip netns exec "$(ns "$bed" "$host")" tc qdisc replace dev eth0 root tbf rate "$rate" \
    burst 64kb latency 50ms
  tc qdisc replace dev "$(link "$bed" "$host")" root tbf rate "$rate" burst 64kb latency 50ms
}

uncap() {
  local bed=$1 host=$2
  ip netns exec "$(ns "$bed" "$host")" tc qdisc del dev eth0 root 2>/dev/null || true
  tc qdisc del dev "$(link "$bed" "$host")" root 2>/dev/null || true
}

cut() {
  local n
  n=$(ns "$1" "$2")
  ip netns exec "$n" nft -f - <<EOF
table inet netbed_cut {
  chain in { type filter hook input priority 0; policy drop; iifname "lo" accept; }
  chain out { type filter hook output priority 0; policy drop; oifname "lo" accept; }
}
EOF
}

heal() {
  ip netns exec "$(ns "$1" "$2")" nft delete table inet netbed_cut 2>/dev/null || true
}

down() {
  local bed=$1 n
  for n in $(ip netns list | awk '{print $1}' | grep "^$bed-" || true); do
    ip netns pids "$n" | xargs -r kill -9 2>/dev/null || true
    ip netns del "$n"
  done
  ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' \
    | grep -E "^$bed-(br|v[0-9]+)$" | xargs -r -n1 ip link del 2>/dev/null || true
  local dir
  for dir in /etc/netns/"$bed"-*; do
    [ -d "$dir" ] || continue
    if [ "$(head -n1 "$dir/resolv.conf" 2>/dev/null)" = "$RESOLV_MARK" ]; then
      rm -f "$dir/resolv.conf"
      rmdir "$dir" 2>/dev/null || true
    fi
  done
}

command=${1:-}
shift || true
case "$command" in
  check) check ;;
  up) [ $# -ge 3 ] || die "usage: up BED NET HOST..."; up "$@" ;;
  exec) [ $# -ge 3 ] || die "usage: exec BED HOST CMD..."; n=$(ns "$1" "$2"); shift 2
    exec ip netns exec "$n" "$@" ;;
  cap) [ $# -eq 3 ] || die "usage: cap BED HOST RATE"; cap "$@" ;;
  uncap) [ $# -eq 2 ] || die "usage: uncap BED HOST"; uncap "$@" ;;
  cut) [ $# -eq 2 ] || die "usage: cut BED HOST"; cut "$@" ;;
  heal) [ $# -eq 2 ] || die "usage: heal BED HOST"; heal "$@" ;;
  down) [ $# -eq 1 ] || die "usage: down BED"; down "$@" ;;
  *) die "usage: netbed.sh check|up|exec|cap|uncap|cut|heal|down ..." ;;
esac
