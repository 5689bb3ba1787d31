#!/usr/bin/env bash
# Sets everything up, then runs the main job on the bundled default: a scaling sweep of ResNet-50
# from 8 to 1024 GPUs comparing PS, ring and 2D-torus. Prints a table and writes sweep.csv.
# Builds only the `scaleout` program the sweep runs (scripts/build.sh builds everything).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > build-configure.log ||
  { cat build-configure.log; exit 1; }
cmake --build build -j2 --target scaleout
build/cli/scaleout sweep experiments/quickstart.yaml --workers 8:1024:x2 \
  --strategies ring,torus2d,ps -o sweep.csv
