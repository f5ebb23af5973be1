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
KEY=0xbe4c
CLIENT_HCA=n0002
# shellcheck source-path=SCRIPTDIR source=../tests/integration/ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tests/integration/ibsim_lib.sh"

missing=$(ibsim_missing_tools ibswitches)
[[ -z $missing ]] || { echo "$0: $missing" >&2; exit 2; }
ibsim_lib_init mad-bench

"$SIM" topo --xgft "2;4,4;1,4" --netlist "$WORK/net" >/dev/null 2>&1 || fail "netlist export"
ibsim_start "$WORK/net"
OPENSM_HOST=n0001 opensm_run "$WORK/opensm" || fail "opensm --once"
grep -q "SUBNET UP" "$WORK/opensm/opensm.log" || fail "no SUBNET UP"

declare -A LID
while read -r name lid; do LID[$name]=$lid; done < <(
  sim_run "$CLIENT_HCA" ibswitches 2>/dev/null | sed -n 's/.*"\([^"]*\)".* lid \([0-9]*\) .*/\1 \2/p')
((${#LID[@]} == 8)) || fail "expected 8 switches, got ${#LID[@]}"
mapfile -t SWITCHES < <(printf '%s\n' "${!LID[@]}" | sort)
for sw in "${SWITCHES[@]}"; do
  # Not --verbose: one log line per MAD would measure the log, not the protocol. --any-writer: the
  # FlowMods come from ibsdn-madtool at an HCA, not from the master SM.
  sim_start "agent-$sw" "$sw" "$AGENT" --key "$KEY" --any-writer --log "$WORK/agent-$sw.log"
done
for sw in "${SWITCHES[@]}"; do
  wait_for_file_text "$WORK/agent-$sw.log" "attached to" 10 || fail "agent on $sw did not attach"
done

lids=$(for sw in "${SWITCHES[@]}"; do printf '%s,' "${LID[$sw]}"; done)
echo "ibsim XGFT(2;4,4;1,4), 8 agents, client at $CLIENT_HCA; $COUNT FlowMods per switch, window $WINDOW"
sim_run "$CLIENT_HCA" "$TOOL" --key "$KEY" --lid "${LID[${SWITCHES[0]}]}" --timeout 1000 \
  bench --count "$COUNT" --window "$WINDOW" --round-trips 2000 --lids "${lids%,}"
