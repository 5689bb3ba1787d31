#!/usr/bin/env bash
# How far the asynchronous PS closed form is from SimGrid outside the region where a test holds it
# (one device per node on a CM02 switch, 1-2 shards, up to 64 workers): ResNet-50 on the bundled
# V100 topologies, async PS with dedicated servers, 8 to 256 workers, 1 to 8 shards. Prints one row
# per point and the range of (analytic - sim) / sim, the figure the engine's warning quotes.
# Usage: bench/async_ps_range.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}/cli/scaleout
dir=$(mktemp -d /tmp/scaleout-async-range.XXXXXX)
trap 'rm -rf "$dir"' EXIT
printf "%-22s %7s %6s %12s %12s %8s\n" topology workers shards "sim (ms)" "analytic" error
for topo in v100-ib-switch ethernet-25g-ps; do
  [ -f "topologies/$topo.yaml" ] || continue
  for shards in 1 2 4 8; do
    for workers in 8 32 128 256; do
      cat > "$dir/p.yaml" <<PLAN
cluster: $PWD/topologies/$topo.yaml
workload: $PWD/models/resnet50.yaml
strategy: { kind: ps, mode: async, servers: $shards, placement: dedicated }
training: { workers: $workers, batch_per_worker: 64, steps: 4, overlap: true }
PLAN
      sim=$("$bin" simulate "$dir/p.yaml" --json 2>/dev/null | sed -n 's/.*"step_time_s": *\([0-9.e+-]*\).*/\1/p' | head -1)
      ana=$("$bin" simulate "$dir/p.yaml" --engine analytic --json 2>/dev/null | sed -n 's/.*"step_time_s": *\([0-9.e+-]*\).*/\1/p' | head -1)
      awk -v t="$topo" -v w="$workers" -v k="$shards" -v s="$sim" -v a="$ana" \
        'BEGIN { printf "%-22s %7d %6d %12.3f %12.3f %7.1f%%\n", t, w, k, s*1e3, a*1e3, (a-s)/s*100 }'
    done
  done
done | tee "$dir/rows"
awk '{ e = $6 + 0; if (NR == 1 || e < lo) lo = e; if (NR == 1 || e > hi) hi = e }
     END { printf "analytic - sim: %.1f%% to %.1f%% over %d points\n", lo, hi, NR }' "$dir/rows"
