// Tests of the dropout family (graph/ops/dropout.cc).
//
// Conformance of Dropout's deterministic settings (inference, p=0); direct
// kernel tests of its randomness (the share dropped, shared masks along
// `axes`, mode='always', in-place runs).
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
#include "graph/node.h"
#include "graph/op.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"
#include "tests/ops/kernel_calls.h"

namespace symx {
namespace {

using testing::CheckOp;
using testing::NumElements;
using testing::OpCase;
using testing::Values;

// ----------------------------------------------------------------------------- Dropout

OpCase DropoutIdentity(std::string name, const Shape& s, AttrMap attrs, bool is_train) {
  OpCase c;
  c.op = "Dropout";
  c.name = "Dropout " + name;
  c.attrs = std::move(attrs);
  c.shapes = {s};
  c.is_train = is_train;
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{in[0]};
  };
  // The harness's backward runs the forward in training mode; only p=0 is
  // deterministic there.
  c.check_backward = is_train;
  return c;
}

TEST(DropoutConformance, DropoutDeterministic) {
  CheckOp(DropoutIdentity("inference", Shape{3, 4}, {{"p", "0.5"}}, false));
  CheckOp(
      DropoutIdentity("inference axes", Shape{2, 3, 4}, {{"p", "0.7"}, {"axes", "(1,)"}}, false));
  CheckOp(DropoutIdentity("p=0 training", Shape{3, 4}, {{"p", "0"}}, true));
  CheckOp(DropoutIdentity("p=0 always", Shape{2, 5}, {{"p", "0"}, {"mode", "always"}}, true));
  CheckOp(DropoutIdentity("p=0 axes", Shape{2, 3, 4}, {{"p", "0"}, {"axes", "(0, 2)"}}, true));
  CheckOp(DropoutIdentity("empty", Shape{0, 4}, {{"p", "0.5"}}, false));
}

}  // namespace

namespace {

using kernel_calls::Cpu;
using kernel_calls::Empty;
using kernel_calls::Ramp;
using kernel_calls::RunKernel;
using ::testing::HasSubstr;

// ----------------------------------------------------------------------------- Dropout

TEST(DropoutKernel, DropsAboutPAndScalesTheRest) {
  const Shape s{1000, 200};
  Tensor x = Tensor::FromVector(s, std::vector<double>(s.Size(), 2.0));
  Tensor y = Empty(s), mask = Empty(s);
  Cpu()->Seed(7);
  ASSERT_TRUE(RunKernel("Dropout", {{"p", "0.3"}}, {x}, {y, mask}).ok());
  std::vector<double> out = y.ToDoubles(), m = mask.ToDoubles();
  int64_t zeros = 0;
  const double kept = static_cast<float>(2.0 / 0.7);
  for (int64_t i = 0; i < s.Size(); ++i) {
    if (out[i] == 0) {
      ++zeros;
      ASSERT_EQ(m[i], 0);
    } else {
      ASSERT_EQ(out[i], kept) << i;
      ASSERT_EQ(m[i], static_cast<float>(1 / 0.7));
    }
  }
  EXPECT_NEAR(static_cast<double>(zeros) / s.Size(), 0.3, 0.005);

  // The same seed gives the same mask; the backward is ograd * mask.
  Tensor y2 = Empty(s), mask2 = Empty(s);
  Cpu()->Seed(7);
  ASSERT_TRUE(RunKernel("Dropout", {{"p", "0.3"}}, {x}, {y2, mask2}).ok());
  EXPECT_EQ(mask2.ToDoubles(), m);
  Tensor og = Tensor::FromVector(s, Ramp(s.Size())), g = Empty(s);
  ASSERT_TRUE(RunKernel("_backward_Dropout", {{"p", "0.3"}}, {og, mask}, {g}).ok());
  std::vector<double> gv = g.ToDoubles(), ogv = og.ToDoubles();
  for (int64_t i = 0; i < s.Size(); ++i) {
    ASSERT_EQ(gv[i], static_cast<float>(ogv[i] * static_cast<float>(m[i]))) << i;
  }
}

TEST(DropoutKernel, AxesShareTheMask) {
  const Shape s{50, 40, 6};
  Tensor x = Tensor::FromVector(s, Ramp(s.Size(), 1.0, 0.5), DType::kFloat64);
  Tensor y = Empty(s, DType::kFloat64), mask = Empty(Shape{50, 1, 6}, DType::kFloat64);
  ASSERT_TRUE(RunKernel("Dropout", {{"p", "0.5"}, {"axes", "(1,)"}}, {x}, {y, mask}).ok());
  std::vector<double> xv = x.ToDoubles(), yv = y.ToDoubles(), m = mask.ToDoubles();
  int64_t zeros = 0;
  for (int64_t a = 0; a < 50; ++a) {
    for (int64_t b = 0; b < 40; ++b) {
      for (int64_t c = 0; c < 6; ++c) {
        const int64_t i = (a * 40 + b) * 6 + c;
        ASSERT_EQ(yv[i], xv[i] * m[a * 6 + c]);
      }
    }
  }
  for (double v : m) {
    ASSERT_TRUE(v == 0 || v == 2.0);
    zeros += v == 0;
  }
  EXPECT_GT(zeros, 100);
  EXPECT_LT(zeros, 200);
}

TEST(DropoutKernel, InferenceIsIdentityUnlessModeAlways) {
  const Shape s{4, 5};
  Tensor x = Tensor::FromVector(s, Ramp(s.Size(), 1.0, 1.0));
  Tensor y = Empty(s), mask = Empty(s);
  ASSERT_TRUE(RunKernel("Dropout", {{"p", "0.5"}}, {x}, {y, mask}, /*is_train=*/false).ok());
  EXPECT_EQ(y.ToDoubles(), x.ToDoubles());
  EXPECT_EQ(mask.ToDoubles(), std::vector<double>(s.Size(), 1.0));
  // mode=always drops at inference too.
  const Shape big{100, 100};
  Tensor bx = Tensor::FromVector(big, std::vector<double>(big.Size(), 1.0));
  Tensor by = Empty(big), bm = Empty(big);
  ASSERT_TRUE(
      RunKernel("Dropout", {{"p", "0.5"}, {"mode", "always"}}, {bx}, {by, bm}, /*is_train=*/false)
          .ok());
  std::vector<double> v = by.ToDoubles();
  int64_t zeros = 0;
  for (double e : v) zeros += e == 0;
  EXPECT_NEAR(zeros / 10000.0, 0.5, 0.03);
}

TEST(DropoutKernel, InPlace) {
  const Shape s{64, 64};
  Tensor x = Tensor::FromVector(s, std::vector<double>(s.Size(), 1.0));
  Tensor mask = Empty(s);
  ASSERT_TRUE(RunKernel("Dropout", {{"p", "0.25"}}, {x}, {x, mask}).ok());
  EXPECT_EQ(x.ToDoubles(), mask.ToDoubles());
}

}  // namespace

}  // namespace symx
