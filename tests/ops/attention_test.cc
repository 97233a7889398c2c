// Tests of the attention family (graph/ops/attention.cc): the interleaved
// multi-head attention products against plain loops over MXNet 1.9.1's
// layouts (checked against a live MXNet), on every device present, gradients
// by finite differences; _contrib_div_sqrt_dim in every dtype MXNet takes;
// shape and parameter errors; the oneDNN path against the Eigen one.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/tensor.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

const std::vector<DType> kWithHalf = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

// MXNet's scale: 1 / sqrt(head width) computed in float32.
double Scale(int64_t d) { return static_cast<float>(1.0 / std::sqrt(static_cast<float>(d))); }

// Element (l, b, h, part, d) of an interleaved (L, B, H * parts * D) input.
int64_t Inter(int64_t l, int64_t b, int64_t h, int64_t part, int64_t d, int64_t B, int64_t H,
              int64_t parts, int64_t D) {
  return ((l * B + b) * H + h) * parts * D + part * D + d;
}

OpCase AttCase(const std::string& kind, int64_t L, int64_t Lk, int64_t B, int64_t H, int64_t D) {
  OpCase c;
  c.op = "_contrib_interleaved_matmul_" + kind;
  c.name = absl::StrCat(kind, " L ", L, " Lk ", Lk, " B ", B, " heads ", H, " width ", D);
  c.attrs = {{"heads", std::to_string(H)}};
  c.dtypes = kWithHalf;
  // Every float32 bind with oneDNN runs its GEMMs on oneDNN's sgemm.
  c.onednn = true;
  const int64_t maps = B * H;
  if (kind == "selfatt_qk") {
    c.shapes = {Shape{L, B, H * 3 * D}};
  } else if (kind == "selfatt_valatt") {
    c.shapes = {Shape{L, B, H * 3 * D}, Shape{maps, L, L}};
  } else if (kind == "encdec_qk") {
    c.shapes = {Shape{L, B, H * D}, Shape{Lk, B, H * 2 * D}};
  } else {
    c.shapes = {Shape{Lk, B, H * 2 * D}, Shape{maps, L, Lk}};
  }
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out;
    if (kind == "selfatt_qk" || kind == "encdec_qk") {
      const bool self = kind == "selfatt_qk";
      const int64_t lk_len = self ? L : Lk;
      out.assign(maps * L * lk_len, 0);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t i = 0; i < L; ++i)
            for (int64_t j = 0; j < lk_len; ++j) {
              double s = 0;
              for (int64_t d = 0; d < D; ++d) {
                const double q = self ? in[0][Inter(i, b, h, 0, d, B, H, 3, D)]
                                      : in[0][Inter(i, b, h, 0, d, B, H, 1, D)];
                const double k = self ? in[0][Inter(j, b, h, 1, d, B, H, 3, D)]
                                      : in[1][Inter(j, b, h, 0, d, B, H, 2, D)];
                s += q * k;
              }
              out[((b * H + h) * L + i) * lk_len + j] = s * Scale(D);
            }
    } else {
      const bool self = kind == "selfatt_valatt";
      const int64_t lk_len = self ? L : Lk;
      const Values& att = in[1];
      out.assign(L * B * H * D, 0);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t i = 0; i < L; ++i)
            for (int64_t d = 0; d < D; ++d) {
              double s = 0;
              for (int64_t j = 0; j < lk_len; ++j) {
                const double v = self ? in[0][Inter(j, b, h, 2, d, B, H, 3, D)]
                                      : in[0][Inter(j, b, h, 1, d, B, H, 2, D)];
                s += att[((b * H + h) * L + i) * lk_len + j] * v;
              }
              out[((i * B + b) * H + h) * D + d] = s;
            }
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(AttentionConformance, SelfAttentionQK) {
  CheckOp(AttCase("selfatt_qk", 3, 3, 2, 2, 4));
  CheckOp(AttCase("selfatt_qk", 4, 4, 1, 3, 2));
  CheckOp(AttCase("selfatt_qk", 1, 1, 3, 1, 5));
}

TEST(AttentionConformance, SelfAttentionValAtt) {
  CheckOp(AttCase("selfatt_valatt", 3, 3, 2, 2, 4));
  CheckOp(AttCase("selfatt_valatt", 4, 4, 1, 3, 2));
  CheckOp(AttCase("selfatt_valatt", 2, 2, 3, 1, 1));
}

TEST(AttentionConformance, EncoderDecoderQK) {
  CheckOp(AttCase("encdec_qk", 3, 5, 2, 2, 4));
  CheckOp(AttCase("encdec_qk", 4, 2, 1, 3, 2));
  CheckOp(AttCase("encdec_qk", 1, 3, 2, 1, 3));
}

TEST(AttentionConformance, EncoderDecoderValAtt) {
  CheckOp(AttCase("encdec_valatt", 3, 5, 2, 2, 4));
  CheckOp(AttCase("encdec_valatt", 4, 2, 1, 3, 2));
  CheckOp(AttCase("encdec_valatt", 2, 1, 2, 2, 3));
}

// Large enough for the blocked, parallel GEMMs and oneDNN's sgemm (float32
// binds with oneDNN), compared with the Eigen path in builds with oneDNN.
TEST(AttentionConformance, LargerProducts) {
  for (const char* kind : {"selfatt_qk", "selfatt_valatt", "encdec_qk", "encdec_valatt"}) {
    OpCase c = AttCase(kind, 40, 24, 2, 4, 16);
    c.onednn = true;
    c.dtypes = {DType::kFloat32};
    c.check_backward = false;
    c.forward_tol32 = 1e-4;
    CheckOp(c);
  }
}

// ------------------------------------------------------------------ div_sqrt_dim

TEST(AttentionConformance, DivSqrtDim) {
  for (const Shape& s : {Shape{2, 5}, Shape{3, 2, 4}, Shape{7}}) {
    OpCase c;
    c.op = "_contrib_div_sqrt_dim";
    c.name = "div_sqrt_dim " + s.ToString();
    c.shapes = {s};
    c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
    c.forward_tol32 = 1e-6;
    c.reference = [](const std::vector<Values>& in, const std::vector<Shape>& sh) {
      const double root = std::sqrt(static_cast<double>(sh[0][sh[0].ndim() - 1]));
      Values y(in[0].size());
      for (size_t i = 0; i < y.size(); ++i) y[i] = in[0][i] / root;
      return std::vector<Values>{y};
    };
    CheckOp(c);
  }
}

// Integer data divides by the integer part of the root (MXNet converts the
// divisor to the data's dtype): 11 / int(sqrt(5)) = 11 / 2 = 5.
TEST(AttentionKernel, DivSqrtDimInIntegerDTypes) {
  for (DType t : {DType::kUint8, DType::kInt8, DType::kInt32, DType::kInt64}) {
    std::vector<Tensor> y =
        RunOp("_contrib_div_sqrt_dim", {}, {MakeTensor(Shape{1, 5}, {7, 8, 9, 10, 11}, t)});
    EXPECT_EQ(y[0].dtype(), t);
    EXPECT_EQ(y[0].ToDoubles(), (Values{3, 4, 4, 5, 5})) << DTypeName(t);
  }
  // float16: the divisor rounded to float16 first, as MXNet (3.13 for 7).
  std::vector<Tensor> h = RunOp("_contrib_div_sqrt_dim", {},
                                {MakeTensor(Shape{1, 5}, {7, 8, 9, 10, 11}, DType::kFloat16)});
  EXPECT_EQ(h[0].ToDoubles()[0], 3.130859375);
}

// ------------------------------------------------------------------ errors

TEST(AttentionSchema, ParametersAndShapes) {
  auto qkv = [](const Shape& s) {
    return MakeTensor(s, Values(NumElements(s), 0.5), DType::kFloat32);
  };
  std::string msg = ErrorOf([&] {
    RunOp("_contrib_interleaved_matmul_selfatt_qk", {}, {qkv(Shape{2, 1, 6})});
  });
  EXPECT_CONTAINS(msg, "heads");
  msg = ErrorOf([&] {
    RunOp("_contrib_interleaved_matmul_selfatt_qk", {{"heads", "0"}}, {qkv(Shape{2, 1, 6})});
  });
  EXPECT_CONTAINS(msg, "heads");
  EXPECT_CONTAINS(msg, "\"0\"");
  msg = ErrorOf([&] {
    RunOp("_contrib_interleaved_matmul_selfatt_qk", {{"heads", "two"}}, {qkv(Shape{2, 1, 6})});
  });
  EXPECT_CONTAINS(msg, "two");
  msg = ErrorOf([&] {
    RunOp("_contrib_interleaved_matmul_selfatt_qk", {{"heads", "2"}, {"scale", "1"}},
          {qkv(Shape{2, 1, 6})});
  });
  EXPECT_CONTAINS(msg, "scale");
  // 2 heads need a width divisible by 6.
  msg = ErrorOf([&] {
    RunOp("_contrib_interleaved_matmul_selfatt_qk", {{"heads", "2"}}, {qkv(Shape{2, 1, 9})});
  });
  EXPECT_CONTAINS(msg, "[2,1,9]");
  EXPECT_CONTAINS(msg, "divisible by 3 * heads = 6");
  msg = ErrorOf([&] {
    RunOp("_contrib_interleaved_matmul_selfatt_qk", {{"heads", "1"}}, {qkv(Shape{2, 6})});
  });
  EXPECT_CONTAINS(msg, "[2,6]");
  EXPECT_CONTAINS(msg, "3 dims");
  // The attention maps must be (batch * heads, L, L).
  msg = ErrorOf([&] {
    RunOp("_contrib_interleaved_matmul_selfatt_valatt", {{"heads", "2"}},
          {qkv(Shape{3, 2, 12}), qkv(Shape{2, 3, 3})});
  });
  EXPECT_CONTAINS(msg, "attention");
  EXPECT_CONTAINS(msg, "[2,3,3]");
  EXPECT_CONTAINS(msg, "(4, 3, 3)");
  msg = ErrorOf([&] {
    RunOp("_contrib_interleaved_matmul_encdec_qk", {{"heads", "1"}},
          {qkv(Shape{3, 2, 4}), qkv(Shape{5, 2, 6})});
  });
  EXPECT_CONTAINS(msg, "keys_values");
  EXPECT_CONTAINS(msg, "[5,2,6]");
  msg = ErrorOf([&] {
    RunOp("_contrib_interleaved_matmul_encdec_valatt", {{"heads", "2"}},
          {qkv(Shape{5, 2, 8}), qkv(Shape{4, 3, 4})});
  });
  EXPECT_CONTAINS(msg, "[4,3,4]");
  EXPECT_CONTAINS(msg, "(4, 3, 5)");
  msg = ErrorOf([&] {
    RunOp("_contrib_div_sqrt_dim", {},
          {MakeTensor(Shape(std::vector<int64_t>{}), {1}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "at least 1 dim");
  msg = ErrorOf([&] {
    RunOp("_contrib_div_sqrt_dim", {{"axis", "1"}},
          {MakeTensor(Shape{2}, {1, 2}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "axis");
}

}  // namespace
}  // namespace testing
}  // namespace symx
