#!/usr/bin/env bash
# The main job: installs what is missing, builds symx optimized, then
#   1. trains the example LeNet data-parallel on 2 MPI ranks (mpirun; the
#      built-in synthetic digits, the global batch split across the ranks),
#      printing loss and accuracy per epoch and saving an MXNet checkpoint;
#   2. runs that checkpoint split across the ranks: ctx_group stage1 (the
#      convolutions) on rank 0, stage2 (the dense layers) on rank 1, tensors
#      crossing between the processes over MPI;
#   3. runs it again in one process and checks that every output and gradient
#      is bitwise the same (both with one intra-op thread per device);
#   4. installs the Python front (`pip install .` into a venv) and scores the
#      checkpoint from Python with `import symx as mx` (Module.load, score);
#   5. trains the example MLP split in two stages across the 2 ranks as a
#      pipeline (4 micro-batches per batch, 1F1B order), and again in one
#      process, and compares their loss, accuracy and parameters.
# Extra arguments go to `symx train` (e.g. --epochs 5, --data-dir MNIST_DIR).
# Output: ${SYMX_OUT:-/tmp/symx_main_job}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bazel build --config=opt //tools/symx
symx="$PWD/bazel-bin/tools/symx/symx"
out="${SYMX_OUT:-/tmp/symx_main_job}"
rm -rf "$out"
mkdir -p "$out"
# As root (the CI machines), Open MPI wants to be told; 2 ranks may exceed
# the cores it counts.
mpirun=(mpirun --oversubscribe -np 2)
if [ "$(id -u)" = 0 ]; then mpirun+=(--allow-run-as-root); fi

echo "== 1. data-parallel training of LeNet on 2 ranks"
"${mpirun[@]}" "$symx" train --model lenet --prefix "$out/lenet" "$@"
params=$(ls "$out"/lenet-*.params | tail -1)

echo
echo "== 2. $(basename "$params") split across the ranks: stage1 on rank 0, stage2 on rank 1"
run=("$out/lenet-symbol.json" --params "$params" --shape data=8,1,28,28 --shape softmax_label=8
     --train --seed 1)
SYMX_CPU_THREADS=1 "${mpirun[@]}" -x SYMX_CPU_THREADS "$symx" run "${run[@]}" \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1' --out-dir "$out/split"

echo
echo "== 3. the same in one process, compared"
SYMX_CPU_THREADS=1 "$symx" run "${run[@]}" --out-dir "$out/single" >/dev/null
n=0
for f in "$out"/single/*.npy; do
  if ! cmp -s "$f" "$out/split/$(basename "$f")"; then
    echo "DIFFERENT: $(basename "$f") split across ranks differs from one process" >&2
    exit 1
  fi
  n=$((n + 1))
done
echo "all $n outputs and gradients are bitwise those of one process"

echo
echo "== 4. the checkpoint from Python: import symx as mx; Module.load(...).score(...)"
venv="$out/venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
# The CPU build: the ranks above are CPU processes (SYMX_CUDA=0 skips the
# CUDA kernels a machine with CUDA installed would otherwise compile).
SYMX_CUDA=0 "$venv/bin/pip" install --quiet --no-build-isolation --no-deps .
epoch=$(basename "$params" .params)
# The test set is `symx train`'s synthetic one: same seed; MNIST files are not read here.
seed=42
data_dir=""
prev=""
for a in "$@"; do
  if [ "$prev" = --seed ]; then seed="$a"; fi
  if [ "$prev" = --data-dir ]; then data_dir="$a"; fi
  case "$a" in --seed=*) seed="${a#--seed=}" ;; --data-dir=*) data_dir="${a#--data-dir=}" ;; esac
  prev="$a"
done
if [ -n "$data_dir" ]; then
  echo "step 4 scores the synthetic digits; trained on $data_dir, so it is not run"
else
  "$venv/bin/python" tools/examples/score_checkpoint.py "$out/lenet" "$((10#${epoch##*-}))" \
    --seed "$seed"
fi

echo
echo "== 5. a pipeline: the MLP split in two stages across the ranks, 4 micro-batches, 1F1B"
pipe=(train --model mlp --epochs 2 --batch-size 100 --seed 7)
"${mpirun[@]}" "$symx" "${pipe[@]}" --prefix "$out/pipe" --microbatches 4 --schedule 1f1b \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1' | tee "$out/pipe.log"
"$symx" "${pipe[@]}" --prefix "$out/whole" > "$out/whole.log"
"$venv/bin/python" - "$out" <<'PY'
import re, sys
import numpy as np
import symx as mx
out = sys.argv[1]
def epochs(name):
    return [tuple(map(float, m)) for m in re.findall(
        r"loss ([0-9.]+)  train accuracy ([0-9.]+)  test accuracy ([0-9.]+)",
        open("%s/%s.log" % (out, name)).read())]
pipe, whole = epochs("pipe"), epochs("whole")
assert pipe and len(pipe) == len(whole), (pipe, whole)
for e, (p, w) in enumerate(zip(pipe, whole), 1):
    print("epoch %d: pipelined loss %.4f test accuracy %.4f | one process %.4f %.4f"
          % (e, p[0], p[2], w[0], w[2]))
    assert abs(p[0] - w[0]) < 1e-3 and abs(p[2] - w[2]) < 1e-3, "the pipeline trained differently"
a = mx.nd.load("%s/pipe-%04d.params" % (out, len(pipe)))
b = mx.nd.load("%s/whole-%04d.params" % (out, len(pipe)))
assert sorted(a) == sorted(b)
worst = max(float(np.abs(a[k].asnumpy() - b[k].asnumpy()).max()) for k in a)
print("the pipeline's %d parameter arrays are within %.1e of one process's (the gradient is"
      " summed per micro-batch, then over them: float32 rounding)" % (len(a), worst))
assert worst < 1e-3
PY
echo "checkpoint and outputs in $out"
