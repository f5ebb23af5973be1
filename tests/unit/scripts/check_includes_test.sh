#!/usr/bin/env bash
# scripts/check-includes.sh on the project passes, and on a copy of it with planted includes fails
# naming each: one that climbs a layer, one between siblings, one to no file, an OpenSM header
# outside the glue, and docs/architecture.md's list of layers out of step with the script.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "check_includes_test: $*" >&2; exit 1; }

"$root/scripts/check-includes.sh" >/dev/null || fail "the project itself breaks the layer order"

# A repository of a few files in the project's folders, with the real script and document.
repo="$work/repo"
mkdir -p "$repo"/{scripts,docs,common,plugin/notice,plugin/opensm/glue,cli,scheduler_hook}
cp "$root/scripts/check-includes.sh" "$repo/scripts/"
cp "$root/docs/architecture.md" "$repo/docs/"
printf '#pragma once\n' >"$repo/plugin/notice/request.hpp"
printf '#pragma once\n' >"$repo/scheduler_hook/hook.hpp"
printf '#include "plugin/notice/request.hpp"\n' >"$repo/cli/ok.cpp"
git -C "$repo" init -q
commit() { git -C "$repo" add -A && git -C "$repo" -c user.name=t -c user.email=t@t commit -qm "$1"; }
commit base
"$repo/scripts/check-includes.sh" >/dev/null || fail "a clean copy fails"

expect_failure() {  # FILE LINE-TEXT EXPECTED-MESSAGE
  printf '%s\n' "$2" >"$repo/$1"
  commit "plant $1"
  local out
  if out="$("$repo/scripts/check-includes.sh" 2>&1)"; then fail "$1 ($2) passed"; fi
  grep -qF -- "$3" <<<"$out" || fail "$1: expected '$3' in: $out"
  git -C "$repo" rm -q "$1" && commit "unplant $1"
}
expect_failure common/climb.cpp '#include "plugin/notice/request.hpp"' \
  "common (layer 0) includes plugin/notice/request.hpp of plugin/notice (layer 3): climbs"
expect_failure cli/sibling.cpp '#include "scheduler_hook/hook.hpp"' "siblings"
expect_failure cli/missing.cpp '#include "cli/nowhere.hpp"' '"cli/nowhere.hpp" is no file of the repository'
expect_failure cli/opensm.cpp '#include <opensm/osm_opensm.h>' "only plugin/opensm/glue/ may"
printf '#include <opensm/osm_opensm.h>\n' >"$repo/plugin/opensm/glue/ok.c"
commit "the glue may"
"$repo/scripts/check-includes.sh" >/dev/null || fail "the glue may include OpenSM's headers"

sed -i 's/^ 0  common$/ 0  common, flowtable/' "$repo/docs/architecture.md"
commit "document out of step"
if "$repo/scripts/check-includes.sh" >/dev/null 2>&1; then fail "a document out of step passed"; fi
echo "check_includes_test: the project passes; 5 planted faults are refused"
