#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test of ibsdn: the unit and integration tests
# (release build, warnings as errors), the unit tests again under AddressSanitizer +
# UndefinedBehaviorSanitizer, a short libFuzzer run of the decoders, the formatting check and a
# quick benchmark smoke run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
fuzz_seconds="${IBSDN_FUZZ_SECONDS:-20}"

# Each leg's wall time, printed at the end (also when a leg fails): CI has 90 minutes on 2 cores.
legs=()
leg=""
leg_start=$SECONDS
end_leg() {
  if [ -n "$leg" ]; then
    local s=$((SECONDS - leg_start))
    legs+=("$(printf '%3dm%02ds  %s' $((s / 60)) $((s % 60)) "$leg")")
  fi
  leg=""
}
report_legs() {
  local status=$?
  end_leg
  printf '\n=== time per leg ===\n'
  printf '%s\n' "${legs[@]}"
  printf '%3dm%02ds  total (exit status %d)\n' $((SECONDS / 60)) $((SECONDS % 60)) "$status"
}
trap report_legs EXIT
step() {
  end_leg
  leg="$*"
  leg_start=$SECONDS
  printf '\n=== %s ===\n' "$*"
}

step "dependencies"
scripts/install-deps.sh

step "format check"
scripts/format.sh --check

step "include layers"
scripts/check-includes.sh

step "sanitizer build (ASan + UBSan) and unit tests"
scripts/build.sh asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan -L unit --output-on-failure -j "$(nproc)"

step "fuzzing the decoders for ${fuzz_seconds}s each"
scripts/build.sh fuzz
for fuzzer in build/fuzz/tests/fuzz/*_fuzz; do
  [ -x "$fuzzer" ] || continue
  corpus="$(mktemp -d)"
  "$fuzzer" -max_total_time="$fuzz_seconds" -print_final_stats=1 "$corpus" 2>&1 | tail -n 3
  rm -rf "$corpus"
done

step "benchmark smoke run"
scripts/build.sh release
build/release/bench/route_bench --quick
build/release/bench/volume_bench --quick
build/release/bench/controller_bench --quick
build/release/bench/replay_bench --quick
build/release/bench/timing_bench --quick

step "release build: unit and integration tests"
ctest --test-dir build/release --output-on-failure -j "$(nproc)"
