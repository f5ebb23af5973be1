#!/usr/bin/env bash
# Real-parts check of the LFT model: stock opensm routes an ibsim XGFT(2;4,4;1,4) with ftree and
# dumps its tables; `ibsdn-sim lft-quality` parses the dumps and traces every HCA pair through
# them to its destination. A dump with one entry removed must be caught.
#
# Usage: lft_opensm.sh PATH/TO/ibsdn-sim    (exit 77: a required tool is missing)
set -euo pipefail

sim=${1:?usage: lft_opensm.sh PATH/TO/ibsdn-sim}
# shellcheck source-path=SCRIPTDIR source=ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/ibsim_lib.sh"
ibsim_lib_init lft-opensm

xgft="2;4,4;1,4"
"$sim" topo --xgft "$xgft" --netlist "$WORK/fabric.net" >/dev/null
ibsim_start "$WORK/fabric.net"

opensm_conf "$WORK"  # defaults, whatever /etc/opensm holds
opensm_run "$WORK" -R ftree,no_fallback || fail "opensm failed"
# Without this line ftree did not route (no_fallback keeps minhop from hiding that).
grep -q "ftree tables configured on all switches" "$WORK/opensm.log" ||
  fail "ftree did not configure all switches"

lfts=$WORK/dump/opensm-lfts.dump
lst=$WORK/dump/opensm-subnet.lst
"$sim" lft-quality --xgft "$xgft" --lfts-dump "$lfts" --subnet-lst "$lst" --check-all-pairs \
  --seeds 5 --json >"$WORK/quality.json" || fail "lft-quality failed on opensm's dumps"
grep -q '"checked": 240,' "$WORK/quality.json" || fail "expected 16 * 15 = 240 traced pairs"
grep -q '"failed": 0,' "$WORK/quality.json" || fail "some pair is not delivered"
echo "ftree LFTs deliver all 240 HCA pairs; $(grep '"ratio_mean"' "$WORK/quality.json" | tr -d ' ,')"

# Remove the first switch's entry for one of its own HCAs: every pair to that HCA loses its route.
sed '0,/^0x[0-9a-f]* 00[1-4] # Channel Adapter/{//d}' "$lfts" >"$WORK/holed.dump"
cmp -s "$lfts" "$WORK/holed.dump" && fail "could not remove an entry from the dump"
if "$sim" lft-quality --xgft "$xgft" --lfts-dump "$WORK/holed.dump" --subnet-lst "$lst" \
  --check-all-pairs >"$WORK/holed.out" 2>&1; then
  fail "a dump with a missing entry passed --check-all-pairs"
fi
grep -q "15 of 240 HCA pairs are not delivered" "$WORK/holed.out" ||
  { cat "$WORK/holed.out" >&2; fail "unexpected report for the missing entry"; }
grep -q "has no entry for LID" "$WORK/holed.out" || fail "the report does not name the hole"
echo "PASS"
