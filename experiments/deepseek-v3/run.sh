#!/usr/bin/env bash
# Reruns the study and rewrites report.md; exits 1 when a prediction is outside its tolerance.
# Draws report.png (each prediction over its published number) first, when scaleout-gui is built.
set -euo pipefail
cd "$(dirname "$0")"
gui="${SCALEOUT_GUI:-../../build/gui/scaleout-gui}"
if [ -x "$gui" ]; then "$gui" --render-study study.yaml -o report.png > /dev/null; fi
exec "${SCALEOUT:-../../build/cli/scaleout}" study study.yaml -o report.md --quiet "$@"
