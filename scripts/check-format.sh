#!/usr/bin/env bash
# Fails (exit 1) when a C++ or CUDA file differs from the root .clang-format's layout, naming the
# files; skips (exit 77) when clang-format is not installed. Run by the test suite (ctest: format).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "skipped: clang-format is not installed"; exit 77; }
git ls-files >/dev/null 2>&1 || { echo "skipped: not a git checkout"; exit 77; }
bad=()
while IFS= read -r f; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh')
if [ ${#bad[@]} -gt 0 ]; then
  echo "not formatted (run: clang-format -i FILE):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "every C++ file is formatted"
