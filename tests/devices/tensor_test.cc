#include "devices/tensor.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "devices/context.h"
#include "devices/device.h"
#include "devices/half.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ContextTest, ParsesAndPrints) {
  EXPECT_EQ(ParseContext("cpu").value(), Context::CPU(0));
  EXPECT_EQ(ParseContext("cpu(3)").value(), Context::CPU(3));
  Context g = ParseContext("gpu(1)@rank2").value();
  EXPECT_EQ(g.type, DeviceType::kGPU);
  EXPECT_EQ(g.id, 1);
  EXPECT_EQ(g.rank, 2);
  EXPECT_EQ(g.ToString(), "gpu(1)@rank2");
  EXPECT_THAT(ParseContext("tpu(0)").status().message(), HasSubstr("unknown device type 'tpu'"));
  EXPECT_THAT(ParseContext("cpu(-1)").status().message(), HasSubstr("non-negative"));
  EXPECT_THAT(ParseContext("cpu(1").status().message(), HasSubstr("missing ')'"));
}

TEST(DeviceTest, MissingDevicesAreErrors) {
  EXPECT_THAT(GetDevice(Context::GPU(0)).status().message(), HasSubstr("gpu(0) does not exist"));
  EXPECT_THAT(GetDevice(Context::CPU(1000)).status().message(),
              HasSubstr("cpu(1000) does not exist"));
  Context remote = Context::CPU(0);
  remote.rank = 3;
  EXPECT_THAT(GetDevice(remote).status().message(), HasSubstr("another MPI rank"));
  EXPECT_TRUE(GetDevice(Context::CPU(2)).ok());
}

TEST(AllocatorTest, CountsBytesAndPeakPerDevice) {
  Device* d = GetDevice(Context::CPU(5)).value();
  size_t before = d->allocator().bytes_in_use();
  d->allocator().ResetPeak();
  {
    Tensor a = Tensor::Empty(Shape{10, 10}, DType::kFloat64, Context::CPU(5)).value();
    EXPECT_EQ(d->allocator().bytes_in_use(), before + 800);
    Tensor b = Tensor::Empty(Shape{4}, DType::kFloat16, Context::CPU(5)).value();
    EXPECT_EQ(d->allocator().bytes_in_use(), before + 808);
  }
  EXPECT_EQ(d->allocator().bytes_in_use(), before);
  EXPECT_EQ(d->allocator().peak_bytes(), before + 808);
  // Another device's accounting is untouched.
  Device* other = GetDevice(Context::CPU(6)).value();
  EXPECT_EQ(other->allocator().peak_bytes(), 0u);
}

TEST(AllocatorTest, LimitGivesAClearError) {
  Device* d = GetDevice(Context::CPU(7)).value();
  d->allocator().set_limit(1000);
  auto t = Tensor::Empty(Shape{1000}, DType::kFloat32, Context::CPU(7));
  d->allocator().set_limit(0);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(t.status().message(), HasSubstr("out of memory on cpu(7)"));
}

TEST(TensorTest, ViewsAndSlicesShareStorage) {
  Tensor t = Tensor::FromVector(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor v = t.View(Shape{6}).value();
  EXPECT_TRUE(v.SharesStorageWith(t));
  Tensor row = t.Slice(1, 3).value();
  EXPECT_EQ(row.shape(), (Shape{2, 2}));
  EXPECT_THAT(row.ToDoubles(), ElementsAre(3, 4, 5, 6));
  row.Fill(0);
  EXPECT_THAT(t.ToDoubles(), ElementsAre(1, 2, 0, 0, 0, 0));
  EXPECT_THAT(t.View(Shape{7}).status().message(), HasSubstr("needs 28 bytes"));
  EXPECT_THAT(t.Slice(2, 4).status().message(), HasSubstr("out of range"));
  EXPECT_THAT(Tensor::Empty(Shape::UnknownDims(2), DType::kFloat32).status().message(),
              HasSubstr("unknown shape"));
}

TEST(TensorTest, CopyConvertsDTypes) {
  Tensor a = Tensor::FromVector(Shape{4}, {1.5, -2, 65504, 0.1}, DType::kFloat64);
  Tensor h = CopyToNew(a, Context::CPU(1), DType::kFloat16).value();
  EXPECT_EQ(h.ctx(), Context::CPU(1));
  std::vector<double> back = h.ToDoubles();
  EXPECT_DOUBLE_EQ(back[0], 1.5);
  EXPECT_DOUBLE_EQ(back[1], -2);
  EXPECT_DOUBLE_EQ(back[2], 65504);
  EXPECT_NEAR(back[3], 0.1, 1e-4);
  Tensor i = CopyToNew(a, Context::CPU(0), DType::kInt32).value();
  EXPECT_THAT(i.ToDoubles(), ElementsAre(1, -2, 65504, 0));
  Tensor small = Tensor::Zeros(Shape{3}, DType::kFloat32).value();
  EXPECT_THAT(CopyTensor(a, small).message(), HasSubstr("sizes differ"));
}

TEST(HalfTest, RoundTripsAndRounds) {
  for (float f : {0.0f, 1.0f, -1.0f, 0.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f}) {
    EXPECT_EQ(HalfToFloat(FloatToHalf(f)), f) << f;
  }
  EXPECT_EQ(FloatToHalf(1e6f), 0x7c00);  // overflow to infinity
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(std::nanf("")))));
  EXPECT_EQ(BFloat16ToFloat(FloatToBFloat16(1.0f)), 1.0f);
  EXPECT_EQ(BFloat16ToFloat(FloatToBFloat16(3.0f)), 3.0f);
}

}  // namespace
}  // namespace symx

namespace symx {
namespace {

TEST(TensorTest, ConversionsKeepIntegersAndClampFloats) {
  Tensor big = Tensor::FromVector(Shape{1}, {0}, DType::kInt64);
  big.data<int64_t>()[0] = (int64_t{1} << 53) + 1;
  Tensor u = CopyToNew(big, Context::CPU(0), DType::kUint64).value();
  EXPECT_EQ(u.data<uint64_t>()[0], (uint64_t{1} << 53) + 1);
  Tensor f = Tensor::FromVector(Shape{3}, {std::nan(""), 1e20, -1e20}, DType::kFloat64);
  Tensor i = CopyToNew(f, Context::CPU(0), DType::kInt32).value();
  EXPECT_EQ(i.data<int32_t>()[0], 0);
  EXPECT_EQ(i.data<int32_t>()[1], std::numeric_limits<int32_t>::max());
  EXPECT_EQ(i.data<int32_t>()[2], std::numeric_limits<int32_t>::min());
}

TEST(TensorTest, OverflowingShapesAreRejected) {
  EXPECT_THAT(Tensor::Empty(Shape{int64_t{1} << 62}, DType::kFloat32).status().message(),
              HasSubstr("too large"));
  EXPECT_TRUE(Tensor::Empty(Shape{int64_t{1} << 62, 0}, DType::kFloat32).ok());
  Device* d = GetDevice(Context::CPU(0)).value();
  EXPECT_FALSE(d->allocator().Allocate(SIZE_MAX - 10).ok());
}

}  // namespace
}  // namespace symx
