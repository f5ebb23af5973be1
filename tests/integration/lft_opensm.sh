#!/usr/bin/env bash
# Real-parts check of the LFT model: stock opensm routes an ibsim XGFT(2;4,4;1,4) with ftree and
# dumps its tables; `ibsdn-sim lft-quality` parses the dumps and traces every HCA pair through
# them to its destination. A dump with one entry removed must be caught.
#
# Usage: lft_opensm.sh PATH/TO/ibsdn-sim    (exit 77: a required tool is missing)
set -euo pipefail

sim=${1:?usage: lft_opensm.sh PATH/TO/ibsdn-sim}
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
for tool in ibsim opensm; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[[ -r $umad2sim ]] || { echo "SKIP: $umad2sim missing"; exit 77; }

work=$(mktemp -d /tmp/ibsdn-lft-opensm.XXXXXX)
pids=()
cleanup() {
  local rc=$? pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ $rc -eq 0 ]]; then rm -rf "$work"; else echo "logs kept in $work" >&2; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export IBSIM_SOCKNAME="ibsdn-lft-$$-$RANDOM"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

xgft="2;4,4;1,4"
mkdir -p "$work/cache" "$work/tmp" "$work/dump"
"$sim" topo --xgft "$xgft" --netlist "$work/fabric.net" >/dev/null

ibsim -s "$work/fabric.net" </dev/null >"$work/ibsim.log" 2>&1 &
pids+=("$!")
for ((i = 0; i < 100; i++)); do
  grep -qs "Network simulator ready" "$work/ibsim.log" && break
  kill -0 "${pids[0]}" 2>/dev/null || { cat "$work/ibsim.log" >&2; fail "ibsim exited"; }
  sleep 0.1
done
grep -q "Network simulator ready" "$work/ibsim.log" || fail "ibsim not ready after 10 s"

: >"$work/opensm.conf"  # defaults, whatever /etc/opensm holds
env LD_PRELOAD="$umad2sim" OSM_CACHE_DIR="$work/cache" OSM_TMP_DIR="$work/tmp" \
  timeout 60 opensm -F "$work/opensm.conf" --once -R ftree,no_fallback -D 0x43 \
  --dump_files_dir "$work/dump" -f "$work/opensm.log" >"$work/opensm.out" 2>&1 &
pids+=("$!")
wait "${pids[1]}" || { tail -20 "$work/opensm.log" >&2; fail "opensm failed"; }
# Without this line ftree did not route (no_fallback keeps minhop from hiding that).
grep -q "ftree tables configured on all switches" "$work/opensm.log" ||
  fail "ftree did not configure all switches"

lfts=$work/dump/opensm-lfts.dump
lst=$work/dump/opensm-subnet.lst
"$sim" lft-quality --xgft "$xgft" --lfts-dump "$lfts" --subnet-lst "$lst" --check-all-pairs \
  --seeds 5 --json >"$work/quality.json" || fail "lft-quality failed on opensm's dumps"
grep -q '"checked": 240,' "$work/quality.json" || fail "expected 16 * 15 = 240 traced pairs"
grep -q '"failed": 0,' "$work/quality.json" || fail "some pair is not delivered"
echo "ftree LFTs deliver all 240 HCA pairs; $(grep '"ratio_mean"' "$work/quality.json" | tr -d ' ,')"

# Remove the first switch's entry for one of its own HCAs: every pair to that HCA loses its route.
sed '0,/^0x[0-9a-f]* 00[1-4] # Channel Adapter/{//d}' "$lfts" >"$work/holed.dump"
cmp -s "$lfts" "$work/holed.dump" && fail "could not remove an entry from the dump"
if "$sim" lft-quality --xgft "$xgft" --lfts-dump "$work/holed.dump" --subnet-lst "$lst" \
  --check-all-pairs >"$work/holed.out" 2>&1; then
  fail "a dump with a missing entry passed --check-all-pairs"
fi
grep -q "15 of 240 HCA pairs are not delivered" "$work/holed.out" ||
  { cat "$work/holed.out" >&2; fail "unexpected report for the missing entry"; }
grep -q "has no entry for LID" "$work/holed.out" || fail "the report does not name the hole"
echo "PASS"
