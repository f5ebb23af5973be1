#!/usr/bin/env bash
# End-to-end FlowMod throughput of the SDN MAD class on ibsim: XGFT(2;4,4;1,4), OpenSM --once,
# one ibsdn-switch-agent per switch, ibsdn-madtool bench at an HCA. Prints FlowMods per second
# to one agent (sequential and pipelined) and to all 8 agents at once (pipelined), each with its
# ratio to TableInfo round trips per second measured in the same run (the baseline: one plain
# request/response through ibsim).
# Usage: mad_throughput.sh BUILD_DIR [FLOWMODS_PER_SWITCH [WINDOW]]
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR [FLOWMODS_PER_SWITCH [WINDOW]]}" && pwd)
COUNT=${2:-2000}
WINDOW=${3:-64}
SIM=$BUILD/sim_backend/ibsdn-sim
AGENT=$BUILD/mad/agent/ibsdn-switch-agent
TOOL=$BUILD/mad/agent/ibsdn-madtool
UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
KEY=0xbe4c
CLIENT_HCA=n0002

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsdn-mad-bench.XXXXXX")
export IBSIM_SOCKNAME="ibsdn-bench-$$-$RANDOM"
PIDS=()
cleanup() {
  local rc=$? i pid
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    pid=${PIDS[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  exec 3>&-
  if ((rc != 0)); then echo "--- logs kept in $WORK" >&2; else rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }
sim_run() { local host=$1; shift; (cd "$WORK" && LD_PRELOAD=$UMAD2SIM SIM_HOST=$host "$@"); }

"$SIM" topo --xgft "2;4,4;1,4" --netlist "$WORK/net" >/dev/null 2>&1 || fail "netlist export"
mkfifo "$WORK/ibsim.in"
exec 3<>"$WORK/ibsim.in"  # ibsim's console: kept open so that it never sees EOF
(cd "$WORK" && exec ibsim -s net <&3 >"$WORK/ibsim.log" 2>&1) &
PIDS+=($!)
for _ in $(seq 50); do grep -q "sim>" "$WORK/ibsim.log" 2>/dev/null && break; sleep 0.1; done

mkdir -p "$WORK/osm-cache" "$WORK/osm-tmp"
OSM_CACHE_DIR=$WORK/osm-cache OSM_TMP_DIR=$WORK/osm-tmp \
  sim_run n0001 timeout 60 opensm -f "$WORK/opensm.log" --once >/dev/null 2>&1 || fail "opensm --once"
grep -q "SUBNET UP" "$WORK/opensm.log" || fail "no SUBNET UP"

declare -A LID
while read -r name lid; do LID[$name]=$lid; done < <(
  sim_run "$CLIENT_HCA" ibswitches 2>/dev/null | sed -n 's/.*"\([^"]*\)".* lid \([0-9]*\) .*/\1 \2/p')
((${#LID[@]} == 8)) || fail "expected 8 switches, got ${#LID[@]}"
SWITCHES=($(printf '%s\n' "${!LID[@]}" | sort))
for sw in "${SWITCHES[@]}"; do
  # Not --verbose: one log line per MAD would measure the log, not the protocol.
  (cd "$WORK" && LD_PRELOAD=$UMAD2SIM SIM_HOST=$sw exec "$AGENT" --key "$KEY" \
    --log "$WORK/agent-$sw.log" 2>>"$WORK/agent-$sw.err") &
  PIDS+=($!)
done
for sw in "${SWITCHES[@]}"; do
  for _ in $(seq 100); do grep -q "attached to" "$WORK/agent-$sw.log" 2>/dev/null && break; sleep 0.1; done
  grep -q "attached to" "$WORK/agent-$sw.log" || fail "agent on $sw did not attach"
done

lids=$(for sw in "${SWITCHES[@]}"; do printf '%s,' "${LID[$sw]}"; done)
echo "ibsim XGFT(2;4,4;1,4), 8 agents, client at $CLIENT_HCA; $COUNT FlowMods per switch, window $WINDOW"
sim_run "$CLIENT_HCA" "$TOOL" --key "$KEY" --lid "${LID[${SWITCHES[0]}]}" --timeout 1000 \
  bench --count "$COUNT" --window "$WINDOW" --round-trips 2000 --lids "${lids%,}"
