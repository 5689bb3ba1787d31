#!/usr/bin/env bash
# Sets everything up, then runs the main job on the bundled default: a scaling sweep of ResNet-50
# from 8 to 1024 GPUs comparing PS, ring and 2D-torus. Prints a table and writes sweep.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
build/cli/scaleout sweep experiments/quickstart.yaml --workers 8:1024:x2 \
  --strategies ring,torus2d,ps -o sweep.csv
