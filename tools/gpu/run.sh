#!/usr/bin/env bash
# Runs the packed GPU suite (tools/gpu/pack.sh) on the GPU machine: every
# test binary on the physical GPUs, then the executor test again with two
# logical GPUs on one device (SYMX_LOGICAL_GPUS=2), and the placement and
# shared_exec suites on gpu(n) (SYMX_TEST_DEVICE=gpu). The logs are packed
# into $OUT/gpu-logs.tar.gz (the device tool returns at most 8 files) or
# ./gpu-logs; ends with one line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
dest="${OUT:-gpu-logs}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
out="$(mktemp -d)/gpu-logs"
mkdir -p "$out"
source tools/gpu/env.sh
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
source tools/gpu/targets.sh
retargeted=" "
for t in "${SYMX_GPU_RETARGETED[@]}"; do retargeted+="${t##*:} "; done
# The retargeted suites bind on gpu(n) unconditionally: without a GPU they
# are skipped here (the GPU tests themselves skip case by case).
have_gpu=0
nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && have_gpu=1
for b in "$suite"/bin/*; do
  name="$(basename "$b")"
  case "$retargeted" in
    *" $name "*)
      if [ "$have_gpu" = 1 ]; then
        run "${name}_on_gpu" SYMX_TEST_DEVICE=gpu SYMX_LOGICAL_GPUS=8 "$b"
      else
        echo "SKIPPED ${name}_on_gpu (no GPU: nvidia-smi lists none)"
      fi
      ;;
    *) run "$name" "$b" ;;
  esac
done
run gpu_executor_test_two_logical SYMX_LOGICAL_GPUS=2 "$suite/bin/gpu_executor_test"
run cuda_device_test_two_logical SYMX_LOGICAL_GPUS=2 "$suite/bin/cuda_device_test"
echo "${passed} passed, ${failed} failed" | tee "$out/summary.txt"
tar -czf "$dest/gpu-logs.tar.gz" -C "$(dirname "$out")" gpu-logs
[ "$failed" = 0 ]
