#!/usr/bin/env bash
# Python's overhead in data-parallel training (issue 31): steps/s of
# `mpirun -np N python tools/examples/image_classification/train.py
# --kv-store dist_sync` against `mpirun -np N symx train` on the same model
# (LeNet), data (the built-in digits, 10000 rows), global batch, optimizer
# and ranks, alternating the two in one run; the ratio python/tool is the
# figure (goal >= 0.95).
#   bash tools/bench/python_dp_bench.sh [--ranks N] [--rounds R] [--epochs E] [--batch B]
# B is the global batch (B/N rows per rank per step). Each run's first epoch
# is warm-up; an epoch's time is its training loop (the tool's time minus its
# eval, Python's "Time cost"). One intra-op thread per rank.
set -euo pipefail
cd "$(dirname "$0")/../.."
ranks=2 rounds=3 epochs=3 batch=100
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) ranks=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    *) echo "python_dp_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ $((batch % ranks)) != 0 ]; then
  echo "python_dp_bench: --batch $batch is not a multiple of --ranks $ranks" >&2; exit 2
fi
python=/usr/bin/python3
bazel build --config=opt //tools/symx
bazel build --config=opt --repo_env=SYMX_PYTHON="$python" //python:_symx.so
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp -r python/symx "$stage/symx"
rm -f "$stage/symx/_symx.so"
cp "$(bazel info --config=opt --repo_env=SYMX_PYTHON="$python" bazel-bin)/python/_symx.so" \
  "$stage/symx/_symx.so"
symx="$PWD/bazel-bin/tools/symx/symx"
mpirun=(mpirun --oversubscribe --bind-to none -np "$ranks" -x SYMX_CPU_THREADS=1)
if [ "$(id -u)" = 0 ]; then mpirun+=(--allow-run-as-root); fi
steps=$((10000 / batch))

tool_times() {  # training seconds of epochs 2.., one per line
  "${mpirun[@]}" "$symx" train --model lenet --epochs "$epochs" --batch-size "$batch" \
    --prefix "$stage/tool" |
    sed -nE 's/^epoch ([0-9]+)\/.* time ([0-9.]+)s \(eval ([0-9.]+)s\).*/\1 \2 \3/p' |
    awk '$1 > 1 {printf "%.4f\n", $2 - $3}'
}
python_times() {
  "${mpirun[@]}" -x PYTHONPATH="$stage" "$python" tools/examples/image_classification/train.py \
    --network lenet --kv-store dist_sync --num-epochs "$epochs" --num-examples 10000 \
    --batch-size $((batch / ranks)) --disp-batches 100000 2>&1 |
    sed -nE 's/.*Epoch\[([0-9]+)\] Time cost=([0-9.]+).*/\1 \2/p' | awk '$1 > 0 {print $2}'
}
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

echo "LeNet, $ranks ranks, global batch $batch ($steps steps per epoch), $epochs epochs per run"
printf "%-6s %16s %16s %8s\n" round "tool steps/s" "python steps/s" ratio
all_tool="" all_py=""
for r in $(seq "$rounds"); do
  t=$(tool_times | median)
  p=$(python_times | median)
  all_tool+="$t"$'\n' all_py+="$p"$'\n'
  awk -v r="$r" -v t="$t" -v p="$p" -v s="$steps" \
    'BEGIN {printf "%-6s %16.1f %16.1f %8.3f\n", r, s / t, s / p, t / p}'
done
t=$(printf "%s" "$all_tool" | median)
p=$(printf "%s" "$all_py" | median)
awk -v t="$t" -v p="$p" -v s="$steps" \
  'BEGIN {printf "median %16.1f %16.1f %8.3f  (python/tool; goal >= 0.95)\n", s / t, s / p, t / p}'
