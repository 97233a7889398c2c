// Tests of the softmax family (graph/ops/softmax.cc): softmax, log_softmax,
// softmin and SoftmaxActivation.
//
// Conformance: forward against plain loops (MXNet 1.9.1's formulas, checked
// against a live MXNet), backward ops by finite differences, and stability on
// large inputs. Direct kernel tests: in place against out of place, an
// unsupported output dtype is an error.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
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
namespace testing {
namespace {

const std::vector<DType> kWithHalf = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

// Softmax of scale * x over the middle of (outer, n, inner).
Values SoftmaxRef(const Values& x, int64_t outer, int64_t n, int64_t inner, double scale) {
  Values y(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double m = -INFINITY, s = 0;
      for (int64_t k = 0; k < n; ++k) m = std::max(m, scale * x[(o * n + k) * inner + i]);
      for (int64_t k = 0; k < n; ++k) s += std::exp(scale * x[(o * n + k) * inner + i] - m);
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = (o * n + k) * inner + i;
        y[at] = std::exp(scale * x[at] - m) / s;
      }
    }
  }
  return y;
}

// ------------------------------------------------------------------ SoftmaxActivation

OpCase SoftmaxActivationCase(const std::string& mode, const Shape& shape) {
  OpCase c;
  c.name = "SoftmaxActivation " + mode + " " + shape.ToString();
  c.op = "SoftmaxActivation";
  c.attrs = {{"mode", mode}};
  c.shapes = {shape};
  c.dtypes = kWithHalf;
  c.reference = [mode](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const Shape& d = s[0];
    int64_t rest = 1;
    for (int k = 2; k < d.ndim(); ++k) rest *= d[k];
    if (mode == "channel") return std::vector<Values>{SoftmaxRef(in[0], d[0], d[1], rest, 1.0)};
    return std::vector<Values>{SoftmaxRef(in[0], d[0], d[1] * rest, 1, 1.0)};
  };
  return c;
}

TEST(SoftmaxConformance, SoftmaxActivation) {
  CheckOp(SoftmaxActivationCase("instance", Shape{3, 5}));
  CheckOp(SoftmaxActivationCase("instance", Shape{2, 3, 2, 2}));
  CheckOp(SoftmaxActivationCase("channel", Shape{2, 4, 3}));
  CheckOp(SoftmaxActivationCase("channel", Shape{2, 3, 2, 2}));
  CheckOp(SoftmaxActivationCase("channel", Shape{1, 2, 1, 3, 2}));
  CheckOp(SoftmaxActivationCase("instance", Shape{0, 4}));
  // The default mode is instance.
  OpCase c = SoftmaxActivationCase("instance", Shape{2, 2, 3});
  c.attrs.clear();
  CheckOp(c);
}

// ------------------------------------------------------------------ softmin

OpCase SoftminCase(const Shape& shape, int axis, double temperature) {
  OpCase c;
  c.name = "softmin axis " + std::to_string(axis) + " t " + std::to_string(temperature);
  c.op = "softmin";
  c.attrs = {{"axis", std::to_string(axis)}};
  if (temperature != 1.0) c.attrs["temperature"] = std::to_string(temperature);
  c.shapes = {shape};
  c.dtypes = kWithHalf;
  c.reference = [axis, temperature](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const Shape& d = s[0];
    const int ax = axis < 0 ? axis + d.ndim() : axis;
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < ax; ++k) outer *= d[k];
    for (int k = ax + 1; k < d.ndim(); ++k) inner *= d[k];
    return std::vector<Values>{SoftmaxRef(in[0], outer, d[ax], inner, -1.0 / temperature)};
  };
  return c;
}

TEST(SoftmaxConformance, Softmin) {
  CheckOp(SoftminCase(Shape{3, 4}, -1, 1.0));
  CheckOp(SoftminCase(Shape{2, 3, 4}, 1, 1.0));
  CheckOp(SoftminCase(Shape{2, 3, 4}, 0, 0.5));
  CheckOp(SoftminCase(Shape{2, 3, 4}, -2, 3.0));
  CheckOp(SoftminCase(Shape{5}, 0, 1.0));
  // dtype=float64 from float32 data.
  OpCase c = SoftminCase(Shape{2, 5}, -1, 1.0);
  c.name = "softmin dtype float64";
  c.attrs["dtype"] = "float64";
  c.dtypes = {DType::kFloat32};
  CheckOp(c);
}

}  // namespace
}  // namespace testing

namespace {

using testing::CheckOp;
using testing::NumElements;
using testing::OpCase;
using testing::Strides;
using testing::Values;

// ----------------------------------------------------------------------------- softmax

OpCase SoftmaxCase(bool log, const Shape& shape, int axis, std::optional<double> temperature = {},
                   std::optional<std::string> dtype = {}) {
  OpCase c;
  c.op = log ? "log_softmax" : "softmax";
  c.name = c.op + " " + shape.ToString() + " axis " + std::to_string(axis) +
           (temperature ? " T=" + std::to_string(*temperature) : "") + (dtype ? " " + *dtype : "");
  c.attrs["axis"] = std::to_string(axis);
  if (temperature) c.attrs["temperature"] = std::to_string(*temperature);
  if (dtype) c.attrs["dtype"] = *dtype;
  c.shapes = {shape};
  const double t = temperature.value_or(1.0);
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const Shape& s = shapes[0];
    const int ax = axis < 0 ? axis + s.ndim() : axis;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < ax; ++d) outer *= s[d];
    for (int d = ax + 1; d < s.ndim(); ++d) inner *= s[d];
    const int64_t n = s[ax];
    Values out(in[0].size());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        double sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += std::exp(in[0][(o * n + k) * inner + i] / t);
        for (int64_t k = 0; k < n; ++k) {
          const int64_t at = (o * n + k) * inner + i;
          out[at] = log ? in[0][at] / t - std::log(sum) : std::exp(in[0][at] / t) / sum;
        }
      }
    }
    return std::vector<Values>{out};
  };
  c.forward_tol32 = 2e-5;
  c.grad_tol = 1e-6;
  return c;
}

TEST(SoftmaxConformance, Softmax) {
  for (bool log : {false, true}) {
    CheckOp(SoftmaxCase(log, Shape{3, 5}, -1));
    CheckOp(SoftmaxCase(log, Shape{3, 5}, 0));
    CheckOp(SoftmaxCase(log, Shape{2, 3, 4}, 1));
    CheckOp(SoftmaxCase(log, Shape{2, 4, 70}, 1));  // two column blocks
    CheckOp(SoftmaxCase(log, Shape{7}, 0));
    CheckOp(SoftmaxCase(log, Shape{4, 1}, 1));  // a single class
    CheckOp(SoftmaxCase(log, Shape{2, 3, 4}, -1, 2.0));
    CheckOp(SoftmaxCase(log, Shape{2, 3, 4}, 0, -0.5));
    CheckOp(SoftmaxCase(log, Shape{0, 4}, 1));
    CheckOp(SoftmaxCase(log, Shape{3, 0}, 1));
    CheckOp(SoftmaxCase(log, Shape{2, 3}, -1, std::nullopt, "float64"));
  }
}

TEST(SoftmaxConformance, LargeInputsAreStable) {
  for (bool log : {false, true}) {
    OpCase c = SoftmaxCase(log, Shape{2, 3}, 1);
    c.name += " large";
    c.init = [](int, const Shape&) { return Values{1000, 1001, 1002, -1000, -1001, -999}; };
    c.reference = [log](const std::vector<Values>& in, const std::vector<Shape>&) {
      Values out(6);
      for (int r = 0; r < 2; ++r) {
        double m = std::max({in[0][3 * r], in[0][3 * r + 1], in[0][3 * r + 2]});
        double sum = 0;
        for (int k = 0; k < 3; ++k) sum += std::exp(in[0][3 * r + k] - m);
        for (int k = 0; k < 3; ++k) {
          double v = in[0][3 * r + k] - m;
          out[3 * r + k] = log ? v - std::log(sum) : std::exp(v) / sum;
        }
      }
      return std::vector<Values>{out};
    };
    c.forward_tol32 = 1e-4;
    c.eps = 1e-5;
    c.grad_tol = 1e-5;
    CheckOp(c);
  }
}

}  // namespace

namespace {

using kernel_calls::Cpu;
using kernel_calls::Empty;
using kernel_calls::Ramp;
using kernel_calls::RunKernel;
using ::testing::HasSubstr;

// ----------------------------------------------------------------------------- softmax

TEST(SoftmaxKernel, InPlaceMatchesOutOfPlace) {
  for (const char* op : {"softmax", "log_softmax"}) {
    for (const char* axis : {"-1", "1", "0"}) {
      SCOPED_TRACE(std::string(op) + " axis " + axis);
      const Shape s{3, 130, 5};
      std::vector<double> v = Ramp(s.Size(), 3.0);
      Tensor x = Tensor::FromVector(s, v, DType::kFloat64);
      Tensor y = Empty(s, DType::kFloat64);
      ASSERT_TRUE(RunKernel(op, {{"axis", axis}}, {x}, {y}).ok());
      ASSERT_TRUE(RunKernel(op, {{"axis", axis}}, {x}, {x}).ok());
      EXPECT_EQ(x.ToDoubles(), y.ToDoubles());
    }
  }
}

TEST(SoftmaxKernel, UnsupportedOutputDtypeIsAnError) {
  Tensor x = Tensor::FromVector(Shape{2, 3}, Ramp(6));
  absl::Status s =
      RunKernel("softmax", {{"dtype", "float16"}}, {x}, {Empty(Shape{2, 3}, DType::kFloat16)});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(s.message()), HasSubstr("float16"));
}

}  // namespace

}  // namespace symx
