#!/usr/bin/env bash
# Runs the packed GPU suite (tools/gpu/pack.sh) on the GPU machine: every
# test binary on the physical GPUs, then the executor test again with two
# logical GPUs on one device (SYMX_LOGICAL_GPUS=2). Logs go to $OUT (or
# ./gpu-logs); ends with one line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-gpu-logs}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
[ -f .gpu/suite.tar.xz ] || { echo "no .gpu/suite.tar.xz: run tools/gpu/pack.sh on the build machine first"; exit 2; }
suite="$(mktemp -d)"
tar -xJf .gpu/suite.tar.xz -C "$suite"
suite="$suite/suite"
# cuBLAS/cuDNN/NCCL: the pip packages' folders under the machine's Python,
# then CUDA's own lib64.
libs="$suite/lib"
py_nvidia="$(python3 -c 'import nvidia, os; print(list(nvidia.__path__)[0])' 2>/dev/null || true)"
if [ -n "$py_nvidia" ]; then
  for d in "$py_nvidia"/*/lib; do libs="$libs:$d"; done
fi
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && libs="$libs:$d"
done
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 |
  tee "$out/gpu.txt" || echo "nvidia-smi failed: the tests will say what they find"
passed=0
failed=0
run() {
  local name="$1"
  shift
  if (cd "$suite/data" && env "$@") > "$out/$name.log" 2>&1; then
    passed=$((passed + 1))
    echo "PASSED $name ($(grep -c '\[  SKIPPED \]' "$out/$name.log") skipped cases)"
  else
    failed=$((failed + 1))
    echo "FAILED $name"
    tail -30 "$out/$name.log"
  fi
}
for b in "$suite"/bin/*; do
  run "$(basename "$b")" "$b"
done
run gpu_executor_test_two_logical SYMX_LOGICAL_GPUS=2 "$suite/bin/gpu_executor_test"
run cuda_device_test_two_logical SYMX_LOGICAL_GPUS=2 "$suite/bin/cuda_device_test"
echo "${passed} passed, ${failed} failed"
[ "$failed" = 0 ]
