#!/usr/bin/env bash
# Real-parts check of the netlist I/O: ibsdn-sim writes XGFT netlists, stock ibsim loads them,
# stock opensm brings the subnet up over umad2sim, and ibnetdiscover's view of the simulated
# fabric parses back into the same XGFT.
#
# Usage: netlist_ibsim.sh PATH/TO/ibsdn-sim    (exit 77: a required tool is missing)
set -euo pipefail

sim=${1:?usage: netlist_ibsim.sh PATH/TO/ibsdn-sim}
# shellcheck source-path=SCRIPTDIR source=ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/ibsim_lib.sh"
ibsim_lib_init netlist-ibsim ibnetdiscover

check_xgft() {
  local xgft=$1 dir="$WORK/$2"
  mkdir -p "$dir"
  local summary
  summary=$("$sim" topo --xgft "$xgft" --netlist "$dir/fabric.net")
  echo "generated: $summary"
  local hosts switches
  hosts=$(sed -n 's/.*: \([0-9]*\) compute nodes.*/\1/p' <<<"$summary")
  switches=$(sed -n 's/.* \([0-9]*\) switches.*/\1/p' <<<"$summary")

  ibsim_start "$dir/fabric.net"
  # -D 0x43 (opensm_run) enables the routing dumps: one LFT section per switch, one entry per LID.
  opensm_run "$dir" || fail "opensm failed ($xgft)"
  grep -q "SUBNET UP" "$dir/opensm.log" || fail "no SUBNET UP in the opensm log ($xgft)"
  local routed
  routed=$(grep -c "^Unicast lids .* of switch " "$dir/dump/opensm-lfts.dump" || true)
  [[ $routed == "$switches" ]] || fail "opensm routed $routed switches, expected $switches"
  local lids=$((hosts + switches))
  if grep "lids dumped" "$dir/dump/opensm-lfts.dump" | grep -v "^$lids lids dumped" >/dev/null; then
    fail "some switch LFT does not reach all $lids LIDs ($xgft)"
  fi

  sim_run "" timeout 60 ibnetdiscover >"$dir/ibnetdiscover.out" 2>"$dir/ibnetdiscover.err" ||
    fail "ibnetdiscover failed ($xgft)"
  # NodeDescription carries "<hostname> HCA-1", so a controller can map hostnames to ports.
  grep -q '^Ca	1 "H-[0-9a-f]*"		# "n0001 HCA-1"$' "$dir/ibnetdiscover.out" ||
    fail "ibnetdiscover does not show n0001's description"
  local parsed
  parsed=$("$sim" topo --netlist-in "$dir/ibnetdiscover.out")
  echo "discovered: $parsed"
  [[ $parsed == "$summary" ]] || fail "ibnetdiscover view differs: '$parsed' vs '$summary'"

  ibsim_stop
}

check_xgft "2;4,4;1,4" two
check_xgft "3;4,4,2;1,4,4" three
echo "PASS"
