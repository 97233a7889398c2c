#!/usr/bin/env bash
# Two hosts on one machine: two network namespaces joined by a veth pair, one
# rank in each, MPI over TCP only (no shared memory between the ranks). Runs
# a model split across the two hosts (bitwise what one process writes) and
# data-parallel training (the metrics of one process). Skips, saying why,
# where network namespaces cannot be made (they need root's privileges).
set -u
SYMX="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
LENET="$PWD/tools/examples/lenet-symbol.json"
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }

id=$$
h0="symx${id}h0" h1="symx${id}h1" v0="sx${id}a" v1="sx${id}b"
net="10.$((77 + id % 100)).$((id % 250)).0/24"
a0="${net%.0/24}.1" a1="${net%.0/24}.2"
cleanup() { ip netns del "$h0" 2>/dev/null; ip netns del "$h1" 2>/dev/null; }
trap cleanup EXIT
if ! command -v ip >/dev/null || ! ip netns add "$h0" 2>"$TMP/netns.err"; then
  echo "SKIP: cannot create network namespaces here ($(cat "$TMP/netns.err" 2>/dev/null || echo 'no ip command'))"
  exit 0
fi
ip netns add "$h1" && ip link add "$v0" type veth peer name "$v1" \
  && ip link set "$v0" netns "$h0" && ip link set "$v1" netns "$h1" \
  && ip -n "$h0" addr add "$a0/24" dev "$v0" && ip -n "$h1" addr add "$a1/24" dev "$v1" \
  && ip -n "$h0" link set "$v0" up && ip -n "$h1" link set "$v1" up \
  && ip -n "$h0" link set lo up && ip -n "$h1" link set lo up \
  || { echo "SKIP: cannot build the veth link between the namespaces"; exit 0; }

# mpirun starts the remote daemon through this agent: "agent HOST CMD..." runs
# CMD in that host's namespace.
cat >"$TMP/agent.sh" <<AGENT
#!/bin/sh
host=\$1; shift
case "\$host" in
  $a0) ns=$h0 ;;
  $a1) ns=$h1 ;;
  *) echo "unknown host \$host" >&2; exit 1 ;;
esac
exec ip netns exec "\$ns" sh -c "\$*"
AGENT
chmod +x "$TMP/agent.sh"
printf '%s slots=1\n%s slots=1\n' "$a0" "$a1" >"$TMP/hosts"
# Leak checks are off for MPI ranks under ASan (see mpirun.sh).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
two_hosts() {
  timeout --kill-after=10 180 ip netns exec "$h0" mpirun --allow-run-as-root \
    --hostfile "$TMP/hosts" --mca plm_rsh_agent "$TMP/agent.sh" \
    --mca btl tcp,self --mca btl_tcp_if_include "$net" --mca oob_tcp_if_include "$net" \
    -x ASAN_OPTIONS -x SYMX_CPU_THREADS -np 2 "$@"
}

# The ranks really are on two hosts.
two_hosts sh -c 'ip -o -4 addr show | grep -o "inet [0-9.]*" | grep -v 127.0.0.1' \
  >"$TMP/addrs" 2>&1 || say_fail "mpirun across the namespaces: $(cat "$TMP/addrs")"
grep -q "$a0" "$TMP/addrs" && grep -q "$a1" "$TMP/addrs" || say_fail "ranks not on both hosts"

# A model split across the hosts: what one process writes, bitwise.
run_args=("$LENET" --shape data=8,1,28,28 --shape softmax_label=8 --train --seed 5)
export SYMX_CPU_THREADS=1
"$SYMX" run "${run_args[@]}" --out-dir "$TMP/one" >/dev/null || say_fail "run on one process"
two_hosts "$SYMX" run "${run_args[@]}" --out-dir "$TMP/two" \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1' >"$TMP/two.log" 2>&1 \
  || { say_fail "run across hosts"; cat "$TMP/two.log"; }
[ "$(ls "$TMP/one" | wc -l)" = "$(ls "$TMP/two" | wc -l)" ] || say_fail "run across hosts: file count"
for f in "$TMP"/one/*.npy; do
  cmp -s "$f" "$TMP/two/$(basename "$f")" || say_fail "run across hosts: $(basename "$f") differs"
done

# Data-parallel training across the hosts: one process's metrics (3 decimals).
metrics() { grep '^epoch ' "$1" | awk '{printf "%s %.3f %.3f %.3f\n", $2, $4, $7, $10}'; }
"$SYMX" train --model mlp --epochs 1 --prefix "$TMP/one" >"$TMP/train1.log" 2>&1 \
  || say_fail "training on one process"
two_hosts "$SYMX" train --model mlp --epochs 1 --prefix "$TMP/two" >"$TMP/train2.log" 2>&1 \
  || { say_fail "training across hosts"; cat "$TMP/train2.log"; }
[ -n "$(metrics "$TMP/train1.log")" ] && [ "$(metrics "$TMP/train1.log")" = "$(metrics "$TMP/train2.log")" ] \
  || { say_fail "training across hosts: metrics differ"; cat "$TMP/train1.log" "$TMP/train2.log"; }

if [ "$fail" = 0 ]; then echo "PASS"; fi
exit "$fail"
