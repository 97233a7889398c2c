// Conformance tests for the spectral family: _contrib_fft and _contrib_ifft
// against a direct O(d^2) DFT in double, with gradients by finite differences
// (each op's gradient is the other op), lengths with prime factors, ranks 1 to
// 4, and bad dtypes and shapes; _contrib_count_sketch against a plain loop.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

constexpr double kPi = 3.14159265358979323846;

// rows x d reals -> rows x 2d interleaved DFT values.
Values DftRef(const Values& x, int64_t d) {
  const int64_t rows = d == 0 ? 0 : static_cast<int64_t>(x.size()) / d;
  Values y(rows * 2 * d);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < d; ++k) {
      double re = 0, im = 0;
      for (int64_t j = 0; j < d; ++j) {
        const double a = -2 * kPi * static_cast<double>((j * k) % d) / static_cast<double>(d);
        re += x[r * d + j] * std::cos(a);
        im += x[r * d + j] * std::sin(a);
      }
      y[r * 2 * d + 2 * k] = re;
      y[r * 2 * d + 2 * k + 1] = im;
    }
  }
  return y;
}

// rows x 2d interleaved values -> rows x d real parts of the unnormalized inverse DFT.
Values IdftRealRef(const Values& z, int64_t d) {
  const int64_t rows = d == 0 ? 0 : static_cast<int64_t>(z.size()) / (2 * d);
  Values y(rows * d);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < d; ++j) {
      double re = 0;
      for (int64_t k = 0; k < d; ++k) {
        const double a = 2 * kPi * static_cast<double>((j * k) % d) / static_cast<double>(d);
        re += z[r * 2 * d + 2 * k] * std::cos(a) - z[r * 2 * d + 2 * k + 1] * std::sin(a);
      }
      y[r * d + j] = re;
    }
  }
  return y;
}

OpCase SpectralCase(bool forward, const Shape& data) {
  OpCase c;
  c.op = forward ? "_contrib_fft" : "_contrib_ifft";
  c.name = c.op + " " + data.ToString();
  c.shapes = {data};
  const int64_t last = data[data.ndim() - 1];
  const int64_t d = forward ? last : last / 2;
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{forward ? DftRef(in[0], d) : IdftRealRef(in[0], d)};
  };
  // Sums of d terms of size ~1 in float32.
  c.forward_tol32 = 1e-5 * static_cast<double>(d + 1);
  return c;
}

TEST(SpectralConformance, Fft) {
  for (const Shape& s : {Shape{3, 8}, Shape{2, 12}, Shape{1, 2, 3, 7}, Shape{5}, Shape{4, 1},
                         Shape{2, 30}, Shape{0, 4}}) {
    CheckOp(SpectralCase(true, s));
  }
}

TEST(SpectralConformance, Ifft) {
  for (const Shape& s : {Shape{3, 16}, Shape{2, 24}, Shape{1, 2, 3, 14}, Shape{10}, Shape{4, 2},
                         Shape{2, 60}, Shape{0, 4}}) {
    CheckOp(SpectralCase(false, s));
  }
}

TEST(SpectralConformance, LongRows) {
  // A prime length (Bluestein's path) and a power of two, long enough for
  // twiddle accuracy to matter.
  for (int64_t d : {997, 1024}) {
    OpCase c = SpectralCase(true, Shape{1, d});
    c.check_backward = false;
    CheckOp(c);
    OpCase i = SpectralCase(false, Shape{1, 2 * d});
    i.check_backward = false;
    CheckOp(i);
  }
}

TEST(SpectralConformance, InverseUndoesForwardUpToLength) {
  // ifft(fft(x)) = d * x: MXNet's pair does not normalize.
  const int64_t d = 9;
  Values x(2 * d);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7 * static_cast<double>(i)) + 0.1;
  Tensor t = MakeTensor(Shape{2, d}, x, DType::kFloat64);
  std::vector<Tensor> f = RunOp("_contrib_fft", {}, {t});
  std::vector<Tensor> back = RunOp("_contrib_ifft", {}, {f[0]});
  const Values got = back[0].ToDoubles();
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(got[i], d * x[i], 1e-12) << i;
}

TEST(SpectralConformance, Errors) {
  Tensor odd = MakeTensor(Shape{2, 5}, Values(10, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("_contrib_ifft", {}, {odd}, "f"); });
  EXPECT_CONTAINS(msg, "[2,5]");
  EXPECT_CONTAINS(msg, "even");
  Tensor h = MakeTensor(Shape{2, 4}, Values(8, 1.0), DType::kFloat16);
  msg = ErrorOf([&] { RunOp("_contrib_fft", {}, {h}, "f"); });
  EXPECT_CONTAINS(msg, "float16");
  Tensor i = MakeTensor(Shape{2, 4}, Values(8, 1.0), DType::kInt32);
  msg = ErrorOf([&] { RunOp("_contrib_ifft", {}, {i}, "f"); });
  EXPECT_CONTAINS(msg, "int32");
  Tensor x = MakeTensor(Shape{2, 4}, Values(8, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_contrib_fft", {{"compute_size", "0"}}, {x}, "f"); });
  EXPECT_CONTAINS(msg, "compute_size");
  Tensor scalar = MakeTensor(Shape(std::vector<int64_t>{}), Values{1.0}, DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_contrib_fft", {}, {scalar}, "f"); });
  EXPECT_CONTAINS(msg, "[]");
}

// Columns with collisions (several inputs onto one output column) and signs.
OpCase CountSketchCase(const Shape& data, int64_t out_dim) {
  OpCase c;
  c.op = "_contrib_count_sketch";
  c.name = "count_sketch " + data.ToString() + " -> " + std::to_string(out_dim);
  c.attrs = {{"out_dim", std::to_string(out_dim)}};
  const int64_t d = data[data.ndim() - 1];
  c.shapes = {data, Shape{1, d}, Shape{1, d}};
  c.no_grad = {1, 2};
  c.init = [=](int input, const Shape& s) {
    Values v(NumElements(s));
    for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) {
      if (input == 1) v[i] = static_cast<double>((i * 5 + 3) % out_dim);
      if (input == 2) v[i] = (i * 7) % 3 == 0 ? -1.0 : 1.0;
      if (input == 0) v[i] = std::sin(0.37 * static_cast<double>(i + 1));
    }
    return v;
  };
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    const int64_t rows = d == 0 ? 0 : static_cast<int64_t>(in[0].size()) / d;
    Values y(rows * out_dim, 0.0);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < d; ++i) {
        y[r * out_dim + static_cast<int64_t>(in[1][i])] += in[2][i] * in[0][r * d + i];
      }
    }
    return std::vector<Values>{y};
  };
  return c;
}

TEST(CountSketchConformance, Sketch) {
  CheckOp(CountSketchCase(Shape{3, 10}, 4));
  CheckOp(CountSketchCase(Shape{2, 1, 2, 7}, 9));
  CheckOp(CountSketchCase(Shape{4, 6}, 1));
  CheckOp(CountSketchCase(Shape{0, 5}, 3));
}

TEST(CountSketchConformance, Errors) {
  Tensor x = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  Tensor s = MakeTensor(Shape{1, 3}, Values{1, -1, 1}, DType::kFloat32);
  Tensor h_out = MakeTensor(Shape{1, 3}, Values{0, 4, 1}, DType::kFloat32);
  std::string msg = ErrorOf([&] {
    RunOp("_contrib_count_sketch", {{"out_dim", "4"}}, {x, h_out, s}, "c");
  });
  EXPECT_CONTAINS(msg, "h[1] = 4");
  EXPECT_CONTAINS(msg, "out_dim");
  Tensor h_neg = MakeTensor(Shape{1, 3}, Values{0, -1, 1}, DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_contrib_count_sketch", {{"out_dim", "4"}}, {x, h_neg, s}, "c"); });
  EXPECT_CONTAINS(msg, "h[1] = -1");
  Tensor h_short = MakeTensor(Shape{1, 2}, Values{0, 1}, DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_contrib_count_sketch", {{"out_dim", "4"}}, {x, h_short, s}, "c"); });
  EXPECT_CONTAINS(msg, "[1,2]");
  EXPECT_CONTAINS(msg, "[2,3]");
  Tensor h = MakeTensor(Shape{1, 3}, Values{0, 1, 2}, DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_contrib_count_sketch", {}, {x, h, s}, "c"); });
  EXPECT_CONTAINS(msg, "out_dim");
  msg = ErrorOf([&] { RunOp("_contrib_count_sketch", {{"out_dim", "0"}}, {x, h, s}, "c"); });
  EXPECT_CONTAINS(msg, ">= 1");
  Tensor xi = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kInt32);
  msg = ErrorOf([&] { RunOp("_contrib_count_sketch", {{"out_dim", "4"}}, {xi, h, s}, "c"); });
  EXPECT_CONTAINS(msg, "int32");
}

}  // namespace
}  // namespace testing
}  // namespace symx
