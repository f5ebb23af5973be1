#!/usr/bin/env bash
# Checks a flow-level simulator's completions on every case of a directory (tests/simgrid/README.md):
# - "# expect ID TIME" lines: the hand-computed pure max-min completions (default mode);
# - "# expect-cm02 ID TIME" lines: the same with SimGrid's CM02 latency weights;
# - a CASE.simgrid file beside CASE.flows: SimGrid's committed output, in full.
# Times must agree within 1e-9 relative, and every message must be listed once.
# Usage: check_cases.sh SIMGRID_FLOWS CASES_DIR   SimGrid itself (SIMGRID_FLOWS empty: SimGrid
#                                                 absent, exit 77)
#        check_cases.sh --engine IBSDN_SIM CASES_DIR
#                                                 ibsdn's engine (ibsdn-sim flows, --sharing cm02)
#                                                 against the same expectations and SimGrid's output
set -euo pipefail

engine=
if [ "${1:-}" = --engine ]; then
  engine=${2:?usage: check_cases.sh --engine IBSDN_SIM CASES_DIR}
  shift 2
  tool=
  dir=${1:?usage: check_cases.sh --engine IBSDN_SIM CASES_DIR}
else
  tool=${1:-}
  dir=${2:?usage: check_cases.sh SIMGRID_FLOWS CASES_DIR}
  if [ -z "$tool" ]; then
    echo "check_cases: simgrid-flows not built (SimGrid not found); skipped"
    exit 77
  fi
fi

# run [--cm02] CASE: the simulator's "ID TIME" lines, pure max-min or with CM02's latency weights.
run() {
  local cm02=
  if [ "$1" = --cm02 ]; then cm02=1; shift; fi
  if [ -n "$engine" ]; then
    "$engine" flows ${cm02:+--sharing cm02} "$1"
  else
    "$tool" ${cm02:+--cm02-latency-weights} "$1"
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# compare EXPECTED ACTUAL WHAT: both "ID TIME" per line; the same IDs, times within 1e-9 relative.
compare() {
  awk -v what="$3" '
    NR == FNR { want[$1] = $2; n++; next }
    {
      if (!($1 in want)) { printf "%s: message %s not expected\n", what, $1; bad = 1; next }
      d = $2 - want[$1]; if (d < 0) d = -d
      m = want[$1] < 0 ? -want[$1] : want[$1]
      if (d > 1e-9 * m) { printf "%s: message %s completes at %s, expected %s\n", what, $1, $2, want[$1]; bad = 1 }
      seen[$1]++
    }
    END {
      for (id in want) if (seen[id] != 1) { printf "%s: message %s listed %d times\n", what, id, seen[id]; bad = 1 }
      if (n == 0) { printf "%s: nothing expected\n", what; bad = 1 }
      exit bad
    }' "$1" "$2"
}

failed=0
checked=0
for flows in "$dir"/*.flows; do
  name=$(basename "$flows" .flows)
  run "$flows" > "$tmp/$name.out"
  if grep -q '^# expect ' "$flows"; then
    sed -n 's/^# expect \([0-9]*\) \([^ ]*\)$/\1 \2/p' "$flows" > "$tmp/$name.want"
    compare "$tmp/$name.want" "$tmp/$name.out" "$name (pure max-min)" || failed=1
    checked=$((checked + 1))
  fi
  if grep -q '^# expect-cm02 ' "$flows"; then
    run --cm02 "$flows" > "$tmp/$name.cm02"
    sed -n 's/^# expect-cm02 \([0-9]*\) \([^ ]*\)$/\1 \2/p' "$flows" > "$tmp/$name.want-cm02"
    compare "$tmp/$name.want-cm02" "$tmp/$name.cm02" "$name (CM02 latency weights)" || failed=1
    checked=$((checked + 1))
  fi
  if [ -f "$dir/$name.simgrid" ]; then
    compare "$dir/$name.simgrid" "$tmp/$name.out" "$name (committed reference)" || failed=1
    checked=$((checked + 1))
  fi
done

# A malformed case is refused with FILE:LINE and exit status 2 (the engine's reader has unit tests
# of its own messages).
printf 'link a 1e9 0\nmessage 0 0 100 a,b\n' > "$tmp/bad.flows"
status=0
run "$tmp/bad.flows" 2> "$tmp/bad.err" > /dev/null || status=$?
said="bad.flows:2: "
[ -n "$engine" ] || said="bad.flows:2: message 0: ROUTE names link 'b'"
if [ "$status" -ne 2 ] || ! grep -qF "$said" "$tmp/bad.err"; then
  echo "a route through an undeclared link: exit $status, stderr: $(cat "$tmp/bad.err")"
  failed=1
fi

[ "$checked" -gt 0 ] || { echo "check_cases: no expectations found in $dir"; exit 1; }
[ "$failed" -eq 0 ] && echo "check_cases: $checked checks passed"
exit "$failed"
