// The CUDA device: what a machine without a GPU says, and on a GPU the
// memory, copies and caching.
#include "devices/cuda/cuda_device.h"

#include <cstdlib>
#include <vector>

#include "devices/cuda/pinned_staging.h"
#include "devices/device.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "gtest/gtest.h"
#include "tests/cuda/gpu_test_util.h"

namespace symx {
namespace {

using ::testing::HasSubstr;

TEST(CudaDeviceTest, AMissingGpuIsAnErrorNamingIt) {
  const int n = cuda::NumLogicalGpus();
  absl::StatusOr<Device*> d = GetDevice(Context::GPU(n));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(d.status().message(), HasSubstr("gpu(" + std::to_string(n) + ") does not exist"));
  if (n == 0) {
    EXPECT_THAT(d.status().message(), HasSubstr("no usable CUDA device"));
  } else {
    EXPECT_THAT(d.status().message(), HasSubstr("offers " + std::to_string(n) + " GPU"));
  }
  // A tensor asked for there says the same.
  auto t = Tensor::Empty(Shape({2}), DType::kFloat32, Context::GPU(n));
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("gpu(" + std::to_string(n) + ")"));
}

TEST(CudaDeviceTest, RoundTripsEveryDTypeThroughTheDevice) {
  SYMX_REQUIRE_GPUS(1);
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
                   DType::kInt32, DType::kInt64, DType::kUint8}) {
    Tensor host = Tensor::FromVector(Shape({2, 3}), {0, 1, 2, 3, 4, 5}, dt);
    Tensor gpu = ValueOrThrow(CopyToNew(host, Context::GPU(0), dt));
    EXPECT_FALSE(gpu.ctx() != Context::GPU(0));
    EXPECT_EQ(gpu.ToDoubles(), host.ToDoubles()) << DTypeName(dt);
    Tensor converted = ValueOrThrow(CopyToNew(gpu, Context::CPU(0), DType::kFloat64));
    EXPECT_EQ(converted.ToDoubles(), host.ToDoubles()) << DTypeName(dt);
  }
  Tensor z = ValueOrThrow(Tensor::Zeros(Shape({1000}), DType::kFloat32, Context::GPU(0)));
  EXPECT_EQ(z.ToDoubles(), std::vector<double>(1000, 0.0));
  z.Fill(2.5);
  EXPECT_EQ(z.ToDoubles(), std::vector<double>(1000, 2.5));
}

TEST(CudaDeviceTest, ReleasedMemoryIsReusedAndAccounted) {
  SYMX_REQUIRE_GPUS(1);
  Device* d = ValueOrThrow(GetDevice(Context::GPU(0)));
  auto& alloc = static_cast<cuda::CudaDevice*>(d)->caching_allocator();
  const size_t before = alloc.bytes_in_use();
  const void* first = nullptr;
  {
    Tensor t = ValueOrThrow(Tensor::Empty(Shape({1 << 20}), DType::kFloat32, Context::GPU(0)));
    first = t.read_raw_data();
    EXPECT_EQ(alloc.bytes_in_use(), before + (4u << 20));
  }
  EXPECT_EQ(alloc.bytes_in_use(), before);
  Tensor again = ValueOrThrow(Tensor::Empty(Shape({1 << 20}), DType::kFloat32, Context::GPU(0)));
  EXPECT_EQ(again.read_raw_data(), first);
}

TEST(CudaDeviceTest, OutOfMemoryNamesTheDeviceAndTheBytes) {
  SYMX_REQUIRE_GPUS(1);
  // 2^50 bytes: beyond any GPU; the retry after emptying the cache fails too.
  auto t = Tensor::Empty(Shape({int64_t{1} << 48}), DType::kFloat32, Context::GPU(0));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(t.status().message(), HasSubstr("gpu(0)"));
  EXPECT_THAT(t.status().message(), HasSubstr("1125899906842624 bytes"));
  // The device still works.
  Tensor ok = Tensor::FromVector(Shape({2}), {1, 2}, DType::kFloat32, Context::GPU(0));
  EXPECT_EQ(ok.ToDoubles(), (std::vector<double>{1, 2}));
}

// Transfers of pageable memory above PinnedStaging::kMinStagedBytes go
// through the two pinned chunks: sizes of one chunk, several and a ragged
// tail must arrive whole, both ways, and equal the unstaged path's bytes.
TEST(CudaDeviceTest, LargeHostTransfersArriveWholeThroughPinnedStaging) {
  SYMX_REQUIRE_GPUS(1);
  Device* gpu = ValueOrThrow(GetDevice(Context::GPU(0)));
  for (size_t bytes : {cuda::PinnedStaging::kMinStagedBytes, cuda::PinnedStaging::kChunkBytes,
                       3 * cuda::PinnedStaging::kChunkBytes + 4093}) {
    std::vector<unsigned char> src(bytes), back(bytes, 0);
    for (size_t i = 0; i < bytes; ++i) src[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
    Tensor t = ValueOrThrow(
        Tensor::Empty(Shape{static_cast<int64_t>(bytes)}, DType::kUint8, Context::GPU(0)));
    void* dev = t.raw_data();
    ASSERT_TRUE(gpu->CopyFromHost(src.data(), dev, bytes).ok());
    ASSERT_TRUE(gpu->CopyToHost(dev, back.data(), bytes).ok());
    EXPECT_TRUE(src == back) << bytes << " bytes";
  }
}

TEST(CudaDeviceTest, CopiesBetweenTwoGpus) {
  SYMX_REQUIRE_GPUS(2);
  Tensor a = Tensor::FromVector(Shape({3}), {1, 2, 3}, DType::kFloat32, Context::GPU(0));
  Tensor b = ValueOrThrow(CopyToNew(a, Context::GPU(1), DType::kFloat32));
  EXPECT_EQ(b.ToDoubles(), (std::vector<double>{1, 2, 3}));
  Tensor c = ValueOrThrow(CopyToNew(b, Context::GPU(0), DType::kFloat16));
  EXPECT_EQ(c.ToDoubles(), (std::vector<double>{1, 2, 3}));
}

}  // namespace
}  // namespace symx
