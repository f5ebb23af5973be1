#!/usr/bin/env bash
# The dependency rule of docs/architecture.md, checked on every #include "..." of the project:
# a file may include files of its own component and of components on lower layers, never of a
# component on its own layer or above. Each quoted include must resolve to a file of the
# repository (relative to the including file, to the root, or to one of the include directories
# below). Only the C glue in plugin/opensm/glue/ may include OpenSM's headers.
#
# `check-includes.sh` checks the tree and exits 1 naming every include that climbs, 0 otherwise;
# `check-includes.sh --layers` prints the layer order.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# Layers, lowest first (docs/architecture.md, "The dependency rule", shows the same list: this
# script fails when the two differ). A component is a folder; a file belongs to the longest component that
# is a prefix of its path. Components on one line are siblings: neither may include the other.
layers=(
  "common"
  "flowtable"
  "mad routing"
  "plugin/notice"
  "plugin/notice/client plugin/controller"
  "plugin/opensm cli scheduler_hook hints mad/agent sim_backend/io"
  "sim_backend/workload sim_backend/apps sim_backend/replay sim_backend/flowmodel"
  "sim_backend/timing"
  "sim_backend/scenario"
  "sim_backend/run"
  "sim_backend/cli"
  "tests"
  "bench"
)
# Directories the build puts on the include path besides the root (target_include_directories).
include_dirs=(plugin/opensm hints/include)
# The only component that may include OpenSM's own headers (<opensm/...>, <complib/...>,
# <iba/...>, <vendor/...>).
opensm_face="plugin/opensm/glue"

print_layers() {
  local i
  for i in "${!layers[@]}"; do
    printf '%2d  %s\n' "$i" "${layers[$i]// /, }"
  done
}
if [ "${1:-}" = "--layers" ]; then
  print_layers
  exit 0
fi

# The document states the rule a newcomer reads: it must be this one.
doc=docs/architecture.md
documented="$(sed -n '/^## The dependency rule/,/^## /p' "$doc" | grep -E '^ ?[0-9]+  [a-z]' || true)"
if [ "$documented" != "$(print_layers)" ]; then
  echo "check-includes: the layers in $doc (\"The dependency rule\") differ from this script's:" >&2
  diff <(echo "$documented") <(print_layers) >&2 || true
  exit 1
fi

layer_spec=""
for i in "${!layers[@]}"; do
  for c in ${layers[$i]}; do layer_spec+="$c=$i "; done
done

git ls-files -z '*.c' '*.h' '*.cpp' '*.hpp' '*.def' |
  xargs -0 grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' /dev/null |
  awk -v spec="$layer_spec" -v incdirs="${include_dirs[*]}" -v face="$opensm_face" \
      -v files="$(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' '*.def' '*.inc' | tr '\n' ' ')" '
    BEGIN {
      n = split(spec, parts, " ")
      for (i = 1; i <= n; i++) { split(parts[i], kv, "="); layer[kv[1]] = kv[2] }
      m = split(files, fl, " "); for (i = 1; i <= m; i++) exists[fl[i]] = 1
      nd = split(incdirs, dirs, " ")
      bad = 0; checked = 0
    }
    function component(path,    best, c) {
      best = ""
      for (c in layer)
        if ((path == c || index(path, c "/") == 1) && length(c) > length(best)) best = c
      return best
    }
    function normalise(p,    n, seg, out, k, i) {
      n = split(p, seg, "/"); k = 0
      for (i = 1; i <= n; i++) {
        if (seg[i] == "." || seg[i] == "") continue
        if (seg[i] == "..") { if (k > 0) k--; continue }
        out[++k] = seg[i]
      }
      p = ""
      for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
      return p
    }
    {
      file = $0; sub(/:.*/, "", file)
      rest = substr($0, length(file) + 2); line = rest; sub(/:.*/, "", line)
      text = substr(rest, length(line) + 2)
      dir = file; if (!sub(/\/[^\/]*$/, "", dir)) dir = "."
      if (match(text, /<[^>]+>/)) {
        sys = substr(text, RSTART + 1, RLENGTH - 2)
        if (sys ~ /^(opensm|complib|iba|vendor)\// && index(file, face "/") != 1) {
          printf "%s:%s: includes OpenSM header <%s>: only %s/ may\n", file, line, sys, face
          bad++
        }
        next
      }
      if (!match(text, /"[^"]+"/)) next
      inc = substr(text, RSTART + 1, RLENGTH - 2)
      target = ""
      cand = normalise(dir "/" inc); if (cand in exists) target = cand
      if (target == "" && (inc in exists)) target = inc
      for (i = 1; target == "" && i <= nd; i++) {
        cand = normalise(dirs[i] "/" inc); if (cand in exists) target = cand
      }
      checked++
      if (target == "") { printf "%s:%s: \"%s\" is no file of the repository\n", file, line, inc; bad++; next }
      from = component(file); to = component(target)
      if (from == "" || to == "") {
        printf "%s:%s: \"%s\": %s has no layer (scripts/check-includes.sh)\n", file, line, inc,
               (from == "" ? file : target)
        bad++; next
      }
      if (from == to || layer[to] < layer[from]) next
      printf "%s:%s: %s (layer %d) includes %s of %s (layer %d)%s\n", file, line, from, layer[from],
             target, to, layer[to], (layer[to] == layer[from] ? ": siblings" : ": climbs")
      bad++
    }
    END {
      if (bad) { printf "check-includes: %d of %d includes break the layer order\n", bad, checked; exit 1 }
      printf "check-includes: %d includes follow the layer order\n", checked
    }'
