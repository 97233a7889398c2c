#!/usr/bin/env bash
# Builds the benchmarks optimized and runs each; figures go to stdout.
#   bash tools/bench/run_all.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
targets=(overhead_bench fc_gemm_bench train_step_bench memory_bench multi_device_bench
  elemwise_math_bench)
bazel build --config=opt "${targets[@]/#///tools/bench:}"
for t in "${targets[@]}"; do
  echo "== $t"
  "bazel-bin/tools/bench/$t"
done
