// The stated accuracy of symx's elementwise math (docs/numerics.md), checked
// in CI on a sample: every float16 and bfloat16 input, every 4099th float32
// bit pattern and 2^18 float64 values, on every device present. The full
// float32 sweep is tools/ulp/ulp_sweep --full, by hand.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"
#include "tools/ulp/ulp_cases.h"
#include "tools/ulp/ulp_error.h"
#include "tools/ulp/ulp_sweep.h"

namespace symx {
namespace {

using ulp::UlpError;

TEST(UlpErrorTest, MeasuresInTheOutputFormat) {
  // One float32 ulp at 1 is 2^-23; below 1 it is 2^-24.
  EXPECT_EQ(UlpError(ulp::kFloat32, 1.0L + std::ldexp(1.0L, -23), 1.0L), 1);
  // The spacing is taken at the wanted value: 2^-24 at 0.75, 2^-23 at 1.
  EXPECT_EQ(UlpError(ulp::kFloat32, 0.75L + std::ldexp(1.0L, -24), 0.75L), 1);
  EXPECT_EQ(UlpError(ulp::kFloat32, 1.0L - std::ldexp(1.0L, -24), 1.0L), 0.5);
  // At 0.5 the spacing is 2^-24.
  EXPECT_EQ(UlpError(ulp::kFloat32, 0.5L, 0.5L + std::ldexp(1.0L, -25)), 0.5);
  // Denormals are measured in the denormal spacing, 2^-149.
  EXPECT_EQ(UlpError(ulp::kFloat32, 0.0L, std::ldexp(1.0L, -148)), 2);
  // float16: 11 digits, ulp at 1 is 2^-10.
  EXPECT_EQ(UlpError(ulp::kFloat16, 1.0L + std::ldexp(1.0L, -10), 1.0L), 1);
  EXPECT_EQ(UlpError(ulp::kBFloat16, 1.0L + std::ldexp(1.0L, -7), 1.0L), 1);
}

TEST(UlpErrorTest, SpecialValuesMustMatch) {
  const long double inf = std::numeric_limits<long double>::infinity();
  const long double nan = std::numeric_limits<long double>::quiet_NaN();
  EXPECT_EQ(UlpError(ulp::kFloat32, nan, nan), 0);
  EXPECT_EQ(UlpError(ulp::kFloat32, 1.0L, nan), inf);
  EXPECT_EQ(UlpError(ulp::kFloat32, nan, 1.0L), inf);
  EXPECT_EQ(UlpError(ulp::kFloat32, inf, inf), 0);
  EXPECT_EQ(UlpError(ulp::kFloat32, -inf, inf), inf);
  // 1e39 overflows float32: infinity is right, the largest float is not.
  EXPECT_EQ(UlpError(ulp::kFloat32, inf, 1e39L), 0);
  EXPECT_EQ(UlpError(ulp::kFloat32, ulp::kFloat32.max_finite, 1e39L), inf);
  EXPECT_EQ(UlpError(ulp::kFloat32, inf, 1.0L), inf);
}

// YOLOv3's boxes: scores tie at exactly 1.0 where MXNet's sigmoid returns 1,
// and box_nms's stable sort then orders the ties. symx's sigmoid must return
// 1 for exactly the float inputs where MXNet's 1 / (1 + expf(-x)) does (from
// x = 16.6355324), and below 1 everywhere else; Eigen's fast logistic
// returned 1 from 15.72.
TEST(SigmoidTest, SaturatesWhereMXNetDoes) {
  std::vector<double> xs;
  for (float x = 14.0f; x <= 19.0f; x = std::nextafter(x, 20.0f)) xs.push_back(x);
  const Shape shape{static_cast<int64_t>(xs.size())};
  const Tensor in = Tensor::FromVector(shape, xs);
  for (const Context& ctx : testing::DevicesPresent()) {
    for (const std::string& act : {std::string(), std::string("sigmoid")}) {
      Symbol x = Symbol::Variable("x");
      Symbol y = act.empty() ? OpCall("sigmoid").Input(x).Build()
                             : OpCall("Activation").Attr("act_type", act).Input(x).Build();
      auto exe = Executor::SimpleBind(
          y, {.ctx = ctx, .shapes = {{"x", shape}}, .grad_req = GradReq::kNull});
      exe->Forward(false, {{"x", in}});
      const std::vector<double> got = exe->outputs()[0].ToDoubles();
      int64_t differ = 0;
      double first = 0;
      for (size_t i = 0; i < xs.size(); ++i) {
        const float v = static_cast<float>(xs[i]);
        const bool mxnet_one = 1.0f / (1.0f + std::exp(-v)) == 1.0f;
        if ((got[i] == 1.0) != mxnet_one || got[i] > 1.0) {
          if (differ++ == 0) first = v;
        }
      }
      EXPECT_EQ(differ, 0) << (act.empty() ? "sigmoid" : "Activation(sigmoid)") << " on "
                           << ctx.ToString() << ": " << differ << " of " << xs.size()
                           << " inputs in [14, 19] saturate differently from MXNet, first at "
                           << first;
    }
  }
}

class UlpSampleTest : public ::testing::TestWithParam<ulp::UlpCase> {};

TEST_P(UlpSampleTest, WithinStatedBound) {
  const ulp::UlpCase& c = GetParam();
  for (const Context& ctx : testing::DevicesPresent()) {
    for (const auto& [dtype, bound] : c.bound) {
      ulp::SweepOptions o;
      o.ctx = ctx;
      o.dtype = dtype;
      o.float64_samples = 1 << 18;
      auto r = ulp::Sweep(c, o);
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(r->over_bound, 0) << c.name << " on " << ctx.ToString() << " in "
                                  << DTypeName(dtype) << ": " << r->over_bound << " of "
                                  << r->tested << " inputs beyond " << bound << " ulp; worst "
                                  << static_cast<double>(r->max_ulp)
                                  << " ulp at x = " << r->worst_input << " (got "
                                  << static_cast<double>(r->worst_got) << ", want "
                                  << static_cast<double>(r->worst_want) << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Functions, UlpSampleTest, ::testing::ValuesIn(ulp::AllUlpCases()),
                         [](const ::testing::TestParamInfo<ulp::UlpCase>& info) {
                           std::string n;
                           for (char ch : info.param.name) {
                             n += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace symx
