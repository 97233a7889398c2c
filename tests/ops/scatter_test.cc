// Tests of the scatter family (graph/ops/scatter.cc): _slice_assign
// (_crop_assign), _slice_assign_scalar (_crop_assign_scalar), scatter_nd,
// _scatter_set_nd and _contrib_index_copy.
//
// Conformance: references are plain loops from MXNet 1.9.1's definitions, in
// every dtype (the ops move elements); gradients (scatter_nd, index_copy) by
// finite differences. Direct tests: bad indices, parameters and shapes are
// errors naming them; coinciding positions keep the last write.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "graph/op.h"
#include "graph/ops/tensor.h"
#include "graph/shape.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"
#include "tests/expect_contains.h"
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

const std::vector<DType> kAllTypes = {DType::kFloat32,  DType::kFloat64, DType::kFloat16,
                                      DType::kBFloat16, DType::kInt32,   DType::kInt64,
                                      DType::kInt8,     DType::kUint8};
// The same without uint8, for cases whose index inputs (which the harness
// gives the case's dtype) hold negative values.
const std::vector<DType> kSignedTypes = {DType::kFloat32,  DType::kFloat64, DType::kFloat16,
                                         DType::kBFloat16, DType::kInt32,   DType::kInt64,
                                         DType::kInt8};

Values Ramp(const Shape& s, double start) {
  Values v(NumElements(s));
  for (size_t k = 0; k < v.size(); ++k) v[k] = start + static_cast<double>((k * 7) % 41);
  return v;
}

// The flat positions slice (begin, end, step) takes from `whole`, in order.
std::vector<int64_t> SlicePositions(const Shape& whole,
                                    const std::vector<std::optional<int64_t>>& b,
                                    const std::vector<std::optional<int64_t>>& e,
                                    const std::vector<std::optional<int64_t>>& st) {
  const std::vector<int64_t> strides = Strides(whole);
  std::vector<int64_t> pos = {0};
  for (int d = 0; d < whole.ndim(); ++d) {
    SliceRange r{0, 1, whole[d]};
    if (d < static_cast<int>(b.size())) {
      r = ResolveSlice(b[d], e[d], st.empty() ? std::nullopt : st[d], whole[d]);
    }
    std::vector<int64_t> next;
    for (int64_t p : pos) {
      for (int64_t k = 0; k < r.count; ++k) next.push_back(p + (r.begin + k * r.step) * strides[d]);
    }
    pos = std::move(next);
  }
  return pos;
}

struct SliceRow {
  AttrMap attrs;
  Shape whole;
  std::vector<std::optional<int64_t>> b, e, st;
};

const std::vector<SliceRow>& SliceRows() {
  static const std::vector<SliceRow> rows = {
      {{{"begin", "(0,)"}, {"end", "(1,)"}}, {2, 3}, {0}, {1}, {}},
      {{{"begin", "(None, 1)"}, {"end", "(None, 3)"}},
       {3, 4},
       {std::nullopt, 1},
       {std::nullopt, 3},
       {}},
      {{{"begin", "(-1, None)"}, {"end", "(None, 0)"}, {"step", "(1, -2)"}},
       {3, 5},
       {-1, std::nullopt},
       {std::nullopt, 0},
       {1, -2}},
      {{{"begin", "(1, 0, 1)"}, {"end", "(2, 2, 4)"}, {"step", "(None, None, 2)"}},
       {2, 3, 4},
       {1, 0, 1},
       {2, 2, 4},
       {std::nullopt, std::nullopt, 2}},
  };
  return rows;
}

// ----------------------------------------------------------------------------- _slice_assign

TEST(ScatterConformance, SliceAssign) {
  for (const char* op : {"_slice_assign", "_crop_assign"}) {
    for (const SliceRow& row : SliceRows()) {
      const std::vector<int64_t> pos = SlicePositions(row.whole, row.b, row.e, row.st);
      OpCase c;
      c.op = op;
      c.name = absl::StrCat(op, " ", row.whole.ToString(), " ", row.attrs.at("begin"));
      c.attrs = row.attrs;
      c.init = [](int i, const Shape& s) { return Ramp(s, i == 0 ? 1 : 50); };
      c.dtypes = kAllTypes;
      c.check_backward = false;
      c.reference = [pos](const std::vector<Values>& in, const std::vector<Shape>&) {
        Values out = in[0];
        for (size_t k = 0; k < pos.size(); ++k) out[pos[k]] = in[1][k];
        return std::vector<Values>{out};
      };
      // rhs has the slice's shape.
      Shape part = row.whole;
      for (size_t d = 0; d < row.b.size(); ++d) {
        part[d] = ResolveSlice(row.b[d], row.e[d], row.st.empty() ? std::nullopt : row.st[d],
                               row.whole[d])
                      .count;
      }
      c.shapes = {row.whole, part};
      CheckOp(c);
    }
  }
}

TEST(ScatterConformance, SliceAssignScalar) {
  for (const char* op : {"_slice_assign_scalar", "_crop_assign_scalar"}) {
    for (const SliceRow& row : SliceRows()) {
      const std::vector<int64_t> pos = SlicePositions(row.whole, row.b, row.e, row.st);
      OpCase c;
      c.op = op;
      c.name = absl::StrCat(op, " ", row.whole.ToString(), " ", row.attrs.at("begin"));
      c.attrs = row.attrs;
      c.attrs["scalar"] = "7";
      c.shapes = {row.whole};
      c.init = [](int, const Shape& s) { return Ramp(s, 1); };
      c.dtypes = kAllTypes;
      c.check_backward = false;
      c.reference = [pos](const std::vector<Values>& in, const std::vector<Shape>&) {
        Values out = in[0];
        for (int64_t p : pos) out[p] = 7;
        return std::vector<Values>{out};
      };
      CheckOp(c);
    }
  }
  // The scalar is converted to the dtype (truncated for integers).
  const Tensor x = MakeTensor(Shape{3}, {1, 2, 3}, DType::kInt32);
  std::vector<Tensor> out = RunOp("_slice_assign_scalar",
                                  {{"begin", "(1,)"}, {"end", "(None,)"}, {"scalar", "-2.7"}}, {x});
  EXPECT_EQ(out[0].ToDoubles(), (Values{1, -2, -2}));
  EXPECT_EQ(OpRegistry::Global().Find("_crop_assign_scalar"),
            OpRegistry::Global().Find("_slice_assign_scalar"));
}

TEST(ScatterErrors, SliceAssign) {
  const Tensor x = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  const Tensor y = MakeTensor(Shape{1, 2}, Values(2, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] {
    RunOp("_slice_assign", {{"begin", "(0,)"}, {"end", "(1,)"}}, {x, y});
  });
  EXPECT_CONTAINS(msg, "rhs");
  EXPECT_CONTAINS(msg, "[1,3]");
  EXPECT_CONTAINS(msg, "[1,2]");
  msg = ErrorOf([&] { RunOp("_slice_assign", {{"begin", "(0,)"}}, {x, y}); });
  EXPECT_CONTAINS(msg, "end");
  msg = ErrorOf([&] {
    RunOp("_slice_assign", {{"begin", "(0,)"}, {"end", "(1,)"}, {"step", "(0,)"}}, {x, y});
  });
  EXPECT_CONTAINS(msg, "step");
  msg = ErrorOf([&] {
    RunOp("_slice_assign_scalar", {{"begin", "(0,)"}, {"end", "(1,)"}, {"scalar", "abc"}}, {x});
  });
  EXPECT_CONTAINS(msg, "scalar");
  EXPECT_CONTAINS(msg, "abc");
  msg = ErrorOf([&] {
    RunOp("_slice_assign_scalar", {{"begin", "(0, 0, 0)"}, {"end", "(1, 1, 1)"}}, {x});
  });
  EXPECT_CONTAINS(msg, "[2,3]");
  msg = ErrorOf([&] {
    RunOp("_slice_assign_scalar", {{"begin", "(0,)"}, {"end", "(1,)"}, {"value", "1"}}, {x});
  });
  EXPECT_CONTAINS(msg, "value");
}

// ----------------------------------------------------------------------------- scatter_nd,
// _scatter_set_nd

struct NdRow {
  Shape target, indices;
  Values idx;
};

const std::vector<NdRow>& NdRows() {
  static const std::vector<NdRow> rows = {
      // Elements of a matrix (M = 2), negative values counting from the end.
      {{3, 4}, {2, 3}, {0, 2, -1, 3, -4, 1}},
      // Rows (M = 1) of a 3-D array, indices (1, 2, 2).
      {{4, 2, 3}, {1, 2, 2}, {3, 0, 1, -2}},
      {{5}, {1, 2}, {4, 1}},
  };
  return rows;
}

// Each index column's flat row in the target and the row length, from the
// index values as stored.
std::vector<int64_t> RowsOf(const NdRow& r, const Values& idx, int64_t* slice) {
  const int64_t m = r.indices[0], count = NumElements(r.indices) / m;
  *slice = 1;
  for (int d = static_cast<int>(m); d < r.target.ndim(); ++d) *slice *= r.target[d];
  std::vector<int64_t> rows;
  for (int64_t y = 0; y < count; ++y) {
    int64_t row = 0;
    for (int64_t d = 0; d < m; ++d) {
      int64_t v = static_cast<int64_t>(idx[d * count + y]);
      if (v < 0) v += r.target[d];
      row = row * r.target[d] + v;
    }
    rows.push_back(row);
  }
  return rows;
}

Shape DataShape(const NdRow& r) {
  std::vector<int64_t> dims(r.indices.dims().begin() + 1, r.indices.dims().end());
  dims.insert(dims.end(), r.target.dims().begin() + r.indices[0], r.target.dims().end());
  return Shape(dims);
}

TEST(ScatterConformance, ScatterNd) {
  for (const NdRow& row : NdRows()) {
    OpCase c;
    c.op = "scatter_nd";
    c.name = absl::StrCat("scatter_nd into ", row.target.ToString());
    c.attrs = {{"shape", row.target.ToTupleString()}};
    c.shapes = {DataShape(row), row.indices};
    c.init = [row](int i, const Shape& s) { return i == 1 ? row.idx : Ramp(s, 1); };
    c.no_grad = {1};
    c.dtypes = kSignedTypes;
    const int64_t n = NumElements(row.target);
    c.reference = [row, n](const std::vector<Values>& in, const std::vector<Shape>&) {
      int64_t slice = 0;
      const std::vector<int64_t> rows = RowsOf(row, in[1], &slice);
      Values out(n, 0.0);
      for (size_t y = 0; y < rows.size(); ++y) {
        for (int64_t k = 0; k < slice; ++k) out[rows[y] * slice + k] = in[0][y * slice + k];
      }
      return std::vector<Values>{out};
    };
    CheckOp(c);
  }
}

TEST(ScatterConformance, ScatterSetNd) {
  for (const NdRow& row : NdRows()) {
    OpCase c;
    c.op = "_scatter_set_nd";
    c.name = absl::StrCat("_scatter_set_nd into ", row.target.ToString());
    c.attrs = {{"shape", row.target.ToTupleString()}};
    c.shapes = {row.target, DataShape(row), row.indices};
    c.init = [row](int i, const Shape& s) { return i == 2 ? row.idx : Ramp(s, i == 0 ? 1 : 60); };
    c.check_backward = false;
    c.dtypes = kSignedTypes;
    c.reference = [row](const std::vector<Values>& in, const std::vector<Shape>&) {
      int64_t slice = 0;
      const std::vector<int64_t> rows = RowsOf(row, in[2], &slice);
      Values out = in[0];
      for (size_t y = 0; y < rows.size(); ++y) {
        for (int64_t k = 0; k < slice; ++k) out[rows[y] * slice + k] = in[1][y * slice + k];
      }
      return std::vector<Values>{out};
    };
    CheckOp(c);
  }
}

TEST(ScatterKernel, CoincidingPositionsKeepTheLastWrite) {
  const Tensor data = MakeTensor(Shape{3}, {5, 6, 7}, DType::kFloat32);
  const Tensor idx = MakeTensor(Shape{1, 3}, {1, 1, 0}, DType::kInt32);
  std::vector<Tensor> out = RunOp("scatter_nd", {{"shape", "(3,)"}}, {data, idx});
  EXPECT_EQ(out[0].ToDoubles(), (Values{7, 6, 0}));
}

TEST(ScatterErrors, ScatterNd) {
  const Tensor data = MakeTensor(Shape{2}, {1, 2}, DType::kFloat32);
  const Tensor bad = MakeTensor(Shape{1, 2}, {0, 3}, DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("scatter_nd", {{"shape", "(3,)"}}, {data, bad}, "s1"); });
  EXPECT_CONTAINS(msg, "s1");
  EXPECT_CONTAINS(msg, "index 3");
  EXPECT_CONTAINS(msg, "size 3");
  const Tensor neg = MakeTensor(Shape{1, 2}, {0, -4}, DType::kInt64);
  msg = ErrorOf([&] { RunOp("scatter_nd", {{"shape", "(3,)"}}, {data, neg}); });
  EXPECT_CONTAINS(msg, "index -4");
  const Tensor idx = MakeTensor(Shape{1, 2}, {0, 1}, DType::kInt32);
  msg = ErrorOf([&] { RunOp("scatter_nd", {{"shape", "(3, 2)"}}, {data, idx}); });
  EXPECT_CONTAINS(msg, "[2]");
  EXPECT_CONTAINS(msg, "[2,2]");
  msg = ErrorOf([&] { RunOp("scatter_nd", {}, {data, idx}); });
  EXPECT_CONTAINS(msg, "shape");
  msg = ErrorOf([&] { RunOp("scatter_nd", {{"shape", "(3, -1)"}}, {data, idx}); });
  EXPECT_CONTAINS(msg, "shape");
  const Tensor flat = MakeTensor(Shape{2}, {0, 1}, DType::kInt32);
  msg = ErrorOf([&] { RunOp("scatter_nd", {{"shape", "(3,)"}}, {data, flat}); });
  EXPECT_CONTAINS(msg, "indices");
  const Tensor deep = MakeTensor(Shape{2, 2}, {0, 1, 0, 1}, DType::kInt32);
  msg = ErrorOf([&] { RunOp("scatter_nd", {{"shape", "(3,)"}}, {data, deep}); });
  EXPECT_CONTAINS(msg, "[2,2]");
}

// ----------------------------------------------------------------------------- _contrib_index_copy

TEST(ScatterConformance, IndexCopy) {
  struct Row {
    Shape old, rows;
    Values idx;
  };
  for (const Row& row : std::vector<Row>{
           {{5, 3}, {2, 3}, {4, 1}}, {{4, 2, 2}, {3, 2, 2}, {2, 0, 3.7}}, {{3}, {1}, {2}}}) {
    OpCase c;
    c.op = "_contrib_index_copy";
    c.name = absl::StrCat("index_copy ", row.old.ToString());
    c.shapes = {row.old, Shape{row.rows[0]}, row.rows};
    c.init = [row](int i, const Shape& s) { return i == 1 ? row.idx : Ramp(s, i == 0 ? 1 : 60); };
    c.no_grad = {1};
    c.dtypes = kAllTypes;
    c.reference = [](const std::vector<Values>& in, const std::vector<Shape>& s) {
      Values out = in[0];
      const int64_t slice = s[0][0] > 0 ? NumElements(s[0]) / s[0][0] : 0;
      for (size_t i = 0; i < in[1].size(); ++i) {
        const int64_t r = static_cast<int64_t>(std::trunc(in[1][i]));
        for (int64_t k = 0; k < slice; ++k) out[r * slice + k] = in[2][i * slice + k];
      }
      return std::vector<Values>{out};
    };
    CheckOp(c);
  }
}

TEST(ScatterErrors, IndexCopy) {
  const Tensor old = MakeTensor(Shape{3, 2}, Values(6, 1.0), DType::kFloat32);
  const Tensor rows = MakeTensor(Shape{1, 2}, Values(2, 5.0), DType::kFloat32);
  const Tensor bad = MakeTensor(Shape{1}, {3}, DType::kInt32);
  std::string msg = ErrorOf([&] { RunOp("_contrib_index_copy", {}, {old, bad, rows}); });
  EXPECT_CONTAINS(msg, "index 3");
  EXPECT_CONTAINS(msg, "3 rows");
  const Tensor neg = MakeTensor(Shape{1}, {-1}, DType::kInt32);
  msg = ErrorOf([&] { RunOp("_contrib_index_copy", {}, {old, neg, rows}); });
  EXPECT_CONTAINS(msg, "index -1");
  const Tensor wide = MakeTensor(Shape{1, 3}, Values(3, 5.0), DType::kFloat32);
  const Tensor ok = MakeTensor(Shape{1}, {0}, DType::kInt32);
  msg = ErrorOf([&] { RunOp("_contrib_index_copy", {}, {old, ok, wide}); });
  EXPECT_CONTAINS(msg, "[1,3]");
  EXPECT_CONTAINS(msg, "[3,2]");
  const Tensor two = MakeTensor(Shape{2}, {0, 1}, DType::kInt32);
  msg = ErrorOf([&] { RunOp("_contrib_index_copy", {}, {old, two, rows}); });
  EXPECT_CONTAINS(msg, "index_vector");
  msg = ErrorOf([&] { RunOp("_contrib_index_copy", {{"axis", "0"}}, {old, ok, rows}); });
  EXPECT_CONTAINS(msg, "axis");
}

// ----------------------------------------------------------------------------- legacy row fills

TEST(ScatterConformance, FillElement0IndexAndOnehotEncode) {
  // Truncated columns; out-of-range ones (-1, 4, 9.5) write nothing.
  const Values idx = {2, -1, 3.7, 4, 0, 9.5};
  OpCase f;
  f.op = "fill_element_0index";
  f.name = "fill_element_0index (6, 4)";
  f.shapes = {Shape{6, 4}, Shape{6}, Shape{6}};
  f.init = [idx](int i, const Shape& s) { return i == 2 ? idx : Ramp(s, i == 0 ? 1 : 60); };
  f.check_backward = false;
  f.dtypes = {DType::kFloat32};
  f.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out = in[0];
    for (int64_t i = 0; i < 6; ++i) {
      const double c = std::trunc(in[2][i]);
      if (c >= 0 && c < 4) out[i * 4 + static_cast<int64_t>(c)] = in[1][i];
    }
    return std::vector<Values>{out};
  };
  CheckOp(f);
  OpCase h;
  h.op = "_onehot_encode";
  h.name = "_onehot_encode (6, 4)";
  h.shapes = {Shape{6}, Shape{6, 4}};
  h.init = [idx](int i, const Shape& s) { return i == 0 ? idx : Ramp(s, 1); };
  h.check_backward = false;
  h.dtypes = {DType::kFloat32};
  h.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out(24, 0.0);
    for (int64_t i = 0; i < 6; ++i) {
      const double c = std::trunc(in[0][i]);
      if (c >= 0 && c < 4) out[i * 4 + static_cast<int64_t>(c)] = 1;
    }
    return std::vector<Values>{out};
  };
  CheckOp(h);
}

TEST(ScatterErrors, LegacyRowFills) {
  const Tensor m = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  const Tensor v3 = MakeTensor(Shape{3}, Values(3, 1.0), DType::kFloat32);
  const Tensor v2 = MakeTensor(Shape{2}, Values(2, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("fill_element_0index", {}, {m, v3, v2}); });
  EXPECT_CONTAINS(msg, "[3]");
  EXPECT_CONTAINS(msg, "[2]");
  msg = ErrorOf([&] { RunOp("_onehot_encode", {}, {v3, m}); });
  EXPECT_CONTAINS(msg, "[3]");
  const Tensor d = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat64);
  msg = ErrorOf([&] { RunOp("_onehot_encode", {}, {v2, d}); });
  EXPECT_CONTAINS(msg, "float64");
}

}  // namespace
}  // namespace symx
