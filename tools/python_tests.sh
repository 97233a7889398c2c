#!/usr/bin/env bash
# The Python front's tests. Run by tools/test_all.sh; extra arguments go to pytest.
#
#   tools/python_tests.sh          as a user gets it: `pip install .` from this
#       checkout into a fresh venv of Debian's python3 (numpy and pytest from
#       its packages), then pytest over tests/python from outside the
#       checkout, so the installed package is what is imported. The extension
#       is built in Bazel's default configuration (SYMX_BAZEL_CONFIG=) to reuse
#       the objects of `bazel test //...`.
#   tools/python_tests.sh --asan   the same suite on an extension built with
#       --config=asan (ASan + UBSan), loaded into Debian's python3 with the
#       sanitizer runtimes preloaded; leak checks are off (the interpreter
#       keeps its own allocations at exit). Reuses `bazel test --config=asan`'s
#       objects.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python=/usr/bin/python3

if [ "${1:-}" = --asan ]; then
  shift
  bazel build --config=asan --repo_env=SYMX_PYTHON="$python" //python:_symx.so
  cp -r "$root/python/symx" "$work/symx"
  rm -f "$work/symx/_symx.so"
  cp "$(bazel info --config=asan bazel-bin)/python/_symx.so" "$work/symx/_symx.so"
  cd "$work"
  runtimes="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)"
  ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD="$runtimes" PYTHONPATH="$work" \
    "$python" -m pytest -p no:cacheprovider -q "$root/tests/python" "$@"
  exit
fi

"$python" -m venv --system-site-packages "$work/venv"
SYMX_BAZEL_CONFIG= "$work/venv/bin/pip" install --quiet --no-build-isolation --no-deps "$root"
cd "$work"
"$work/venv/bin/python" -m pytest -p no:cacheprovider -q "$root/tests/python" "$@"
