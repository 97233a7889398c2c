// Tests of the transfer family (graph/ops/transfer.cc): the CPU kernel of
// _CrossDeviceCopy, which the executor inserts where a value crosses devices
// (tests/executor/model_parallel_test.cc checks where it goes). _send and
// _recv are the communicator's kernels, tested with it (tests/distributed/).
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "devices/kernel.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/ops/kernel_calls.h"

namespace symx {
namespace {

using kernel_calls::Empty;
using kernel_calls::RunKernel;
using ::testing::HasSubstr;

// The copy moves bytes: every bit pattern survives, NaN payloads and the
// extremes of integer types included.
TEST(TransferKernel, CrossDeviceCopyKeepsEveryBit) {
  const uint32_t f32_bits[] = {0x7fc00001u, 0xff800000u, 0x00000001u, 0x80000000u, 0x3f800000u};
  Tensor f32 = Empty(Shape{5}, DType::kFloat32);
  std::memcpy(f32.data<float>(), f32_bits, sizeof(f32_bits));
  Tensor f32_out = Empty(Shape{5}, DType::kFloat32);
  ASSERT_TRUE(RunKernel("_CrossDeviceCopy", {}, {f32}, {f32_out}).ok());
  EXPECT_EQ(std::memcmp(f32_out.data<float>(), f32_bits, sizeof(f32_bits)), 0);

  const int64_t i64[] = {std::numeric_limits<int64_t>::min(), -1, 0,
                         std::numeric_limits<int64_t>::max()};
  Tensor a = Empty(Shape{2, 2}, DType::kInt64);
  std::memcpy(a.data<int64_t>(), i64, sizeof(i64));
  Tensor b = Empty(Shape{2, 2}, DType::kInt64);
  ASSERT_TRUE(RunKernel("_CrossDeviceCopy", {}, {a}, {b}).ok());
  EXPECT_EQ(std::memcmp(b.data<int64_t>(), i64, sizeof(i64)), 0);

  const uint16_t f16_bits[] = {0x7e01, 0x0001, 0xfbff, 0x3c00};
  Tensor h = Empty(Shape{4}, DType::kFloat16);
  std::memcpy(h.raw_data(), f16_bits, sizeof(f16_bits));
  Tensor h_out = Empty(Shape{4}, DType::kFloat16);
  ASSERT_TRUE(RunKernel("_CrossDeviceCopy", {}, {h}, {h_out}).ok());
  EXPECT_EQ(std::memcmp(h_out.raw_data(), f16_bits, sizeof(f16_bits)), 0);
}

TEST(TransferKernel, CrossDeviceCopyOfMismatchedSizesIsAnError) {
  absl::Status s = RunKernel("_CrossDeviceCopy", {}, {Empty(Shape{3})}, {Empty(Shape{4})});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("float32 [3] on cpu(0)"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("float32 [4] on cpu(0)"));
}

}  // namespace
}  // namespace symx
