// Conformance of the indexing and ordering ops: one_hot, pick, take,
// gather_nd, argmax, argmin, argmax_channel, sort, argsort, topk and cumsum
// (and their backward ops, through finite differences). References are plain
// loops written from MXNet 1.9.1's documented and observed behaviour (clip /
// wrap / raise index modes, truncation of float indices, first index on ties,
// NaN as the extreme, stable order of ties for rows of at most 16 elements).
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

namespace symx {
namespace {

using testing::CheckOp;
using testing::ErrorOf;
using testing::MakeTensor;
using testing::NumElements;
using testing::OpCase;
using testing::RunOp;
using testing::Strides;
using testing::Values;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

int Norm(int64_t axis, int ndim) { return static_cast<int>(axis < 0 ? axis + ndim : axis); }

struct Lay {
  int64_t outer = 1, n = 1, inner = 1;
};
Lay LayoutOf(const Shape& s, std::optional<int> axis) {
  Lay l;
  if (!axis) {
    l.n = NumElements(s);
    return l;
  }
  for (int d = 0; d < s.ndim(); ++d) {
    if (d < *axis) l.outer *= s[d];
    if (d == *axis) l.n = s[d];
    if (d > *axis) l.inner *= s[d];
  }
  return l;
}

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

// Fixed values for input `input` (others random).
std::function<Values(int, const Shape&)> Given(
    int input, Values v, std::function<Values(int, const Shape&)> other = {}) {
  return [input, v, other](int i, const Shape& s) {
    if (i == input) return v;
    if (other) return other(i, s);
    // Distinct values without ties, away from each other (safe for differences).
    Values r(NumElements(s));
    for (size_t k = 0; k < r.size(); ++k) {
      r[k] = std::sin(1.0 + 3.7 * static_cast<double>(k) + 0.3 * i) * 2.0;
    }
    return r;
  };
}

// Distinct pseudo-random values (no ties), used where order matters.
Values Distinct(int, const Shape& s) {
  Values r(NumElements(s));
  for (size_t k = 0; k < r.size(); ++k) r[k] = std::sin(0.5 + 2.3 * static_cast<double>(k)) * 3.0;
  return r;
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
