#!/usr/bin/env bash
# The main job on an embedded default: a 1024-node fat-tree (LLNL Thunder's XGFT from seed 002),
# a random-permutation job, routed by the LFT default (DmodK) and by SDN-greedy and SDN-optimal,
# with the link-load result of each and the first routes SDN-optimal chose.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" release >/dev/null
sim="$root/build/release/sim_backend/ibsdn-sim"
topo=(--xgft "3;8,8,16;1,8,8")
job=(--pattern random-perm --seed 7)

"$sim" topo "${topo[@]}"
for alg in dmodk sdn-greedy sdn-optimal; do
  echo
  "$sim" route "${topo[@]}" "${job[@]}" --alg "$alg" | sed -n '4,9p'
done
echo
echo "first 8 SDN-optimal routes (SRC DST SWITCH:OUTPUT-PORT ...):"
paths="$(mktemp)"
trap 'rm -f "$paths"' EXIT
"$sim" route "${topo[@]}" "${job[@]}" --alg sdn-optimal --paths "$paths" >/dev/null
head -n 8 "$paths"
