#!/usr/bin/env bash
# Installs the Debian packages scaleout builds against (Debian 12). Uses sudo when not root.
# Skips apt entirely when everything is already installed.
set -euo pipefail
packages=(build-essential cmake pkg-config libsimgrid-dev libboost-graph-dev libyaml-cpp-dev
          nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev libgloo-dev
          iproute2 clang-format clang libclang-rt-14-dev qt6-base-dev qt6-charts-dev qt6-svg-dev
          libqt6opengl6-dev qt6-qpa-plugins libgl-dev libjemalloc-dev dpkg-dev
          python3 protobuf-compiler python3-protobuf)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
