#!/usr/bin/env bash
# Writes a flow case (README.md) with real routes: ITERATIONS random permutations of all compute
# nodes of a topology, each routed by `ibsdn-sim route --paths` with the chosen algorithm, one
# message per flow. Iteration i starts at i x PERIOD, each message JITTER x u later (u uniform in
# [0, 1)); sizes are SIZE bytes, or log-uniform over 1 KiB .. 1 MiB when SIZE is 0. Every directed
# link a route crosses is declared with BANDWIDTH and LATENCY: a host's injection link is named
# "HOST:1", a switch's output link "SWITCH:PORT" (the tokens of the paths).
# Random draws: MINSTD (x = 48271 x mod 2^31 - 1) in awk, exact in doubles, so mawk and gawk give
# the same file; the permutations are ibsdn-sim's (--seed SEED + i for iteration i).
#
# Usage: make_flow_case.sh IBSDN_SIM TOPOLOGY_OPTION SPEC [options] > CASE.flows
#   TOPOLOGY_OPTION SPEC: --xgft '2;4,4;1,4' | --dragonfly '2,4,2,9' | any topology of ibsdn-sim
#   --alg ALG (default: dmodk on --xgft, df-minimal otherwise)   --iterations N (1)
#   --period S (1e-4)   --jitter S (5e-5)   --size BYTES (0: log-uniform 1 KiB .. 1 MiB)
#   --seed N (1)   --bandwidth BYTES_PER_S (12.5e9, 100 Gb/s)   --latency S (1e-7 per link)
set -euo pipefail

usage() { sed -n '/^# Usage:/,/^set -/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

[ $# -ge 3 ] || usage
sim=$1 topo_opt=$2 topo_spec=$3
shift 3
alg="" iterations=1 period=1e-4 jitter=5e-5 size=0 seed=1 bandwidth=12.5e9 latency=1e-7
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case $1 in
    --alg) alg=$2 ;;
    --iterations) iterations=$2 ;;
    --period) period=$2 ;;
    --jitter) jitter=$2 ;;
    --size) size=$2 ;;
    --seed) seed=$2 ;;
    --bandwidth) bandwidth=$2 ;;
    --latency) latency=$2 ;;
    *) usage ;;
  esac
  shift 2
done
[[ $iterations =~ ^[1-9][0-9]{0,3}$ ]] || { echo "make_flow_case: --iterations 1..9999" >&2; exit 2; }
[[ $seed =~ ^[0-9]{1,9}$ ]] || { echo "make_flow_case: --seed 0..999999999" >&2; exit 2; }
[[ $size =~ ^[0-9]{1,15}$ ]] || { echo "make_flow_case: --size whole bytes" >&2; exit 2; }
if [ -z "$alg" ]; then
  if [ "$topo_opt" = "--xgft" ]; then alg=dmodk; else alg=df-minimal; fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((i = 0; i < iterations; i++)); do
  "$sim" route "$topo_opt" "$topo_spec" --pattern random-perm --seed $((seed + i)) --alg "$alg" \
    --lp-seconds 0 --paths "$tmp/paths.$i" > /dev/null
done

echo "# make_flow_case.sh ibsdn-sim $topo_opt '$topo_spec' --alg $alg --iterations $iterations" \
  "--period $period --jitter $jitter --size $size --seed $seed --bandwidth $bandwidth" \
  "--latency $latency"
for ((i = 0; i < iterations; i++)); do cat "$tmp/paths.$i"; echo "end-of-iteration"; done |
  awk -v period="$period" -v jitter="$jitter" -v size="$size" -v seed="$seed" \
      -v bw="$bandwidth" -v lat="$latency" '
    function draw() { x = (x * 48271) % 2147483647; return x / 2147483647 }
    BEGIN { x = seed % 2147483646 + 1; it = 0; id = 0 }
    $1 == "end-of-iteration" { it++; next }
    {
      route = $1 ":1"
      link[++nlinks] = route
      for (f = 3; f <= NF; f++) { route = route "," $f; link[++nlinks] = $f }
      start = it * period + jitter * draw()
      bytes = size > 0 ? size : int(1024 * exp(draw() * log(1024)) + 0.5)
      msg[id] = sprintf("message %d %.9g %d %s", id, start, bytes, route)
      id++
    }
    END {
      for (k = 1; k <= nlinks; k++) if (!(link[k] in declared)) {
        declared[link[k]] = 1; printf "link %s %s %s\n", link[k], bw, lat
      }
      for (k = 0; k < id; k++) print msg[k]
    }'
