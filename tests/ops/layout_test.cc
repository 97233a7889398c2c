// Tests of the layout family (graph/ops/layout.cc): reshape_like,
// shape_array, size_array, depth_to_space, space_to_depth and _split_v2.
//
// Conformance: references are plain loops written from MXNet 1.9.1's
// definitions (depth_to_space as reshape (N, b, b, C', H, W), transpose
// (0, 3, 4, 1, 5, 2), reshape; space_to_depth its inverse); gradients by
// finite differences; every dtype, since the ops only move elements. Direct
// tests: each bad parameter and shape is an error naming it.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
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
using testing::Values;

// Every dtype: the ops move elements and never compute.
const std::vector<DType> kAllTypes = {DType::kFloat32,  DType::kFloat64, DType::kFloat16,
                                      DType::kBFloat16, DType::kInt32,   DType::kInt64,
                                      DType::kInt8,     DType::kUint8};

// Distinct small integers (exact in every dtype; uint8 stores them shifted).
Values Ramp(const Shape& s) {
  Values v(NumElements(s));
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>((k * 7) % 61) + 1;
  return v;
}

OpCase MoveCase(const std::string& op, AttrMap attrs, std::vector<Shape> shapes) {
  OpCase c;
  c.op = op;
  c.attrs = std::move(attrs);
  c.shapes = std::move(shapes);
  c.name = absl::StrCat(op, " ", c.shapes[0].ToString());
  c.init = [](int, const Shape& s) { return Ramp(s); };
  c.dtypes = kAllTypes;
  return c;
}

// ----------------------------------------------------------------------------- reshape_like

TEST(LayoutConformance, ReshapeLike) {
  struct Row {
    AttrMap attrs;
    Shape lhs, rhs;
  };
  const std::vector<Row> rows = {
      {{}, {6}, {3, 2}},
      {{{"lhs_begin", "0"}, {"lhs_end", "1"}, {"rhs_begin", "0"}, {"rhs_end", "2"}},
       {30, 7},
       {15, 2, 4}},
      {{{"lhs_begin", "0"}, {"lhs_end", "2"}, {"rhs_begin", "1"}, {"rhs_end", "2"}},
       {3, 5},
       {1, 15, 4}},
      {{{"lhs_begin", "-1"}, {"lhs_end", "None"}, {"rhs_begin", "1"}, {"rhs_end", "None"}},
       {3, 12},
       {4, 2, 2, 3}},
  };
  for (const Row& row : rows) {
    OpCase c = MoveCase("reshape_like", row.attrs, {row.lhs, row.rhs});
    c.no_grad = {1};
    c.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
      return std::vector<Values>{in[0]};
    };
    CheckOp(c);
  }
}

TEST(LayoutShapes, ReshapeLikeOutputShapes) {
  const Tensor x = MakeTensor(Shape{30, 7}, Values(210, 1.0), DType::kFloat32);
  const Tensor y = MakeTensor(Shape{15, 2, 4}, Values(120, 0.0), DType::kFloat32);
  std::vector<Tensor> out =
      RunOp("reshape_like",
            {{"lhs_begin", "0"}, {"lhs_end", "1"}, {"rhs_begin", "0"}, {"rhs_end", "2"}}, {x, y});
  EXPECT_EQ(out[0].shape(), (Shape{15, 2, 7}));
}

TEST(LayoutErrors, ReshapeLike) {
  const Tensor x = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  const Tensor y = MakeTensor(Shape{4, 2}, Values(8, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("reshape_like", {}, {x, y}); });
  EXPECT_CONTAINS(msg, "[2,3]");
  EXPECT_CONTAINS(msg, "[4,2]");
  msg = ErrorOf([&] { RunOp("reshape_like", {{"lhs_begin", "1"}, {"lhs_end", "1"}}, {x, y}); });
  EXPECT_CONTAINS(msg, "lhs_begin=1");
  msg = ErrorOf([&] { RunOp("reshape_like", {{"rhs_end", "5"}}, {x, y}); });
  EXPECT_CONTAINS(msg, "rhs_end=5");
  msg = ErrorOf([&] { RunOp("reshape_like", {{"lhs_begin", "x"}}, {x, y}); });
  EXPECT_CONTAINS(msg, "lhs_begin");
  EXPECT_CONTAINS(msg, "x");
  msg = ErrorOf([&] { RunOp("reshape_like", {{"begin", "0"}}, {x, y}); });
  EXPECT_CONTAINS(msg, "begin");
}

// ----------------------------------------------------------------------------- shape_array,
// size_array

TEST(LayoutConformance, ShapeAndSizeArrays) {
  for (const Shape& s : {Shape{2, 3, 4}, Shape{5}, Shape{1, 0, 2}}) {
    for (const char* op : {"shape_array", "size_array"}) {
      OpCase c = MoveCase(op, {}, {s});
      c.check_backward = false;
      const bool shape = std::string(op) == "shape_array";
      c.reference = [shape](const std::vector<Values>&, const std::vector<Shape>& shapes) {
        Values v;
        if (shape) {
          for (int64_t d : shapes[0].dims()) v.push_back(static_cast<double>(d));
        } else {
          v.push_back(static_cast<double>(NumElements(shapes[0])));
        }
        return std::vector<Values>{v};
      };
      CheckOp(c);
    }
  }
  const Tensor x = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat16);
  EXPECT_EQ(RunOp("shape_array", {}, {x})[0].dtype(), DType::kInt64);
  EXPECT_EQ(RunOp("size_array", {}, {x})[0].dtype(), DType::kInt64);
  EXPECT_CONTAINS(ErrorOf([&] { RunOp("shape_array", {{"axis", "0"}}, {x}); }), "axis");
}

// ----------------------------------------------------------------------------- depth_to_space,
// space_to_depth

// out(n, c, h*b + i, w*b + j) = in(n, (i*b + j)*C' + c, h, w) for (N, C, H, W) in.
Values DepthToSpaceRef(const Values& in, const Shape& s, int64_t b) {
  const int64_t n = s[0], cc = s[1] / (b * b), h = s[2], w = s[3];
  Values out(in.size());
  for (int64_t a = 0; a < n; ++a)
    for (int64_t c = 0; c < cc; ++c)
      for (int64_t y = 0; y < h * b; ++y)
        for (int64_t x = 0; x < w * b; ++x) {
          const int64_t ch = ((y % b) * b + x % b) * cc + c;
          out[((a * cc + c) * h * b + y) * w * b + x] =
              in[((a * s[1] + ch) * h + y / b) * w + x / b];
        }
  return out;
}

// The inverse: out(n, (i*b + j)*C + c, y, x) = in(n, c, y*b + i, x*b + j).
Values SpaceToDepthRef(const Values& in, const Shape& s, int64_t b) {
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  Values out(in.size());
  for (int64_t a = 0; a < n; ++a)
    for (int64_t i = 0; i < b; ++i)
      for (int64_t j = 0; j < b; ++j)
        for (int64_t k = 0; k < c; ++k)
          for (int64_t y = 0; y < h / b; ++y)
            for (int64_t x = 0; x < w / b; ++x) {
              const int64_t ch = (i * b + j) * c + k;
              out[((a * c * b * b + ch) * (h / b) + y) * (w / b) + x] =
                  in[((a * c + k) * h + y * b + i) * w + x * b + j];
            }
  return out;
}

TEST(LayoutConformance, DepthToSpace) {
  struct Row {
    Shape s;
    int64_t b;
  };
  for (const Row& row :
       std::vector<Row>{{{1, 4, 2, 3}, 2}, {{2, 18, 2, 1}, 3}, {{2, 3, 2, 2}, 1}}) {
    OpCase c = MoveCase("depth_to_space", {{"block_size", std::to_string(row.b)}}, {row.s});
    const int64_t b = row.b;
    c.reference = [b](const std::vector<Values>& in, const std::vector<Shape>& s) {
      return std::vector<Values>{DepthToSpaceRef(in[0], s[0], b)};
    };
    CheckOp(c);
  }
}

TEST(LayoutConformance, SpaceToDepth) {
  struct Row {
    Shape s;
    int64_t b;
  };
  for (const Row& row : std::vector<Row>{{{1, 1, 4, 6}, 2}, {{2, 2, 3, 6}, 3}, {{1, 3, 2, 2}, 1}}) {
    OpCase c = MoveCase("space_to_depth", {{"block_size", std::to_string(row.b)}}, {row.s});
    const int64_t b = row.b;
    c.reference = [b](const std::vector<Values>& in, const std::vector<Shape>& s) {
      return std::vector<Values>{SpaceToDepthRef(in[0], s[0], b)};
    };
    CheckOp(c);
  }
}

TEST(LayoutShapes, BlockOpsAreInverses) {
  Values v = Ramp(Shape{2, 8, 3, 2});
  const Tensor x = MakeTensor(Shape{2, 8, 3, 2}, v, DType::kFloat32);
  std::vector<Tensor> d = RunOp("depth_to_space", {{"block_size", "2"}}, {x});
  EXPECT_EQ(d[0].shape(), (Shape{2, 2, 6, 4}));
  std::vector<Tensor> back = RunOp("space_to_depth", {{"block_size", "2"}}, {d[0]});
  EXPECT_EQ(back[0].shape(), (Shape{2, 8, 3, 2}));
  EXPECT_EQ(back[0].ToDoubles(), v);
}

TEST(LayoutErrors, BlockOps) {
  const Tensor x = MakeTensor(Shape{1, 4, 2, 3}, Values(24, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("depth_to_space", {{"block_size", "0"}}, {x}); });
  EXPECT_CONTAINS(msg, "block_size");
  EXPECT_CONTAINS(msg, "0");
  msg = ErrorOf([&] { RunOp("depth_to_space", {}, {x}); });
  EXPECT_CONTAINS(msg, "block_size");
  msg = ErrorOf([&] { RunOp("depth_to_space", {{"block_size", "3"}}, {x}); });
  EXPECT_CONTAINS(msg, "[1,4,2,3]");
  EXPECT_CONTAINS(msg, "9");
  msg = ErrorOf([&] { RunOp("space_to_depth", {{"block_size", "2"}}, {x}); });
  EXPECT_CONTAINS(msg, "[1,4,2,3]");
  const Tensor y = MakeTensor(Shape{4, 2, 3}, Values(24, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("space_to_depth", {{"block_size", "1"}}, {y}); });
  EXPECT_CONTAINS(msg, "[4,2,3]");
  EXPECT_CONTAINS(msg, "4 dims");
  const Tensor z = MakeTensor(Shape{1, 4, 0, 3}, Values(), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("depth_to_space", {{"block_size", "2"}}, {z}); });
  EXPECT_CONTAINS(msg, "[1,4,0,3]");
}

// ----------------------------------------------------------------------------- _split_v2

// Part [begin, end) of axis `ax` of s.
Values AxisPart(const Values& in, const Shape& s, int ax, int64_t begin, int64_t end) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < ax; ++d) outer *= s[d];
  for (int d = ax + 1; d < s.ndim(); ++d) inner *= s[d];
  Values out;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = begin; k < end; ++k)
      for (int64_t i = 0; i < inner; ++i) out.push_back(in[(o * s[ax] + k) * inner + i]);
  return out;
}

TEST(LayoutConformance, SplitV2) {
  struct Row {
    AttrMap attrs;
    Shape s;
    int ax;
    std::vector<std::pair<int64_t, int64_t>> parts;
  };
  const std::vector<Row> rows = {
      {{{"indices", "(0, 2, 3)"}, {"axis", "1"}}, {2, 5, 2}, 1, {{0, 2}, {2, 3}, {3, 5}}},
      {{{"indices", "()"}, {"sections", "3"}, {"axis", "0"}}, {7, 2}, 0, {{0, 3}, {3, 5}, {5, 7}}},
      {{{"indices", "(0, 1, 2)"}, {"axis", "-1"}, {"squeeze_axis", "True"}},
       {2, 3},
       1,
       {{0, 1}, {1, 2}, {2, 3}}},
      // An empty part, and a first boundary past 0 (elements before it are in no part).
      {{{"indices", "(1, 1, 3)"}, {"axis", "0"}}, {4, 3}, 0, {{1, 1}, {1, 3}, {3, 4}}},
      {{{"indices", "[0]"}}, {2, 3, 2}, 1, {{0, 3}}},
  };
  for (const Row& row : rows) {
    OpCase c = MoveCase("_split_v2", row.attrs, {row.s});
    c.name = absl::StrCat("_split_v2 ", row.s.ToString(), " ", row.attrs.begin()->second);
    const Row r = row;
    c.reference = [r](const std::vector<Values>& in, const std::vector<Shape>& s) {
      std::vector<Values> out;
      for (const auto& [b, e] : r.parts) out.push_back(AxisPart(in[0], s[0], r.ax, b, e));
      return out;
    };
    CheckOp(c);
  }
}

TEST(LayoutShapes, SplitV2Shapes) {
  const Tensor x = MakeTensor(Shape{7, 2}, Values(14, 1.0), DType::kFloat32);
  std::vector<Tensor> out =
      RunOp("_split_v2", {{"indices", "()"}, {"sections", "3"}, {"axis", "0"}}, {x});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(out[2].shape(), (Shape{2, 2}));
  out = RunOp("_split_v2", {{"indices", "(0, 1)"}, {"axis", "1"}, {"squeeze_axis", "1"}}, {x});
  EXPECT_EQ(out[1].shape(), (Shape{7}));
}

TEST(LayoutErrors, SplitV2) {
  const Tensor x = MakeTensor(Shape{4, 3}, Values(12, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("_split_v2", {{"indices", "(0, 3, 2)"}}, {x}); });
  EXPECT_CONTAINS(msg, "(0, 3, 2)");
  msg = ErrorOf([&] { RunOp("_split_v2", {{"indices", "(0, 4)"}}, {x}); });
  EXPECT_CONTAINS(msg, "[0, 4)");
  msg = ErrorOf([&] {
    RunOp("_split_v2", {{"indices", "(0, 2)"}, {"axis", "0"}, {"squeeze_axis", "True"}}, {x});
  });
  EXPECT_CONTAINS(msg, "squeeze_axis");
  msg = ErrorOf([&] { RunOp("_split_v2", {{"indices", "(0,)"}, {"axis", "2"}}, {x}); });
  EXPECT_CONTAINS(msg, "axis");
  msg = ErrorOf([&] { RunOp("_split_v2", {{"indices", "()"}}, {x}); });
  EXPECT_CONTAINS(msg, "indices");
  msg = ErrorOf([&] { RunOp("_split_v2", {{"indices", "()"}, {"sections", "-1"}}, {x}); });
  EXPECT_CONTAINS(msg, "sections");
  EXPECT_CONTAINS(msg, "-1");
  msg = ErrorOf([&] { RunOp("_split_v2", {{"sections", "2"}}, {x}); });
  EXPECT_CONTAINS(msg, "indices");
}

// ----------------------------------------------------------------------------- im2col, col2im

struct Sliding {
  std::vector<int64_t> kernel, stride, dilate, pad;
};

std::string TupleText(const std::vector<int64_t>& v) {
  return absl::StrCat("(", absl::StrJoin(v, ", "), v.size() == 1 ? ",)" : ")");
}

// Output positions per spatial dim.
std::vector<int64_t> Positions(const Sliding& g, const std::vector<int64_t>& image) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < image.size(); ++i) {
    out.push_back((image[i] + 2 * g.pad[i] - g.dilate[i] * (g.kernel[i] - 1) - 1) / g.stride[i] +
                  1);
  }
  return out;
}

// For each (k, l): the image position it reads, or -1 (written from the
// definition: per dim, position o * stride - pad + k * dilate).
std::vector<std::vector<int64_t>> ReadMap(const Sliding& g, const std::vector<int64_t>& image) {
  const std::vector<int64_t> out = Positions(g, image);
  int64_t kn = 1, ln = 1;
  for (size_t i = 0; i < image.size(); ++i) {
    kn *= g.kernel[i];
    ln *= out[i];
  }
  std::vector<std::vector<int64_t>> map(kn, std::vector<int64_t>(ln, -1));
  for (int64_t k = 0; k < kn; ++k) {
    for (int64_t l = 0; l < ln; ++l) {
      int64_t kr = k, lr = l, pos = 0, mul = 1;
      bool inside = true;
      for (int i = static_cast<int>(image.size()) - 1; i >= 0; --i) {
        const int64_t ki = kr % g.kernel[i], oi = lr % out[i];
        kr /= g.kernel[i];
        lr /= out[i];
        const int64_t at = oi * g.stride[i] - g.pad[i] + ki * g.dilate[i];
        if (at < 0 || at >= image[i]) inside = false;
        pos += at * mul;
        mul *= image[i];
      }
      if (inside) map[k][l] = pos;
    }
  }
  return map;
}

AttrMap SlidingAttrs(const Sliding& g) {
  return {{"kernel", TupleText(g.kernel)},
          {"stride", TupleText(g.stride)},
          {"dilate", TupleText(g.dilate)},
          {"pad", TupleText(g.pad)}};
}

const std::vector<std::pair<Shape, Sliding>>& SlidingRows() {
  static const std::vector<std::pair<Shape, Sliding>> rows = {
      {{2, 2, 4, 5}, {{2, 3}, {1, 1}, {1, 1}, {0, 0}}},
      {{1, 2, 5, 5}, {{3, 2}, {2, 1}, {1, 2}, {1, 1}}},
      {{2, 1, 7}, {{3}, {2}, {2}, {1}}},
      {{1, 1, 3, 3, 4}, {{2, 2, 2}, {1, 1, 2}, {1, 1, 1}, {0, 1, 0}}},
  };
  return rows;
}

TEST(LayoutConformance, Im2colAndCol2im) {
  for (const auto& [shape, g] : SlidingRows()) {
    const std::vector<int64_t> image(shape.dims().begin() + 2, shape.dims().end());
    const auto map = ReadMap(g, image);
    const int64_t kn = static_cast<int64_t>(map.size()), ln = static_cast<int64_t>(map[0].size());
    const int64_t planes = shape[0] * shape[1], isize = NumElements(shape) / planes;
    OpCase c;
    c.op = "im2col";
    c.name = absl::StrCat("im2col ", shape.ToString(), " kernel ", TupleText(g.kernel));
    c.attrs = SlidingAttrs(g);
    c.shapes = {shape};
    c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
    c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
      Values out;
      for (int64_t p = 0; p < planes; ++p) {
        for (int64_t k = 0; k < kn; ++k) {
          for (int64_t l = 0; l < ln; ++l) {
            out.push_back(map[k][l] < 0 ? 0.0 : in[0][p * isize + map[k][l]]);
          }
        }
      }
      return std::vector<Values>{out};
    };
    CheckOp(c);
    OpCase d;
    d.op = "col2im";
    d.name = absl::StrCat("col2im ", shape.ToString(), " kernel ", TupleText(g.kernel));
    d.attrs = SlidingAttrs(g);
    d.attrs["output_size"] = TupleText(image);
    d.shapes = {Shape{shape[0], shape[1] * kn, ln}};
    d.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
    d.forward_tol32 = 1e-5;
    d.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
      Values out(planes * isize, 0.0);
      for (int64_t p = 0; p < planes; ++p) {
        for (int64_t k = 0; k < kn; ++k) {
          for (int64_t l = 0; l < ln; ++l) {
            if (map[k][l] >= 0) out[p * isize + map[k][l]] += in[0][(p * kn + k) * ln + l];
          }
        }
      }
      return std::vector<Values>{out};
    };
    CheckOp(d);
  }
}

TEST(LayoutErrors, Im2colAndCol2im) {
  const Tensor x = MakeTensor(Shape{1, 2, 3, 3}, Values(18, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("im2col", {{"kernel", "(4, 2)"}}, {x}); });
  EXPECT_CONTAINS(msg, "[1,2,3,3]");
  EXPECT_CONTAINS(msg, "exceeds");
  msg = ErrorOf([&] { RunOp("im2col", {{"kernel", "(2,)"}}, {x}); });
  EXPECT_CONTAINS(msg, "[1,2,3,3]");
  msg = ErrorOf([&] { RunOp("im2col", {{"kernel", "(2, 2)"}, {"stride", "(1, 0)"}}, {x}); });
  EXPECT_CONTAINS(msg, "stride");
  msg = ErrorOf([&] { RunOp("im2col", {{"kernel", "(2, 2)"}, {"pad", "(1,)"}}, {x}); });
  EXPECT_CONTAINS(msg, "pad");
  msg = ErrorOf([&] { RunOp("im2col", {{"kernel", "(1, 1, 1, 1)"}}, {x}); });
  EXPECT_CONTAINS(msg, "kernel");
  msg = ErrorOf([&] { RunOp("im2col", {}, {x}); });
  EXPECT_CONTAINS(msg, "kernel");
  const Tensor cols = MakeTensor(Shape{1, 8, 4}, Values(32, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("col2im", {{"kernel", "(2, 2)"}}, {cols}); });
  EXPECT_CONTAINS(msg, "output_size");
  msg = ErrorOf([&] {
    RunOp("col2im", {{"kernel", "(2, 2)"}, {"output_size", "(4, 4)"}}, {cols});
  });
  EXPECT_CONTAINS(msg, "[1,8,4]");
  std::vector<Tensor> out =
      RunOp("col2im", {{"kernel", "(2, 2)"}, {"output_size", "(3, 3)"}}, {cols});
  EXPECT_EQ(out[0].shape(), (Shape{1, 2, 3, 3}));
}

}  // namespace
}  // namespace symx
