#!/usr/bin/env bash
# Median |prediction error| of `scaleout validate` over the bundled emulated cases (root only):
# ring, torus2d, halving-doubling, PS and async PS on 4 hosts; ring, torus2d, PS and async PS on
# two racks of 4.
#   bench/validate_error.sh [path/to/scaleout]
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/cli/scaleout}
errors=()
run_case() {  # plan, extra args
  line=$("$bin" validate "$1" --cluster emulated ${2:-} | grep '^step time:')
  err=$(sed -E 's/.*error ([-+][0-9.]+)%.*/\1/' <<<"$line")
  printf '%-45s %-28s %s%%\n' "$1" "${2:-}" "$err"
  errors+=("${err#[-+]}")
}
trap '"$bin" cluster down >/dev/null 2>&1' EXIT
"$bin" cluster up topologies/emulated-4x200mbit.yaml >/dev/null
for s in ring torus2d halving_doubling; do run_case experiments/emulated/ring-4.yaml "--strategy $s"; done
run_case experiments/emulated/ring-4.yaml "--strategy ps --workers 3"
run_case experiments/emulated/async-ps-4.yaml
"$bin" cluster up topologies/emulated-2racks-200mbit.yaml >/dev/null
for s in ring torus2d; do run_case experiments/emulated/ring-8-two-racks.yaml "--strategy $s"; done
run_case experiments/emulated/ring-8-two-racks.yaml "--strategy ps --workers 7"
run_case experiments/emulated/async-ps-8-two-racks.yaml
median=$(printf '%s\n' "${errors[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "median |error| over ${#errors[@]} cases: ${median}%"
