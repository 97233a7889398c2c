// Tests of the tensor family (graph/ops/tensor.cc): slice, slice_like,
// SwapAxis, tile, repeat, reverse, Pad, stack and diag, with their backward ops.
// References are plain loops over output positions; forward is checked in float
// and integer dtypes (these ops move bytes) and backward by finite differences.
// Expected values for edge cases (negative steps, None bounds, empty results,
// int casts) were checked against MXNet 1.9.1.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "executor/executor.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace {

using testing::CheckOp;
using testing::NumElements;
using testing::OpCase;
using testing::Strides;
using testing::Values;

const std::vector<DType> kMovementTypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16,
                                           DType::kInt32,   DType::kInt64,   DType::kUint8,
                                           DType::kInt8,    DType::kUint16,  DType::kBFloat16};

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

using Ref = decltype(OpCase::reference);

OpCase Movement(std::string name, std::string op, AttrMap attrs, std::vector<Shape> shapes,
                Ref reference) {
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

// A reference from an output shape and a map from output multi-index to the input value
// (input 0) it copies, or nullopt for a constant `fill`.
Ref MapRef(
    std::function<Shape(const std::vector<Shape>&)> out_shape,
    std::function<std::optional<std::vector<int64_t>>(const std::vector<int64_t>&, const Shape& in)>
        source,
    double fill = 0.0) {
  return [out_shape, source, fill](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const Shape os = out_shape(s);
    Values out(NumElements(os));
    for (int64_t k = 0; k < static_cast<int64_t>(out.size()); ++k) {
      auto src = source(Unravel(k, os), s[0]);
      out[k] = src ? in[0][Ravel(*src, s[0])] : fill;
    }
    return std::vector<Values>{out};
  };
}

std::string Opt(std::optional<int64_t> v) { return v ? std::to_string(*v) : "None"; }

std::string OptTuple(const std::vector<std::optional<int64_t>>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + Opt(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

std::string IntTuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// ----------------------------------------------------------------------------- slice

// The indices numpy's a[b:e:s] takes from an axis of length n, by walking the axis.
std::vector<int64_t> NumpyIndices(std::optional<int64_t> b, std::optional<int64_t> e,
                                  std::optional<int64_t> s, int64_t n) {
  const int64_t step = s.value_or(1);
  std::vector<int64_t> out;
  int64_t start, stop;
  if (step > 0) {
    start = !b ? 0 : (*b < 0 ? std::max<int64_t>(0, *b + n) : std::min(*b, n));
    stop = !e ? n : (*e < 0 ? std::max<int64_t>(0, *e + n) : std::min(*e, n));
    for (int64_t i = start; i < stop; i += step) out.push_back(i);
  } else {
    start = !b ? n - 1 : (*b < 0 ? std::max<int64_t>(-1, *b + n) : std::min(*b, n - 1));
    stop = !e ? -1 : (*e < 0 ? std::max<int64_t>(-1, *e + n) : std::min(*e, n - 1));
    for (int64_t i = start; i > stop; i += step) out.push_back(i);
  }
  return out;
}

OpCase SliceCase(const Shape& s, std::vector<std::optional<int64_t>> b,
                 std::vector<std::optional<int64_t>> e, std::vector<std::optional<int64_t>> st) {
  AttrMap attrs = {{"begin", OptTuple(b)}, {"end", OptTuple(e)}};
  if (!st.empty()) attrs["step"] = OptTuple(st);
  auto indices = [b, e, st](const Shape& in) {
    std::vector<std::vector<int64_t>> idx;
    for (int d = 0; d < in.ndim(); ++d) {
      if (d < static_cast<int>(b.size())) {
        idx.push_back(NumpyIndices(b[d], e[d], st.empty() ? std::nullopt : st[d], in[d]));
      } else {
        idx.push_back(NumpyIndices(std::nullopt, std::nullopt, std::nullopt, in[d]));
      }
    }
    return idx;
  };
  Ref ref = MapRef(
      [indices](const std::vector<Shape>& s) {
        std::vector<int64_t> dims;
        for (const auto& v : indices(s[0])) dims.push_back(static_cast<int64_t>(v.size()));
        return Shape(dims);
      },
      [indices](const std::vector<int64_t>& o, const Shape& in) {
        auto idx = indices(in);
        std::vector<int64_t> src(o.size());
        for (size_t d = 0; d < o.size(); ++d) src[d] = idx[d][o[d]];
        return std::optional<std::vector<int64_t>>(src);
      });
  return Movement("slice " + s.ToString() + " " + attrs["begin"] + ":" + attrs["end"] + ":" +
                      (st.empty() ? "" : attrs["step"]),
                  "slice", attrs, {s}, ref);
}

TEST(TensorConformance, Slice) {
  using std::nullopt;
  CheckOp(SliceCase(Shape{3, 5}, {nullopt, 3}, {2, nullopt}, {1, -1}));
  CheckOp(SliceCase(Shape{4, 5, 6}, {1, -1}, {3, 0}, {1, -2}));
  CheckOp(SliceCase(Shape{4, 5}, {-7}, {nullopt}, {}));  // begin before the start: clamped
  CheckOp(SliceCase(Shape{4, 5}, {nullopt, nullopt}, {nullopt, nullopt}, {-1, -1}));
  CheckOp(SliceCase(Shape{4, 5}, {3}, {1}, {}));  // empty result (0, 5)
  CheckOp(SliceCase(Shape{6}, {1}, {6}, {2}));
  CheckOp(SliceCase(Shape{2, 3, 4}, {}, {}, {}));  // nothing sliced: a copy
  CheckOp(SliceCase(Shape{3, 4, 5}, {0, 1, 2}, {3, 4, 5}, {2, 2, 2}));
  CheckOp(SliceCase(Shape{0, 4}, {nullopt, 1}, {nullopt, 3}, {}));
  CheckOp(SliceCase(Shape{5}, {7}, {nullopt}, {-1}));  // begin past the end, going back
  CheckOp(SliceCase(Shape{5}, {-1}, {-7}, {-2}));
  CheckOp(SliceCase(Shape{5, 2}, {10}, {20}, {}));  // entirely past the end: empty
  CheckOp(SliceCase(Shape{3, 4}, {nullopt, -1}, {nullopt, nullopt}, {nullopt, 1}));
}

// The numpy results above, spelled out for a 1-D input 0..4 (MXNet 1.9.1 gives the same).
TEST(TensorConformance, SliceExplicitValues) {
  struct Row {
    std::optional<int64_t> b, e, s;
    std::vector<int64_t> want;
  };
  const std::vector<Row> rows = {
      {std::nullopt, std::nullopt, -1, {4, 3, 2, 1, 0}},
      {4, std::nullopt, -2, {4, 2, 0}},
      {-2, std::nullopt, std::nullopt, {3, 4}},
      {1, -1, 2, {1, 3}},
      {3, 1, 1, {}},
      {7, -7, -3, {4, 1}},
      {-7, 2, std::nullopt, {0, 1}},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(NumpyIndices(r.b, r.e, r.s, 5), r.want) << Opt(r.b) << ":" << Opt(r.e);
  }
}

// ----------------------------------------------------------------------------- slice_like

OpCase SliceLikeCase(const Shape& data, const Shape& like, std::vector<int64_t> axes) {
  AttrMap attrs;
  if (!axes.empty()) attrs["axes"] = IntTuple(axes);
  auto out_shape = [axes](const std::vector<Shape>& s) {
    Shape o = s[0];
    if (axes.empty()) return s[1];
    for (int64_t a : axes) o[Norm(a, o.ndim())] = s[1][Norm(a, o.ndim())];
    return o;
  };
  OpCase c = Movement(
      "slice_like " + data.ToString() + " like " + like.ToString() + " axes " + IntTuple(axes),
      "slice_like", attrs, {data, like},
      MapRef(out_shape, [](const std::vector<int64_t>& o, const Shape&) {
        return std::optional<std::vector<int64_t>>(o);
      }));
  return c;  // shape_like's gradient is checked too: it must be zero
}

TEST(TensorConformance, SliceLike) {
  CheckOp(SliceLikeCase(Shape{4, 5}, Shape{2, 3}, {}));
  CheckOp(SliceLikeCase(Shape{4, 5}, Shape{1, 3}, {-1}));
  CheckOp(SliceLikeCase(Shape{3, 4, 5}, Shape{2, 9, 4}, {0, 2}));
  CheckOp(SliceLikeCase(Shape{3, 4}, Shape{2}, {0}));
  CheckOp(SliceLikeCase(Shape{3, 4}, Shape{3, 4}, {}));
  CheckOp(SliceLikeCase(Shape{3, 4}, Shape{0, 4}, {}));
}

// ----------------------------------------------------------------------------- SwapAxis

OpCase SwapCase(const Shape& s, int64_t d1, int64_t d2) {
  auto out_shape = [d1, d2](const std::vector<Shape>& s) {
    Shape o = s[0];
    std::swap(o[Norm(d1, o.ndim())], o[Norm(d2, o.ndim())]);
    return o;
  };
  return Movement("SwapAxis " + s.ToString() + " " + std::to_string(d1) + "," + std::to_string(d2),
                  "SwapAxis", {{"dim1", std::to_string(d1)}, {"dim2", std::to_string(d2)}}, {s},
                  MapRef(out_shape, [d1, d2](const std::vector<int64_t>& o, const Shape& in) {
                    std::vector<int64_t> src = o;
                    std::swap(src[Norm(d1, in.ndim())], src[Norm(d2, in.ndim())]);
                    return std::optional<std::vector<int64_t>>(src);
                  }));
}

TEST(TensorConformance, SwapAxis) {
  CheckOp(SwapCase(Shape{2, 3, 4}, 0, 2));
  CheckOp(SwapCase(Shape{2, 3, 4}, -1, 0));
  CheckOp(SwapCase(Shape{2, 3, 4}, 1, 1));
  CheckOp(SwapCase(Shape{2, 3}, 0, 0));  // the defaults
  CheckOp(SwapCase(Shape{2, 3, 4, 5}, 1, -1));
  CheckOp(SwapCase(Shape{0, 3}, 0, 1));
}

// ----------------------------------------------------------------------------- tile

OpCase TileCase(const Shape& s, std::vector<int64_t> reps) {
  auto aligned = [reps](const Shape& in, std::vector<int64_t>* d, std::vector<int64_t>* r) {
    const int on = std::max<int>(in.ndim(), static_cast<int>(reps.size()));
    d->assign(on, 1);
    r->assign(on, 1);
    for (int i = 0; i < in.ndim(); ++i) (*d)[on - in.ndim() + i] = in[i];
    for (size_t i = 0; i < reps.size(); ++i) (*r)[on - reps.size() + i] = reps[i];
  };
  auto out_shape = [aligned](const std::vector<Shape>& s) {
    std::vector<int64_t> d, r;
    aligned(s[0], &d, &r);
    for (size_t i = 0; i < d.size(); ++i) d[i] *= r[i];
    return Shape(d);
  };
  return Movement("tile " + s.ToString() + " reps " + IntTuple(reps), "tile",
                  {{"reps", IntTuple(reps)}}, {s},
                  MapRef(out_shape, [aligned](const std::vector<int64_t>& o, const Shape& in) {
                    std::vector<int64_t> d, r;
                    aligned(in, &d, &r);
                    std::vector<int64_t> src;
                    const size_t extra = o.size() - in.ndim();
                    for (size_t i = extra; i < o.size(); ++i) src.push_back(o[i] % d[i]);
                    return std::optional<std::vector<int64_t>>(src);
                  }));
}

TEST(TensorConformance, Tile) {
  CheckOp(TileCase(Shape{2, 3}, {2}));        // shorter reps: leading 1s
  CheckOp(TileCase(Shape{2, 3}, {2, 1, 3}));  // longer reps: a new leading axis
  CheckOp(TileCase(Shape{2, 3}, {3, 2}));
  CheckOp(TileCase(Shape{2, 3}, {2, 0}));  // empty
  CheckOp(TileCase(Shape{3}, {}));
  CheckOp(TileCase(Shape{2, 1, 3}, {1, 4, 1}));
}

// ----------------------------------------------------------------------------- repeat

OpCase RepeatCase(const Shape& s, int64_t repeats, std::optional<int64_t> axis) {
  AttrMap attrs = {{"repeats", std::to_string(repeats)}};
  if (axis) attrs["axis"] = std::to_string(*axis);
  auto out_shape = [repeats, axis](const std::vector<Shape>& s) {
    if (!axis) return Shape{NumElements(s[0]) * repeats};
    Shape o = s[0];
    o[Norm(*axis, o.ndim())] *= repeats;
    return o;
  };
  return Movement(
      "repeat " + s.ToString() + " x" + std::to_string(repeats) + " axis " + Opt(axis), "repeat",
      attrs, {s},
      MapRef(out_shape, [repeats, axis](const std::vector<int64_t>& o, const Shape& in) {
        if (!axis) return std::optional<std::vector<int64_t>>(Unravel(o[0] / repeats, in));
        std::vector<int64_t> src = o;
        src[Norm(*axis, in.ndim())] /= repeats;
        return std::optional<std::vector<int64_t>>(src);
      }));
}

TEST(TensorConformance, Repeat) {
  CheckOp(RepeatCase(Shape{2, 3}, 2, std::nullopt));
  CheckOp(RepeatCase(Shape{2, 3}, 3, -1));
  CheckOp(RepeatCase(Shape{2, 3, 2}, 2, 1));
  CheckOp(RepeatCase(Shape{2, 3}, 0, 0));  // empty
  CheckOp(RepeatCase(Shape{4}, 1, 0));
}

// ----------------------------------------------------------------------------- reverse

OpCase ReverseCase(const Shape& s, std::vector<int64_t> axes, const std::string& op = "reverse") {
  auto same = [](const std::vector<Shape>& s) { return s[0]; };
  return Movement(op + " " + s.ToString() + " axis " + IntTuple(axes), op,
                  {{"axis", IntTuple(axes)}}, {s},
                  MapRef(same, [axes](const std::vector<int64_t>& o, const Shape& in) {
                    std::vector<int64_t> src = o;
                    for (int64_t a : axes) src[a] = in[a] - 1 - src[a];
                    return std::optional<std::vector<int64_t>>(src);
                  }));
}

TEST(TensorConformance, Reverse) {
  CheckOp(ReverseCase(Shape{2, 3, 4}, {0, 2}));
  CheckOp(ReverseCase(Shape{3, 4}, {1, 1}));  // twice: the identity (as MXNet)
  CheckOp(ReverseCase(Shape{5}, {0}, "flip"));
  CheckOp(ReverseCase(Shape{2, 3, 4}, {1}));
  CheckOp(ReverseCase(Shape{0, 3}, {0}));
}

// ----------------------------------------------------------------------------- Pad

OpCase PadCase(const Shape& s, const std::string& mode, std::vector<int64_t> pw, double value) {
  AttrMap attrs = {{"mode", mode}, {"pad_width", IntTuple(pw)}};
  if (value != 0) attrs["constant_value"] = std::to_string(value);
  auto out_shape = [pw](const std::vector<Shape>& s) {
    Shape o = s[0];
    for (int d = 0; d < o.ndim(); ++d) o[d] += pw[2 * d] + pw[2 * d + 1];
    return o;
  };
  OpCase c = Movement("Pad " + mode + " " + s.ToString() + " " + IntTuple(pw), "Pad", attrs, {s},
                      MapRef(
                          out_shape,
                          [pw, mode](const std::vector<int64_t>& o,
                                     const Shape& in) -> std::optional<std::vector<int64_t>> {
                            std::vector<int64_t> src(o.size());
                            for (size_t d = 0; d < o.size(); ++d) {
                              int64_t i = o[d] - pw[2 * d];
                              const int64_t n = in[d];
                              if (i >= 0 && i < n) {
                                src[d] = i;
                              } else if (mode == "constant") {
                                return std::nullopt;
                              } else if (mode == "edge") {
                                src[d] = i < 0 ? 0 : n - 1;
                              } else {  // reflect: numpy's, the edge not repeated
                                src[d] = i < 0 ? -i : 2 * (n - 1) - i;
                              }
                            }
                            return src;
                          },
                          value));
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};  // MXNet: floats only
  return c;
}

TEST(TensorConformance, Pad) {
  const std::vector<int64_t> pw4 = {0, 0, 0, 0, 1, 2, 2, 1};
  CheckOp(PadCase(Shape{2, 2, 3, 4}, "constant", pw4, 0));
  CheckOp(PadCase(Shape{2, 2, 3, 4}, "constant", pw4, 3));  // an integer: exact in every dtype
  CheckOp(PadCase(Shape{2, 2, 3, 4}, "edge", pw4, 0));
  CheckOp(PadCase(Shape{2, 2, 3, 4}, "reflect", {0, 0, 0, 0, 2, 2, 3, 1}, 0));
  CheckOp(PadCase(Shape{1, 2, 2, 3, 3}, "edge", {0, 0, 0, 0, 1, 0, 2, 2, 0, 1}, 0));
  CheckOp(PadCase(Shape{1, 2, 3, 3, 4}, "reflect", {0, 0, 0, 0, 1, 1, 2, 0, 3, 2}, 0));
  CheckOp(PadCase(Shape{1, 1, 2, 2}, "constant", {0, 0, 0, 0, 0, 0, 0, 0}, 0));
  CheckOp(PadCase(Shape{1, 2, 2, 3}, "constant", pw4, -1.25));
}

// MXNet's Pad takes floating-point types only; symx's kernel reports the dtype.
TEST(TensorConformance, PadRejectsIntegers) {
  OpCall call("Pad");
  call.Attr("mode", "edge").Attr("pad_width", "(0, 0, 0, 0, 1, 1, 1, 1)");
  call.Input(Symbol::Variable("x"));
  SimpleBindOptions opt;
  opt.ctx = Context::CPU(0);
  opt.shapes = {{"x", Shape{1, 1, 2, 2}}};
  opt.type_dict = std::map<std::string, DType>{{"x", DType::kInt32}};
  opt.grad_req = GradReq::kNull;
  try {
    auto exe = Executor::SimpleBind(call.Build(), opt);
    exe->Forward(false);
    ADD_FAILURE() << "Pad ran on int32";
  } catch (const std::exception& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("int32"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Pad"), std::string::npos) << msg;
  }
}

// ----------------------------------------------------------------------------- stack

OpCase StackCase(std::vector<Shape> shapes, int64_t axis) {
  const int64_t n = static_cast<int64_t>(shapes.size());
  Ref ref = [axis, n](const std::vector<Values>& in, const std::vector<Shape>& s) {
    std::vector<int64_t> od = s[0].dims();
    const int ax = Norm(axis, s[0].ndim() + 1);
    od.insert(od.begin() + ax, n);
    Shape os(od);
    Values out(NumElements(os));
    for (int64_t k = 0; k < static_cast<int64_t>(out.size()); ++k) {
      std::vector<int64_t> idx = Unravel(k, os);
      const int64_t part = idx[ax];
      idx.erase(idx.begin() + ax);
      out[k] = in[part][Ravel(idx, s[0])];
    }
    return std::vector<Values>{out};
  };
  return Movement(
      "stack " + std::to_string(n) + " x " + shapes[0].ToString() + " axis " + std::to_string(axis),
      "stack", {{"axis", std::to_string(axis)}, {"num_args", std::to_string(n)}}, shapes, ref);
}

TEST(TensorConformance, Stack) {
  CheckOp(StackCase({Shape{2, 3}, Shape{2, 3}}, 0));
  CheckOp(StackCase({Shape{2, 3}, Shape{2, 3}}, -1));
  CheckOp(StackCase({Shape{2, 3}, Shape{2, 3}, Shape{2, 3}}, 1));
  CheckOp(StackCase({Shape{4}, Shape{4}, Shape{4}}, 0));
  CheckOp(StackCase({Shape{3}}, 1));
  CheckOp(StackCase({Shape{0, 2}, Shape{0, 2}}, 1));
}

// ----------------------------------------------------------------------------- diag

OpCase DiagCase(const Shape& s, int64_t k, int64_t a1 = 0, int64_t a2 = 1) {
  AttrMap attrs = {{"k", std::to_string(k)}};
  if (a1 != 0) attrs["axis1"] = std::to_string(a1);
  if (a2 != 1) attrs["axis2"] = std::to_string(a2);
  const std::string name = "diag " + s.ToString() + " k=" + std::to_string(k) + " axes " +
                           std::to_string(a1) + "," + std::to_string(a2);
  if (s.ndim() == 1) {
    const int64_t m = s[0] + std::abs(k);
    return Movement(name, "diag", attrs, {s},
                    MapRef(
                        [m](const std::vector<Shape>&) {
                          return Shape{m, m};
                        },
                        [k](const std::vector<int64_t>& o,
                            const Shape&) -> std::optional<std::vector<int64_t>> {
                          if (o[1] - o[0] != k) return std::nullopt;
                          return std::vector<int64_t>{k >= 0 ? o[0] : o[1]};
                        }));
  }
  auto axes = [a1, a2](const Shape& in) {
    return std::make_pair(Norm(a1, in.ndim()), Norm(a2, in.ndim()));
  };
  auto out_shape = [axes, k](const std::vector<Shape>& s) {
    auto [x1, x2] = axes(s[0]);
    std::vector<int64_t> d;
    for (int i = 0; i < s[0].ndim(); ++i) {
      if (i != x1 && i != x2) d.push_back(s[0][i]);
    }
    int64_t len = 0;
    for (int64_t i = 0; i < s[0][x1]; ++i) {
      if (i + k >= 0 && i + k < s[0][x2]) ++len;
    }
    d.push_back(len);
    return Shape(d);
  };
  return Movement(name, "diag", attrs, {s},
                  MapRef(out_shape, [axes, k](const std::vector<int64_t>& o, const Shape& in) {
                    auto [x1, x2] = axes(in);
                    std::vector<int64_t> src(in.ndim());
                    size_t j = 0;
                    for (int i = 0; i < in.ndim(); ++i) {
                      if (i != x1 && i != x2) src[i] = o[j++];
                    }
                    const int64_t t = o.back();  // t-th element of the diagonal
                    src[x1] = k >= 0 ? t : t - k;
                    src[x2] = k >= 0 ? t + k : t;
                    return std::optional<std::vector<int64_t>>(src);
                  }));
}

TEST(TensorConformance, Diag) {
  CheckOp(DiagCase(Shape{3}, 0));
  CheckOp(DiagCase(Shape{3}, 1));
  CheckOp(DiagCase(Shape{3}, -2));
  CheckOp(DiagCase(Shape{3, 4}, 0));
  CheckOp(DiagCase(Shape{3, 4}, 1));
  CheckOp(DiagCase(Shape{3, 4}, -2));
  CheckOp(DiagCase(Shape{3, 4}, 4));   // just past the corner: empty (MXNet allows it)
  CheckOp(DiagCase(Shape{3, 4}, -3));  // empty
  CheckOp(DiagCase(Shape{2, 3, 4}, -1, 0, 2));
  CheckOp(DiagCase(Shape{2, 3, 4}, 1, -1, 0));
  CheckOp(DiagCase(Shape{2, 3, 4}, 0, 1, 2));
}

// ----------------------------------------------------------------------------- large arrays

// Forward and backward of a one-input op on an array large enough for the kernels to split the
// work across threads; the head gradient is all ones, so each input gradient element is the
// number of outputs that copy it.
struct LargeRun {
  Values out, grad;
};

LargeRun RunLarge(const std::string& op, const AttrMap& attrs, const Shape& s) {
  OpCall call(op);
  for (const auto& [k, v] : attrs) call.Attr(k, v);
  call.Input(Symbol::Variable("x"));
  SimpleBindOptions opt;
  opt.ctx = Context::CPU(0);
  opt.shapes = {{"x", s}};
  opt.type_dict = std::map<std::string, DType>{{"x", DType::kFloat64}};
  auto exe = Executor::SimpleBind(call.Build(), opt);
  Values x(NumElements(s));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i % 1013);
  exe->Forward(true, {{"x", Tensor::FromVector(s, x, DType::kFloat64)}});
  const Tensor& y = exe->outputs()[0];
  exe->Backward({Tensor::FromVector(y.shape(), Values(y.size(), 1.0), DType::kFloat64)});
  return {y.ToDoubles(), exe->grad_dict().at("x").ToDoubles()};
}

TEST(TensorConformance, LargeArraysAcrossThreads) {
  {  // tile (300, 70) by (2, 3)
    const Shape s{300, 70};
    LargeRun r = RunLarge("tile", {{"reps", "(2, 3)"}}, s);
    ASSERT_EQ(r.out.size(), 6u * 300 * 70);
    for (int64_t k = 0; k < static_cast<int64_t>(r.out.size()); k += 7) {
      const int64_t i = (k / 210) % 300, j = (k % 210) % 70;
      ASSERT_EQ(r.out[k], static_cast<double>((i * 70 + j) % 1013)) << k;
    }
    for (double g : r.grad) ASSERT_EQ(g, 6.0);
  }
  {  // repeat along axis 0
    LargeRun r = RunLarge("repeat", {{"repeats", "3"}, {"axis", "0"}}, Shape{500, 40});
    for (int64_t k = 0; k < static_cast<int64_t>(r.out.size()); k += 11) {
      ASSERT_EQ(r.out[k], static_cast<double>(((k / 40 / 3) * 40 + k % 40) % 1013)) << k;
    }
    for (double g : r.grad) ASSERT_EQ(g, 3.0);
  }
  {  // Pad reflect: interior elements are copied once, those near an edge twice
    const Shape s{4, 3, 40, 50};
    LargeRun r =
        RunLarge("Pad", {{"mode", "reflect"}, {"pad_width", "(0, 0, 0, 0, 2, 1, 3, 3)"}}, s);
    auto copies = [](int64_t i, int64_t n, int64_t before, int64_t after) {
      int64_t c = 1;
      if (i >= 1 && i <= before) ++c;
      if (i >= n - 1 - after && i <= n - 2) ++c;
      return c;
    };
    for (int64_t k = 0; k < static_cast<int64_t>(r.grad.size()); ++k) {
      const int64_t h = (k / 50) % 40, w = k % 50;
      ASSERT_EQ(r.grad[k], static_cast<double>(copies(h, 40, 2, 1) * copies(w, 50, 3, 3))) << k;
    }
  }
  {  // slice with a negative step over a large array, and its scatter-back
    LargeRun r =
        RunLarge("slice", {{"begin", "(None, -2)"}, {"end", "(None, 5)"}, {"step", "(1, -3)"}},
                 Shape{2000, 60});
    ASSERT_EQ(r.out.size(), 2000u * 18);
    for (int64_t k = 0; k < static_cast<int64_t>(r.out.size()); k += 5) {
      const int64_t i = k / 18, j = 58 - 3 * (k % 18);
      ASSERT_EQ(r.out[k], static_cast<double>((i * 60 + j) % 1013)) << k;
    }
    for (int64_t k = 0; k < static_cast<int64_t>(r.grad.size()); ++k) {
      const int64_t j = k % 60;
      ASSERT_EQ(r.grad[k], j >= 6 && j <= 58 && (58 - j) % 3 == 0 ? 1.0 : 0.0) << k;
    }
  }
}

}  // namespace

}  // namespace symx
