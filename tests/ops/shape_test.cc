// Tests of the shape family (graph/ops/shape.cc): Flatten, Reshape,
// expand_dims, squeeze (and _backward_reshape), transpose, Concat, SliceChannel
// and slice_axis.
//
// Conformance: forward in float and integer dtypes (these ops move bytes,
// whatever the type), backward by finite differences. Direct kernel tests:
// in-place views, bool and large tensors, mismatched parts are errors.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
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
namespace {

using testing::CheckOp;
using testing::NumElements;
using testing::OpCase;
using testing::Strides;
using testing::Values;

// Every dtype the data-movement kernels handle that the harness can compare
// (bool would squash values to 0/1).
const std::vector<DType> kMovementTypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16,
                                           DType::kInt32,   DType::kInt64,   DType::kUint8,
                                           DType::kInt8,    DType::kUint16,  DType::kBFloat16};

// Small distinct-ish integers every dtype above holds exactly.
Values SmallInts(int input, const Shape& s) {
  Values v(NumElements(s));
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>((k * 37 + 11 + input * 5) % 97);
  return v;
}

std::vector<int64_t> Unravel(int64_t flat, const Shape& s) {
  std::vector<int64_t> idx(s.ndim());
  for (int d = s.ndim() - 1; d >= 0; --d) {
    idx[d] = s[d] == 0 ? 0 : flat % s[d];
    if (s[d] != 0) flat /= s[d];
  }
  return idx;
}

int64_t Ravel(const std::vector<int64_t>& idx, const Shape& s) {
  std::vector<int64_t> st = Strides(s);
  int64_t flat = 0;
  for (int d = 0; d < s.ndim(); ++d) flat += idx[d] * st[d];
  return flat;
}

int Norm(int64_t axis, int ndim) { return static_cast<int>(axis < 0 ? axis + ndim : axis); }

// A movement case: forward in every movement dtype, backward by differences.
OpCase Movement(std::string name, std::string op, AttrMap attrs, std::vector<Shape> shapes,
                decltype(OpCase::reference) reference) {
  OpCase c;
  c.name = std::move(name);
  c.op = std::move(op);
  c.attrs = std::move(attrs);
  c.shapes = std::move(shapes);
  c.reference = std::move(reference);
  c.init = SmallInts;
  c.dtypes = kMovementTypes;
  c.forward_tol32 = 0;
  c.forward_tol64 = 0;
  return c;
}

std::vector<Values> Same(const std::vector<Values>& in, const std::vector<Shape>&) {
  return {in[0]};
}

// ----------------------------------------------------------------------------- reshape family

TEST(ShapeConformance, Flatten) {
  for (const Shape& s :
       {Shape{2, 3, 4}, Shape{3, 1}, Shape{2, 1, 1, 5}, Shape{0, 3}, Shape{4, 0}}) {
    CheckOp(Movement("Flatten " + s.ToString(), "Flatten", {}, {s}, Same));
  }
}

TEST(ShapeConformance, Reshape) {
  CheckOp(Movement("Reshape (4,-1)", "Reshape", {{"shape", "(4, -1)"}}, {Shape{2, 3, 4}}, Same));
  CheckOp(Movement("Reshape -3 -2", "Reshape", {{"shape", "(-3, -2)"}}, {Shape{2, 3, 4, 1}}, Same));
  CheckOp(Movement("Reshape -4", "Reshape", {{"shape", "(-4, 1, -1, 0)"}}, {Shape{6, 2}}, Same));
  CheckOp(Movement("Reshape reverse", "Reshape", {{"shape", "(-1, 0)"}, {"reverse", "True"}},
                   {Shape{2, 3, 4}}, Same));
  CheckOp(Movement("Reshape legacy target_shape", "Reshape", {{"target_shape", "(0, 2)"}},
                   {Shape{3, 4}}, Same));
  CheckOp(Movement("Reshape empty", "Reshape", {{"shape", "(0, 5)"}}, {Shape{0, 5}}, Same));
}

TEST(ShapeConformance, ExpandDimsAndSqueeze) {
  CheckOp(Movement("expand_dims 1", "expand_dims", {{"axis", "1"}}, {Shape{2, 3}}, Same));
  CheckOp(Movement("expand_dims -1", "expand_dims", {{"axis", "-1"}}, {Shape{4}}, Same));
  CheckOp(Movement("expand_dims 0 empty", "expand_dims", {{"axis", "0"}}, {Shape{0, 2}}, Same));
  CheckOp(Movement("squeeze all", "squeeze", {}, {Shape{2, 1, 3, 1}}, Same));
  CheckOp(Movement("squeeze axis", "squeeze", {{"axis", "(1,)"}}, {Shape{2, 1, 3, 1}}, Same));
  CheckOp(Movement("squeeze to (1,)", "squeeze", {}, {Shape{1, 1}}, Same));
}

// ----------------------------------------------------------------------------- transpose

OpCase TransposeCase(const Shape& s, std::vector<int> axes) {
  std::string attr;
  AttrMap attrs;
  if (!axes.empty()) {
    attr = "(";
    for (size_t i = 0; i < axes.size(); ++i) attr += (i ? ", " : "") + std::to_string(axes[i]);
    attrs["axes"] = attr + ")";
  }
  auto ref = [axes](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const Shape& s = shapes[0];
    const int n = s.ndim();
    std::vector<int> perm(n);
    for (int i = 0; i < n; ++i) perm[i] = axes.empty() ? n - 1 - i : Norm(axes[i], n);
    std::vector<int64_t> od(n);
    for (int i = 0; i < n; ++i) od[i] = s[perm[i]];
    Shape os(od);
    Values out(in[0].size());
    for (int64_t k = 0; k < static_cast<int64_t>(out.size()); ++k) {
      std::vector<int64_t> oi = Unravel(k, os), ii(n);
      for (int i = 0; i < n; ++i) ii[perm[i]] = oi[i];
      out[k] = in[0][Ravel(ii, s)];
    }
    return std::vector<Values>{out};
  };
  return Movement("transpose " + s.ToString() + " axes " + attr, "transpose", attrs, {s}, ref);
}

TEST(ShapeConformance, Transpose) {
  CheckOp(TransposeCase(Shape{2, 3}, {}));
  CheckOp(TransposeCase(Shape{2, 3, 4}, {}));
  CheckOp(TransposeCase(Shape{2, 3, 4}, {1, 0, 2}));
  CheckOp(TransposeCase(Shape{2, 3, 4}, {0, 2, 1}));
  CheckOp(TransposeCase(Shape{2, 3, 4}, {0, 1, 2}));                    // identity: a copy
  CheckOp(TransposeCase(Shape{2, 1, 3, 1}, {3, 2, 0, 1}));              // size-1 dims dropped
  CheckOp(TransposeCase(Shape{2, 3, 4, 5}, {2, 3, 0, 1}));              // merges to 2-D
  CheckOp(TransposeCase(Shape{2, 3, 2, 3, 2}, {4, 3, 2, 1, 0}));        // rank 5 in Eigen
  CheckOp(TransposeCase(Shape{2, 3, 2, 3, 2, 3}, {5, 4, 3, 2, 1, 0}));  // rank 6: plain loop
  CheckOp(TransposeCase(Shape{0, 3}, {}));
  CheckOp(TransposeCase(Shape{3, 0, 2}, {2, 0, 1}));
  CheckOp(TransposeCase(Shape{5}, {}));
}

// ----------------------------------------------------------------------------- Concat & co

OpCase ConcatCase(std::vector<Shape> shapes, int64_t dim, const std::string& op = "Concat") {
  auto ref = [dim](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const int n = shapes[0].ndim();
    const int ax = Norm(dim, n);
    std::vector<int64_t> od = shapes[0].dims();
    od[ax] = 0;
    for (const Shape& s : shapes) od[ax] += s[ax];
    Shape os(od);
    Values out(NumElements(os));
    for (int64_t k = 0; k < static_cast<int64_t>(out.size()); ++k) {
      std::vector<int64_t> idx = Unravel(k, os);
      size_t part = 0;
      while (idx[ax] >= shapes[part][ax]) idx[ax] -= shapes[part++][ax];
      out[k] = in[part][Ravel(idx, shapes[part])];
    }
    return std::vector<Values>{out};
  };
  std::string name = op + " dim " + std::to_string(dim);
  for (const Shape& s : shapes) name += " " + s.ToString();
  return Movement(name, op,
                  {{"dim", std::to_string(dim)}, {"num_args", std::to_string(shapes.size())}},
                  shapes, ref);
}

TEST(ShapeConformance, Concat) {
  CheckOp(ConcatCase({Shape{2, 3}, Shape{2, 1}, Shape{2, 4}}, 1));
  CheckOp(ConcatCase({Shape{2, 3}, Shape{1, 3}}, 0));
  CheckOp(ConcatCase({Shape{2, 3, 2}, Shape{2, 3, 1}}, -1));
  CheckOp(ConcatCase({Shape{2, 2, 3}, Shape{2, 1, 3}, Shape{2, 3, 3}}, 1));
  CheckOp(ConcatCase({Shape{4}}, 0));
  CheckOp(ConcatCase({Shape{2, 0, 3}, Shape{2, 2, 3}}, 1));
  CheckOp(ConcatCase({Shape{0, 3}, Shape{0, 2}}, 1));
}

// Gluon's RNN layers join their flattened weights with it; it computes as Concat.
TEST(ShapeConformance, RnnParamConcat) {
  CheckOp(ConcatCase({Shape{6}, Shape{4}, Shape{3}}, 0, "_rnn_param_concat"));
  CheckOp(ConcatCase({Shape{2, 3}, Shape{1, 3}}, 0, "_rnn_param_concat"));
}

OpCase SliceChannelCase(const Shape& s, int64_t k, int64_t axis, bool squeeze) {
  auto ref = [k, axis](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const Shape& s = shapes[0];
    const int ax = Norm(axis, s.ndim());
    const int64_t len = s[ax] / k;
    std::vector<Values> outs(k);
    for (int64_t j = 0; j < static_cast<int64_t>(in[0].size()); ++j) {
      std::vector<int64_t> idx = Unravel(j, s);
      outs[idx[ax] / len].push_back(in[0][j]);  // row-major order within each part
    }
    return outs;
  };
  AttrMap attrs = {{"num_outputs", std::to_string(k)}, {"axis", std::to_string(axis)}};
  if (squeeze) attrs["squeeze_axis"] = "True";
  return Movement("SliceChannel " + s.ToString() + " k=" + std::to_string(k) + " axis " +
                      std::to_string(axis) + (squeeze ? " squeeze" : ""),
                  "SliceChannel", attrs, {s}, ref);
}

TEST(ShapeConformance, SliceChannel) {
  CheckOp(SliceChannelCase(Shape{2, 6}, 3, 1, false));
  CheckOp(SliceChannelCase(Shape{4, 3, 2}, 2, 0, false));
  CheckOp(SliceChannelCase(Shape{2, 3, 4}, 2, -1, false));
  CheckOp(SliceChannelCase(Shape{2, 3, 4}, 3, 1, true));
  CheckOp(SliceChannelCase(Shape{5}, 1, 0, false));
  CheckOp(SliceChannelCase(Shape{0, 4}, 2, 1, false));
}

OpCase SliceAxisCase(const Shape& s, int64_t axis, int64_t begin, std::optional<int64_t> end) {
  auto ref = [axis, begin, end](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const Shape& s = shapes[0];
    const int ax = Norm(axis, s.ndim());
    const int64_t d = s[ax];
    const int64_t b = begin < 0 ? begin + d : begin;
    const int64_t e = !end ? d : (*end < 0 ? *end + d : *end);
    Values out;
    for (int64_t j = 0; j < static_cast<int64_t>(in[0].size()); ++j) {
      std::vector<int64_t> idx = Unravel(j, s);
      if (idx[ax] >= b && idx[ax] < e) out.push_back(in[0][j]);
    }
    return std::vector<Values>{out};
  };
  std::string e = end ? std::to_string(*end) : "None";
  return Movement("slice_axis " + s.ToString() + " axis " + std::to_string(axis) + " [" +
                      std::to_string(begin) + ", " + e + ")",
                  "slice_axis",
                  {{"axis", std::to_string(axis)}, {"begin", std::to_string(begin)}, {"end", e}},
                  {s}, ref);
}

TEST(ShapeConformance, SliceAxis) {
  CheckOp(SliceAxisCase(Shape{4, 3}, 0, 1, 3));
  CheckOp(SliceAxisCase(Shape{2, 5, 3}, 1, -2, std::nullopt));
  CheckOp(SliceAxisCase(Shape{2, 5, 3}, -1, 0, -1));
  CheckOp(SliceAxisCase(Shape{6}, 0, 2, 3));
  CheckOp(SliceAxisCase(Shape{0, 4}, 1, 1, 3));
  CheckOp(SliceAxisCase(Shape{3, 4}, 1, -3, 3));
}

}  // namespace

namespace {

using kernel_calls::Cpu;
using kernel_calls::Empty;
using kernel_calls::Ramp;
using kernel_calls::RunKernel;
using ::testing::HasSubstr;

// ----------------------------------------------------------------------------- data movement

TEST(ShapeKernel, ReshapeCopiesOrDoesNothingInPlace) {
  Tensor x = Tensor::FromVector(Shape{2, 3}, {1, 0, 1, 1, 0, 0}, DType::kBool);
  Tensor y = Empty(Shape{6}, DType::kBool);
  ASSERT_TRUE(RunKernel("Reshape", {{"shape", "(-1,)"}}, {x}, {y}).ok());
  EXPECT_EQ(y.ToDoubles(), x.ToDoubles());
  Tensor view = x.View(Shape{3, 2}).value();
  ASSERT_TRUE(RunKernel("Reshape", {{"shape", "(3, 2)"}}, {x}, {view}).ok());
  EXPECT_EQ(view.ToDoubles(), x.ToDoubles());
  Tensor g = Empty(Shape{2, 3}, DType::kBool);
  ASSERT_TRUE(RunKernel("_backward_reshape", {{"shape", "(-1,)"}}, {y}, {g}).ok());
  EXPECT_EQ(g.ToDoubles(), x.ToDoubles());
}

TEST(ShapeKernel, TransposeBoolAndLargeTensors) {
  Tensor b = Tensor::FromVector(Shape{2, 3}, {1, 0, 0, 1, 1, 0}, DType::kBool);
  Tensor bt = Empty(Shape{3, 2}, DType::kBool);
  ASSERT_TRUE(RunKernel("transpose", {}, {b}, {bt}).ok());
  EXPECT_EQ(bt.ToDoubles(), (std::vector<double>{1, 1, 0, 1, 0, 0}));

  const Shape s{37, 300, 21};
  std::vector<double> v(s.Size());
  std::iota(v.begin(), v.end(), 0.0);
  for (DType t : {DType::kFloat64, DType::kInt32, DType::kFloat16, DType::kInt8}) {
    SCOPED_TRACE(DTypeName(t));
    std::vector<double> vt = v;
    if (t == DType::kFloat16 || t == DType::kInt8) {
      for (double& e : vt) e = std::fmod(e, 100.0);
    }
    Tensor x = Tensor::FromVector(s, vt, t);
    Tensor y = Empty(Shape{21, 37, 300}, t);
    ASSERT_TRUE(RunKernel("transpose", {{"axes", "(2, 0, 1)"}}, {x}, {y}).ok());
    std::vector<double> got = y.ToDoubles();
    for (int64_t c = 0; c < 21; ++c) {
      for (int64_t a = 0; a < 37; ++a) {
        for (int64_t b2 = 0; b2 < 300; ++b2) {
          ASSERT_EQ(got[(c * 37 + a) * 300 + b2], vt[(a * 300 + b2) * 21 + c]);
        }
      }
    }
  }
}

TEST(ShapeKernel, ConcatAndSplitLargeAndBool) {
  const int64_t rows = 2000;
  Tensor a = Tensor::FromVector(Shape{rows, 30}, Ramp(rows * 30), DType::kFloat64);
  Tensor b = Tensor::FromVector(Shape{rows, 50}, Ramp(rows * 50, 2.0), DType::kFloat64);
  Tensor y = Empty(Shape{rows, 80}, DType::kFloat64);
  ASSERT_TRUE(RunKernel("Concat", {{"num_args", "2"}, {"dim", "1"}}, {a, b}, {y}).ok());
  std::vector<double> av = a.ToDoubles(), bv = b.ToDoubles(), yv = y.ToDoubles();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < 80; ++c) {
      ASSERT_EQ(yv[r * 80 + c], c < 30 ? av[r * 30 + c] : bv[r * 50 + c - 30]);
    }
  }
  Tensor ga = Empty(Shape{rows, 30}, DType::kFloat64), gb = Empty(Shape{rows, 50}, DType::kFloat64);
  ASSERT_TRUE(RunKernel("_backward_Concat", {{"num_args", "2"}, {"dim", "1"}}, {y}, {ga, gb}).ok());
  EXPECT_EQ(ga.ToDoubles(), av);
  EXPECT_EQ(gb.ToDoubles(), bv);

  Tensor flags = Tensor::FromVector(Shape{2, 4}, {1, 0, 0, 1, 1, 1, 0, 0}, DType::kBool);
  Tensor p0 = Empty(Shape{2, 2}, DType::kBool), p1 = Empty(Shape{2, 2}, DType::kBool);
  ASSERT_TRUE(RunKernel("SliceChannel", {{"num_outputs", "2"}}, {flags}, {p0, p1}).ok());
  EXPECT_EQ(p0.ToDoubles(), (std::vector<double>{1, 0, 1, 1}));
  EXPECT_EQ(p1.ToDoubles(), (std::vector<double>{0, 1, 0, 0}));
  Tensor s = Empty(Shape{2, 3}, DType::kBool);
  ASSERT_TRUE(
      RunKernel("slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "None"}}, {flags}, {s}).ok());
  EXPECT_EQ(s.ToDoubles(), (std::vector<double>{0, 0, 1, 1, 0, 0}));
  Tensor back = Empty(Shape{2, 4}, DType::kBool);
  ASSERT_TRUE(RunKernel("_backward_slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "None"}},
                        {s}, {back})
                  .ok());
  EXPECT_EQ(back.ToDoubles(), (std::vector<double>{0, 0, 0, 1, 0, 1, 0, 0}));
}

TEST(ShapeKernel, MismatchedPartsAreErrors) {
  Tensor a = Tensor::FromVector(Shape{2, 3}, Ramp(6));
  Tensor b = Tensor::FromVector(Shape{2, 2}, Ramp(4));
  absl::Status s =
      RunKernel("Concat", {{"num_args", "2"}, {"dim", "1"}}, {a, b}, {Empty(Shape{2, 4})});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("Concat"));
  s = RunKernel("slice_axis", {{"axis", "0"}, {"begin", "1"}, {"end", "5"}}, {a},
                {Empty(Shape{4, 3})});
  EXPECT_FALSE(s.ok());
}

}  // namespace

}  // namespace symx
