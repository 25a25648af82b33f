#!/usr/bin/env bash
# Simulated hosts on this machine, so MPI jobs can run across "machines" in tests and studies:
#
#   scripts/sim-cluster.sh up [N] [--delay 50us] [--rate 10gbit]   make hosts sim0..sim<N-1> (N: 2..4, default 2)
#   scripts/sim-cluster.sh exec HOST CMD...                         run CMD on HOST (its network and hostname)
#   scripts/sim-cluster.sh netem [--delay D] [--rate R | --clear]   change the link emulation of every host
#                                   (a delay without the kernel's netem: a user-space wire, sim-wire.py)
#   scripts/sim-cluster.sh status                                   list the hosts and their addresses
#   scripts/sim-cluster.sh down                                     remove everything `up` made
#   scripts/sim-cluster.sh rsh HOST CMD...                          Open MPI's rsh agent (set by `exec`)
#
# A host is a network namespace (parlab-simK, under /run/netns) plus a persistent UTS namespace
# (its own hostname simK, bound at $SIM_DIR/simK.uts). Each host has one veth whose other end sits in
# a switch namespace (parlab-simsw) holding a bridge; the hosts' addresses are 10.213.77.(K+1)/24.
# `exec` enters both namespaces of the host and points Open MPI at this script as its rsh agent
# (OMPI_MCA_plm_rsh_agent), so `mpirun --hostfile $SIM_DIR/hostfile` run on sim0 starts its
# far daemons (orted) through `rsh`, which enters the far host the way ssh would log into it.
# The processes share this machine's file system, PID space and user: as on a cluster with a
# shared home directory. What the links model and do not model: docs/multihost.md.
#
# Traffic stays inside: by construction, the /24 exists only inside namespaces this script made.
# No interface of the root (or any other) namespace gets an address of it or a veth end: every
# veth pair is created with both ends moved at once, one into a host and one into the switch
# namespace; a delayed link where the kernel has no netem is two TAPs that sim-wire.py creates
# from inside their namespaces (it enters each before opening /dev/net/tun) and forwards between,
# opening no socket itself. The host namespaces have no default route and no route but the /24 (and their own
# loopback); the switch namespace has no address at all and forwards nothing but the bridge's
# frames between its ports. No forwarding or NAT is configured anywhere. So a packet a host sends
# can reach only another simulated host or its own loopback; any other destination fails with
# "Network is unreachable" before a packet leaves (a DNS lookup of an unknown name included).
#
# Idempotent: `up` first removes what a previous `up` left, and a failed or interrupted `up`
# removes what it made (trap). Needs root (namespaces, veth, tc); without it, it refuses.
set -euo pipefail

SIM_DIR=${SIM_CLUSTER_DIR:-/run/sim-cluster}
PREFIX=parlab-sim
SWITCH=${PREFIX}sw
NET=10.213.77
SELF=$(readlink -f "$0")
WIRE=$(dirname "$SELF")/sim-wire.py
PYTHON=${SIM_CLUSTER_PYTHON:-python3}

die() { echo "sim-cluster: $*" >&2; exit 1; }
need_root() {
  [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, veth pairs, tc); run it as root, e.g. in CI's container or with sudo"
  for tool in ip nsenter unshare; do command -v "$tool" >/dev/null || die "'$tool' is missing (apt-get install iproute2 util-linux)"; done
}

hosts() { [ -f "$SIM_DIR/hosts" ] && cat "$SIM_DIR/hosts" || true; }

# The pid of host K's wire (sim-wire.py) if it is running, else nothing: a pid file alone is not
# trusted, as the pid may since have gone to another process.
wire_pid() {
  local f="$SIM_DIR/wire$1.pid" pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  { tr '\0' ' ' < "/proc/$pid/cmdline"; } 2>/dev/null | grep -q "sim-wire.py --ns-a $PREFIX$1 " && echo "$pid" || true
}

# Ends host K's wire, if any (its TAPs vanish with it), and waits for it (bounded: 5 s, then KILL).
stop_wire() {
  local pid i
  pid=$(wire_pid "$1")
  if [ -n "$pid" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do [ -e "/proc/$pid" ] || break; sleep 0.1; done
    [ -e "/proc/$pid" ] && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$SIM_DIR/wire$1.pid" "$SIM_DIR/wire$1.ready"
}

# Removes every namespace, bind mount and file of ours; safe to run on nothing.
teardown() {
  local h f
  # The wires first: a TAP's open file keeps its namespace alive after `ip netns delete`.
  for f in "$SIM_DIR"/wire*.pid; do
    [ -e "$f" ] || continue
    f=${f##*/wire}
    stop_wire "${f%.pid}"
  done
  for h in $(ls /run/netns 2>/dev/null | grep -E "^${PREFIX}[0-9]+$" || true) $SWITCH; do
    [ -e "/run/netns/$h" ] || continue
    # A process still in the namespace (an orted left by a failed job) would keep it alive unseen.
    local pids
    pids=$(ip netns pids "$h" 2>/dev/null || true)
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
    ip netns delete "$h" 2>/dev/null || true
  done
  if [ -d "$SIM_DIR" ]; then
    for f in "$SIM_DIR"/*.uts; do
      [ -e "$f" ] || continue
      umount "$f" 2>/dev/null || true
      rm -f "$f"
    done
    rm -f "$SIM_DIR/hosts" "$SIM_DIR/hostfile" "$SIM_DIR/netem" "$SIM_DIR"/wire*.log
    rmdir "$SIM_DIR" 2>/dev/null || true
  fi
}

# Joins host K (namespace $PREFIX$K, address $NET.K+1) to the switch, as eth0 in the host and pK
# in the switch namespace, by one of two links:
#   veth               a veth pair made with both ends already in their namespaces;
#   wire DELAY_US BPS  two TAPs, eth0 and pK, each created by sim-wire.py from inside its
#                      namespace, and that process forwarding frames between them: those the
#                      host sends after DELAY_US (plus serialisation at BPS bit/s; 0: none),
#                      those to the host at once (the host's egress is shaped, as netem on its
#                      eth0 would). Used for a delay where the kernel has no netem. Its pid is
#                      in $SIM_DIR/wireK.pid.
# Neither ever puts a device in the root namespace.
make_link() {
  local k=$1 kind=$2 ns=$PREFIX$1
  if [ "$kind" = veth ]; then
    ip link add "p$k" netns "$SWITCH" type veth peer name eth0 netns "$ns"
  else
    command -v "$PYTHON" >/dev/null || die "'$PYTHON' is missing: the user-space delayed link (sim-wire.py) needs Python 3"
    [ -c /dev/net/tun ] || die "/dev/net/tun is missing: the user-space delayed link needs TAP devices (CONFIG_TUN)"
    rm -f "$SIM_DIR/wire$k.ready"
    setsid "$PYTHON" "$WIRE" --ns-a "$ns" --dev-a eth0 --ns-b "$SWITCH" --dev-b "p$k" \
      --delay-us "$3" --rate-bps "$4" --ready "$SIM_DIR/wire$k.ready" \
      </dev/null >"$SIM_DIR/wire$k.log" 2>&1 &
    echo $! > "$SIM_DIR/wire$k.pid"
    # Bounded: the wire makes its TAPs in well under a second; 10 s at most on a loaded machine.
    local i
    for ((i = 0; i < 100; i++)); do
      [ -s "$SIM_DIR/wire$k.ready" ] && break
      [ -e "/proc/$(cat "$SIM_DIR/wire$k.pid")" ] || break
      sleep 0.1
    done
    [ -s "$SIM_DIR/wire$k.ready" ] || die "the delayed link of sim$k did not come up: $(cat "$SIM_DIR/wire$k.log" 2>/dev/null)"
  fi
  ip -n "$SWITCH" link set "p$k" master br0
  ip -n "$SWITCH" link set "p$k" up
  ip -n "$ns" addr add "$NET.$((k + 1))/24" dev eth0
  ip -n "$ns" link set eth0 up
}

# Removes host K's link, whichever kind it is.
drop_link() {
  stop_wire "$1"
  ip -n "$PREFIX$1" link del eth0 2>/dev/null || true
}

# Whether this kernel has the netem qdisc (tried on the switch namespace's loopback, then removed).
# SIM_CLUSTER_LINK=wire uses the user-space wire even where netem exists (to test the wire).
have_netem() {
  [ "${SIM_CLUSTER_LINK:-}" != wire ] || return 1
  ip netns exec "$SWITCH" tc qdisc add dev lo root netem delay 1us 2>/dev/null || return 1
  ip netns exec "$SWITCH" tc qdisc del dev lo root 2>/dev/null || true
}

# "50us", "0.05ms", "1s", "50" (tc's default unit) -> microseconds; "10gbit", "100mbit", "1e9bit" -> bit/s (tc's units: k=1000).
to_us() {
  awk -v d="$1" 'BEGIN { n = d + 0; u = d; sub(/^[0-9.eE+-]+/, "", u)
    f = (u == "" || u == "us" || u == "usec") ? 1 : (u == "ms" || u == "msec") ? 1000 : (u == "s" || u == "sec") ? 1e6 : -1
    if (f < 0 || n < 0) exit 1; printf "%.3f", n * f }' || die "cannot read the delay '$1' (e.g. 50us, 1ms)"
}
to_bps() {
  [ -n "$1" ] || { echo 0; return; }
  awk -v r="$1" 'BEGIN { n = r + 0; u = tolower(r); sub(/^[0-9.e+-]+/, "", u)
    f = (u == "bit") ? 1 : (u == "kbit") ? 1e3 : (u == "mbit") ? 1e6 : (u == "gbit") ? 1e9 : -1
    if (f < 0 || n <= 0) exit 1; printf "%.0f", n * f }' || die "cannot read the rate '$1' (e.g. 10gbit, 100mbit)"
}

# Sets (or clears) link emulation on every host's link: each direction is shaped once, at the
# sending host's veth (so a one-way delay D gives a round trip of 2D between two hosts). A delay
# needs tc's netem qdisc (with a rate, netem's own); where the kernel has none, every host's link
# becomes a wire (sim-wire.py), which delays each direction by D (and serialises at the rate)
# itself. A rate alone uses tbf. Clearing or a rate alone turns wires back into veth pairs.
apply_netem() {
  local delay=$1 rate=$2 h k
  local want=veth
  if [ -n "$delay" ] && ! have_netem; then want=wire; fi
  local us bps
  if [ "$want" = wire ]; then us=$(to_us "$delay"); bps=$(to_bps "$rate"); fi
  for h in $(hosts); do
    k=${h#sim}
    if [ "$want" = wire ]; then
      drop_link "$k"
      make_link "$k" wire "$us" "$bps"
      continue
    fi
    if [ -f "$SIM_DIR/wire$k.pid" ] || ! ip -n "$PREFIX$k" link show dev eth0 >/dev/null 2>&1; then
      drop_link "$k"
      make_link "$k" veth
    fi
    nsenter --net="/run/netns/$PREFIX${h#sim}" tc qdisc del dev eth0 root 2>/dev/null || true
    if [ -n "$delay" ]; then
      local args=(delay "$delay")
      [ -n "$rate" ] && args+=(rate "$rate")
      nsenter --net="/run/netns/$PREFIX${h#sim}" tc qdisc add dev eth0 root netem "${args[@]}" ||
        die "tc netem failed: this kernel may lack the netem qdisc (sch_netem; some container kernels do), so a link delay cannot be emulated here (--rate alone uses tbf)"
    elif [ -n "$rate" ]; then
      # A rate alone needs no netem: a token bucket (tbf) caps the sending rate; the burst is 1 ms
      # worth at 10 Gbit/s (1.25 MB), and packets wait at most 10 ms in its queue.
      nsenter --net="/run/netns/$PREFIX${h#sim}" tc qdisc add dev eth0 root tbf rate "$rate" burst 1250kb latency 10ms
    fi
  done
  if [ "$want" = wire ]; then
    echo "delay=$delay rate=${rate:-unlimited} by user-space wires (sim-wire.py; no netem qdisc here)" > "$SIM_DIR/netem"
  elif [ -n "$delay$rate" ]; then
    echo "delay=${delay:-0} rate=${rate:-unlimited}" > "$SIM_DIR/netem"
  else
    rm -f "$SIM_DIR/netem"
  fi
  # Every host reaches every other one (bounded: 1 packet, 2 s at most each).
  local a b n
  n=$(hosts | wc -l)
  for ((a = 0; a < n; a++)); do
    for ((b = 0; b < n; b++)); do
      [ $a -eq $b ] && continue
      ip netns exec "$PREFIX$a" ping -c 1 -W 2 "$NET.$((b + 1))" >/dev/null || die "sim$a cannot reach sim$b after changing the links"
    done
  done
}

parse_netem() {
  delay=""; rate=""; clear=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --delay) delay=${2:?--delay needs a value, e.g. 50us}; shift 2 ;;
      --rate) rate=${2:?--rate needs a value, e.g. 10gbit}; shift 2 ;;
      --clear) clear=1; shift ;;
      *) die "unknown option '$1'" ;;
    esac
  done
}

up() {
  local n=2
  if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then n=$1; shift; fi
  [ "$n" -ge 2 ] && [ "$n" -le 4 ] || die "up: N must be 2, 3 or 4 (got $n)"
  parse_netem "$@"
  need_root
  command -v tc >/dev/null || [ -z "$delay$rate" ] || die "'tc' is missing (apt-get install iproute2)"
  teardown
  # From here on, a failure (a failed command or a `die`) or an interrupt removes whatever was made.
  trap 'rc=$?; trap - EXIT; if [ $rc -ne 0 ]; then echo "sim-cluster: up failed; removing what it made" >&2; teardown; fi; exit $rc' EXIT
  trap 'exit 130' INT TERM
  mkdir -p "$SIM_DIR"
  ip netns add "$SWITCH"
  ip -n "$SWITCH" link set lo up
  ip -n "$SWITCH" link add br0 type bridge
  ip -n "$SWITCH" link set br0 up
  : > "$SIM_DIR/hostfile"
  local k
  for ((k = 0; k < n; k++)); do
    local h=sim$k ns=$PREFIX$k
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    # Both ends are placed in their namespaces as the pair is made: none is ever in the root one.
    make_link "$k" veth
    # The hostname lives in a UTS namespace kept alive by a bind mount of its nsfs file.
    touch "$SIM_DIR/$h.uts"
    unshare --uts="$SIM_DIR/$h.uts" hostname "$h"
    echo "$h" >> "$SIM_DIR/hosts"
    echo "$h slots=1" >> "$SIM_DIR/hostfile"
  done
  if [ -n "$delay$rate" ]; then apply_netem "$delay" "$rate"; fi
  # Every host reaches every other one (a bounded ping: 1 packet, 2 s at most each).
  local a b
  for ((a = 0; a < n; a++)); do
    for ((b = 0; b < n; b++)); do
      [ $a -eq $b ] && continue
      ip netns exec "$PREFIX$a" ping -c 1 -W 2 "$NET.$((b + 1))" >/dev/null ||
        { echo "sim-cluster: sim$a cannot reach sim$b" >&2; false; }
    done
  done
  trap - EXIT INT TERM
  status
}

status() {
  if [ ! -f "$SIM_DIR/hosts" ]; then echo "sim-cluster: no simulated hosts (run: $0 up)"; return 0; fi
  echo "simulated hosts (hostfile $SIM_DIR/hostfile; links: $(cat "$SIM_DIR/netem" 2>/dev/null || echo 'no netem'))"
  local h
  for h in $(hosts); do
    local addr
    addr=$(ip -n "$PREFIX${h#sim}" -4 -o addr show dev eth0 2>/dev/null | awk '{print $4}')
    echo "  $h  netns $PREFIX${h#sim}  eth0 ${addr:-?}  hostname $(nsenter --uts="$SIM_DIR/$h.uts" hostname)  link $(link_up "$h" && echo up || echo down)$(wire_pid "${h#sim}" | sed 's/^/ wire pid /')"
  done
}

# Whether HOST's eth0 is up (its administrative flag: a TAP reports its state as UNKNOWN).
link_up() {
  [ -n "$(ip -n "$PREFIX${1#sim}" link show dev eth0 up 2>/dev/null)" ]
}

# Runs a command on HOST with this script as Open MPI's rsh agent.
enter() {
  local h=${1:?exec: which host? (sim0, sim1, ...)}; shift
  [ $# -gt 0 ] || die "exec: no command"
  hosts | grep -qx "$h" || die "exec: no simulated host '$h' (hosts: $(hosts | tr '\n' ' '))"
  export OMPI_MCA_plm_rsh_agent="$SELF rsh"
  exec nsenter --net="/run/netns/$PREFIX${h#sim}" --uts="$SIM_DIR/$h.uts" -- "$@"
}

# The rsh agent: Open MPI runs `AGENT HOST CMD...` (the command as words of a shell line, as ssh
# gets it). A host that is not one of ours is unreachable, and the agent says so as ssh would.
rsh() {
  local h=${1:-}; shift || true
  if ! hosts | grep -qx "$h"; then
    echo "sim-cluster rsh: connect to host $h: No route to host (not a simulated host)" >&2
    exit 255
  fi
  if ! link_up "$h"; then
    echo "sim-cluster rsh: connect to host $h: No route to host (its link is down)" >&2
    exit 255
  fi
  exec nsenter --net="/run/netns/$PREFIX${h#sim}" --uts="$SIM_DIR/$h.uts" -- /bin/sh -c "$*"
}

cmd=${1:-}
shift || true
case "$cmd" in
  up) up "$@" ;;
  down) need_root; teardown; echo "sim-cluster: removed" ;;
  status) status ;;
  exec) need_root; enter "$@" ;;
  rsh) rsh "$@" ;;
  netem)
    need_root; parse_netem "$@"; [ "$clear" = 1 ] && delay="" && rate=""
    [ -f "$SIM_DIR/hosts" ] || die "netem: no simulated hosts (run: $0 up)"
    # A link half rebuilt is no cluster to measure on: a failure or an interrupt removes it all.
    trap 'rc=$?; trap - EXIT; if [ $rc -ne 0 ]; then echo "sim-cluster: netem failed; removing the hosts" >&2; teardown; fi; exit $rc' EXIT
    trap 'exit 130' INT TERM
    apply_netem "$delay" "$rate"
    trap - EXIT INT TERM
    status ;;
  *) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
