#!/usr/bin/env bash
# Configures and builds one flavour of ibsdn into build/<flavour>:
#   build.sh [release|asan|fuzz] [TARGET...]
# release: gcc, -O2 (what the package ships, stripped) with line tables (-g1: backtraces and
# profiles name functions and lines; full debug info would make gcc's build ~30-45 % slower, and
# the asan tree has it); asan: clang, Debug, ASan + UBSan, the tests and the libFuzzer targets;
# fuzz: only the libFuzzer targets, optimised (for long runs).
# With targets, builds only those (and what they need), not the tests and benchmarks. ccache, when
# installed, speeds up repeated builds; a cold build does not need it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
flavour="${1:-release}"
shift || true
jobs="$(nproc)"
case "$flavour" in
  release) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
                 -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG") ;;
  # The sanitizer build also holds the fuzzers (libFuzzer needs clang): one tree for both.
  asan) args=(-DCMAKE_BUILD_TYPE=Debug -DIBSDN_SANITIZE=ON -DIBSDN_FUZZ=ON -DIBSDN_BENCH=OFF
              -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++) ;;
  fuzz) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DIBSDN_FUZZ=ON -DBUILD_TESTING=OFF -DIBSDN_BENCH=OFF
              -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++) ;;
  *) echo "build.sh: unknown flavour '$flavour' (release, asan, fuzz)" >&2; exit 2 ;;
esac
if command -v ccache >/dev/null; then
  args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# The prefix /usr: where the package installs (packaging/README.md), also for `cmake --install`.
cmake -S "$root" -B "$root/build/$flavour" -G Ninja -DCMAKE_INSTALL_PREFIX=/usr "${args[@]}" >/dev/null
targets=()
if [ $# -gt 0 ]; then
  targets=(--target "$@")
elif [ "$flavour" = fuzz ]; then
  targets=(--target fuzzers)
fi
cmake --build "$root/build/$flavour" -j "$jobs" "${targets[@]}"
