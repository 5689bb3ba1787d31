#!/usr/bin/env bash
# Reruns the study and rewrites report.md; exits 1 when a prediction is outside its tolerance.
set -euo pipefail
cd "$(dirname "$0")"
exec "${SCALEOUT:-../../build/cli/scaleout}" study study.yaml -o report.md --quiet "$@"
