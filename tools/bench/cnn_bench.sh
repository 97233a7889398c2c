#!/usr/bin/env bash
# symx against MXNet 1.9.1 (its oneDNN build) on standard CNNs: see cnn_bench.py.
#   bash tools/bench/cnn_bench.sh [--threads N] [--iters N] [--models resnet50_v1,vgg16]
# MXNet goes into a venv of its own (SYMX_MXNET_VENV, default
# ~/.cache/symx/mxnet-venv), made here on first use from PyPI; no test needs it.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="${SYMX_MXNET_VENV:-$HOME/.cache/symx/mxnet-venv}"
if ! "$VENV/bin/python" -c "import mxnet" 2>/dev/null; then
  echo "cnn_bench: installing mxnet==1.9.1 into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "mxnet==1.9.1" "numpy<1.24"
fi
bash tools/setup.sh
bazel build --config=opt //tools/symx:symx
exec "$VENV/bin/python" tools/bench/cnn_bench.py --symx "$PWD/bazel-bin/tools/symx/symx" "$@"
