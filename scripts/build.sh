#!/usr/bin/env bash
# Installs dependencies, configures and builds into build/ (two parallel jobs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" > build-configure.log || { cat build-configure.log; exit 1; }
cmake --build build -j2
