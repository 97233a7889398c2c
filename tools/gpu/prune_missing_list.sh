#!/usr/bin/env bash
# Drops from tests/cuda/gpu_kernels_missing.txt the ops that have a GPU
# kernel now (after adding kernels; the coverage test names them).
set -uo pipefail
cd "$(dirname "$0")/../.."
bazel test --config=cuda //tests/cuda:gpu_kernel_coverage_test > /dev/null 2>&1
log=bazel-testlogs/tests/cuda/gpu_kernel_coverage_test/test.log
grep -o '^[A-Za-z_0-9]* has a GPU kernel now' "$log" | awk '{print $1}' > /tmp/symx_gpu_now.txt
# Keep comments and every line whose first word (the op) is not done now.
awk 'NR == FNR { done[$1] = 1; next } /^#/ || !($1 in done)' /tmp/symx_gpu_now.txt \
  tests/cuda/gpu_kernels_missing.txt > /tmp/symx_missing.txt
cp /tmp/symx_missing.txt tests/cuda/gpu_kernels_missing.txt
echo "removed $(wc -l < /tmp/symx_gpu_now.txt) ops; $(grep -vc '^#' tests/cuda/gpu_kernels_missing.txt) still listed"
