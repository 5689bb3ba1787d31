#!/usr/bin/env bash
# Builds the Debian packages from a build directory and checks them: the programs, the bundled
# plans and the man page are in scaleout, and every Debian library the programs link directly
# appears in its Depends by its package name; the programs link no CUDA or NCCL library. In a CUDA
# build, scaleout-cuda holds the GPU backend's plugin alone and depends on scaleout's version.
# Usage: scripts/package-test.sh BUILD_DIR
set -euo pipefail
command -v dpkg-shlibdeps > /dev/null || { echo "dpkg-dev is not installed: skipped"; exit 77; }
build=$(cd "$1" && pwd)
out=$(mktemp -d /tmp/scaleout-deb.XXXXXX)
trap 'rm -rf "$out"' EXIT
(cd "$build" && cpack -G DEB -B "$out" > "$out/cpack.log") ||
  { cat "$out/cpack.log"; echo "FAIL: cpack"; exit 1; }
deb=$(ls "$out"/scaleout_*.deb)
contents=$(dpkg-deb -c "$deb")
if grep -q "libscaleout-cuda" <<< "$contents"; then
  echo "FAIL: the GPU plugin is in $(basename "$deb"), not apart"; exit 1
fi
if [ -f "$build/lib/scaleout/libscaleout-cuda.so" ]; then
  cuda_deb=$(ls "$out"/scaleout-cuda_*.deb) || { echo "FAIL: no scaleout-cuda package"; exit 1; }
  dpkg-deb -c "$cuda_deb" | grep -q " ./usr/lib/scaleout/libscaleout-cuda.so$" ||
    { echo "FAIL: the plugin is not in $(basename "$cuda_deb")"; exit 1; }
  dpkg-deb -f "$cuda_deb" Depends | grep -q "scaleout (= " ||
    { echo "FAIL: $(basename "$cuda_deb") does not depend on scaleout's version"; exit 1; }
fi
for f in ./usr/bin/scaleout ./usr/share/scaleout/experiments/quickstart.yaml \
         ./usr/share/scaleout/topologies/dgx-a100-ib.yaml ./usr/share/man/man1/scaleout.1; do
  grep -q " $f\$" <<< "$contents" || { echo "FAIL: $f is not in $(basename "$deb")"; exit 1; }
done
depends=$(dpkg-deb -f "$deb" Depends)
depend_names=$(sed 's/ ([^)]*)//g; s/ *| */\n/g; s/, /\n/g' <<< "$depends")
# ldconfig is in /sbin, off a user's PATH; its whole output is read first (awk leaving early would
# end it with SIGPIPE).
cache=$(/sbin/ldconfig -p)
checked=0
for exe in "$build/cli/scaleout" "$build/gui/scaleout-gui"; do
  [ -x "$exe" ] || continue
  for lib in $(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case "$lib" in
      libcuda*|libcublas*|libcusolver*|libnccl*|libnvJitLink*)
        echo "FAIL: $exe links $lib (the GPU stack belongs to the plugin)"; exit 1 ;;
    esac
    path=$(awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}' <<< "$cache")
    [ -n "$path" ] || continue
    # dpkg records some libraries under /lib, others under /usr/lib (merged /usr): try both.
    owner=""
    for p in "$path" "$(readlink -f "$path")" "/usr$path" "${path#/usr}"; do
      owner=$(dpkg -S "$p" 2>/dev/null | head -1 | cut -d: -f1) || true
      [ -n "$owner" ] && break
    done
    [ -n "$owner" ] || continue
    grep -Fxq "$owner" <<< "$depend_names" ||
      { echo "FAIL: $lib ($owner) is linked but not in Depends: $depends"; exit 1; }
    checked=$((checked + 1))
  done
done
[ "$checked" -gt 5 ] || { echo "FAIL: only $checked linked libraries were checked"; exit 1; }
echo "$(basename "$deb") ($(du -h "$deb" | cut -f1)): $checked linked libraries in Depends, no GPU library: ok"
[ -z "${cuda_deb:-}" ] || echo "$(basename "$cuda_deb") ($(du -h "$cuda_deb" | cut -f1)): the plugin alone: ok"
