#!/usr/bin/env bash
# Installs what is missing, then runs every test: the normal build, then the
# same suite under AddressSanitizer + UndefinedBehaviorSanitizer, then the
# multi-device and multi-rank tests that run as threads of one process (and
# the trainer, which uses them) under ThreadSanitizer; the Python front's
# pytest suite after the normal run (on a `pip install` of this checkout) and
# after the ASan run (the extension built with ASan; tools/python_tests.sh).
# Multi-rank tests under mpirun are part of //... (tests/distributed/mpirun.sh
# launches them). The CUDA build (--config=cuda; kernels to PTX only) of
# everything but the CPU tests is compiled so GPU code never rots, and the GPU tests run: on a machine without a GPU they
# check the missing-GPU errors and the GPU kernel list, and skip the rest
# saying why (tools/gpu/ runs them on a GPU machine).
# This is the README's test command and what CI runs (.ci/run). Extra
# arguments go to every `bazel test` run. Ends with one line
# "N passed, N failed" over all runs.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh || exit 1

passed=0
failed=0
status=0
# Each phase says how long it took, so a slow CI run shows where its time went.
start_all=$SECONDS
phase_start=$SECONDS
phase_done() {
  echo "symx test_all: $1 took $((SECONDS - phase_start)) s (total $((SECONDS - start_all)) s)"
  phase_start=$SECONDS
}
run_suite() {
  local log
  log="$(mktemp)"
  bazel test "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  passed=$((passed + $(grep -cE '^//.* PASSED in ' "$log")))
  failed=$((failed + $(grep -cE '^//.* (FAILED in|FAILED TO BUILD|NO STATUS|TIMEOUT in)' "$log")))
  rm -f "$log"
  if [ "$rc" != 0 ]; then status=$rc; fi
}

# The Python front's pytest suite (tools/python_tests.sh); its summary line
# reads "2 failed, 120 passed in 9.8s" (-q). Each run comes right after the
# bazel suite of the same configuration, whose objects the extension reuses.
run_python() {
  local log
  log="$(mktemp)"
  bash tools/python_tests.sh "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local summary
  summary="$(grep -E '^=* ?[0-9]+ (passed|failed|errors?)\b.*\bin [0-9.]+s' "$log" | tail -1 || true)"
  count() { echo "$summary" | grep -oE "[0-9]+ $1" | awk '{n += $1} END {print n + 0}'; }
  passed=$((passed + $(count passed)))
  failed=$((failed + $(count failed) + $(count 'errors?')))
  if [ "$rc" != 0 ]; then
    status=$rc
    if [ -z "$summary" ]; then failed=$((failed + 1)); fi  # the build or install failed
  fi
  rm -f "$log"
}

phase_done "setup"
run_suite //... "$@"
phase_done "bazel test //..."
run_python
phase_done "python tests"
source tools/gpu/targets.sh
# PTX only (no ptxas, about half of nvcc's time): this checks that all GPU
# code compiles; tools/gpu/pack.sh builds the machine code on a GPU machine.
# Everything but tests/ (whose code does not change with CUDA: their objects
# are the normal build's, and relinking a hundred test binaries against the
# CUDA kernels was 116 s of this phase's 292 s), plus the GPU tests, which do.
cuda=(--config=cuda --define=symx_cuda_ptx_only=1)
if ! bazel build "${cuda[@]}" -- //... -//tests/... "${SYMX_GPU_TESTS[@]}" "${SYMX_GPU_TOOLS[@]}"; then
  echo "FAILED: the CUDA build (bazel build --config=cuda //... but tests/, and the GPU tests)"
  failed=$((failed + 1))
  status=1
fi
phase_done "CUDA build"
run_suite "${cuda[@]}" "${SYMX_GPU_TESTS[@]}" "$@"
phase_done "GPU tests (--config=cuda)"
run_python --cuda
phase_done "python tests (CUDA build)"
# Only what the tests need: the benchmarks and hand-run tools built above are
# not rebuilt with the sanitizers.
run_suite --config=asan --build_tests_only //... "$@"
phase_done "bazel test --config=asan //..."
run_python --asan
phase_done "python tests (asan)"
# Trainer.LeNetLearnsToo is one device training a LeNet: nothing for TSan to
# find that the multi-device trainer tests do not exercise, and 100 s under it.
run_suite --config=tsan --test_filter=-Trainer.LeNetLearnsToo \
  //tests/executor:model_parallel_test //tests/executor:shared_exec_test \
  //tests/executor:device_memory_executor_test \
  //tests/train:trainer_test //tests/distributed:inprocess_communicator_test \
  //tests/distributed:cross_rank_test //tests/data_parallel:gradient_reducer_test \
  //tests/data_parallel:sync_batch_norm_test \
  //tests/train:parallel_trainer_test //tests/train:image_record_iter_test \
  //tests/train:pipeline_test //tests/distributed:sub_communicator_test "$@"
phase_done "bazel test --config=tsan (multi-device and multi-thread tests)"
echo "${passed} passed, ${failed} failed"
if [ "$status" = 0 ] && [ "$failed" != 0 ]; then status=1; fi
exit "$status"
