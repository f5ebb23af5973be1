#!/usr/bin/env bash
# Real-parts check of the netlist I/O: ibsdn-sim writes XGFT netlists, stock ibsim loads them,
# stock opensm brings the subnet up over umad2sim, and ibnetdiscover's view of the simulated
# fabric parses back into the same XGFT.
#
# Usage: netlist_ibsim.sh PATH/TO/ibsdn-sim    (exit 77: a required tool is missing)
set -euo pipefail

sim=${1:?usage: netlist_ibsim.sh PATH/TO/ibsdn-sim}
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
for tool in ibsim opensm ibnetdiscover; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[[ -r $umad2sim ]] || { echo "SKIP: $umad2sim missing"; exit 77; }

work=$(mktemp -d /tmp/ibsdn-netlist-ibsim.XXXXXX)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Concurrent ibsim instances (parallel ctest) need distinct socket names, shared with clients.
export IBSIM_SOCKNAME="ibsdn-nl-$$-$RANDOM"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Runs a command in the background so the trap can kill it, and waits for it.
run_tracked() {
  "$@" &
  local pid=$!
  pids+=("$pid")
  wait "$pid"
}

check_xgft() {
  local xgft=$1 dir="$work/$2"
  mkdir -p "$dir/cache" "$dir/tmp" "$dir/dump"
  local summary
  summary=$("$sim" topo --xgft "$xgft" --netlist "$dir/fabric.net")
  echo "generated: $summary"
  local hosts switches
  hosts=$(sed -n 's/.*: \([0-9]*\) compute nodes.*/\1/p' <<<"$summary")
  switches=$(sed -n 's/.* \([0-9]*\) switches.*/\1/p' <<<"$summary")

  ibsim -s "$dir/fabric.net" </dev/null >"$dir/ibsim.log" 2>&1 &
  local ibsim_pid=$!
  pids+=("$ibsim_pid")
  local i
  for ((i = 0; i < 100; i++)); do
    grep -qs "Network simulator ready" "$dir/ibsim.log" && break
    kill -0 "$ibsim_pid" 2>/dev/null || { cat "$dir/ibsim.log" >&2; fail "ibsim exited"; }
    sleep 0.1
  done
  grep -q "Network simulator ready" "$dir/ibsim.log" || fail "ibsim not ready after 10 s"

  # 0x40 enables the routing dumps: one LFT section per switch, one entry per LID.
  run_tracked env LD_PRELOAD="$umad2sim" OSM_CACHE_DIR="$dir/cache" OSM_TMP_DIR="$dir/tmp" \
    timeout 60 opensm --once -f "$dir/opensm.log" -D 0x43 --dump_files_dir "$dir/dump" \
    >"$dir/opensm.out" 2>&1 || { tail -20 "$dir/opensm.log" >&2; fail "opensm failed ($xgft)"; }
  grep -q "SUBNET UP" "$dir/opensm.log" || fail "no SUBNET UP in the opensm log ($xgft)"
  local routed
  routed=$(grep -c "^Unicast lids .* of switch " "$dir/dump/opensm-lfts.dump" || true)
  [[ $routed == "$switches" ]] || fail "opensm routed $routed switches, expected $switches"
  local lids=$((hosts + switches))
  if grep "lids dumped" "$dir/dump/opensm-lfts.dump" | grep -qv "^$lids lids dumped"; then
    fail "some switch LFT does not reach all $lids LIDs ($xgft)"
  fi

  run_tracked env LD_PRELOAD="$umad2sim" timeout 60 ibnetdiscover \
    >"$dir/ibnetdiscover.out" 2>"$dir/ibnetdiscover.err" || fail "ibnetdiscover failed ($xgft)"
  # NodeDescription carries "<hostname> HCA-1", so a controller can map hostnames to ports.
  grep -q '^Ca	1 "H-[0-9a-f]*"		# "n0001 HCA-1"$' "$dir/ibnetdiscover.out" ||
    fail "ibnetdiscover does not show n0001's description"
  local parsed
  parsed=$("$sim" topo --netlist-in "$dir/ibnetdiscover.out")
  echo "discovered: $parsed"
  [[ $parsed == "$summary" ]] || fail "ibnetdiscover view differs: '$parsed' vs '$summary'"

  kill "$ibsim_pid"
  wait "$ibsim_pid" 2>/dev/null || true
}

check_xgft "2;4,4;1,4" two
check_xgft "3;4,4,2;1,4,4" three
echo "PASS"
