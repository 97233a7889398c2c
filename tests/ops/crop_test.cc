// Tests of the crop family (graph/ops/crop.cc): Crop and its backward, against
// plain loops written from MXNet 1.9.1's semantics (checked against a live
// MXNet); gradients by finite differences.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

const std::vector<DType> kWithHalf = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

std::string Tuple2(int64_t a, int64_t b) {
  return "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
}

// ------------------------------------------------------------------ Crop

struct CropSpec {
  std::string name;
  Shape data;
  std::vector<int64_t> hw;  // h_w, or crop_like's (h, w) with like = true
  bool like = false;
  std::vector<int64_t> offset = {0, 0};
  bool center = false;
  bool pass_offset = true;
};

OpCase CropCase(const CropSpec& sp) {
  OpCase c;
  c.name = "Crop " + sp.name;
  c.op = "Crop";
  c.attrs = {{"num_args", sp.like ? "2" : "1"}};
  if (!sp.like) c.attrs["h_w"] = Tuple2(sp.hw[0], sp.hw[1]);
  if (sp.pass_offset) c.attrs["offset"] = Tuple2(sp.offset[0], sp.offset[1]);
  if (sp.center) c.attrs["center_crop"] = "True";
  c.shapes = {sp.data};
  if (sp.like) c.shapes.push_back(Shape{1, 2, sp.hw[0], sp.hw[1]});
  c.dtypes = kWithHalf;
  const CropSpec s = sp;
  c.reference = [s](const std::vector<Values>& in, const std::vector<Shape>&) {
    const int64_t N = s.data[0], C = s.data[1], H = s.data[2], W = s.data[3];
    const int64_t h = s.hw[0], w = s.hw[1];
    // MXNet's center crop rounds the offset down.
    const int64_t oy = s.center ? (H - h) / 2 : s.offset[0];
    const int64_t ox = s.center ? (W - w) / 2 : s.offset[1];
    Values y;
    for (int64_t p = 0; p < N * C; ++p) {
      for (int64_t r = 0; r < h; ++r) {
        for (int64_t q = 0; q < w; ++q) y.push_back(in[0][(p * H + oy + r) * W + ox + q]);
      }
    }
    return std::vector<Values>{y};
  };
  return c;
}

TEST(CropConformance, Crop) {
  const Shape d{2, 2, 7, 8};
  std::vector<CropSpec> specs = {
      {"h_w at origin", d, {4, 4}},
      {"h_w offset", d, {4, 4}, false, {2, 3}},
      {"h_w offset at the edge", d, {4, 4}, false, {3, 4}},
      {"full size", d, {7, 8}},
      {"center even", d, {4, 4}, false, {0, 0}, true},
      {"center odd remainder", d, {4, 5}, false, {0, 0}, true},
      {"center ignores offset", d, {3, 3}, false, {2, 3}, true},
      {"crop_like", d, {3, 5}, true},
      {"crop_like offset", d, {3, 5}, true, {1, 2}},
      {"crop_like center", d, {4, 4}, true, {0, 0}, true},
      {"default offset", d, {2, 6}, false, {0, 0}, false, false},
      {"1x1", Shape{1, 3, 5, 5}, {1, 1}, false, {4, 2}},
  };
  for (const CropSpec& s : specs) CheckOp(CropCase(s));
  // Empty batch.
  OpCase e = CropCase({"empty batch", Shape{0, 2, 4, 4}, {2, 2}, false, {1, 1}});
  CheckOp(e);
}

// Crop copies every dtype: an int32 crop_like run straight through the kernel.
TEST(CropConformance, CropKernelIntegers) {
  NodePtr node =
      MakeOpNode("Crop", "c", {{"num_args", "1"}, {"h_w", "(2, 2)"}, {"center_crop", "True"}},
                 {{MakeVariableNode("x"), 0, 0}})
          .value();
  const KernelInfo* k = KernelRegistry::Find("Crop", DeviceType::kCPU);
  ASSERT_NE(k, nullptr);
  KernelContext ctx;
  ctx.attrs = &node->attrs;
  ctx.device = GetDevice(Context::CPU(0)).value();
  Values v(16);
  for (int i = 0; i < 16; ++i) v[i] = i;
  ctx.inputs = {Tensor::FromVector(Shape{1, 1, 4, 4}, v, DType::kInt32)};
  ctx.outputs = {Tensor::Empty(Shape{1, 1, 2, 2}, DType::kInt32).value()};
  ctx.req = {OpReq::kWrite};
  ASSERT_TRUE(k->fn(ctx).ok());
  EXPECT_EQ(ctx.outputs[0].ToDoubles(), (Values{5, 6, 9, 10}));
}

}  // namespace
}  // namespace testing

}  // namespace symx
