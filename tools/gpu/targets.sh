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
  //tests/cuda:gpu_sync_batch_norm_test
  //tests/ops:family_table_test
)
# The op families' test suites (tests/ops/F_test.cc): on a machine with a GPU
# each also checks every op of its conformance tables on gpu(0) against the
# CPU, through the host fallback (devices/host_fallback.h) for ops without a
# GPU kernel. (fused_conv_test is CPU only: the fusion is a CPU pass.)
SYMX_GPU_CONFORMANCE=(
  //tests/ops:activation_test
  //tests/ops:attention_test
  //tests/ops:amp_test
  //tests/ops:binary_test
  //tests/ops:compare_test
  //tests/ops:control_flow_test
  //tests/ops:convolution_test
  //tests/ops:crop_test
  //tests/ops:ctc_test
  //tests/ops:dense_test
  //tests/ops:deformable_test
  //tests/ops:detection_test
  //tests/ops:dropout_test
  //tests/ops:elemwise_test
  //tests/ops:image_resize_test
  //tests/ops:image_test
  //tests/ops:image_random_test
  //tests/ops:indexing_test
  //tests/ops:init_test
  //tests/ops:layout_test
  //tests/ops:linalg_factor_test
  //tests/ops:linalg_test
  //tests/ops:loss_test
  //tests/ops:lrn_test
  //tests/ops:math_test
  //tests/ops:norm_test
  //tests/ops:optimizer_contrib_test
  //tests/ops:ordering_test
  //tests/ops:pooling_test
  //tests/ops:random_pdf_test
  //tests/ops:random_test
  //tests/ops:reduce_test
  //tests/ops:resample_test
  //tests/ops:rnn_test
  //tests/ops:roi_ps_test
  //tests/ops:roi_rotated_test
  //tests/ops:roi_test
  //tests/ops:sequence_test
  //tests/ops:scatter_test
  //tests/ops:shape_test
  //tests/ops:softmax_test
  //tests/ops:spatial_correlation_test
  //tests/ops:spatial_test
  //tests/ops:spectral_test
  //tests/ops:statistics_test
  //tests/ops:tensor_test
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
