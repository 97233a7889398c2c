// Registers the tensor data-movement ops of MXNet 1.9.1: slice (crop), slice_like,
// SwapAxis (swapaxes), tile, repeat, reverse (flip), Pad (pad), stack and diag, with their
// backward ops. None of them computes: each output element is a copy of one input element
// (or a constant, for Pad and diag), so gradients route the output gradient back and sum
// where one input element fed several outputs (tile, repeat, Pad edge/reflect).
//
// SwapAxis and reverse are their own inverses, so their gradients are the forward op applied
// to the output gradient; the others use a backward op "_backward_<op>".
#include "graph/ops/tensor.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {

SliceRange ResolveSlice(std::optional<int64_t> begin, std::optional<int64_t> end,
                        std::optional<int64_t> step, int64_t len) {
  SliceRange r;
  r.step = step.value_or(1);
  // Python's slice.indices: bounds clamp to [0, len] going forward and to [-1, len - 1]
  // going backward; a missing bound is the start or the end in the step's direction.
  const int64_t lo = r.step > 0 ? 0 : -1;
  const int64_t hi = r.step > 0 ? len : len - 1;
  auto clamp = [&](std::optional<int64_t> v, int64_t def) {
    if (!v) return def;
    int64_t x = *v;
    if (x < 0) return std::max(x + len, lo);
    return std::min(x, hi);
  };
  const int64_t b = clamp(begin, r.step > 0 ? lo : hi);
  const int64_t e = clamp(end, r.step > 0 ? hi : lo);
  r.begin = b;
  if (r.step > 0) {
    r.count = e > b ? (e - b - 1) / r.step + 1 : 0;
  } else {
    r.count = b > e ? (b - e - 1) / (-r.step) + 1 : 0;
  }
  if (r.count == 0) r.begin = 0;
  return r;
}

absl::Status RepeatDims(const RepeatParam& p, const Shape& in, std::vector<int64_t>* dims,
                        int* ax) {
  if (!p.axis) {
    *dims = {in.Size()};
    *ax = 0;
    return absl::OkStatus();
  }
  *dims = in.dims();
  return NormalizeAxis(*p.axis, in.ndim(), "axis", ax);
}

std::vector<SliceRange> ResolveSliceAll(const SliceParam& p, const Shape& shape) {
  std::vector<SliceRange> out;
  for (int d = 0; d < shape.ndim(); ++d) {
    if (d < static_cast<int>(p.begin.size())) {
      out.push_back(
          ResolveSlice(p.begin[d], p.end[d], p.step.empty() ? std::nullopt : p.step[d], shape[d]));
    } else {
      out.push_back(SliceRange{0, 1, shape[d]});
    }
  }
  return out;
}

absl::Status DiagOutputShape(const DiagParam& p, const Shape& in, Shape* out) {
  const int n = in.ndim();
  if (n == 0) {
    return absl::InvalidArgumentError(
        "diag: the input must have at least 1 dim, got a 0-dim array");
  }
  if (n == 1) {
    if (in[0] < 0) {
      *out = Shape::UnknownDims(2);
      return absl::OkStatus();
    }
    const int64_t m = in[0] + (p.k < 0 ? -p.k : p.k);
    *out = Shape{m, m};
    return absl::OkStatus();
  }
  int a1 = 0, a2 = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis1, n, "diag: axis1", &a1));
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis2, n, "diag: axis2", &a2));
  if (a1 == a2) {
    return absl::InvalidArgumentError(
        absl::StrCat("diag: axis1 and axis2 cannot refer to the same axis ", a1));
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < n; ++d) {
    if (d != a1 && d != a2) dims.push_back(in[d]);
  }
  const int64_t h = in[a1], w = in[a2];
  int64_t len = kUnknownDim;
  if (h >= 0 && w >= 0) {
    if (p.k > w || -p.k > h) {
      return absl::InvalidArgumentError(
          absl::StrCat("diag: diagonal k=", p.k, " does not exist for input ", in.ToString(),
                       " (axis ", a1, " has size ", h, ", axis ", a2, " has size ", w, ")"));
    }
    len = p.k >= 0 ? std::min(h, w - p.k) : std::min(h + p.k, w);
  }
  dims.push_back(len);
  *out = Shape(std::move(dims));
  return absl::OkStatus();
}

namespace {

// A bound on num_args, so that a typo cannot create a billion input names.
constexpr int64_t kMaxArgs = 1 << 20;

bool DimKnown(int64_t d) { return d >= 0; }

std::string Join(const std::vector<int64_t>& v) {
  return absl::StrCat("(", absl::StrJoin(v, ", "), ")");
}

// The output gradient through backward op `op`, or zero when it is zero.
GradientFn BackwardVia(std::string op) {
  return [op](const NodePtr& node, const std::vector<NodeEntry>& og) {
    if (!og[0].node) return std::vector<NodeEntry>(node->inputs.size());
    return MakeBackwardNode(op, node, {og[0]});
  };
}

// The same forward op (same attributes) applied to the output gradient.
std::vector<NodeEntry> SelfInverseGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}};
  AttrMap attrs;
  for (const auto& [k, v] : node->attrs.dict) {
    if (k.size() < 4 || k.substr(0, 2) != "__") attrs[k] = v;
  }
  return {MakeInternalEntry(node->attrs.op->name(), absl::StrCat(node->name(), "_backward"),
                            {og[0]}, std::move(attrs))};
}

// ----------------------------------------------------------------------------- slice

// "(None, 3, -1)", "[1,None]", "(2,)", "()": integers or None.
bool ParseOptionalTuple(absl::string_view text, std::vector<std::optional<int64_t>>* out) {
  absl::string_view body = absl::StripAsciiWhitespace(text);
  if (!body.empty() && (body.front() == '(' || body.front() == '[')) {
    const char close = body.front() == '(' ? ')' : ']';
    if (body.size() < 2 || body.back() != close) return false;
    body = absl::StripAsciiWhitespace(body.substr(1, body.size() - 2));
  }
  out->clear();
  if (body.empty()) return true;
  std::vector<absl::string_view> parts = absl::StrSplit(body, ',');
  for (size_t i = 0; i < parts.size(); ++i) {
    absl::string_view p = absl::StripAsciiWhitespace(parts[i]);
    if (p.empty() && i + 1 == parts.size() && i > 0) break;
    if (p == "None") {
      out->push_back(std::nullopt);
      continue;
    }
    if (!p.empty() && (p.back() == 'L' || p.back() == 'l')) p.remove_suffix(1);
    int64_t v = 0;
    if (!absl::SimpleAtoi(p, &v)) return false;
    out->push_back(v);
  }
  return true;
}

std::string OptText(const std::vector<std::optional<int64_t>>& v) {
  std::vector<std::string> parts;
  for (const auto& x : v) parts.push_back(x ? absl::StrCat(*x) : "None");
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

absl::StatusOr<OpParamPtr> ParseSlice(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SliceParam>();
  auto read = [&](const char* key, bool required, std::vector<std::optional<int64_t>>* out) {
    if (!attrs.count(key)) {
      if (required) r.Int(key);  // records "missing attribute"
      r.String(key, "");
      return;
    }
    const std::string text = r.String(key, "");
    if (!ParseOptionalTuple(text, out)) {
      r.Fail(key, "expected a tuple of integers or None such as (None, 2, -1)");
    }
  };
  read("begin", true, &p->begin);
  read("end", true, &p->end);
  read("step", false, &p->step);
  if (p->begin.size() != p->end.size()) {
    r.Fail("end", absl::StrCat("begin and end must have the same length, got ", p->begin.size(),
                               " and ", p->end.size()));
  } else if (!p->step.empty() && p->step.size() != p->begin.size()) {
    r.Fail("step", absl::StrCat("step and begin must have the same length, got ", p->step.size(),
                                " and ", p->begin.size()));
  }
  for (size_t i = 0; i < p->step.size(); ++i) {
    if (p->step[i] && *p->step[i] == 0) {
      r.Fail("step", absl::StrCat("step[", i, "] cannot be 0"));
      break;
    }
    if (p->step[i] && *p->step[i] == INT64_MIN) {
      r.Fail("step", absl::StrCat("step[", i, "] is out of range"));
      break;
    }
  }
  return r.Finish(std::move(p));
}

absl::Status InferSlice(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto& p = Param<SliceParam>(attrs);
  const int nb = static_cast<int>(p.begin.size());
  // Backward: the ndim, and the axes that are not sliced.
  const Shape& o = (*out)[0];
  if (o.ndim_known()) {
    Shape back = Shape::UnknownDims(o.ndim());
    for (int d = nb; d < o.ndim(); ++d) back[d] = o[d];
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, back, "input data"));
  }
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  if (nb > data.ndim()) {
    return absl::InvalidArgumentError(absl::StrCat("slice: begin ", OptText(p.begin), " has ", nb,
                                                   " entries but input data ", data.ToString(),
                                                   " has only ", data.ndim(), " dims"));
  }
  Shape sliced = data;
  for (int d = 0; d < nb; ++d) {
    if (!DimKnown(data[d])) continue;
    sliced[d] =
        ResolveSlice(p.begin[d], p.end[d], p.step.empty() ? std::nullopt : p.step[d], data[d])
            .count;
  }
  return AssignShape(out, 0, sliced, "output");
}

// ----------------------------------------------------------------------------- slice_like

absl::StatusOr<OpParamPtr> ParseSliceLike(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SliceLikeParam>();
  p->axes = r.Tuple("axes", {});
  return r.Finish(std::move(p));
}

absl::Status InferSliceLike(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const auto& p = Param<SliceLikeParam>(attrs);
  const Shape& data = (*in)[0];
  const Shape& like = (*in)[1];
  // The output has data's ndim; with no axes every dim is like's.
  if (p.axes.empty()) {
    const Shape& o = (*out)[0];
    if (o.ndim_known()) SYMX_RETURN_IF_ERROR(AssignShape(in, 1, o, "input shape_like"));
    if (like.ndim_known()) SYMX_RETURN_IF_ERROR(AssignShape(out, 0, like, "output"));
    if (!data.ndim_known() || !like.ndim_known()) return absl::OkStatus();
    if (data.ndim() != like.ndim()) {
      return absl::InvalidArgumentError(
          absl::StrCat("slice_like: with no axes, data and shape_like must have the same ndim, "
                       "got data ",
                       data.ToString(), " and shape_like ", like.ToString()));
    }
    for (int d = 0; d < data.ndim(); ++d) {
      if (DimKnown(data[d]) && DimKnown(like[d]) && like[d] > data[d]) {
        return absl::InvalidArgumentError(
            absl::StrCat("slice_like: axis ", d, " of shape_like ", like.ToString(),
                         " is larger than that of data ", data.ToString()));
      }
    }
    return absl::OkStatus();
  }
  const Shape& o0 = (*out)[0];
  if (!data.ndim_known() && o0.ndim_known()) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, Shape::UnknownDims(o0.ndim()), "input data"));
  }
  if (!data.ndim_known()) return absl::OkStatus();
  const int n = data.ndim();
  std::vector<bool> sliced(n, false);
  for (int64_t a : p.axes) {
    const int64_t ax = a < 0 ? a + n : a;
    if (ax < 0 || ax >= n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "slice_like: axis ", a, " of axes ", Join(p.axes), " exceeds data ", data.ToString()));
    }
    if (like.ndim_known() && ax >= like.ndim()) {
      return absl::InvalidArgumentError(absl::StrCat("slice_like: axis ", a, " of axes ",
                                                     Join(p.axes), " exceeds shape_like ",
                                                     like.ToString()));
    }
    sliced[ax] = true;
  }
  // Unsliced axes are data's, both ways.
  const Shape& o = (*out)[0];
  if (o.ndim_known()) {
    if (o.ndim() != n) {
      return absl::InvalidArgumentError(absl::StrCat("slice_like: output ", o.ToString(),
                                                     " must have data's ndim ", data.ToString()));
    }
    Shape back = Shape::UnknownDims(n);
    for (int d = 0; d < n; ++d) {
      if (!sliced[d]) back[d] = o[d];
    }
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, back, "input data"));
  }
  Shape res = (*in)[0];
  for (int d = 0; d < n; ++d) {
    if (!sliced[d]) continue;
    res[d] = like.ndim_known() ? like[d] : kUnknownDim;
    if (DimKnown(res[d]) && DimKnown(data[d]) && res[d] > data[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("slice_like: axis ", d, " of shape_like ", like.ToString(),
                       " is larger than that of data ", data.ToString()));
    }
  }
  return AssignShape(out, 0, res, "output");
}

// data and the output share a dtype; shape_like only lends its shape, so its dtype is free
// (MXNet accepts an int32 shape_like for float32 data).
absl::Status InferSliceLikeType(const NodeAttrs& attrs, std::vector<DType>* in,
                                std::vector<DType>* out) {
  const DType t = (*in)[0] != DType::kUnknown ? (*in)[0] : (*out)[0];
  SYMX_RETURN_IF_ERROR(AssignType(in, 0, t, "input data"));
  return AssignType(out, 0, t, "output");
}

std::vector<NodeEntry> SliceLikeGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}, NodeEntry{}};
  std::vector<NodeEntry> g = MakeBackwardNode("_backward_slice_like", node, {og[0]});
  return {g[0], NodeEntry{}};  // shape_like only gives a shape: its gradient is zero
}

// ----------------------------------------------------------------------------- SwapAxis

absl::StatusOr<OpParamPtr> ParseSwapAxis(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SwapAxisParam>();
  p->dim1 = r.Int("dim1", 0);
  p->dim2 = r.Int("dim2", 0);
  return r.Finish(std::move(p));
}

absl::Status InferSwapAxis(const NodeAttrs& attrs, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  const auto& p = Param<SwapAxisParam>(attrs);
  const int n = (*in)[0].ndim_known() ? (*in)[0].ndim() : (*out)[0].ndim();
  if (n < 0) return absl::OkStatus();
  int a = 0, b = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.dim1, n, "SwapAxis: dim1", &a));
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.dim2, n, "SwapAxis: dim2", &b));
  auto swapped = [&](Shape s) {
    std::swap(s[a], s[b]);
    return s;
  };
  if ((*in)[0].ndim_known()) SYMX_RETURN_IF_ERROR(AssignShape(out, 0, swapped((*in)[0]), "output"));
  return AssignShape(in, 0, swapped((*out)[0]), "input data");
}

// ----------------------------------------------------------------------------- tile

absl::StatusOr<OpParamPtr> ParseTile(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<TileParam>();
  p->reps = r.Tuple("reps");
  for (int64_t v : p->reps) {
    if (v < 0) {
      r.Fail("reps", "entries must be non-negative");
      break;
    }
  }
  return r.Finish(std::move(p));
}

absl::Status InferTile(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto& p = Param<TileParam>(attrs);
  const int nr = static_cast<int>(p.reps.size());
  const Shape& data = (*in)[0];
  const Shape& o = (*out)[0];
  // Backward, when the input's ndim follows: data dims are the output's divided by reps.
  int n = data.ndim();
  if (n < 0 && o.ndim_known() && o.ndim() > nr) n = o.ndim();
  if (n >= 0 && o.ndim_known()) {
    const int on = std::max(n, nr);
    if (o.ndim() != on) {
      return absl::InvalidArgumentError(absl::StrCat("tile: output ", o.ToString(), " must have ",
                                                     on, " dims for reps ", Join(p.reps)));
    }
    Shape back = Shape::UnknownDims(n);
    for (int d = 0; d < n; ++d) {
      const int od = d + on - n;
      const int rd = od - (on - nr);
      const int64_t rep = rd >= 0 ? p.reps[rd] : 1;
      if (DimKnown(o[od]) && rep > 0) {
        if (o[od] % rep != 0) {
          return absl::InvalidArgumentError(absl::StrCat("tile: output ", o.ToString(),
                                                         " is not a tiling by reps ", Join(p.reps),
                                                         " (dim ", od, ")"));
        }
        back[d] = o[od] / rep;
      }
    }
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, back, "input data"));
  }
  if (!(*in)[0].ndim_known()) return absl::OkStatus();
  const Shape& x = (*in)[0];
  const int on = std::max(x.ndim(), nr);
  Shape res = Shape::UnknownDims(on);
  for (int od = 0; od < on; ++od) {
    const int d = od - (on - x.ndim());
    const int rd = od - (on - nr);
    const int64_t dim = d >= 0 ? x[d] : 1;
    const int64_t rep = rd >= 0 ? p.reps[rd] : 1;
    if (DimKnown(dim) && __builtin_mul_overflow(dim, rep, &res[od])) {
      return absl::InvalidArgumentError("tile: output size overflows");
    }
  }
  return AssignShape(out, 0, res, "output");
}

// ----------------------------------------------------------------------------- repeat

absl::StatusOr<OpParamPtr> ParseRepeat(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<RepeatParam>();
  p->repeats = r.Int("repeats");
  p->axis = r.OptionalInt("axis");
  if (p->repeats < 0) r.Fail("repeats", "repeats cannot be a negative number");
  return r.Finish(std::move(p));
}

absl::Status InferRepeat(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto& p = Param<RepeatParam>(attrs);
  if (!p.axis) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape::UnknownDims(1), "output"));
    const Shape& data = (*in)[0];
    if (!data.fully_known()) return absl::OkStatus();
    int64_t total = 0;
    if (__builtin_mul_overflow(data.Size(), p.repeats, &total)) {
      return absl::InvalidArgumentError("repeat: output size overflows");
    }
    return AssignShape(out, 0, Shape{total}, "output");
  }
  const int n = (*in)[0].ndim_known() ? (*in)[0].ndim() : (*out)[0].ndim();
  if (n < 0) return absl::OkStatus();
  int ax = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(*p.axis, n, "repeat: axis", &ax));
  const Shape& o = (*out)[0];
  if (o.ndim_known()) {
    Shape back = o;
    back[ax] = DimKnown(o[ax]) && p.repeats > 0 && o[ax] % p.repeats == 0 ? o[ax] / p.repeats
                                                                          : kUnknownDim;
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, back, "input data"));
  }
  Shape res = (*in)[0];
  if (DimKnown(res[ax]) && __builtin_mul_overflow(res[ax], p.repeats, &res[ax])) {
    return absl::InvalidArgumentError("repeat: output size overflows");
  }
  return AssignShape(out, 0, res, "output");
}

// ----------------------------------------------------------------------------- reverse

absl::StatusOr<OpParamPtr> ParseReverse(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ReverseParam>();
  p->axis = r.Tuple("axis");
  for (int64_t a : p->axis) {
    if (a < 0) {
      r.Fail("axis", "MXNet's reverse does not accept negative axes");
      break;
    }
  }
  return r.Finish(std::move(p));
}

absl::Status InferReverse(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(InferSameShape(in, out));
  const auto& p = Param<ReverseParam>(attrs);
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  for (int64_t a : p.axis) {
    if (a >= data.ndim()) {
      return absl::InvalidArgumentError(absl::StrCat("reverse: axis ", a, " of ", Join(p.axis),
                                                     " is out of range for input data ",
                                                     data.ToString()));
    }
  }
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- Pad

absl::StatusOr<OpParamPtr> ParsePad(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<PadParam>();
  const std::string mode = r.Enum("mode", {"constant", "edge", "reflect"});
  p->mode = mode == "edge"      ? PadMode::kEdge
            : mode == "reflect" ? PadMode::kReflect
                                : PadMode::kConstant;
  p->pad_width = r.Tuple("pad_width");
  p->constant_value = r.Float("constant_value", 0.0);
  for (int64_t v : p->pad_width) {
    if (v < 0 || v > (int64_t{1} << 40)) {
      r.Fail("pad_width", "entries must be non-negative (and below 2^40)");
      break;
    }
  }
  return r.Finish(std::move(p));
}

absl::Status CheckPad(const PadParam& p, const Shape& data) {
  const int n = data.ndim();
  if (n != 4 && n != 5) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Pad: only 4-D or 5-D input is supported (MXNet's limitation), got input data ",
        data.ToString()));
  }
  if (static_cast<int>(p.pad_width.size()) != 2 * n) {
    return absl::InvalidArgumentError(absl::StrCat("Pad: pad_width ", Join(p.pad_width), " has ",
                                                   p.pad_width.size(), " entries but input data ",
                                                   data.ToString(), " needs ", 2 * n));
  }
  for (int i = 0; i < 4; ++i) {
    if (p.pad_width[i] != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Pad: padding on the first two axes (N and C) must be zero, got pad_width ",
                       Join(p.pad_width)));
    }
  }
  if (p.mode == PadMode::kReflect) {
    for (int d = 2; d < n; ++d) {
      if (DimKnown(data[d]) &&
          (p.pad_width[2 * d] >= data[d] || p.pad_width[2 * d + 1] >= data[d])) {
        return absl::InvalidArgumentError(
            absl::StrCat("Pad: reflect padding must be smaller than the input size, but axis ", d,
                         " of input data ", data.ToString(), " is padded by (", p.pad_width[2 * d],
                         ", ", p.pad_width[2 * d + 1], ")"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status InferPad(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto& p = Param<PadParam>(attrs);
  const Shape& o = (*out)[0];
  if (!(*in)[0].ndim_known() && o.ndim_known()) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, Shape::UnknownDims(o.ndim()), "input data"));
  }
  if (!(*in)[0].ndim_known()) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(CheckPad(p, (*in)[0]));
  const int n = (*in)[0].ndim();
  if (o.ndim_known()) {
    Shape back = Shape::UnknownDims(o.ndim());
    for (int d = 0; d < o.ndim() && d < n; ++d) {
      const int64_t pad = p.pad_width[2 * d] + p.pad_width[2 * d + 1];
      if (DimKnown(o[d]) && o[d] >= pad) back[d] = o[d] - pad;
    }
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, back, "input data"));
    SYMX_RETURN_IF_ERROR(CheckPad(p, (*in)[0]));
  }
  Shape res = (*in)[0];
  for (int d = 0; d < n; ++d) {
    if (DimKnown(res[d]) && (__builtin_add_overflow(res[d], p.pad_width[2 * d], &res[d]) ||
                             __builtin_add_overflow(res[d], p.pad_width[2 * d + 1], &res[d]))) {
      return absl::InvalidArgumentError("Pad: output size overflows");
    }
  }
  return AssignShape(out, 0, res, "output");
}

// ----------------------------------------------------------------------------- stack

absl::StatusOr<OpParamPtr> ParseStack(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<StackParam>();
  p->axis = r.Int("axis", 0);
  p->num_args = r.Int("num_args");
  if (p->num_args < 1 || p->num_args > kMaxArgs) {
    r.Fail("num_args", absl::StrCat("must be in [1, ", kMaxArgs, "]"));
  }
  return r.Finish(std::move(p));
}

int64_t StackCount(const NodeAttrs& attrs) {
  auto p = ParamsOf<StackParam>(attrs, ParseStack);
  return p ? p->num_args : 0;
}

std::vector<std::string> StackNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < StackCount(attrs); ++i) names.push_back(absl::StrCat("arg", i));
  return names;
}

absl::Status InferStack(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto& p = Param<StackParam>(attrs);
  Shape common;
  for (size_t i = 0; i < in->size(); ++i) {
    if (!MergeShape(&common, (*in)[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("stack: all inputs must have one shape, but input arg", i, " is ",
                       (*in)[i].ToString(), " and the others ", common.ToString()));
    }
  }
  const Shape& o = (*out)[0];
  if (o.ndim_known()) {
    if (o.ndim() == 0) return absl::InvalidArgumentError("stack: the output cannot be 0-dim");
    int ax = 0;
    SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, o.ndim(), "stack: axis", &ax));
    std::vector<int64_t> dims = o.dims();
    dims.erase(dims.begin() + ax);
    Shape before = common;
    if (!MergeShape(&common, Shape(std::move(dims)))) {
      return absl::InvalidArgumentError(absl::StrCat("stack: output ", o.ToString(),
                                                     " does not match inputs ", before.ToString(),
                                                     " stacked along axis ", p.axis));
    }
  }
  for (size_t i = 0; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, common, absl::StrCat("input arg", i)));
  }
  if (!common.ndim_known()) return absl::OkStatus();
  int ax = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, common.ndim() + 1, "stack: axis", &ax));
  std::vector<int64_t> dims = common.dims();
  dims.insert(dims.begin() + ax, static_cast<int64_t>(in->size()));
  return AssignShape(out, 0, Shape(std::move(dims)), "output");
}

// ----------------------------------------------------------------------------- diag

absl::StatusOr<OpParamPtr> ParseDiag(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<DiagParam>();
  p->k = r.Int("k", 0);
  // MXNet's k is a C int.
  if (p->k < INT32_MIN || p->k > INT32_MAX) r.Fail("k", "must fit in a 32-bit int");
  p->axis1 = r.Int("axis1", 0);
  p->axis2 = r.Int("axis2", 1);
  return r.Finish(std::move(p));
}

absl::Status InferDiag(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto& p = Param<DiagParam>(attrs);
  const Shape& data = (*in)[0];
  const Shape& o = (*out)[0];
  // Backward for a 1-D input: the output is square, (n + |k|) wide.
  if (data.ndim() == 1 && o.ndim_known()) {
    if (o.ndim() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("diag: output ", o.ToString(), " of a 1-D input must be 2-D"));
    }
    const int64_t ak = p.k < 0 ? -p.k : p.k;
    for (int d = 0; d < 2; ++d) {
      if (DimKnown(o[d]) && o[d] >= ak) {
        SYMX_RETURN_IF_ERROR(AssignShape(in, 0, Shape{o[d] - ak}, "input data"));
      }
    }
  }
  if (!data.ndim_known()) return absl::OkStatus();
  Shape res;
  SYMX_RETURN_IF_ERROR(DiagOutputShape(p, data, &res));
  return AssignShape(out, 0, res, "output");
}

}  // namespace

SYMX_REGISTER_OP("slice")
    .Describe(
        "Takes begin:end:step along each of the first len(begin) axes (numpy slicing; None "
        "entries are the defaults, negative values count from the end).")
    .AddAlias("crop")
    .SetParse(ParseSlice)
    .SetInferShape(InferSlice)
    .SetGradient(BackwardVia("_backward_slice"));

static Op& symx_backward_slice_registration =
    RegisterBackwardOp("_backward_slice", ParseSlice, {"ograd"}, [](const NodeAttrs&) {
      return 1;
    }).Describe("Gradient of slice: ograd placed at the sliced positions of zeros.");

SYMX_REGISTER_OP("slice_like")
    .Describe(
        "Slices data to the shape of shape_like (from the start of each axis), on every axis or "
        "only on `axes`.")
    .SetParse(ParseSliceLike)
    .SetInputNames({"data", "shape_like"})
    .SetInferShape(InferSliceLike)
    .SetInferType(InferSliceLikeType)
    .SetGradient(SliceLikeGradient);

static Op& symx_backward_slice_like_registration =
    RegisterBackwardOp("_backward_slice_like", ParseSliceLike, {"ograd"}, [](const NodeAttrs&) {
      return 1;
    }).Describe("Gradient of slice_like for data: ograd placed at the front of zeros.");

SYMX_REGISTER_OP("SwapAxis")
    .Describe("Swaps two axes (dim1, dim2; negative values count from the end).")
    .AddAlias("swapaxes")
    .SetParse(ParseSwapAxis)
    .SetInferShape(InferSwapAxis)
    .SetGradient(SelfInverseGradient);

SYMX_REGISTER_OP("tile")
    .Describe(
        "Repeats the whole array reps times along each axis (numpy.tile: a shorter reps is "
        "padded with leading 1s, a longer one adds leading axes).")
    .SetParse(ParseTile)
    .SetInferShape(InferTile)
    .SetGradient(BackwardVia("_backward_tile"));

static Op& symx_backward_tile_registration =
    RegisterBackwardOp("_backward_tile", ParseTile, {"ograd"}, [](const NodeAttrs&) {
      return 1;
    }).Describe("Gradient of tile: the sum of ograd over the tiles.");

SYMX_REGISTER_OP("repeat")
    .Describe(
        "Repeats each element `repeats` times along `axis` (axis=None: of the flattened "
        "input).")
    .SetParse(ParseRepeat)
    .SetInferShape(InferRepeat)
    .SetGradient(BackwardVia("_backward_repeat"));

static Op& symx_backward_repeat_registration =
    RegisterBackwardOp("_backward_repeat", ParseRepeat, {"ograd"}, [](const NodeAttrs&) {
      return 1;
    }).Describe("Gradient of repeat: the sum of ograd over each element's copies.");

SYMX_REGISTER_OP("reverse")
    .Describe("Reverses the order of elements along each axis in `axis`.")
    .AddAlias("flip")
    .SetParse(ParseReverse)
    .SetInferShape(InferReverse)
    .SetGradient(SelfInverseGradient);

SYMX_REGISTER_OP("Pad")
    .Describe(
        "Pads the spatial axes of a 4-D or 5-D array (pad_width: before/after per axis, zero "
        "on N and C) with a constant, the edge values, or a reflection.")
    .AddAlias("pad")
    .SetParse(ParsePad)
    .SetInferShape(InferPad)
    .SetGradient(BackwardVia("_backward_Pad"));

static Op& symx_backward_pad_registration =
    RegisterBackwardOp("_backward_Pad", ParsePad, {"ograd"}, [](const NodeAttrs&) {
      return 1;
    }).Describe("Gradient of Pad: ograd summed back onto the elements each output copied.");

SYMX_REGISTER_OP("stack")
    .Describe("Joins num_args arrays of one shape along a new axis.")
    .SetParse(ParseStack)
    .SetVariadic("num_args")
    .SetInputNames(StackNames)
    .SetInferShape(InferStack)
    .SetGradient(BackwardVia("_backward_stack"));

static Op& symx_backward_stack_registration =
    RegisterBackwardOp("_backward_stack", ParseStack, {"ograd"}, [](const NodeAttrs& attrs) {
      return static_cast<int>(StackCount(attrs));
    }).Describe("Gradient of stack: ograd cut into one slice per input.");

SYMX_REGISTER_OP("diag")
    .Describe(
        "A 1-D input becomes a matrix with it on diagonal k; an N-D input gives its k-th "
        "diagonal over axes axis1 and axis2, as a new last axis.")
    .SetParse(ParseDiag)
    .SetInferShape(InferDiag)
    .SetGradient(BackwardVia("_backward_diag"));

static Op& symx_backward_diag_registration =
    RegisterBackwardOp("_backward_diag", ParseDiag, {"ograd"}, [](const NodeAttrs&) {
      return 1;
    }).Describe("Gradient of diag: ograd routed back to the diagonal positions.");

}  // namespace symx
