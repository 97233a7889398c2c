// Conformance tests for the statistics family: _histogram with equal bins over
// a range and with given edges, in every dtype MXNet takes; the bin rules at
// edges (the last bin holds its right edge, values outside and NaNs are not
// counted, edges rounded to the dtype decide), and bad parameters and shapes.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

// Counts by a plain scan of the edges (the rule MXNet documents); `edges` are
// the edges as stored in the dtype.
Values CountRef(const Values& x, const Values& edges) {
  const int64_t nbins = static_cast<int64_t>(edges.size()) - 1;
  Values counts(nbins, 0.0);
  for (double v : x) {
    if (!(v >= edges.front() && v <= edges.back())) continue;
    int64_t b = nbins - 1;
    for (int64_t i = 1; i < nbins; ++i) {
      if (v < edges[i]) {
        b = i - 1;
        break;
      }
    }
    counts[b] += 1;
  }
  return counts;
}

OpCase UniformCase(const std::string& name, const Shape& data, int64_t cnt, double lo, double hi) {
  OpCase c;
  c.name = name;
  c.op = "_histogram";
  c.attrs = {{"bin_cnt", std::to_string(cnt)},
             {"range", "(" + std::to_string(lo) + ", " + std::to_string(hi) + ")"}};
  c.shapes = {data};
  c.check_backward = false;
  // Values on a grid of 0.25 over [lo - 1, hi + 1]: many sit exactly on edges.
  c.init = [=](int, const Shape& s) {
    Values v(NumElements(s));
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] =
          lo - 1 + 0.25 * static_cast<double>((i * 7) % static_cast<size_t>(4 * (hi - lo + 2) + 1));
    }
    return v;
  };
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values edges(cnt + 1);
    for (int64_t i = 0; i <= cnt; ++i) edges[i] = (hi * i + (cnt - i) * lo) / cnt;
    return std::vector<Values>{CountRef(in[0], edges), edges};
  };
  return c;
}

TEST(HistogramConformance, UniformBins) {
  CheckOp(UniformCase("5 bins over [0, 5]", Shape{4, 6}, 5, 0, 5));
  CheckOp(UniformCase("4 bins over [-2, 2]", Shape{37}, 4, -2, 2));
  CheckOp(UniformCase("1 bin", Shape{2, 3, 2}, 1, 0, 1));
  CheckOp(UniformCase("empty data", Shape{0, 3}, 3, 0, 3));
}

TEST(HistogramConformance, GivenEdges) {
  OpCase c;
  c.name = "uneven edges";
  c.op = "_histogram";
  c.shapes = {Shape{5, 7}, Shape{4}};
  c.check_backward = false;
  c.init = [](int input, const Shape& s) {
    if (input == 1) return Values{-0.5, 0.0, 0.25, 0.75};
    Values v(NumElements(s));
    for (size_t i = 0; i < v.size(); ++i) v[i] = -1 + 0.125 * static_cast<double>((i * 5) % 17);
    return v;
  };
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{CountRef(in[0], in[1]), in[1]};
  };
  CheckOp(c);
}

std::vector<double> AsDoubles(const Tensor& t) { return t.ToDoubles(); }

TEST(HistogramConformance, EveryDtype) {
  // MXNet 1.9.1: int32 [0..5] in 2 bins over (0, 5) has int32 edges 0, 2, 5
  // (2.5 truncated) and counts 2, 4.
  for (DType t : {DType::kInt32, DType::kInt64, DType::kInt8, DType::kUint8}) {
    Tensor x = MakeTensor(Shape{6}, {0, 1, 2, 3, 4, 5}, t);
    std::vector<Tensor> out = RunOp("_histogram", {{"bin_cnt", "2"}, {"range", "(0, 5)"}}, {x});
    EXPECT_EQ(out[0].dtype(), DType::kInt64);
    EXPECT_EQ(out[1].dtype(), t);
    EXPECT_EQ(AsDoubles(out[0]), (Values{2, 4})) << DTypeName(t);
    EXPECT_EQ(AsDoubles(out[1]), (Values{0, 2, 5})) << DTypeName(t);
  }
  // float16: edges rounded to float16 decide, as in MXNet (0.1 is stored as
  // 0.0999755859375, so 0.1 rounded to float16 is on the edge).
  Tensor h = MakeTensor(Shape{4}, {0.0999755859375, 0.05, 0.3, 0.31}, DType::kFloat16);
  std::vector<Tensor> out = RunOp("_histogram", {{"bin_cnt", "3"}, {"range", "(0, 0.3)"}}, {h});
  EXPECT_EQ(out[1].dtype(), DType::kFloat16);
  EXPECT_EQ(AsDoubles(out[0]), (Values{1, 1, 0}));
  // bool and bfloat16 are not MXNet's.
  Tensor b = MakeTensor(Shape{2}, {0, 1}, DType::kBFloat16);
  std::string msg = ErrorOf([&] {
    RunOp("_histogram", {{"bin_cnt", "2"}, {"range", "(0, 1)"}}, {b}, "h");
  });
  EXPECT_CONTAINS(msg, "bfloat16");
}

TEST(HistogramConformance, EdgeRules) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = MakeTensor(Shape{7}, {0, 1, 2, 3, nan, -0.01, 3.01}, DType::kFloat32);
  // The last bin holds its right edge; NaN and values outside are not counted.
  std::vector<Tensor> out = RunOp("_histogram", {{"bin_cnt", "3"}, {"range", "(0, 3)"}}, {x});
  EXPECT_EQ(AsDoubles(out[0]), (Values{1, 1, 2}));
  // A range with equal ends is widened by 0.5 on each side.
  out = RunOp("_histogram", {{"bin_cnt", "2"}, {"range", "(1, 1)"}}, {x});
  EXPECT_EQ(AsDoubles(out[1]), (Values{0.5, 1, 1.5}));
  EXPECT_EQ(AsDoubles(out[0]), (Values{0, 1}));
  // Given edges: the value equal to the last edge lands in the last bin.
  Tensor edges = MakeTensor(Shape{3}, {0, 2, 3}, DType::kFloat32);
  out = RunOp("_histogram", {}, {x, edges});
  EXPECT_EQ(AsDoubles(out[0]), (Values{2, 2}));
  EXPECT_EQ(AsDoubles(out[1]), (Values{0, 2, 3}));
}

TEST(HistogramConformance, Errors) {
  Tensor x = MakeTensor(Shape{4}, {0, 1, 2, 3}, DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("_histogram", {{"bin_cnt", "3"}}, {x}, "h"); });
  EXPECT_CONTAINS(msg, "range");
  EXPECT_CONTAINS(msg, "together");
  msg = ErrorOf([&] { RunOp("_histogram", {{"range", "(0, 1)"}}, {x}, "h"); });
  EXPECT_CONTAINS(msg, "bin_cnt");
  msg = ErrorOf([&] { RunOp("_histogram", {{"bin_cnt", "0"}, {"range", "(0, 1)"}}, {x}, "h"); });
  EXPECT_CONTAINS(msg, "bin_cnt");
  EXPECT_CONTAINS(msg, ">= 1");
  msg = ErrorOf([&] { RunOp("_histogram", {{"bin_cnt", "2"}, {"range", "(2, 1)"}}, {x}, "h"); });
  EXPECT_CONTAINS(msg, "range");
  EXPECT_CONTAINS(msg, "must not exceed");
  msg = ErrorOf([&] { RunOp("_histogram", {{"bin_cnt", "2"}, {"range", "(0, 1, 2)"}}, {x}, "h"); });
  EXPECT_CONTAINS(msg, "expected 2 values");
  msg = ErrorOf([&] { RunOp("_histogram", {{"bin_cnt", "2"}, {"range", "(0, inf)"}}, {x}, "h"); });
  EXPECT_CONTAINS(msg, "finite");
  Tensor one_edge = MakeTensor(Shape{1}, {0}, DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_histogram", {}, {x, one_edge}, "h"); });
  EXPECT_CONTAINS(msg, "bins");
  EXPECT_CONTAINS(msg, "[1]");
  Tensor edges_2d = MakeTensor(Shape{2, 2}, {0, 1, 2, 3}, DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_histogram", {}, {x, edges_2d}, "h"); });
  EXPECT_CONTAINS(msg, "[2,2]");
  Tensor edges_f64 = MakeTensor(Shape{3}, {0, 1, 2}, DType::kFloat64);
  msg = ErrorOf([&] { RunOp("_histogram", {}, {x, edges_f64}, "h"); });
  EXPECT_CONTAINS(msg, "bins");
}

}  // namespace
}  // namespace testing
}  // namespace symx
