// Tensors on a device whose memory host code must not touch directly: every
// creation, fill, read and copy must go through the device's byte-moving
// methods. A fake device (host memory behind the interface, under the
// cpu_shared context type, which nothing else in the tests uses) stands in
// for a GPU, so these paths are exercised on machines without one.
#include <atomic>
#include <cstring>
#include <limits>

#include "devices/device.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using ::testing::HasSubstr;

std::atomic<int> to_host{0}, from_host{0}, device_copies{0}, memsets{0};
std::atomic<bool> fail_reads{false};

class FakeDeviceMemory : public Device {
 public:
  explicit FakeDeviceMemory(Context ctx) : Device(ctx) {}
  int num_threads() const override { return 1; }
  bool host_memory() const override { return false; }
  absl::Status CopyToHost(const void* src, void* dst, size_t bytes) override {
    if (fail_reads) return absl::InternalError(ctx().ToString() + ": the device failed");
    ++to_host;
    if (bytes > 0) std::memcpy(dst, src, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyFromHost(const void* src, void* dst, size_t bytes) override {
    ++from_host;
    if (bytes > 0) std::memcpy(dst, src, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyFromDevice(Device& from, const void* src, void* dst, size_t bytes) override {
    if (from.host_memory()) return CopyFromHost(src, dst, bytes);
    ++device_copies;
    if (bytes > 0) std::memcpy(dst, src, bytes);
    return absl::OkStatus();
  }
  absl::Status Memset(void* dst, int byte, size_t bytes) override {
    ++memsets;
    if (bytes > 0) std::memset(dst, byte, bytes);
    return absl::OkStatus();
  }
};

const bool registered = RegisterDeviceFactory(
    DeviceType::kCPUShared,
    [](const Context& ctx) -> absl::StatusOr<std::unique_ptr<Device>> {
      return std::unique_ptr<Device>(new FakeDeviceMemory(ctx));
    });

Context Dev(int id) { return Context{DeviceType::kCPUShared, id, -1}; }

class DeviceMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registered);
    to_host = from_host = device_copies = memsets = 0;
    fail_reads = false;
  }
};

TEST_F(DeviceMemoryTest, ZerosFillsThroughTheDevice) {
  Tensor t = ValueOrThrow(Tensor::Zeros(Shape({2, 3}), DType::kFloat32, Dev(0)));
  EXPECT_EQ(memsets, 1);
  EXPECT_EQ(t.ToDoubles(), std::vector<double>(6, 0.0));
  EXPECT_EQ(to_host, 1);
}

TEST_F(DeviceMemoryTest, FromVectorFillAndToDoublesStageThroughTheHost) {
  Tensor t = Tensor::FromVector(Shape({3}), {1.5, -2, 3}, DType::kFloat16, Dev(0));
  EXPECT_EQ(from_host, 1);
  EXPECT_EQ(t.ToDoubles(), (std::vector<double>{1.5, -2, 3}));
  t.Fill(7);
  EXPECT_EQ(from_host, 2);
  EXPECT_EQ(t.ToDoubles(), (std::vector<double>{7, 7, 7}));
}

TEST_F(DeviceMemoryTest, CopiesBetweenHostAndDeviceInEveryDirection) {
  Tensor host = Tensor::FromVector(Shape({4}), {1, 2, 3, 4});
  Tensor a = ValueOrThrow(Tensor::Empty(Shape({4}), DType::kFloat32, Dev(0)));
  Tensor b = ValueOrThrow(Tensor::Empty(Shape({2, 2}), DType::kFloat32, Dev(1)));
  Tensor back = ValueOrThrow(Tensor::Empty(Shape({4}), DType::kFloat32));
  ASSERT_TRUE(CopyTensor(host, a).ok());
  EXPECT_EQ(from_host, 1);
  ASSERT_TRUE(CopyTensor(a, b).ok());
  EXPECT_EQ(device_copies, 1);
  ASSERT_TRUE(CopyTensor(b, back).ok());
  EXPECT_EQ(to_host, 1);
  EXPECT_EQ(back.ToDoubles(), (std::vector<double>{1, 2, 3, 4}));
}

TEST_F(DeviceMemoryTest, ADTypeChangeAcrossTheBoundaryConvertsOnTheHost) {
  Tensor host = Tensor::FromVector(Shape({3}), {1.25, -7, 1e6}, DType::kFloat64);
  Tensor dev = ValueOrThrow(Tensor::Empty(Shape({3}), DType::kInt32, Dev(0)));
  ASSERT_TRUE(CopyTensor(host, dev).ok());
  EXPECT_EQ(dev.ToDoubles(), (std::vector<double>{1, -7, 1e6}));
  Tensor half = ValueOrThrow(CopyToNew(dev, Dev(1), DType::kFloat16));
  EXPECT_EQ(half.ToDoubles(),
            (std::vector<double>{1, -7, std::numeric_limits<double>::infinity()}));  // overflow
}

TEST_F(DeviceMemoryTest, ADeviceFailureNamesBothTensorsAndTheDevice) {
  Tensor dev = Tensor::FromVector(Shape({2}), {1, 2}, DType::kFloat32, Dev(0));
  Tensor host = ValueOrThrow(Tensor::Empty(Shape({2}), DType::kFloat32));
  fail_reads = true;
  absl::Status s = CopyTensor(dev, host);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("float32 [2] on cpu_shared(0)"));
  EXPECT_THAT(s.message(), HasSubstr("into float32 [2] on cpu(0)"));
  EXPECT_THAT(s.message(), HasSubstr("the device failed"));
  EXPECT_THROW(dev.ToDoubles(), Error);
}

TEST_F(DeviceMemoryTest, EmptyTensorsMoveNothing) {
  Tensor a = ValueOrThrow(Tensor::Zeros(Shape({0, 3}), DType::kFloat32, Dev(0)));
  Tensor b = ValueOrThrow(Tensor::Empty(Shape({0}), DType::kFloat32));
  EXPECT_TRUE(CopyTensor(a, b).ok());
  EXPECT_TRUE(a.ToDoubles().empty());
}

}  // namespace
}  // namespace symx
