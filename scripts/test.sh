#!/usr/bin/env bash
# Sets everything up and runs the whole test suite, then the checking build: the core and loader
# tests under ASan + UBSan and a 60 s fuzz run of the plan loader (scripts/sanitize.sh; about 4
# minutes from nothing on a 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure -j2
scripts/sanitize.sh 60
