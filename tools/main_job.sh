#!/usr/bin/env bash
# Installs what is missing, builds the symx tool optimized and runs the main
# job: `symx train` with its defaults (an MLP on the built-in synthetic digits),
# which prints loss and accuracy per epoch and saves an MXNet checkpoint, then
# `symx run` on that checkpoint to show it loads. Extra arguments go to train
# (e.g. --model lenet, --data-dir MNIST_DIR, --epochs 5).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bazel build --config=opt //tools/symx
out="${SYMX_OUT:-/tmp/symx_main_job}"
mkdir -p "$out"
bazel-bin/tools/symx/symx train --prefix "$out/model" "$@"
bazel-bin/tools/symx/symx run "$out/model-symbol.json" --params "$(ls "$out"/model-*.params | tail -1)" \
  --shape data=4,1,28,28 --shape softmax_label=4 --out-dir "$out/run"
echo "checkpoint and outputs in $out"
