#!/usr/bin/env bash
# Runs the differential fuzzer (difftest.py) in the mxnet==1.9.1 venv, with
# this checkout's symx installed into the same venv (a default-config Bazel
# build of //python:_symx.so; the first run takes minutes). Needs PyPI the
# first time; arguments go to difftest.py.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${SYMX_MXNET_VENV:-$HOME/.cache/symx/mxnet-venv}"
if ! "$venv/bin/python" -c "import mxnet" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "mxnet==1.9.1" "numpy<1.24"
fi
if [ "${SYMX_DIFFTEST_REINSTALL:-1}" = 1 ]; then
  (cd "$root" && SYMX_BAZEL_CONFIG= "$venv/bin/pip" install --quiet .)
fi
exec "$venv/bin/python" "$here/difftest.py" "$@"
