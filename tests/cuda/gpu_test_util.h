// GPU tests skip, saying why, where this machine has no usable CUDA device.
#ifndef SYMX_TESTS_CUDA_GPU_TEST_UTIL_H_
#define SYMX_TESTS_CUDA_GPU_TEST_UTIL_H_

#include "devices/cuda/cuda_device.h"
#include "gtest/gtest.h"

#define SYMX_REQUIRE_GPUS(n)                                                              \
  do {                                                                                    \
    if (::symx::cuda::NumLogicalGpus() < (n)) {                                           \
      GTEST_SKIP() << "needs " << (n) << " GPU(s); this machine offers "                  \
                   << ::symx::cuda::NumLogicalGpus() << " (SYMX_LOGICAL_GPUS maps more)"; \
    }                                                                                     \
  } while (0)

#endif  // SYMX_TESTS_CUDA_GPU_TEST_UTIL_H_
