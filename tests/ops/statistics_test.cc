// Conformance tests for the statistics family: _contrib_hawkesll against its
// recursion written out (gradients by finite differences), and _histogram with equal bins over
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

// hawkesll's recursion written out plainly (the docs' formulas, in double).
std::vector<Values> HawkesRef(const std::vector<Values>& in, int64_t n, int64_t k, int64_t t) {
  Values ll(n), out_state(n * k);
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> state(in[3].begin() + i * k, in[3].begin() + (i + 1) * k), last(k, 0.0);
    double sum = 0, time = 0;
    for (int64_t j = 0; static_cast<double>(j) < in[6][i]; ++j) {
      const int64_t c = static_cast<int64_t>(in[5][i * t + j]);
      time += in[4][i * t + j];
      const double d = time - last[c], ed = std::exp(-in[2][c] * d);
      const double mu = in[0][i * k + c];
      sum += std::log(mu + in[1][c] * in[2][c] * state[c] * ed) -
             (mu * d + in[1][c] * state[c] * (1 - ed));
      state[c] = 1 + state[c] * ed;
      last[c] = time;
    }
    for (int64_t c = 0; c < k; ++c) {
      const double d = in[7][i] - last[c], ed = std::exp(-in[2][c] * d);
      sum -= in[0][i * k + c] * d + in[1][c] * state[c] * (1 - ed);
      out_state[i * k + c] = state[c] * ed;
    }
    ll[i] = sum;
  }
  return {ll, out_state};
}

OpCase HawkesCase(const std::string& name, int64_t n, int64_t k, int64_t t,
                  std::vector<double> lengths) {
  OpCase c;
  c.name = name;
  c.op = "_contrib_hawkesll";
  c.shapes = {Shape{n, k}, Shape{k},    Shape{k}, Shape{n, k},
              Shape{n, t}, Shape{n, t}, Shape{n}, Shape{n}};
  // MXNet's gradient: lda, alpha, beta from the log likelihood only.
  c.no_grad = {3, 4, 5, 6, 7};
  c.no_head_grad = {1};
  c.init = [=](int input, const Shape& s) {
    Values v(NumElements(s));
    for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) {
      const double w = 0.5 + 0.5 * std::sin(1.3 * static_cast<double>(i + 3 * input));
      switch (input) {
        case 0:
          v[i] = 0.5 + 1.5 * w;
          break;  // lda
        case 1:
          v[i] = 0.1 + 0.4 * w;
          break;  // alpha
        case 2:
          v[i] = 0.5 + 1.5 * w;
          break;  // beta
        case 3:
          v[i] = w;
          break;  // state
        case 4:
          v[i] = 0.1 + w;
          break;  // lags
        case 5:
          v[i] = static_cast<double>((i * 7 + 1) % k);
          break;  // marks
        case 6:
          v[i] = lengths[i];
          break;  // valid_length
        default:
          v[i] = 1.5 * static_cast<double>(t) + 1;
          break;  // max_time
      }
    }
    return v;
  };
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    return HawkesRef(in, n, k, t);
  };
  return c;
}

TEST(HawkesConformance, LogLikelihood) {
  CheckOp(HawkesCase("3 samples, 2 processes", 3, 2, 5, {5, 3, 0}));
  CheckOp(HawkesCase("one process, fractional length", 2, 1, 4, {2.5, 4}));
  CheckOp(HawkesCase("4 processes", 2, 4, 6, {6, 1}));
}

TEST(HawkesConformance, MarksInAnyIntegerDtypeAndErrors) {
  auto f = [](const Shape& s, Values v) { return MakeTensor(s, v, DType::kFloat64); };
  Tensor lda = f(Shape{1, 2}, {1.0, 2.0}), alpha = f(Shape{2}, {0.2, 0.3});
  Tensor beta = f(Shape{2}, {1.0, 2.0}), state = f(Shape{1, 2}, {0.0, 0.0});
  Tensor lags = f(Shape{1, 3}, {0.5, 0.5, 1.0}), valid = f(Shape{1}, {3});
  Tensor max_time = f(Shape{1}, {10});
  Tensor marks = MakeTensor(Shape{1, 3}, {0, 1, 1}, DType::kInt32);
  std::vector<Tensor> out =
      RunOp("_contrib_hawkesll", {}, {lda, alpha, beta, state, lags, marks, valid, max_time});
  const std::vector<Values> want =
      HawkesRef({lda.ToDoubles(), alpha.ToDoubles(), beta.ToDoubles(), state.ToDoubles(),
                 lags.ToDoubles(), marks.ToDoubles(), valid.ToDoubles(), max_time.ToDoubles()},
                1, 2, 3);
  EXPECT_NEAR(out[0].ToDoubles()[0], want[0][0], 1e-12);
  EXPECT_NEAR(out[1].ToDoubles()[1], want[1][1], 1e-12);
  Tensor bad_mark = MakeTensor(Shape{1, 3}, {0, 2, 1}, DType::kInt32);
  std::string msg = ErrorOf([&] {
    RunOp("_contrib_hawkesll", {}, {lda, alpha, beta, state, lags, bad_mark, valid, max_time}, "h");
  });
  EXPECT_CONTAINS(msg, "marks[0, 1] = 2");
  Tensor long_len = f(Shape{1}, {4});
  msg = ErrorOf([&] {
    RunOp("_contrib_hawkesll", {}, {lda, alpha, beta, state, lags, marks, long_len, max_time}, "h");
  });
  EXPECT_CONTAINS(msg, "valid_length[0] = 4");
  Tensor alpha3 = f(Shape{3}, {0.1, 0.2, 0.3});
  msg = ErrorOf([&] {
    RunOp("_contrib_hawkesll", {}, {lda, alpha3, beta, state, lags, marks, valid, max_time}, "h");
  });
  EXPECT_CONTAINS(msg, "alpha");
  EXPECT_CONTAINS(msg, "[3]");
  EXPECT_CONTAINS(msg, "K (processes) = 2");
  Tensor lags1 = f(Shape{3}, {0.5, 0.5, 1.0});
  msg = ErrorOf([&] {
    RunOp("_contrib_hawkesll", {}, {lda, alpha, beta, state, lags1, marks, valid, max_time}, "h");
  });
  EXPECT_CONTAINS(msg, "lags");
  Tensor half_marks = MakeTensor(Shape{1, 3}, {0, 1, 1}, DType::kFloat16);
  msg = ErrorOf([&] {
    RunOp("_contrib_hawkesll", {}, {lda, alpha, beta, state, lags, half_marks, valid, max_time},
          "h");
  });
  EXPECT_CONTAINS(msg, "float16");
}

}  // namespace
}  // namespace testing
}  // namespace symx
