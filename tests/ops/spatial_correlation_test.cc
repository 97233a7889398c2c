// Tests of Correlation (spatial family, graph/ops/spatial.cc): the forward
// against a plain loop over zero-padded copies of the inputs, written from
// MXNet 1.9.1's CPU kernel (float16, float32, float64), the gradients of
// data1 and data2 against central finite differences in float64 (the
// absolute difference only where no two compared values tie), and the errors
// for bad parameters and shapes, named.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "devices/tensor.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"
#include "tests/expect_contains.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace {

using testing::CheckOp;
using testing::ErrorOf;
using testing::MakeTensor;
using testing::OpCase;
using testing::RunOp;
using testing::Values;

struct CorrSpec {
  int64_t kernel = 1, max_disp = 1, stride1 = 1, stride2 = 1, pad = 0;
  bool multiply = true;
};

int64_t CorrOut(int64_t x, const CorrSpec& s) {
  const int64_t border = s.max_disp + (s.kernel - 1) / 2;
  return (x + 2 * s.pad - 2 * border + s.stride1 - 1) / s.stride1;
}

std::vector<Values> CorrRef(const std::vector<Values>& in, const Shape& d, const CorrSpec& s) {
  const int64_t N = d[0], C = d[1], H = d[2], W = d[3];
  const int64_t Hp = H + 2 * s.pad, Wp = W + 2 * s.pad;
  // Padded NHWC copies, as MXNet's tmp1 and tmp2.
  std::vector<Values> padded(2, Values(N * Hp * Wp * C, 0.0));
  for (int k = 0; k < 2; ++k) {
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t h = 0; h < H; ++h) {
          for (int64_t w = 0; w < W; ++w) {
            padded[k][((n * Hp + h + s.pad) * Wp + w + s.pad) * C + c] =
                in[k][((n * C + c) * H + h) * W + w];
          }
        }
      }
    }
  }
  const int64_t r = s.max_disp / s.stride2, grid = 2 * r + 1;
  const int64_t OH = CorrOut(H, s), OW = CorrOut(W, s), OC = grid * grid;
  Values out(N * OC * OH * OW, 0.0);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t tc = 0; tc < OC; ++tc) {
      for (int64_t i = 0; i < OH; ++i) {
        for (int64_t j = 0; j < OW; ++j) {
          const int64_t x1 = j * s.stride1 + s.max_disp, y1 = i * s.stride1 + s.max_disp;
          const int64_t x2 = x1 + (tc % grid - r) * s.stride2;
          const int64_t y2 = y1 + (tc / grid - r) * s.stride2;
          double sum = 0;
          for (int64_t h = 0; h < s.kernel; ++h) {
            for (int64_t w = 0; w < s.kernel; ++w) {
              for (int64_t c = 0; c < C; ++c) {
                const double a = padded[0][((n * Hp + y1 + h) * Wp + x1 + w) * C + c];
                const double b = padded[1][((n * Hp + y2 + h) * Wp + x2 + w) * C + c];
                sum += s.multiply ? a * b : std::abs(a - b);
              }
            }
          }
          out[((n * OC + tc) * OH + i) * OW + j] = sum / (s.kernel * s.kernel * C);
        }
      }
    }
  }
  return {out};
}

OpCase CorrCase(const Shape& d, const CorrSpec& s) {
  OpCase c;
  c.op = "Correlation";
  c.name = "Correlation " + d.ToString() + " kernel " + std::to_string(s.kernel) +
           " max_displacement " + std::to_string(s.max_disp) + " strides " +
           std::to_string(s.stride1) + "/" + std::to_string(s.stride2) + " pad " +
           std::to_string(s.pad) + (s.multiply ? " multiply" : " abs");
  c.attrs = {
      {"kernel_size", std::to_string(s.kernel)}, {"max_displacement", std::to_string(s.max_disp)},
      {"stride1", std::to_string(s.stride1)},    {"stride2", std::to_string(s.stride2)},
      {"pad_size", std::to_string(s.pad)},       {"is_multiply", s.multiply ? "True" : "False"}};
  c.shapes = {d, d};
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
  c.forward_tol32 = 1e-5;
  c.init = [](int input, const Shape& shape) {
    // |data1| in [0.05, 1), |data2| in [1.1, 2), random signs: no compared
    // pair (nor a value and the zero padding) ties, so no absolute difference
    // sits at its kink, and both signs of data1 - data2 occur.
    std::mt19937_64 rng(31 + input);
    std::uniform_real_distribution<double> u(input == 0 ? 0.05 : 1.1, input == 0 ? 1.0 : 2.0);
    std::bernoulli_distribution sign(0.5);
    Values v(testing::NumElements(shape));
    for (double& x : v) x = sign(rng) ? u(rng) : -u(rng);
    return v;
  };
  c.reference = [s](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    return CorrRef(in, shapes[0], s);
  };
  return c;
}

TEST(CorrelationConformance, Multiply) {
  CheckOp(CorrCase(Shape{2, 3, 5, 6}, CorrSpec{}));
  CheckOp(CorrCase(Shape{1, 2, 6, 7}, CorrSpec{3, 2, 1, 1, 2, true}));
  CheckOp(CorrCase(Shape{2, 2, 7, 8}, CorrSpec{1, 4, 2, 2, 3, true}));    // FlowNet-like strides
  CheckOp(CorrCase(Shape{1, 3, 11, 10}, CorrSpec{3, 3, 2, 2, 0, true}));  // ceil of the size
}

TEST(CorrelationConformance, AbsoluteDifference) {
  CheckOp(CorrCase(Shape{2, 3, 5, 6}, CorrSpec{1, 1, 1, 1, 0, false}));
  CheckOp(CorrCase(Shape{1, 2, 6, 7}, CorrSpec{3, 2, 1, 1, 2, false}));
  CheckOp(CorrCase(Shape{2, 2, 7, 8}, CorrSpec{1, 4, 2, 2, 3, false}));
}

Tensor Zeros(const Shape& s) {
  return MakeTensor(s, Values(testing::NumElements(s), 0.0), DType::kFloat32);
}

TEST(CorrelationErrors, ParametersAndShapes) {
  const Tensor x = Zeros(Shape{1, 2, 5, 5});
  EXPECT_NO_THROW(RunOp("Correlation", {}, {x, x}));
  auto with = [&](const std::string& key, const std::string& value) {
    return ErrorOf([&] { RunOp("Correlation", {{key, value}}, {x, x}); });
  };
  std::string msg = with("kernel_size", "2");
  EXPECT_CONTAINS(msg, "kernel_size");
  EXPECT_CONTAINS(msg, "odd");
  msg = with("stride1", "0");
  EXPECT_CONTAINS(msg, "stride1");
  msg = with("stride2", "0");
  EXPECT_CONTAINS(msg, "stride2");
  msg = with("max_displacement", "-1");
  EXPECT_CONTAINS(msg, "max_displacement");
  msg = with("pad_size", "-2");
  EXPECT_CONTAINS(msg, "pad_size");
  msg = with("is_multiply", "maybe");
  EXPECT_CONTAINS(msg, "is_multiply");
  // The neighbourhood does not fit: 2 * 3 + 1 > 5.
  msg = with("max_displacement", "3");
  EXPECT_CONTAINS(msg, "[1,2,5,5]");
  EXPECT_CONTAINS(msg, "do not fit");
  msg = ErrorOf([&] { RunOp("Correlation", {}, {x, Zeros(Shape{1, 2, 5, 6})}); });
  EXPECT_CONTAINS(msg, "[1,2,5,6]");
  msg = ErrorOf([&] { RunOp("Correlation", {}, {Zeros(Shape{2, 5, 5}), Zeros(Shape{2, 5, 5})}); });
  EXPECT_CONTAINS(msg, "data1");
  EXPECT_CONTAINS(msg, "[2,5,5]");
  const Tensor i = MakeTensor(Shape{1, 1, 3, 3}, Values(9, 0.0), DType::kInt32);
  msg = ErrorOf([&] { RunOp("Correlation", {}, {i, i}); });
  EXPECT_CONTAINS(msg, "Correlation");
  EXPECT_CONTAINS(msg, "int32");
}

}  // namespace
}  // namespace symx
