# The GPU test binaries (sourced by tools/gpu/*.sh and tools/test_all.sh).
# They are tagged manual, so `//...` patterns never include them: list them
# here, once.
SYMX_GPU_TESTS=(
  //tests/cuda:cuda_device_test
  //tests/cuda:gpu_executor_test
  //tests/cuda:gpu_kernel_coverage_test
  //tests/cuda:kernel_util_test
)
# The op conformance suites: on a machine with a GPU each also checks every
# op that has a GPU kernel on gpu(0).
SYMX_GPU_CONFORMANCE=(
  //tests/ops:activation_conformance_test
  //tests/ops:compare_conformance_test
  //tests/ops:conv_conformance_test
  //tests/ops:dense_conformance_test
  //tests/ops:elemwise_conformance_test
  //tests/ops:indexing_conformance_test
  //tests/ops:loss_conformance_test
  //tests/ops:math_conformance_test
  //tests/ops:nn_extra_conformance_test
  //tests/ops:nn_misc_conformance_test
  //tests/ops:norm_conformance_test
  //tests/ops:pooling_conformance_test
  //tests/ops:reduce_softmax_conformance_test
  //tests/ops:shape_conformance_test
  //tests/ops:tensor_conformance_test
)
