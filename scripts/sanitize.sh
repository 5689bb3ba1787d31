#!/usr/bin/env bash
# The checking build: AddressSanitizer + UndefinedBehaviorSanitizer on the core library and its
# tests (plan loading and validation included), and a libFuzzer run of the plan loader seeded
# with the bundled YAML files. Property: no crash, no sanitizer report, no hang (10 s an input),
# every input loads or is refused as wrong input (the CLI's exit 2).
# Usage: scripts/sanitize.sh [FUZZ_SECONDS]   (default 60; 0 skips the fuzz run)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
command -v clang++ >/dev/null || { echo "clang++ is missing: scripts/install-deps.sh"; exit 1; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DSCALEOUT_SANITIZE=ON -DSCALEOUT_FUZZ=ON -DSCALEOUT_GUI=OFF -DSCALEOUT_CUDA=OFF \
  -DSCALEOUT_BENCH=OFF -DSCALEOUT_TEST_DEBUG_INFO=ON "${launcher[@]}" >/dev/null
cmake --build build-sanitize -j"${JOBS:-2}" --target core_tests fuzz_plan_loader
echo "== core and loader tests under ASan + UBSan"
build-sanitize/tests/core_tests --gtest_brief=1
[ "$seconds" -gt 0 ] || exit 0
echo "== fuzzing the plan loader for $seconds s"
corpus=build-sanitize/fuzz-corpus
mkdir -p "$corpus"
cp experiments/*.yaml experiments/emulated/*.yaml topologies/*.yaml models/*.yaml \
   tests/data/*.yaml "$corpus"/
build-sanitize/fuzz/fuzz_plan_loader -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=4096 -print_final_stats=1 -artifact_prefix=build-sanitize/ "$corpus"
