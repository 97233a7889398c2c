#!/usr/bin/env bash
# The Python front's tests. Run by tools/test_all.sh; extra arguments go to pytest.
#
#   tools/python_tests.sh          as a user gets it: `pip install .` from this
#       checkout into a fresh venv of Debian's python3 (numpy and pytest from
#       its packages), then pytest over tests/python from outside the
#       checkout, so the installed package is what is imported. The extension
#       is built in Bazel's default configuration (SYMX_BAZEL_CONFIG=) to reuse
#       the objects of `bazel test //...`.
#   tools/python_tests.sh --cuda   the same suite on the extension built as
#       `pip wheel .` builds it where CUDA is installed (SYMX_CUDA=1: the GPU
#       devices, kernels and NCCL linked in), PTX only to reuse the CUDA
#       phase's objects, installed from the wheel into a fresh venv: on a
#       machine without a GPU it checks the CUDA build links, loads, counts
#       0 GPUs and refuses them by name (tests/python/test_gpu.py), and that
#       nothing else changes; with GPUs the GPU tests run too.
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
if [ "${1:-}" = --cuda ]; then
  shift
  SYMX_CUDA=1 SYMX_BAZEL_CONFIG= SYMX_BAZEL_FLAGS=--define=symx_cuda_ptx_only=1 \
    "$work/venv/bin/pip" wheel --quiet --no-build-isolation --no-deps -w "$work/wheel" "$root"
  "$work/venv/bin/pip" install --quiet --no-deps "$work"/wheel/symx-*.whl
  "$work/venv/bin/python" -c "import symx.base as b; assert b._core.built_with_cuda()"
else
  # The CPU build (CUDA may be installed: the --cuda run checks that one).
  SYMX_CUDA=0 SYMX_BAZEL_CONFIG= "$work/venv/bin/pip" install --quiet --no-build-isolation \
    --no-deps "$root"
fi
cd "$work"
"$work/venv/bin/python" -m pytest -p no:cacheprovider -q "$root/tests/python" "$@"
