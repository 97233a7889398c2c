#!/usr/bin/env bash
# The Python front's tests, as a user gets it: `pip install .` from this
# checkout into a fresh venv of Debian's python3 (numpy and pytest come from
# its packages), then pytest over tests/python from outside the checkout, so
# what is imported is the installed package. The extension is built in
# Bazel's default configuration (SYMX_BAZEL_CONFIG=) to reuse the objects of
# `bazel test //...`. Extra arguments go to pytest. Run by tools/test_all.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$venv"
SYMX_BAZEL_CONFIG= "$venv/bin/pip" install --quiet --no-build-isolation --no-deps "$root"
cd "$(dirname "$venv")"
"$venv/bin/python" -m pytest -p no:cacheprovider -q "$root/tests/python" "$@"
