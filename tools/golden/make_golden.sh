#!/usr/bin/env bash
# Regenerates tests/golden/cases with MXNet 1.9.1 (see make_golden.py).
# The venv lives in ~/.cache/symx/mxnet-venv (shared with tools/bench/cnn_bench.sh)
# and is made on first use; it needs PyPI. The tests themselves never need MXNet.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${SYMX_MXNET_VENV:-$HOME/.cache/symx/mxnet-venv}"
if ! "$venv/bin/python" -c "import mxnet" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "mxnet==1.9.1" "numpy<1.24"
fi
exec "$venv/bin/python" "$here/make_golden.py" "$@"
