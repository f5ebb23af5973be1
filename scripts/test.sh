#!/usr/bin/env bash
# Installs dependencies, builds, and runs every test of ibsdn: the formatting and include-layer
# checks, the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer and a short libFuzzer
# run of the decoders (one clang build), a quick benchmark smoke run and the unit and integration
# tests (release build, warnings as errors). Prints each leg's time at the end.
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

# One clang tree serves the sanitizer tests and the fuzzers: the libraries carry both the
# sanitizers and libFuzzer's coverage hooks (scripts/build.sh asan).
step "sanitizer build (clang, ASan + UBSan, with the fuzzers)"
scripts/build.sh asan

step "unit tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan -L unit --output-on-failure -j "$(nproc)"

step "fuzzing the decoders for ${fuzz_seconds}s each"
fuzzers=(build/asan/tests/fuzz/*_fuzz)
[ -x "${fuzzers[0]}" ] || { echo "test.sh: no fuzzers in build/asan/tests/fuzz" >&2; exit 1; }
for fuzzer in "${fuzzers[@]}"; do
  corpus="$(mktemp -d)"
  "$fuzzer" -max_total_time="$fuzz_seconds" -print_final_stats=1 "$corpus" 2>&1 | tail -n 3
  rm -rf "$corpus"
done

step "release build"
scripts/build.sh release

step "benchmark smoke run"
build/release/bench/route_bench --quick
build/release/bench/volume_bench --quick
build/release/bench/controller_bench --quick
build/release/bench/replay_bench --quick
build/release/bench/timing_bench --quick
bash bench/lft_install.sh build/release --quick

step "release build: unit and integration tests"
ctest --test-dir build/release --output-on-failure -j "$(nproc)"
