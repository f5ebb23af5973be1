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
# libumad2sim.so), KEEP=1 keeps the work directory (it is always kept on failure).
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
UMAD2SIM=${UMAD2SIM:-$(ls /usr/lib/*/umad2sim/libumad2sim.so 2>/dev/null | head -n 1 || true)}
[[ -f $UMAD2SIM ]] || { echo "$0: libumad2sim.so not found (apt-get install ibsim-utils)" >&2; exit 2; }
for tool in ibsim opensm; do
  command -v "$tool" >/dev/null || { echo "$0: $tool not found" >&2; exit 2; }
done

# label|XGFT parameters: 2-level 64, 3-level 64, 256 and 512 nodes.
TOPOLOGIES=(
  "XGFT(2;8,8;1,8)|2;8,8;1,8"
  "XGFT(3;4,4,4;1,4,4)|3;4,4,4;1,4,4"
  "XGFT(3;8,8,4;1,8,8)|3;8,8,4;1,8,8"
  "XGFT(3;8,8,8;1,8,8)|3;8,8,8;1,8,8"
)
ALGORITHMS=(dmodk sdn-greedy sdn-optimal)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsdn-opensm-engines.XXXXXX")
PIDS=()
cleanup() {
  local rc=$?
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ $rc -ne 0 || ${KEEP:-0} == 1 ]]; then
    echo "logs and dumps kept in $WORK" >&2
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

forget_pid() {
  local keep=() pid
  for pid in "${PIDS[@]}"; do [[ $pid == "$1" ]] || keep+=("$pid"); done
  PIDS=("${keep[@]}")
}

# Value of a numeric "key" in ibsdn-sim's pretty-printed JSON (one key per line).
json_num() {
  sed -n "s/^ *\"$1\": \\([-0-9.eE+]*\\),\\{0,1\\}\$/\\1/p" "$2" | head -n 1
}

start_ibsim() {  # netlist, log; sets IBSIM_PID
  ibsim -s "$1" </dev/null >"$2" 2>&1 &
  IBSIM_PID=$!
  PIDS+=("$IBSIM_PID")
  local i
  for i in $(seq 100); do
    grep -qs "Network simulator ready" "$2" && return 0
    kill -0 "$IBSIM_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "$0: ibsim did not come up on $1:" >&2
  tail -n 20 "$2" >&2
  return 1
}

stop_ibsim() {
  kill "$IBSIM_PID" 2>/dev/null || true
  wait "$IBSIM_PID" 2>/dev/null || true
  forget_pid "$IBSIM_PID"
}

run_opensm() {  # engine, dir
  local engine=$1 dir=$2
  mkdir -p "$dir/dump" "$dir/cache" "$dir/tmp"
  : >"$dir/opensm.conf"  # defaults only, whatever /etc/opensm holds
  OSM_CACHE_DIR=$dir/cache OSM_TMP_DIR=$dir/tmp LD_PRELOAD=$UMAD2SIM \
    timeout 60 opensm -F "$dir/opensm.conf" --once -R "$engine,no_fallback" -D 0x43 \
    --dump_files_dir "$dir/dump" -f "$dir/opensm.log" >"$dir/opensm.out" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  local rc=0
  wait "$pid" || rc=$?
  forget_pid "$pid"
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
  export IBSIM_SOCKNAME=ibsdn-engines-$$-$ti
  start_ibsim "$dir/fabric.net" "$dir/ibsim.log"
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
  stop_ibsim
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
