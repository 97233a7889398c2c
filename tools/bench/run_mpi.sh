#!/usr/bin/env bash
# Builds the multi-rank benchmarks optimized and runs them under mpirun:
# the communicator against bare MPI (2 and 4 ranks) and the data-parallel
# step (2 ranks), and a model split into 2 and 4 pipeline stages (the bubble
# against (p-1)/(m+p-1), tools/bench/pipeline_bench.cc). Figures go to stdout.
#   bash tools/bench/run_mpi.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel build --config=opt //tools/bench:comm_bench //tools/bench:dp_step_bench \
  //tools/bench:pipeline_bench
mpirun=(mpirun --oversubscribe)
if [ "$(id -u)" = 0 ]; then mpirun+=(--allow-run-as-root); fi
for np in 2 4; do
  echo "== comm_bench, $np ranks"
  "${mpirun[@]}" -np "$np" bazel-bin/tools/bench/comm_bench
done
echo "== dp_step_bench, 2 ranks"
"${mpirun[@]}" -np 2 bazel-bin/tools/bench/dp_step_bench
for np in 2 4; do
  echo "== pipeline_bench, $np stages"
  "${mpirun[@]}" -np "$np" bazel-bin/tools/bench/pipeline_bench --layers $((8 / np))
done
