#!/usr/bin/env bash
# Seed 002's Table II on the Thunder-like system (docs/simulation-reproductions.md): the first 1000
# jobs of a synthetic Thunder trace on XGFT(3;8,8,16;1,8,8), tree allocation, 3DNN and dynamic
# patterns, DmodK against the controller (sdn-greedy-weighted). Asserts the paper's shape: with 3DNN
# the controller's maximum PJML is 1.00 (the paper's figure), DmodK's lies in the paper's range, the
# average PJML is lower with the controller, and no run's SWML is above DmodK's at any time
# (exit 0).
# Usage: table2_thunder.sh IBSDN_SIM SOURCE_DIR
set -euo pipefail
sim="$1"
src="$2"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

"$sim" run "$src/sim_backend/scenarios/table2-thunder.yaml" --out "$out" --quiet ||
  fail "ibsdn-sim run exited $? (a run failed or the SWML check found a time above DmodK)"
cat "$out/summary.csv"

# A column of summary.csv by name, for the row of run $1 (quoted fields, which may hold commas,
# are blanked first: none of the columns read here is quoted).
column() {
  awk -F, -v run="$1" -v name="$2" '
    /^#/ { next }
    { gsub(/"[^"]*"/, "Q") }
    !header { for (i = 1; i <= NF; i++) col[$i] = i; header = 1; next }
    $1 == run { print $col[name] }' "$out/summary.csv"
}
check() {  # check RUN EXPRESSION-over-columns WHAT
  awk -v a="$2" -v b="$3" "BEGIN { exit !($4) }" || fail "run $1: $5 ($2, $3)"
}

# Runs: 0 dmodk/3dnn, 1 dmodk/dynamic, 2 sdn/3dnn, 3 sdn/dynamic.
check 2 "$(column 2 max_pjml)" 0 "a == 1" "the controller's max PJML with 3DNN is not 1.00"
for run in 2 3; do
  check "$run" "$(column "$run" avg_pjml)" "$(column "$run" dmodk_avg_pjml)" "a < b" \
    "average PJML not lower than DmodK's"
  check "$run" "$(column "$run" max_pjml)" "$(column "$run" dmodk_max_pjml)" "a < b" \
    "max PJML not lower than DmodK's"
  check "$run" "$(column "$run" max_pjml)" 0 "a <= 1.2" "max PJML above seed 002's 1.2"
  check "$run" "$(column "$run" dmodk_max_pjml)" 0 "a >= 1.5 && a <= 3" \
    "DmodK's max PJML outside 1.5-3"
  [[ $(column "$run" jobs_placed) == 1000 ]] || fail "run $run: not all 1000 jobs placed"
done
echo "PASS: Table II shape on Thunder"
