#!/usr/bin/env bash
# Installs every Debian package symx needs to build and test, idempotently.
# A second run checks with dpkg and returns at once when nothing is missing.
set -euo pipefail

PACKAGES=(
  bazel-bootstrap      # Bazel 4.2.3, /usr/bin/bazel
  bazel-rules-java     # @rules_java that Bazel 4.2.3 expects, used offline
  g++ clang           # compilers; clang + libclang-rt for libFuzzer
  libclang-rt-14-dev
  libeigen3-dev        # Eigen 3.4 (header only)
  libdnnl-dev          # oneDNN 2.6: the CPU convolutions (devices/cpu/onednn*.cc)
  libabsl-dev          # Abseil 20220623
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libopenmpi-dev openmpi-bin
  nlohmann-json3-dev   # JSON (header only)
  libjpeg62-turbo-dev  # JPEG decode/encode for RecordIO images (train/image)
  libpng-dev           # PNG likewise
  graphviz             # dot, for symx viz
  python3              # test wrappers
  # The Python front (python/, `pip install .`) and its pytest suite, for
  # Debian's interpreter: headers, pybind11, numpy, pytest, venv + setuptools.
  python3-dev pybind11-dev python3-numpy python3-pytest python3-venv python3-setuptools
  python3-wheel        # setuptools needs it to build the wheel pip installs
  iproute2             # ip netns: the two-hosts MPI test
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "symx setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
