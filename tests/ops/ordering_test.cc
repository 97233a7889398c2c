// Tests of the ordering family (graph/ops/ordering.cc): argmax, argmin,
// argmax_channel, sort, argsort, topk and _np_cumsum.
//
// References are plain loops written from MXNet 1.9.1's documented and observed
// behaviour (first index on ties, NaN as the extreme, MXNet's CPU order of ties);
// backward ops by finite differences.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"
#include "tests/ops/index_layouts.h"

namespace symx {
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

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Distinct pseudo-random values (no ties), used where order matters.
Values Distinct(int, const Shape& s) {
  Values r(NumElements(s));
  for (size_t k = 0; k < r.size(); ++k) r[k] = std::sin(0.5 + 2.3 * static_cast<double>(k)) * 3.0;
  return r;
}

// ----------------------------------------------------------------------------- argmax/argmin

Values WithTies(int, const Shape& s) {
  Values v(NumElements(s));
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>((k * 7 + 3) % 5);
  return v;
}

TEST(IndexingConformance, ArgmaxArgmin) {
  struct Row {
    std::string op;
    std::optional<int64_t> axis;
    bool keepdims;
    Shape shape;
  };
  const std::vector<Row> rows = {
      {"argmax", 1, false, {3, 4}},
      {"argmin", 1, false, {3, 4}},
      {"argmax", 0, true, {3, 4}},
      {"argmin", -1, true, {2, 3, 4}},
      {"argmax", -2, false, {2, 3, 4}},
      {"argmax", std::nullopt, false, {3, 4}},
      {"argmin", std::nullopt, true, {2, 3, 2}},
      {"argmax", 0, false, {7}},
  };
  for (const Row& row : rows) {
    for (bool nan : {false, true}) {
      OpCase c;
      c.name = absl::StrCat(row.op, " axis ", row.axis ? absl::StrCat(*row.axis) : "None",
                            row.keepdims ? " keepdims" : "", nan ? " with NaN" : " ties");
      c.op = row.op;
      if (row.axis) c.attrs["axis"] = absl::StrCat(*row.axis);
      if (row.keepdims) c.attrs["keepdims"] = "1";
      c.shapes = {row.shape};
      c.init = [nan](int i, const Shape& s) {
        Values v = WithTies(i, s);
        if (nan) {
          for (size_t k = 2; k < v.size(); k += 5) v[k] = kNaN;
        }
        return v;
      };
      c.check_backward = false;
      c.dtypes = nan ? std::vector<DType>{DType::kFloat32, DType::kFloat64}
                     : std::vector<DType>{DType::kFloat32, DType::kFloat64, DType::kFloat16,
                                          DType::kInt32, DType::kInt64};
      const bool is_max = row.op == "argmax";
      std::optional<int> axis;
      if (row.axis) axis = Norm(*row.axis, row.shape.ndim());
      c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& s) {
        Lay l = LayoutOf(s[0], axis);
        Values out;
        for (int64_t o = 0; o < l.outer; ++o) {
          for (int64_t r = 0; r < l.inner; ++r) {
            int64_t best = -1;
            for (int64_t j = 0; j < l.n; ++j) {
              double v = in[0][(o * l.n + j) * l.inner + r];
              if (std::isnan(v)) {
                best = j;
                break;
              }
              double b = best < 0 ? 0 : in[0][(o * l.n + best) * l.inner + r];
              if (best < 0 || (is_max ? v > b : v < b)) best = j;
            }
            out.push_back(static_cast<double>(best));
          }
        }
        return std::vector<Values>{out};
      };
      CheckOp(c);
    }
  }
}

TEST(IndexingConformance, ArgmaxChannel) {
  OpCase c;
  c.name = "argmax_channel (2, 3, 4)";
  c.op = "argmax_channel";
  c.shapes = {Shape{2, 3, 4}};
  c.init = WithTies;
  c.check_backward = false;
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>& s) {
    Values out;
    for (int64_t o = 0; o < 2; ++o) {
      for (int64_t r = 0; r < 4; ++r) {
        int64_t best = 0;
        for (int64_t j = 1; j < 3; ++j) {
          if (in[0][(o * 3 + j) * 4 + r] > in[0][(o * 3 + best) * 4 + r]) best = j;
        }
        out.push_back(static_cast<double>(best));
      }
    }
    return std::vector<Values>{out};
  };
  CheckOp(c);
}

// ----------------------------------------------------------------------------- sort/argsort/topk

// Positions of one row in order: stable, as libstdc++'s std::sort is for rows
// of at most 16 elements (MXNet's order; longer rows with ties differ).
std::vector<int64_t> Order(const Values& row, bool asc) {
  std::vector<int64_t> p(row.size());
  for (size_t j = 0; j < p.size(); ++j) p[j] = static_cast<int64_t>(j);
  // Insertion sort: the textbook stable loop.
  for (size_t i = 1; i < p.size(); ++i) {
    int64_t cur = p[i];
    size_t j = i;
    while (j > 0 && (asc ? row[cur] < row[p[j - 1]] : row[cur] > row[p[j - 1]])) {
      p[j] = p[j - 1];
      --j;
    }
    p[j] = cur;
  }
  return p;
}

struct TopKSpec {
  std::string op;  // sort, argsort, topk
  std::optional<int64_t> axis = -1;
  int64_t k = 1;
  std::string ret = "indices";
  bool asc = false;
};

std::vector<Values> TopKReference(const TopKSpec& t, const Values& x, const Shape& s) {
  std::optional<int> axis;
  if (t.axis) axis = Norm(*t.axis, s.ndim());
  Lay l = LayoutOf(s, axis);
  const int64_t k = t.k <= 0 ? l.n : t.k;
  const bool mask = t.ret == "mask";
  const int64_t ok = mask ? l.n : k;
  Values val(l.outer * l.inner * ok, 0.0), idx(l.outer * l.inner * ok, 0.0);
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t r = 0; r < l.inner; ++r) {
      Values row(l.n);
      for (int64_t j = 0; j < l.n; ++j) row[j] = x[(o * l.n + j) * l.inner + r];
      std::vector<int64_t> p = Order(row, t.asc);
      for (int64_t j = 0; j < k; ++j) {
        if (mask) {
          val[(o * ok + p[j]) * l.inner + r] = 1.0;
        } else {
          val[(o * ok + j) * l.inner + r] = row[p[j]];
          idx[(o * ok + j) * l.inner + r] = static_cast<double>(p[j]);
        }
      }
    }
  }
  if (t.op == "sort" || t.ret == "value" || mask) return {val};
  if (t.ret == "both") return {val, idx};
  return {idx};
}

OpCase TopKCase(const TopKSpec& t, const Shape& shape, bool ties) {
  OpCase c;
  c.name = absl::StrCat(t.op, " axis ", t.axis ? absl::StrCat(*t.axis) : "None", " k ", t.k, " ",
                        t.ret, t.asc ? " ascending" : " descending", " ", shape.ToString(),
                        ties ? " ties" : "");
  c.op = t.op;
  if (t.axis) {
    c.attrs["axis"] = absl::StrCat(*t.axis);
  } else {
    c.attrs["axis"] = "None";
  }
  c.attrs["is_ascend"] = t.asc ? "True" : "False";
  if (t.op == "topk") {
    c.attrs["k"] = absl::StrCat(t.k);
    c.attrs["ret_typ"] = t.ret;
  }
  c.shapes = {shape};
  c.init = ties ? std::function<Values(int, const Shape&)>(WithTies)
                : std::function<Values(int, const Shape&)>(Distinct);
  const bool differentiable = t.op == "sort" || t.ret == "value" || t.ret == "both";
  c.check_backward = differentiable && !ties;
  if (!differentiable && !ties) {
    // Zero gradient: checked by differences too (the output is locally constant).
    c.check_backward = true;
  }
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kInt32};
  if (!ties) c.dtypes = {DType::kFloat32, DType::kFloat64};
  c.reference = [t](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return TopKReference(t, in[0], s[0]);
  };
  return c;
}

TEST(OrderingConformance, Sort) {
  for (bool ties : {false, true}) {
    CheckOp(TopKCase({"sort", -1, 0, "value", true}, Shape{3, 5}, ties));
    CheckOp(TopKCase({"sort", 0, 0, "value", false}, Shape{4, 3}, ties));
    CheckOp(TopKCase({"sort", -2, 0, "value", true}, Shape{2, 4, 3}, ties));
    CheckOp(TopKCase({"sort", std::nullopt, 0, "value", false}, Shape{3, 4}, ties));
  }
}

TEST(OrderingConformance, Argsort) {
  for (bool ties : {false, true}) {
    CheckOp(TopKCase({"argsort", -1, 0, "indices", true}, Shape{3, 5}, ties));
    CheckOp(TopKCase({"argsort", 1, 0, "indices", false}, Shape{2, 4, 3}, ties));
    CheckOp(TopKCase({"argsort", std::nullopt, 0, "indices", true}, Shape{2, 6}, ties));
  }
  // dtype of the positions.
  OpCase c = TopKCase({"argsort", -1, 0, "indices", true}, Shape{3, 5}, false);
  c.name += " int64 positions";
  c.attrs["dtype"] = "int64";
  CheckOp(c);
}

TEST(OrderingConformance, TopK) {
  for (bool ties : {false, true}) {
    for (const std::string ret : {"indices", "value", "both", "mask"}) {
      CheckOp(TopKCase({"topk", -1, 2, ret, false}, Shape{3, 5}, ties));
      CheckOp(TopKCase({"topk", 0, 1, ret, true}, Shape{4, 3}, ties));      // k = 1
      CheckOp(TopKCase({"topk", 1, 3, ret, false}, Shape{2, 3, 2}, ties));  // k = size
      CheckOp(TopKCase({"topk", -1, 0, ret, true}, Shape{2, 6}, ties));     // k <= 0: all
      CheckOp(TopKCase({"topk", -1, -2, ret, false}, Shape{2, 6}, ties));
      CheckOp(TopKCase({"topk", std::nullopt, 4, ret, false}, Shape{3, 4}, ties));
    }
  }
  // Partial sort (8 k <= n): distinct values.
  CheckOp(TopKCase({"topk", -1, 2, "both", false}, Shape{2, 40}, false));
  CheckOp(TopKCase({"topk", -1, 3, "mask", true}, Shape{2, 40}, false));
  // float16 data.
  OpCase c = TopKCase({"topk", -1, 2, "both", false}, Shape{3, 5}, false);
  c.dtypes = {DType::kFloat16};
  c.check_backward = false;
  CheckOp(c);
}

// ----------------------------------------------------------------------------- cumsum

TEST(OrderingConformance, Cumsum) {
  struct Row {
    std::optional<int64_t> axis;
    Shape shape;
    std::string dtype;
  };
  const std::vector<Row> rows = {
      {std::nullopt, {2, 3, 4}, ""}, {0, {2, 3, 4}, ""},         {1, {2, 3, 4}, ""},
      {-1, {2, 3, 4}, ""},           {-2, {2, 3}, ""},           {0, {5}, "float64"},
      {1, {3, 4}, "int32"},          {std::nullopt, {0, 3}, ""},
  };
  for (const Row& row : rows) {
    OpCase c;
    c.name = absl::StrCat("cumsum axis ", row.axis ? absl::StrCat(*row.axis) : "None", " ",
                          row.shape.ToString(), " ", row.dtype);
    c.op = "cumsum";
    if (row.axis) c.attrs["axis"] = absl::StrCat(*row.axis);
    if (!row.dtype.empty()) c.attrs["dtype"] = row.dtype;
    c.shapes = {row.shape};
    const bool to_int = row.dtype == "int32";
    if (to_int) {
      c.init = [](int, const Shape& s) {
        Values v(NumElements(s));
        for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(k % 7) * 1.3 - 3.2;
        return v;
      };
      c.check_backward = false;
      c.dtypes = {DType::kFloat32, DType::kFloat64};
    }
    std::optional<int> axis;
    if (row.axis) axis = Norm(*row.axis, row.shape.ndim());
    c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& s) {
      Lay l = LayoutOf(s[0], axis);
      Values out(in[0].size());
      for (int64_t o = 0; o < l.outer; ++o) {
        for (int64_t r = 0; r < l.inner; ++r) {
          double acc = 0;
          for (int64_t j = 0; j < l.n; ++j) {
            int64_t at = (o * l.n + j) * l.inner + r;
            acc += to_int ? std::trunc(in[0][at]) : in[0][at];
            out[at] = acc;
          }
        }
      }
      return std::vector<Values>{out};
    };
    CheckOp(c);
  }
}

// Ties and NaN in long rows: the order is libstdc++'s std::sort / partial_sort
// with MXNet's comparison. Values here were produced by MXNet 1.9.1
// (mx.nd.argsort / topk on the same rows).
TEST(OrderingDirect, MatchesMxnetOrderOnTies) {
  Values row;
  for (int r = 0; r < 40; ++r) {
    for (double v : {3, 1, 3, 2, 1, 3, 0, 1}) row.push_back(v);
  }
  Tensor x = MakeTensor(Shape{1, 320}, row, DType::kFloat32);
  Values desc = RunOp("argsort", {{"is_ascend", "False"}}, {x})[0].ToDoubles();
  const Values want_head = {125, 109, 256, 112, 114, 253, 117, 120, 250, 122,
                            258, 248, 128, 245, 130, 133, 242, 136, 138, 93};
  EXPECT_EQ(Values(desc.begin(), desc.begin() + 20), want_head);
  Values nan_row = {3, kNaN, 1, 2};
  Tensor xn = MakeTensor(Shape{4}, nan_row, DType::kFloat32);
  EXPECT_EQ(RunOp("argsort", {}, {xn})[0].ToDoubles(), (Values{2, 0, 1, 3}));
  EXPECT_EQ(RunOp("argsort", {{"is_ascend", "0"}}, {xn})[0].ToDoubles(), (Values{0, 1, 3, 2}));
}

}  // namespace

}  // namespace symx
