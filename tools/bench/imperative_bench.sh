#!/usr/bin/env bash
# Per-call cost of mx.nd calls, symx against MXNet 1.9.1: see imperative_bench.py.
#   bash tools/bench/imperative_bench.sh [--threads N] [--rounds N] [--calls N]
# MXNet goes into a venv of its own (SYMX_MXNET_VENV, default
# ~/.cache/symx/mxnet-venv), made here on first use from PyPI; no test needs it.
# symx's extension is built optimized for that venv's Python and staged in a
# temporary directory with the package.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV="${SYMX_MXNET_VENV:-$HOME/.cache/symx/mxnet-venv}"
if ! "$VENV/bin/python" -c "import mxnet" 2>/dev/null; then
  echo "imperative_bench: installing mxnet==1.9.1 into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "mxnet==1.9.1" "numpy<1.24"
fi
bash tools/setup.sh
bazel build --config=opt --repo_env=SYMX_PYTHON="$VENV/bin/python" //python:_symx.so
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp -r python/symx "$stage/symx"
rm -f "$stage/symx/_symx.so"
cp "$(bazel info --config=opt bazel-bin)/python/_symx.so" "$stage/symx/_symx.so"
"$VENV/bin/python" tools/bench/imperative_bench.py --symx-path "$stage" "$@"
