# The GPU test binaries (sourced by tools/gpu/*.sh and tools/test_all.sh).
# They are tagged manual, so `//...` patterns never include them: list them
# here, once.
SYMX_GPU_TESTS=(
  //tests/cuda:cuda_device_test
  //tests/cuda:gpu_executor_test
  //tests/cuda:gpu_kernel_coverage_test
  //tests/cuda:kernel_util_test
  //tests/cuda:nccl_communicator_test
  //tests/cuda:gpu_training_test
  //tests/cuda:gpu_cross_rank_test
  //tests/ops:family_table_test
)
# The op conformance suites: on a machine with a GPU each also checks every
# op of its tables on gpu(0) against the CPU, through the host fallback
# (devices/host_fallback.h) for ops without a GPU kernel.
SYMX_GPU_CONFORMANCE=(
  //tests/ops:activation_conformance_test
  //tests/ops:compare_conformance_test
  //tests/ops:conv_conformance_test
  //tests/ops:dense_conformance_test
  //tests/ops:detection_conformance_test
  //tests/ops:elemwise_conformance_test
  //tests/ops:indexing_conformance_test
  //tests/ops:loss_conformance_test
  //tests/ops:math_conformance_test
  //tests/ops:nn_extra_conformance_test
  //tests/ops:nn_misc_conformance_test
  //tests/ops:norm_conformance_test
  //tests/ops:pooling_conformance_test
  //tests/ops:reduce_softmax_conformance_test
  //tests/ops:rnn_conformance_test
  //tests/ops:roi_conformance_test
  //tests/ops:shape_conformance_test
  //tests/ops:spatial_conformance_test
  //tests/ops:tensor_conformance_test
  //tests/numerics:ulp_sample_test
)
# Executor suites written against "device n" (tests/executor/
# executor_test_util.h's TestDevice): run.sh runs them again on gpu(n) with
# SYMX_TEST_DEVICE=gpu and SYMX_LOGICAL_GPUS=8.
SYMX_GPU_RETARGETED=(
  //tests/executor:bind_test
  //tests/executor:model_parallel_test
  //tests/executor:shared_exec_test
)
# Programs tools/gpu/bench.sh runs (packed apart from the tests).
SYMX_GPU_TOOLS=(
  //tools/symx:symx
  //tools/gpu:h2d_bench
  //tools/ulp:ulp_sweep
)
# Data files those binaries read, relative to the repository root.
SYMX_GPU_DATA=(
  tests/cuda/gpu_kernels_missing.txt
  tools/examples/legacy_mlp-symbol.json
  tools/gpu/models/gemm8192-symbol.json
  tools/gpu/models/mlp_block-symbol.json
  tools/gpu/models/resnet50_v1-symbol.json
)
