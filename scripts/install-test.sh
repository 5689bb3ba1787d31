#!/usr/bin/env bash
# Installs the build into a temporary prefix outside the source tree and runs the quickstart from
# there, as a user on a login node would: a sweep of the bundled plan from an empty directory, its
# chart rendered headless, the man page. Then takes the bundled plan away and expects the same
# sweep to fail (exit 2): the programs find their files through the prefix, not the source tree.
# Usage: scripts/install-test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(mktemp -d /tmp/scaleout-install.XXXXXX)
trap 'rm -rf "$root"' EXIT
prefix=$root/prefix
cmake --install "$build" --prefix "$prefix" > "$root/install.log" ||
  { cat "$root/install.log"; echo "FAIL: cmake --install"; exit 1; }
mkdir "$root/work" && cd "$root/work"
unset SCALEOUT_DATA_DIR

"$prefix/bin/scaleout" sweep experiments/quickstart.yaml --workers 8:16:x2 --strategies ring,ps \
  -o sweep.csv --quiet
rows=$(($(wc -l < sweep.csv) - 1))
[ "$rows" -eq 4 ] || { echo "FAIL: the installed sweep wrote $rows rows, expected 4"; exit 1; }

# A CUDA build installs its GPU plugin where the installed program looks for it: a run on GPUs
# gets past loading it (and stops at the device probe: 64 GPUs are not on this machine).
if [ -f "$build/lib/scaleout/libscaleout-cuda.so" ]; then
  [ -f "$prefix/lib/scaleout/libscaleout-cuda.so" ] || { echo "FAIL: GPU plugin not installed"; exit 1; }
  "$prefix/bin/scaleout" run experiments/quickstart.yaml --workers 64 --backend cuda \
    --no-baselines > gpu.out 2>&1 || true
  if ! grep -q "no usable GPU\|needs 64 GPUs" gpu.out; then
    cat gpu.out; echo "FAIL: the installed program does not load its GPU plugin"; exit 1
  fi
fi

if [ -x "$prefix/bin/scaleout-gui" ]; then
  QT_QPA_PLATFORM=offscreen "$prefix/bin/scaleout-gui" --render sweep.csv -o scaling.png
  [ -s scaling.png ] || { echo "FAIL: scaleout-gui --render wrote no chart"; exit 1; }
fi

man_page=$prefix/share/man/man1/scaleout.1
[ -f "$man_page" ] || { echo "FAIL: no man page at $man_page"; exit 1; }
commands=$("$prefix/bin/scaleout" --help | sed -n '/^Subcommands:/,$p' | awk '/^  [a-z]/{print $1}')
[ -n "$commands" ] || { echo "FAIL: no commands found in scaleout --help"; exit 1; }
for c in $commands; do
  grep -q "^\.B $c\$" "$man_page" || { echo "FAIL: the man page does not describe '$c'"; exit 1; }
done
[ -f "$prefix/share/doc/scaleout/docs/install.md" ] || { echo "FAIL: docs not installed"; exit 1; }

rm "$prefix/share/scaleout/experiments/quickstart.yaml"
set +e
"$prefix/bin/scaleout" sweep experiments/quickstart.yaml --workers 8 --strategies ring \
  -o gone.csv --quiet 2> gone.err
rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "FAIL: without the installed plan the sweep exited $rc, not 2"; exit 1; }
grep -q "quickstart.yaml" gone.err || { echo "FAIL: the error does not name the plan"; exit 1; }
echo "installed into a temporary prefix: sweep ($rows rows), chart, man page ($(echo $commands | wc -w) commands): ok"
