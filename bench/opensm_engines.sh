#!/usr/bin/env bash
# Stock OpenSM routing engines against ibsdn's routings on the same full XGFTs and the same
# demands, measured in one run: every fabric runs in ibsim, `opensm --once -R ENGINE,no_fallback`
# routes it through umad2sim and dumps its LFTs, `ibsdn-sim lft-quality` traces random
# permutations through those tables, and `ibsdn-sim route` routes the same permutations (same
# seeds) with dmodk, sdn-greedy and sdn-optimal. Printed: mean and max of L_D/NL_D over the seeds
# (NL_D is the lower bound on these full-bisection trees), and for each engine the share of all
# HCA pairs whose LFT route is exactly the one ibsdn's DmodK chooses.
#
#   bench/opensm_engines.sh BUILD_DIR        e.g. build/release
#
# Environment: SEEDS (default 20), ENGINES (default "ftree updn minhop dnup"), UMAD2SIM (path of
# libumad2sim.so), KEEP=1 keeps the work directory (it is always kept on failure; ibsim's log of
# all fabrics is $WORK/ibsim.log).
set -euo pipefail
shopt -s inherit_errexit

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
SIM=$1/sim_backend/ibsdn-sim
[[ -x $SIM ]] || { echo "$0: no ibsdn-sim at $SIM (build first)" >&2; exit 2; }
SEEDS=${SEEDS:-20}
ENGINES=${ENGINES:-ftree updn minhop dnup}
# shellcheck source-path=SCRIPTDIR source=../tests/integration/ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tests/integration/ibsim_lib.sh"
missing=$(ibsim_missing_tools)
[[ -z $missing ]] || { echo "$0: $missing" >&2; exit 2; }

# label|XGFT parameters: 2-level 64, 3-level 64, 256 and 512 nodes.
TOPOLOGIES=(
  "XGFT(2;8,8;1,8)|2;8,8;1,8"
  "XGFT(3;4,4,4;1,4,4)|3;4,4,4;1,4,4"
  "XGFT(3;8,8,4;1,8,8)|3;8,8,4;1,8,8"
  "XGFT(3;8,8,8;1,8,8)|3;8,8,8;1,8,8"
)
ALGORITHMS=(dmodk sdn-greedy sdn-optimal)

ibsim_lib_init opensm-engines

# Value of a numeric "key" in ibsdn-sim's pretty-printed JSON (one key per line).
json_num() {
  sed -n "s/^ *\"$1\": \\([-0-9.eE+]*\\),\\{0,1\\}\$/\\1/p" "$2" | head -n 1
}

run_opensm() {  # engine, dir
  local engine=$1 dir=$2 rc=0
  opensm_conf "$dir"  # defaults only, whatever /etc/opensm holds
  opensm_run "$dir" -R "$engine,no_fallback" || rc=$?
  if [[ $rc -ne 0 ]] || ! grep -q "$engine tables configured on all switches" "$dir/opensm.log"; then
    echo "$0: opensm -R $engine failed (exit $rc) or did not configure all switches:" >&2
    grep -h -e "ERR" -e "configured" "$dir/opensm.log" "$dir/opensm.out" | tail -n 10 >&2 || true
    return 1
  fi
}

# mean and max of L_D/NL_D of one ibsdn algorithm over the seeds; prints "mean max".
ibsdn_ratios() {  # xgft, algorithm, dir
  local s out
  for ((s = 1; s <= SEEDS; s++)); do
    out=$3/route-$2-$s.json
    "$SIM" route --xgft "$1" --pattern random-perm --seed "$s" --alg "$2" --json >"$out" || exit 1
    echo "$(json_num max_link_load "$out") $(json_num node_load "$out")"
  done | awk '{ r = $1 / $2; sum += r; if (r > max) max = r } END { printf "%.2f %.2f\n", sum / NR, max }'
}

start=$(date +%s)
ROWS=()
ti=0
for topo in "${TOPOLOGIES[@]}"; do
  label=${topo%%|*}
  xgft=${topo#*|}
  ti=$((ti + 1))
  dir=$WORK/topo$ti
  mkdir -p "$dir"
  "$SIM" topo --xgft "$xgft" --netlist "$dir/fabric.net" >"$dir/topo.txt"
  nodes=$(sed -n 's/^[^:]*: \([0-9]*\) compute nodes.*/\1/p' "$dir/topo.txt")
  ibsim_start "$dir/fabric.net"
  for engine in $ENGINES; do
    run_opensm "$engine" "$dir/$engine"
    q=$dir/$engine/lft-quality.json
    "$SIM" lft-quality --xgft "$xgft" --lfts-dump "$dir/$engine/dump/opensm-lfts.dump" \
      --subnet-lst "$dir/$engine/dump/opensm-subnet.lst" --pattern random-perm --seed 1 \
      --seeds "$SEEDS" --check-all-pairs --compare-alg dmodk --json >"$q"
    same=$(awk -v s="$(json_num same_as_dmodk "$q")" -v n="$(json_num checked "$q")" \
      'BEGIN { printf "%.0f%%", 100 * s / n }')
    ROWS+=("$label|$nodes|opensm $engine|$(json_num nl_ratio_mean "$q")|$(json_num nl_ratio_max "$q")|$same")
  done
  ibsim_stop
  for alg in "${ALGORITHMS[@]}"; do
    ratios=$(ibsdn_ratios "$xgft" "$alg" "$dir")
    read -r mean max <<<"$ratios"
    ROWS+=("$label|$nodes|ibsdn $alg|$mean|$max|-")
  done
done

echo "random-perm, seeds 1..$SEEDS, one flow per node; L_D/NL_D (NL_D = lower bound on full XGFTs)"
printf '%-20s %6s  %-18s %8s %8s  %s\n' topology nodes routing mean max "pairs routed as dmodk"
for row in "${ROWS[@]}"; do
  IFS='|' read -r label nodes routing mean max same <<<"$row"
  printf '%-20s %6s  %-18s %8.2f %8.2f  %s\n' "$label" "$nodes" "$routing" "$mean" "$max" "$same"
done
echo "($(($(date +%s) - start)) s; OpenSM $(opensm --version 2>/dev/null | sed -n 's/^OpenSM //p' | head -n 1))"
