// Tests of the indexing family (graph/ops/indexing.cc): one_hot, pick, take,
// gather_nd and Embedding.
//
// Conformance: references are plain loops written from MXNet 1.9.1's documented
// and observed behaviour (clip / wrap / raise index modes, truncation of float
// indices); backward ops by finite differences. Direct tests: errors naming a
// bad index, integer index dtypes, Embedding's clipping of integer indices and
// its scatter-add on large tables.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "executor/imperative.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "graph/node.h"
#include "graph/op.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"
#include "tests/expect_contains.h"
#include "tests/ops/conformance.h"
#include "tests/ops/index_layouts.h"
#include "tests/ops/kernel_calls.h"

namespace symx {
namespace {

using testing::CheckOp;
using testing::NumElements;
using testing::OpCase;
using testing::Values;

// ----------------------------------------------------------------------------- Embedding

OpCase EmbeddingCase(const Shape& data, int64_t input_dim, int64_t output_dim, Values indices) {
  OpCase c;
  c.op = "Embedding";
  c.name = "Embedding " + data.ToString() + " table (" + std::to_string(input_dim) + ", " +
           std::to_string(output_dim) + ")";
  c.attrs = {{"input_dim", std::to_string(input_dim)}, {"output_dim", std::to_string(output_dim)}};
  c.shapes = {data, Shape{input_dim, output_dim}};
  c.no_grad = {0};
  c.init = [indices](int i, const Shape& s) {
    if (i == 0) return indices;
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) v[k] = std::sin(0.9 * k + 0.2);
    return v;
  };
  c.reference = [input_dim, output_dim](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out;
    for (double v : in[0]) {
      // Truncate, then clip to the table (MXNet's clip mode).
      int64_t r = static_cast<int64_t>(v);
      if (v <= 0) r = 0;
      if (r > input_dim - 1) r = input_dim - 1;
      for (int64_t c = 0; c < output_dim; ++c) out.push_back(in[1][r * output_dim + c]);
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(IndexingConformance, Embedding) {
  CheckOp(EmbeddingCase(Shape{2, 3}, 10, 4, {0, 3, 9, 3, 1, 0}));
  // Out of range and fractional indices: clipped and truncated; repeated rows
  // accumulate their gradients.
  CheckOp(EmbeddingCase(Shape{6}, 5, 3, {-1, 7, 2.7, 4, 4, -0.5}));
  CheckOp(EmbeddingCase(Shape{2, 2, 2}, 3, 1, {0, 1, 2, 1, 0, 0, 2, 2}));
  CheckOp(EmbeddingCase(Shape{0}, 4, 2, {}));
  CheckOp(EmbeddingCase(Shape{1}, 1, 5, {0}));
}

}  // namespace

namespace {

using index_layouts::Given;
using index_layouts::Lay;
using index_layouts::LayoutOf;
using index_layouts::Norm;
using index_layouts::Values;
using testing::CheckOp;
using testing::ErrorOf;
using testing::MakeTensor;
using testing::NumElements;
using testing::OpCase;
using testing::RunOp;
using testing::Strides;
using testing::Values;

// MXNet's clip / wrap of an index value along n elements.
int64_t Clip(double v, int64_t n) {
  if (std::isnan(v) || v <= 0) return 0;
  int64_t t = static_cast<int64_t>(std::trunc(v));
  return std::min(t, n - 1);
}

int64_t Wrap(double v, int64_t n) {
  if (std::isnan(v)) return 0;
  int64_t t = static_cast<int64_t>(std::trunc(v));
  return ((t % n) + n) % n;
}

// ----------------------------------------------------------------------------- one_hot

TEST(IndexingConformance, OneHot) {
  struct Row {
    AttrMap attrs;
    Values idx;
  };
  const std::vector<Row> rows = {
      {{{"depth", "5"}}, {0, 2, 4, 7, -1, 2.7, -0.5, 4.99}},
      {{{"depth", "3"}, {"on_value", "2.5"}, {"off_value", "-1"}}, {1, 0, 3, 2, -3, 1, 2, 0}},
      {{{"depth", "4"}, {"dtype", "float64"}}, {3, 3, 0, 1, 5, 2, 1, -2}},
      {{{"depth", "4"}, {"dtype", "int32"}, {"on_value", "7"}}, {3, 3, 0, 1, 5, 2, 1, -2}},
  };
  for (const Row& row : rows) {
    OpCase c;
    c.name = absl::StrCat("one_hot depth ", row.attrs.at("depth"));
    c.op = "one_hot";
    c.attrs = row.attrs;
    c.shapes = {Shape{2, 4}};
    c.init = Given(0, row.idx);
    c.check_backward = false;
    c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kInt32};
    const int64_t depth = std::stoll(row.attrs.at("depth"));
    const double on = row.attrs.count("on_value") ? std::stod(row.attrs.at("on_value")) : 1.0;
    const double off = row.attrs.count("off_value") ? std::stod(row.attrs.at("off_value")) : 0.0;
    c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
      Values out;
      for (double v : in[0]) {
        for (int64_t j = 0; j < depth; ++j) {
          const bool hit = !std::isnan(v) && std::trunc(v) == static_cast<double>(j);
          out.push_back(hit ? on : off);
        }
      }
      return std::vector<Values>{out};
    };
    CheckOp(c);
  }
}

// ----------------------------------------------------------------------------- pick

TEST(IndexingConformance, Pick) {
  struct Row {
    std::string axis;
    bool keepdims;
    std::string mode;
    Shape data, index;
    Values idx;
  };
  const std::vector<Row> rows = {
      {"1", false, "clip", {3, 4}, {3}, {0, 5, -1}},
      {"-1", true, "clip", {3, 4}, {3, 1}, {1.7, -0.5, 3}},
      {"1", false, "wrap", {3, 4}, {3}, {-1.7, 5.2, -5}},
      {"0", false, "wrap", {3, 4}, {4}, {0, 5, -1, 2}},
      {"-2", true, "clip", {2, 3, 4}, {2, 1, 4}, {0, 1, 2, 2, 1, 1, 9, -4}},
      {"0", false, "clip", {5}, {1}, {3}},
  };
  for (const Row& row : rows) {
    OpCase c;
    c.name = absl::StrCat("pick axis ", row.axis, " ", row.mode, row.keepdims ? " keepdims" : "");
    c.op = "pick";
    c.attrs = {{"axis", row.axis}, {"mode", row.mode}};
    if (row.keepdims) c.attrs["keepdims"] = "True";
    c.shapes = {row.data, row.index};
    c.init = Given(1, row.idx);
    c.no_grad = {1};
    c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kInt32};
    const int axis = Norm(std::stoll(row.axis), row.data.ndim());
    const bool wrap = row.mode == "wrap";
    c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& s) {
      Lay l = LayoutOf(s[0], axis);
      Values out;
      for (int64_t o = 0; o < l.outer; ++o) {
        for (int64_t r = 0; r < l.inner; ++r) {
          double v = in[1][o * l.inner + r];
          int64_t j = wrap ? Wrap(v, l.n) : Clip(v, l.n);
          out.push_back(in[0][(o * l.n + j) * l.inner + r]);
        }
      }
      return std::vector<Values>{out};
    };
    CheckOp(c);
  }
}

// ----------------------------------------------------------------------------- take

TEST(IndexingConformance, Take) {
  struct Row {
    int64_t axis;
    std::string mode;
    Shape a, idx;
    Values values;
  };
  const std::vector<Row> rows = {
      {0, "clip", {3, 4}, {2, 3}, {0, 5, -1, -4, 1.7, -0.5}},
      {0, "wrap", {3, 4}, {2, 3}, {0, 5, -1, -4, 1.7, -0.5}},
      {1, "wrap", {3, 4}, {2, 2}, {0, 5, -1, 1}},
      {-1, "clip", {2, 3, 4}, {3}, {3, 0, 3}},
      {1, "raise", {2, 3, 4}, {2, 2}, {2, 0, 1, 2}},
      {0, "raise", {5}, {4}, {4, 0, 2.9, 4}},
      {0, "clip", {4, 1}, {1}, {2}},
  };
  for (const Row& row : rows) {
    OpCase c;
    c.name = absl::StrCat("take axis ", row.axis, " ", row.mode, " ", row.a.ToString());
    c.op = "take";
    c.attrs = {{"axis", absl::StrCat(row.axis)}, {"mode", row.mode}};
    c.shapes = {row.a, row.idx};
    c.init = Given(1, row.values);
    c.no_grad = {1};
    c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kInt32};
    const int axis = Norm(row.axis, row.a.ndim());
    const std::string mode = row.mode;
    c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& s) {
      Lay l = LayoutOf(s[0], axis);
      Values out;
      for (int64_t o = 0; o < l.outer; ++o) {
        for (double v : in[1]) {
          int64_t j = mode == "wrap" ? Wrap(v, l.n) : Clip(v, l.n);
          for (int64_t r = 0; r < l.inner; ++r) out.push_back(in[0][(o * l.n + j) * l.inner + r]);
        }
      }
      return std::vector<Values>{out};
    };
    CheckOp(c);
  }
}

// ----------------------------------------------------------------------------- gather_nd

TEST(IndexingConformance, GatherNd) {
  struct Row {
    Shape data, idx;
    Values values;
  };
  const std::vector<Row> rows = {
      // Elements, duplicates (gradient accumulates), negative and fractional indices.
      {{3, 4}, {2, 6}, {0, -1, -3, 1.7, -0.5, 0, 0, -1, -4, 2.5, -0.5, 0}},
      // Rows of a 3-D array: M = 1, each index picks a (4, 2) slice.
      {{3, 4, 2}, {1, 2, 2}, {2, 0, -1, 2}},
      {{2, 3, 2}, {2, 3}, {1, 0, 1, 2, -1, 2}},
  };
  for (const Row& row : rows) {
    OpCase c;
    c.name = absl::StrCat("gather_nd ", row.data.ToString(), " by ", row.idx.ToString());
    c.op = "gather_nd";
    c.shapes = {row.data, row.idx};
    c.init = Given(1, row.values);
    c.no_grad = {1};
    c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kInt32};
    c.reference = [](const std::vector<Values>& in, const std::vector<Shape>& s) {
      const int m = static_cast<int>(s[1][0]);
      const int64_t count = NumElements(s[1]) / m;
      int64_t slice = 1;
      for (int d = m; d < s[0].ndim(); ++d) slice *= s[0][d];
      Values out;
      for (int64_t y = 0; y < count; ++y) {
        int64_t off = 0;
        for (int d = 0; d < m; ++d) {
          double v = in[1][d * count + y];
          if (v < 0) v += static_cast<double>(s[0][d]);
          off = off * s[0][d] + static_cast<int64_t>(v);
        }
        for (int64_t r = 0; r < slice; ++r) out.push_back(in[0][off * slice + r]);
      }
      return std::vector<Values>{out};
    };
    CheckOp(c);
  }
}

// ----------------------------------------------------------------------------- direct runs

TEST(IndexingDirect, TakeRaiseNamesTheIndex) {
  Tensor a = MakeTensor(Shape{3, 2}, {0, 1, 2, 3, 4, 5}, DType::kFloat32);
  for (double bad : {3.0, -1.0, 2.5}) {
    std::string msg = ErrorOf([&] {
      RunOp("take", {{"mode", "raise"}}, {a, MakeTensor(Shape{2}, {0, bad}, DType::kFloat32)},
            "take1");
    });
    EXPECT_CONTAINS(msg, "take1");
    EXPECT_CONTAINS(msg, "take");
    EXPECT_CONTAINS(msg, absl::StrCat("index ", bad == 2.5 ? "2.5" : absl::StrCat(int(bad))));
    EXPECT_CONTAINS(msg, "mode='raise'");
  }
  // In range: fine, including the last row.
  std::vector<Tensor> out =
      RunOp("take", {{"mode", "raise"}}, {a, MakeTensor(Shape{2}, {2, 0}, DType::kFloat32)});
  EXPECT_EQ(out[0].ToDoubles(), (Values{4, 5, 0, 1}));
}

TEST(IndexingDirect, GatherNdOutOfBounds) {
  Tensor d = MakeTensor(Shape{3, 4}, Values(12, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] {
    RunOp("gather_nd", {}, {d, MakeTensor(Shape{2, 1}, {5, 0}, DType::kInt32)}, "g");
  });
  EXPECT_CONTAINS(msg, "index 5 is out of bounds for axis 0 with size 3");
  EXPECT_CONTAINS(msg, "gather_nd");
  msg = ErrorOf([&] {
    RunOp("gather_nd", {}, {d, MakeTensor(Shape{2, 1}, {0, -5}, DType::kInt32)});
  });
  EXPECT_CONTAINS(msg, "index -5 is out of bounds for axis 1 with size 4");
}

TEST(IndexingDirect, IntegerIndicesWithFloatData) {
  Tensor data = MakeTensor(Shape{2, 3}, {0, 1, 2, 3, 4, 5}, DType::kFloat32);
  for (DType it : {DType::kInt32, DType::kInt64, DType::kUint8, DType::kFloat16}) {
    SCOPED_TRACE(DTypeName(it));
    EXPECT_EQ(
        RunOp("take", {{"axis", "1"}}, {data, MakeTensor(Shape{2}, {2, 0}, it)})[0].ToDoubles(),
        (Values{2, 0, 5, 3}));
    EXPECT_EQ(RunOp("pick", {}, {data, MakeTensor(Shape{2}, {2, 1}, it)})[0].ToDoubles(),
              (Values{2, 4}));
    EXPECT_EQ(
        RunOp("gather_nd", {}, {data, MakeTensor(Shape{2, 2}, {1, 0, 2, 1}, it)})[0].ToDoubles(),
        (Values{5, 1}));
    std::vector<Tensor> oh = RunOp("one_hot", {{"depth", "3"}}, {MakeTensor(Shape{2}, {2, 0}, it)});
    EXPECT_EQ(oh[0].dtype(), DType::kFloat32);
    EXPECT_EQ(oh[0].ToDoubles(), (Values{0, 0, 1, 1, 0, 0}));
  }
}

TEST(IndexingDirect, OutputDtypes) {
  Tensor x = MakeTensor(Shape{2, 3}, {3, 1, 2, 0, 5, 4}, DType::kFloat64);
  EXPECT_EQ(RunOp("argmax", {{"axis", "1"}}, {x})[0].dtype(), DType::kFloat64);
  EXPECT_EQ(RunOp("argsort", {}, {x})[0].dtype(), DType::kFloat32);
  std::vector<Tensor> both = RunOp("topk", {{"ret_typ", "both"}, {"dtype", "int32"}}, {x});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].dtype(), DType::kFloat64);
  EXPECT_EQ(both[1].dtype(), DType::kInt32);
  EXPECT_EQ(both[1].ToDoubles(), (Values{0, 1}));
  EXPECT_EQ(RunOp("sort", {}, {x}).size(), 1u);
  std::vector<Tensor> cs = RunOp("cumsum", {}, {MakeTensor(Shape{3}, {1, 0, 1}, DType::kBool)});
  EXPECT_EQ(cs[0].dtype(), DType::kInt64);
  EXPECT_EQ(cs[0].ToDoubles(), (Values{1, 1, 2}));
  // int8 one_hot wraps an on_value out of range as MXNet's cast does.
  EXPECT_EQ(RunOp("one_hot", {{"depth", "2"}, {"dtype", "int8"}, {"on_value", "300"}},
                  {MakeTensor(Shape{1}, {1}, DType::kFloat32)})[0]
                .ToDoubles(),
            (Values{0, 44}));
}

}  // namespace

namespace {

using kernel_calls::Cpu;
using kernel_calls::Empty;
using kernel_calls::Ramp;
using kernel_calls::RunKernel;
using ::testing::HasSubstr;

// ----------------------------------------------------------------------------- Embedding

TEST(EmbeddingKernel, IntegerIndicesAreClipped) {
  const Shape table{5, 2};
  Tensor w = Tensor::FromVector(table, {0, 1, 10, 11, 20, 21, 30, 31, 40, 41});
  for (DType t : {DType::kInt32, DType::kInt64, DType::kUint8, DType::kInt8, DType::kFloat16}) {
    SCOPED_TRACE(DTypeName(t));
    std::vector<double> idx = {3, 0, 9, 4, 2};
    if (t != DType::kUint8) idx[1] = -4;
    Tensor ix = Tensor::FromVector(Shape{5}, idx, t);
    Tensor y = Empty(Shape{5, 2});
    AttrMap attrs = {{"input_dim", "5"}, {"output_dim", "2"}};
    ASSERT_TRUE(RunKernel("Embedding", attrs, {ix, w}, {y}).ok());
    EXPECT_EQ(y.ToDoubles(), (std::vector<double>{30, 31, 0, 1, 40, 41, 40, 41, 20, 21}));
    Tensor og = Tensor::FromVector(Shape{5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    Tensor gi = Empty(Shape{5}, t), gw = Empty(table);
    ASSERT_TRUE(RunKernel("_backward_Embedding", attrs, {og, ix}, {gi, gw}).ok());
    EXPECT_EQ(gi.ToDoubles(), std::vector<double>(5, 0.0));
    EXPECT_EQ(gw.ToDoubles(), (std::vector<double>{3, 4, 0, 0, 9, 10, 1, 2, 12, 14}));
  }
}

TEST(EmbeddingKernel, LargeScatterAddMatchesLoop) {
  const int64_t rows = 97, dim = 33, n = 5000;
  std::vector<double> idx(n);
  for (int64_t i = 0; i < n; ++i) idx[i] = static_cast<double>((i * 31) % rows);
  Tensor ix = Tensor::FromVector(Shape{n}, idx, DType::kInt32);
  Tensor og = Tensor::FromVector(Shape{n, dim}, Ramp(n * dim), DType::kFloat64);
  Tensor gi = Empty(Shape{n}, DType::kInt32), gw = Empty(Shape{rows, dim}, DType::kFloat64);
  ASSERT_TRUE(RunKernel("_backward_Embedding",
                        {{"input_dim", std::to_string(rows)}, {"output_dim", std::to_string(dim)}},
                        {og, ix}, {gi, gw})
                  .ok());
  std::vector<double> want(rows * dim, 0.0), ogv = og.ToDoubles();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t c = 0; c < dim; ++c) want[idx[i] * dim + c] += ogv[i * dim + c];
  }
  std::vector<double> got = gw.ToDoubles();
  for (size_t k = 0; k < want.size(); ++k) ASSERT_NEAR(got[k], want[k], 1e-9) << k;
}

}  // namespace

}  // namespace symx

namespace symx {
namespace {

using testing::CheckOp;
using testing::ErrorOf;
using testing::MakeTensor;
using testing::NumElements;
using testing::OpCase;
using testing::RunOp;
using testing::Values;

// ----------------------------------------------------------------------------- batch_take

TEST(IndexingConformance, BatchTake) {
  struct Row {
    Shape a, idx;
    Values v;
  };
  for (const Row& row : std::vector<Row>{{{3, 4}, {3}, {0, 3, 2}},
                                         {{4, 3}, {4}, {-1, 7, 1, 2}},
                                         {{2, 2, 3}, {2, 2}, {2, 0, 1, 5}}}) {
    OpCase c;
    c.op = "batch_take";
    c.name = absl::StrCat("batch_take ", row.a.ToString());
    c.shapes = {row.a, row.idx};
    c.init = [row](int i, const Shape& s) {
      if (i == 1) return row.v;
      Values v(NumElements(s));
      for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(k % 50) + 1;
      return v;
    };
    c.check_backward = false;
    // The harness gives every input the case's dtype and indices are int32
    // (MXNet's rule); other data dtypes are checked below.
    c.dtypes = {DType::kInt32};
    const int64_t m = row.a[row.a.ndim() - 1];
    c.reference = [m](const std::vector<Values>& in, const std::vector<Shape>&) {
      Values out;
      for (size_t i = 0; i < in[1].size(); ++i) {
        int64_t j = static_cast<int64_t>(in[1][i]);
        j = j < 0 ? 0 : (j >= m ? m - 1 : j);
        out.push_back(in[0][i * m + j]);
      }
      return std::vector<Values>{out};
    };
    CheckOp(c);
  }
}

TEST(IndexingKernel, BatchTakeMovesEveryDtype) {
  const Values a = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const Tensor idx = MakeTensor(Shape{3}, {3, -2, 1}, DType::kInt32);
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
                  DType::kInt64, DType::kInt8, DType::kUint8}) {
    std::vector<Tensor> out = RunOp("batch_take", {}, {MakeTensor(Shape{3, 4}, a, t), idx});
    EXPECT_EQ(out[0].dtype(), t);
    EXPECT_EQ(out[0].ToDoubles(), (Values{4, 5, 10})) << DTypeName(t);
  }
}

TEST(IndexingErrors, BatchTake) {
  const Tensor a = MakeTensor(Shape{3, 4}, Values(12, 1.0), DType::kFloat32);
  const Tensor idx = MakeTensor(Shape{2}, {0, 1}, DType::kInt32);
  std::string msg = ErrorOf([&] { RunOp("batch_take", {}, {a, idx}); });
  EXPECT_CONTAINS(msg, "[2]");
  EXPECT_CONTAINS(msg, "[3,4]");
  const Tensor f = MakeTensor(Shape{3}, {0, 1, 2}, DType::kFloat32);
  msg = ErrorOf([&] { RunOp("batch_take", {}, {a, f}); });
  EXPECT_CONTAINS(msg, "int32");
  const Tensor flat = MakeTensor(Shape{3}, {0, 1, 2}, DType::kFloat32);
  const Tensor i1 = MakeTensor(Shape{3}, {0, 1, 2}, DType::kInt32);
  msg = ErrorOf([&] { RunOp("batch_take", {}, {flat, i1}); });
  EXPECT_CONTAINS(msg, "at least 2 dims");
}

// ----------------------------------------------------------------------------- ravel / unravel

TEST(IndexingConformance, RavelAndUnravel) {
  const std::vector<int64_t> shape = {3, 4, 5};
  OpCase r;
  r.op = "_ravel_multi_index";
  r.name = "ravel_multi_index (3, 4, 5)";
  r.attrs = {{"shape", "(3, 4, 5)"}};
  r.shapes = {Shape{3, 4}};
  r.init = index_layouts::Given(0, {0, 2, 1, 2, 3, 0, 1, 3, 4, 1, 0, 2});
  r.check_backward = false;
  r.dtypes = {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64};
  r.reference = [shape](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out;
    for (int64_t i = 0; i < 4; ++i) {
      int64_t f = 0;
      for (int64_t j = 0; j < 3; ++j) f = f * shape[j] + static_cast<int64_t>(in[0][j * 4 + i]);
      out.push_back(static_cast<double>(f));
    }
    return std::vector<Values>{out};
  };
  CheckOp(r);
  OpCase u;
  u.op = "_unravel_index";
  u.name = "unravel_index (3, 4, 5)";
  u.attrs = {{"shape", "(3, 4, 5)"}};
  u.shapes = {Shape{5}};
  // 61 is past the end: the first coordinate is the quotient left (3), as MXNet.
  u.init = index_layouts::Given(0, {0, 59, 22, 37, 61});
  u.check_backward = false;
  u.dtypes = {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64};
  u.reference = [shape](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out(15);
    for (int64_t i = 0; i < 5; ++i) {
      int64_t f = static_cast<int64_t>(in[0][i]);
      for (int64_t j = 2; j > 0; --j) {
        out[j * 5 + i] = static_cast<double>(f % shape[j]);
        f /= shape[j];
      }
      out[i] = static_cast<double>(f);
    }
    return std::vector<Values>{out};
  };
  CheckOp(u);
  EXPECT_EQ(OpRegistry::Global().Find("ravel_multi_index"),
            OpRegistry::Global().Find("_ravel_multi_index"));
  EXPECT_EQ(OpRegistry::Global().Find("unravel_index"),
            OpRegistry::Global().Find("_unravel_index"));
}

TEST(IndexingErrors, RavelAndUnravel) {
  const Tensor x = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("_ravel_multi_index", {{"shape", "(3, 4, 5)"}}, {x}); });
  EXPECT_CONTAINS(msg, "[2,3]");
  msg = ErrorOf([&] { RunOp("_ravel_multi_index", {}, {x}); });
  EXPECT_CONTAINS(msg, "shape");
  msg = ErrorOf([&] { RunOp("_unravel_index", {{"shape", "(3, 0)"}}, {x}); });
  EXPECT_CONTAINS(msg, "shape");
  msg = ErrorOf([&] { RunOp("_unravel_index", {{"shape", "(3, 4)"}}, {x}); });
  EXPECT_CONTAINS(msg, "[2,3]");
  EXPECT_CONTAINS(msg, "1 dim");
}

// ----------------------------------------------------------------------------- index_array

TEST(IndexingConformance, IndexArray) {
  struct Row {
    AttrMap attrs;
    Shape s;
    std::vector<int> axes;
  };
  for (const Row& row : std::vector<Row>{{{}, {3, 2}, {0, 1}},
                                         {{{"axes", "(1, 0)"}}, {3, 2, 2}, {1, 0}},
                                         {{{"axes", "(-1,)"}}, {2, 3, 4}, {2}},
                                         {{}, {5}, {0}}}) {
    OpCase c;
    c.op = "_contrib_index_array";
    c.name = absl::StrCat("index_array ", row.s.ToString());
    c.attrs = row.attrs;
    c.shapes = {row.s};
    c.check_backward = false;
    c.dtypes = {DType::kFloat32, DType::kFloat16, DType::kInt32};
    const Row rw = row;
    c.reference = [rw](const std::vector<Values>&, const std::vector<Shape>& s) {
      const std::vector<int64_t> st = testing::Strides(s[0]);
      Values out;
      for (int64_t i = 0; i < NumElements(s[0]); ++i) {
        for (int a : rw.axes) out.push_back(static_cast<double>((i / st[a]) % s[0][a]));
      }
      return std::vector<Values>{out};
    };
    CheckOp(c);
  }
  const Tensor x = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  EXPECT_EQ(RunOp("_contrib_index_array", {}, {x})[0].dtype(), DType::kInt64);
  std::string msg = ErrorOf([&] { RunOp("_contrib_index_array", {{"axes", "(2,)"}}, {x}); });
  EXPECT_CONTAINS(msg, "axes");
  EXPECT_CONTAINS(msg, "2");
}

}  // namespace
}  // namespace symx

namespace symx {
namespace {

// _contrib_boolean_mask runs imperatively: its output length comes from
// index's values, read at the call.
TEST(BooleanMask, SelectsEntriesImperatively) {
  for (const Context& ctx : testing::DevicesPresent()) {
    SCOPED_TRACE(ctx.ToString());
    Tensor data = Tensor::FromVector(Shape{3, 2}, {1, 2, 3, 4, 5, 6}, DType::kFloat32, ctx);
    Tensor index = Tensor::FromVector(Shape{3}, {1, 0, 1}, DType::kFloat32, ctx);
    std::vector<Tensor> out = Invoke({.op = "_contrib_boolean_mask", .positional = {data, index}});
    EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
    EXPECT_EQ(out[0].ToDoubles(), (std::vector<double>{1, 2, 5, 6}));
    // Another call with other values on the same shapes gets its own length.
    Tensor none = Tensor::FromVector(Shape{3}, {0, 0, 0}, DType::kInt32, ctx);
    out = Invoke({.op = "_contrib_boolean_mask", .positional = {data, none}});
    EXPECT_EQ(out[0].shape(), (Shape{0, 2}));
    // Any axis (MXNet: axis 0 only), integer data, negative values select.
    Tensor ints = Tensor::FromVector(Shape{2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
                                     DType::kInt64, ctx);
    Tensor mid = Tensor::FromVector(Shape{3}, {-1, 0, 2}, DType::kInt64, ctx);
    out = Invoke(
        {.op = "_contrib_boolean_mask", .attrs = {{"axis", "1"}}, .positional = {ints, mid}});
    EXPECT_EQ(out[0].shape(), (Shape{2, 2, 2}));
    EXPECT_EQ(out[0].ToDoubles(), (std::vector<double>{0, 1, 4, 5, 6, 7, 10, 11}));
  }
}

// The gradient MXNet's autograd takes: the head gradient's rows back where
// they were taken from, zeros elsewhere.
TEST(BooleanMask, BackwardScattersTheHeadGradient) {
  Tensor g = Tensor::FromVector(Shape{2, 2}, {1, 2, 3, 4}, DType::kFloat32);
  Tensor data = Tensor::FromVector(Shape{3, 2}, Values(6, 9.0), DType::kFloat32);
  Tensor index = Tensor::FromVector(Shape{3}, {1, 0, 1}, DType::kFloat32);
  Tensor dx = Tensor::FromVector(Shape{3, 2}, Values(6, -1.0), DType::kFloat32);
  ASSERT_TRUE(
      kernel_calls::RunKernel("_backward_contrib_boolean_mask", {}, {g, data, index}, {dx}).ok());
  EXPECT_EQ(dx.ToDoubles(), (std::vector<double>{1, 2, 0, 0, 3, 4}));
  Tensor g1 = Tensor::FromVector(Shape{2, 1}, {5, 6}, DType::kFloat32);
  Tensor index1 = Tensor::FromVector(Shape{2}, {0, 1}, DType::kInt32);
  Tensor data1 = Tensor::FromVector(Shape{2, 2}, Values(4, 0.0), DType::kFloat32);
  Tensor dx1 = Tensor::FromVector(Shape{2, 2}, Values(4, -1.0), DType::kFloat32);
  ASSERT_TRUE(kernel_calls::RunKernel("_backward_contrib_boolean_mask", {{"axis", "1"}},
                                      {g1, data1, index1}, {dx1})
                  .ok());
  EXPECT_EQ(dx1.ToDoubles(), (std::vector<double>{0, 5, 0, 6}));
}

TEST(BooleanMask, ErrorsNameTheShapesAndABindIsRefused) {
  Tensor data = Tensor::FromVector(Shape{3, 2}, {1, 2, 3, 4, 5, 6}, DType::kFloat32);
  Tensor short_index = Tensor::FromVector(Shape{2}, {1, 0}, DType::kFloat32);
  std::string msg = testing::ErrorOf([&] {
    Invoke({.op = "_contrib_boolean_mask", .positional = {data, short_index}});
  });
  EXPECT_CONTAINS(msg, "index of shape [2]");
  EXPECT_CONTAINS(msg, "[3,2]");
  Tensor index = Tensor::FromVector(Shape{3}, {1, 0, 1}, DType::kFloat32);
  msg = testing::ErrorOf([&] {
    Invoke({.op = "_contrib_boolean_mask", .attrs = {{"axis", "2"}}, .positional = {data, index}});
  });
  EXPECT_CONTAINS(msg, "axis");
  // In a bound graph the output's length is unknown until index is read.
  Symbol s = OpCall("_contrib_boolean_mask")
                 .Name("mask")
                 .Input(Symbol::Variable("data"))
                 .Input(Symbol::Variable("index"))
                 .Build();
  msg = testing::ErrorOf([&] {
    Executor::SimpleBind(s, {.ctx = Context::CPU(0),
                             .shapes = {{"data", Shape{3, 2}}, {"index", Shape{3}}},
                             .grad_req = GradReq::kNull});
  });
  EXPECT_CONTAINS(msg, "mask");
  EXPECT_CONTAINS(msg, "depends on the values of its inputs");
  EXPECT_CONTAINS(msg, "imperatively");
}

}  // namespace
}  // namespace symx
