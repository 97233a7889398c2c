// The shape family: ops that view, permute, join or cut arrays (Flatten,
// Reshape, expand_dims, squeeze, transpose, Concat and _rnn_param_concat,
// SliceChannel, slice_axis),
// with their backward ops.
//
// Registers the ops that only change how an array's elements are viewed: Flatten, Reshape,
// expand_dims and squeeze. None of them moves data, so all may run in place and all share one
// backward op, _backward_reshape, which views the output gradient with the input's shape.
//
// Reshape's legacy `target_shape` (MXNet 0.x) keeps its old meaning: a 0 entry (at most one)
// is inferred from the total size, and keep_highest=True copies the input's first dim. It is
// translated into the modern `shape` language (0 -> -1, first entry -> 0) at parse time.
//
// Registers transpose: permutes the dims by `axes` (empty = reverse them). Its gradient is a
// transpose by the inverse permutation, so it needs no backward op of its own.
//
// Registers the ops that join arrays along an axis or cut them apart: Concat (variadic),
// SliceChannel (equal split into several outputs) and slice_axis (one range of one axis),
// with their backward ops.
#include "graph/ops/shape.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

// Anything negative is treated as unknown so that stray negative dims never index or divide.
bool DimKnown(int64_t d) { return d >= 0; }

struct DimProduct {
  int64_t known = 1;      // product of the known dims (0 if any is 0)
  int unknown = 0;        // how many dims are unknown
  int last_unknown = -1;  // index of the last unknown dim
  bool overflow = false;  // the known product does not fit in int64
};

DimProduct ProductOf(const std::vector<int64_t>& dims, int begin, int end) {
  DimProduct p;
  bool zero = false;
  for (int i = begin; i < end; ++i) {
    if (!DimKnown(dims[i])) {
      ++p.unknown;
      p.last_unknown = i;
    } else if (dims[i] == 0) {
      zero = true;
    } else if (!p.overflow && __builtin_mul_overflow(p.known, dims[i], &p.known)) {
      p.overflow = true;
    }
  }
  if (zero) {
    p.known = 0;
    p.overflow = false;
  }
  return p;
}

absl::Status TooLarge(absl::string_view what, const Shape& s) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " ", s.ToString(), " has too many elements (over 2^63)"));
}

// Dims [begin, end) of *s must multiply to `target`: fills the single unknown one if there is
// exactly one. Returns false when the known dims cannot multiply to `target`.
bool SolveProduct(Shape* s, int begin, int end, int64_t target) {
  DimProduct p = ProductOf(s->dims(), begin, end);
  if (p.overflow) return false;
  if (p.unknown == 0) return p.known == target;
  if (p.known == 0) return target == 0;
  if (target % p.known != 0) return false;
  if (p.unknown == 1) (*s)[p.last_unknown] = target / p.known;
  return true;
}

Shape ShapeWithout(const Shape& s, int axis) {
  std::vector<int64_t> dims = s.dims();
  dims.erase(dims.begin() + axis);
  return Shape(std::move(dims));
}

Shape ShapeWith(const Shape& s, int axis, int64_t dim) {
  std::vector<int64_t> dims = s.dims();
  dims.insert(dims.begin() + axis, dim);
  return Shape(std::move(dims));
}

// Reshape, Flatten, expand_dims and squeeze all pass the gradient back through a reshape.
std::vector<NodeEntry> ReshapeGradient(const NodePtr& node,
                                       const std::vector<NodeEntry>& out_grads) {
  if (!out_grads[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_reshape", node, {out_grads[0]});
}

// The backward node carries the attributes of whichever of the four ops it differentiates;
// they were validated when the forward node was made.
absl::StatusOr<OpParamPtr> ParseForwardAttrs(const AttrMap&) {
  return OpParamPtr(std::make_shared<OpParam>());
}

// ----------------------------------------------------------------------------- Flatten

absl::Status InferFlatten(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& out0 = (*out)[0];
  if (out0.ndim_known() && out0.ndim() != 2) {
    return ShapeError("output", out0, "2 dims (N, d1*d2*...)");
  }
  const Shape data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  const int n = data.ndim();
  // A 1-D (N,) flattens to (N, 1), as in MXNet (the product of no dims is 1).
  if (n < 1) return ShapeError("input data", data, "at least 1 dim (N, d1, ...)");
  DimProduct p = ProductOf(data.dims(), 1, n);
  if (p.overflow) return TooLarge("input data", data);
  SYMX_RETURN_IF_ERROR(
      AssignShape(out, 0, Shape{data[0], p.unknown ? kUnknownDim : p.known}, "output"));
  // Backward: the batch dim is shared and the rest must multiply to the output's second dim.
  const Shape o = (*out)[0];
  Shape back = data;
  if (DimKnown(o[0])) back[0] = o[0];
  if (DimKnown(o[1]) && !SolveProduct(&back, 1, n, o[1])) {
    return absl::InvalidArgumentError(
        absl::StrCat("Flatten: output ", o.ToString(), " cannot hold input ", data.ToString()));
  }
  return AssignShape(in, 0, back, "input data");
}

// ----------------------------------------------------------------------------- Reshape

struct ReshapeParam : OpParam {
  std::vector<int64_t> shape;  // as given
  bool reverse = false;
  std::vector<int64_t> target_shape;  // legacy, as given
  bool keep_highest = false;
  // What shape inference applies: `shape`, or target_shape translated; empty when neither
  // was given (then the output shape must come from elsewhere).
  std::vector<int64_t> spec;
};

std::string TupleText(const std::vector<int64_t>& v) {
  return v.size() == 1 ? absl::StrCat("(", v[0], ",)")
                       : absl::StrCat("(", absl::StrJoin(v, ", "), ")");
}

// Checks the special values of `shape`; returns "" when valid, else why not.
std::string CheckReshapeSpec(const std::vector<int64_t>& shape, bool reverse) {
  int infer = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t v = shape[i];
    if (v < -4) return absl::StrCat("value ", v, " is not a dim nor one of 0, -1, -2, -3, -4");
    if (v == -1 && ++infer > 1) return "at most one -1 may be inferred";
    if (v != -4) continue;
    // MXNet reverses the raw list, which would put the split sizes before the -4.
    if (reverse) return "-4 cannot be combined with reverse=True";
    if (i + 2 >= shape.size()) return "-4 must be followed by the two sizes it splits into";
    int64_t a = shape[i + 1], b = shape[i + 2];
    if ((a <= 0 && a != -1) || (b <= 0 && b != -1) || (a == -1 && b == -1)) {
      return absl::StrCat("-4 split sizes (", a, ", ", b,
                          ") must be positive, with at most one -1");
    }
    i += 2;
  }
  return "";
}

absl::StatusOr<OpParamPtr> ParseReshape(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ReshapeParam>();
  p->shape = r.Tuple("shape", {});
  p->reverse = r.Bool("reverse", false);
  p->target_shape = r.Tuple("target_shape", {});
  p->keep_highest = r.Bool("keep_highest", false);
  if (!p->shape.empty()) {
    std::string why = CheckReshapeSpec(p->shape, p->reverse);
    if (!why.empty()) r.Fail("shape", why);
    if (!p->target_shape.empty()) {
      r.Fail("target_shape", "the deprecated target_shape cannot be combined with shape");
    }
    if (p->keep_highest) r.Fail("keep_highest", "applies only to the legacy target_shape");
    p->spec = p->shape;
  } else if (!p->target_shape.empty()) {
    if (p->reverse) r.Fail("reverse", "applies only to shape, not the legacy target_shape");
    p->spec = p->target_shape;
    int zeros = 0;
    for (size_t i = p->keep_highest ? 1 : 0; i < p->spec.size(); ++i) {
      if (p->spec[i] < 0) r.Fail("target_shape", "dims must be >= 0 (0 = infer)");
      if (p->spec[i] == 0) {
        p->spec[i] = -1;
        ++zeros;
      }
    }
    if (zeros > 1) r.Fail("target_shape", "at most one 0 (inferred dim) is allowed");
    if (p->keep_highest) p->spec[0] = 0;
  } else if (p->keep_highest) {
    r.Fail("keep_highest", "applies only to the legacy target_shape");
  }
  return r.Finish(std::move(p));
}

// Applies `spec` to input dims `in` left to right. src[i] is the input dim that output dim i
// copies (0 and -2), else -1. An unknown input dim gives an unknown output dim. `reversed`
// says spec and in were reversed, only to report positions as the user wrote them.
absl::Status ApplyReshapeSpec(const std::vector<int64_t>& spec, const std::vector<int64_t>& in,
                              bool reversed, std::vector<int64_t>* out, std::vector<int>* src,
                              const std::function<absl::Status(std::string)>& fail) {
  const size_t n = in.size();
  size_t s = 0;  // next input dim; positive values and -1 consume one, as in MXNet
  int infer_at = -1;
  auto at = [&](size_t i) {
    return absl::StrCat(" at position ", reversed ? spec.size() - 1 - i : i);
  };
  auto push = [&](int64_t d, int from) {
    out->push_back(d);
    src->push_back(from);
  };
  for (size_t i = 0; i < spec.size(); ++i) {
    const int64_t v = spec[i];
    if (v > 0) {
      push(v, -1);
      ++s;
    } else if (v == 0) {
      if (s >= n) return fail(absl::StrCat("0", at(i), " has no input dim to copy"));
      push(in[s], static_cast<int>(s));
      ++s;
    } else if (v == -1) {
      infer_at = static_cast<int>(out->size());
      push(kUnknownDim, -1);
      ++s;
    } else if (v == -2) {
      for (; s < n; ++s) push(in[s], static_cast<int>(s));
    } else if (v == -3) {
      if (s + 1 >= n) return fail(absl::StrCat("-3", at(i), " needs two input dims"));
      int64_t a = in[s], b = in[s + 1], m = kUnknownDim;
      s += 2;
      if (DimKnown(a) && DimKnown(b) && __builtin_mul_overflow(a, b, &m)) {
        return fail("-3 merges dims whose product overflows");
      }
      push(m, -1);
    } else {  // -4, validated at parse time to have two sizes after it
      if (s >= n) return fail(absl::StrCat("-4", at(i), " has no input dim to split"));
      const int64_t d = in[s++];
      int64_t a = spec[i + 1], b = spec[i + 2];
      i += 2;
      if (DimKnown(d)) {
        int64_t known = a == -1 ? b : a;
        if (d % known != 0) {
          return fail(absl::StrCat("-4 cannot split dim ", d, " by ", known));
        }
        if (a == -1) a = d / b;
        if (b == -1) b = d / a;
        int64_t prod = 0;
        if (__builtin_mul_overflow(a, b, &prod) || prod != d) {
          return fail(absl::StrCat("-4 split sizes ", a, " and ", b, " do not multiply to ", d));
        }
      }
      push(a, -1);
      push(b, -1);
    }
  }
  if (infer_at < 0) return absl::OkStatus();
  DimProduct total = ProductOf(in, 0, static_cast<int>(n));
  DimProduct rest = ProductOf(*out, 0, static_cast<int>(out->size()));
  if (total.unknown || total.overflow || rest.unknown != 1 || rest.overflow) {
    return absl::OkStatus();  // the -1 stays unknown; backward inference may still fill it
  }
  if (rest.known == 0) return fail("-1 cannot be inferred when the other dims multiply to 0");
  if (total.known % rest.known != 0) {
    return fail(absl::StrCat("the input's ", total.known, " elements do not divide into ",
                             rest.known, " times an integer"));
  }
  (*out)[infer_at] = total.known / rest.known;
  return absl::OkStatus();
}

absl::Status SizeMismatch(const Shape& target, const Shape& data) {
  return absl::InvalidArgumentError(absl::StrCat("Reshape: target shape ", target.ToString(),
                                                 " does not have the same size as input ",
                                                 data.ToString()));
}

// One forward then backward sweep of Reshape's inference.
absl::Status ReshapeSweep(const ReshapeParam& p, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape data = (*in)[0];
  std::vector<int> src;
  if (!p.spec.empty()) {
    const std::vector<int64_t>& spec = p.spec;
    std::vector<int64_t> in_dims;
    if (data.ndim_known()) {
      in_dims = data.dims();
    } else {
      // Without the input's rank only a spec without -2 fixes the output's rank; stand-in
      // unknown dims, one per dim the spec consumes, give its shape.
      size_t consumed = 0;
      for (size_t i = 0; i < spec.size(); ++i) {
        if (spec[i] == -2) return absl::OkStatus();
        consumed += spec[i] == -3 ? 2 : 1;
        if (spec[i] == -4) i += 2;
      }
      in_dims.assign(consumed, kUnknownDim);
    }
    std::vector<int64_t> dims = in_dims, oriented_spec = spec, out_dims;
    if (p.reverse) {
      std::reverse(dims.begin(), dims.end());
      std::reverse(oriented_spec.begin(), oriented_spec.end());
    }
    auto fail = [&](std::string why) {
      return absl::InvalidArgumentError(
          absl::StrCat("Reshape: shape ", TupleText(spec), p.reverse ? " (reverse=True)" : "",
                       " does not fit input ", data.ToString(), ": ", why));
    };
    SYMX_RETURN_IF_ERROR(ApplyReshapeSpec(oriented_spec, dims, p.reverse, &out_dims, &src, fail));
    if (p.reverse) {
      std::reverse(out_dims.begin(), out_dims.end());
      std::reverse(src.begin(), src.end());
      for (int& j : src) {
        if (j >= 0) j = static_cast<int>(dims.size()) - 1 - j;
      }
    }
    Shape target(std::move(out_dims));
    if (!data.ndim_known()) return AssignShape(out, 0, target, "output");
    if (data.fully_known() && target.fully_known()) {
      DimProduct a = ProductOf(data.dims(), 0, data.ndim());
      DimProduct b = ProductOf(target.dims(), 0, target.ndim());
      if (a.overflow) return TooLarge("input data", data);
      if (b.overflow || a.known != b.known) return SizeMismatch(target, data);
    }
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, target, "output"));
  }
  // Backward: copied dims come straight back, then a single unknown input dim follows from
  // the total size.
  const Shape o = (*out)[0];
  if (!data.ndim_known() || !o.ndim_known()) return absl::OkStatus();
  Shape back = data;
  for (size_t i = 0; i < src.size(); ++i) {
    if (src[i] >= 0 && DimKnown(o[i]) && !DimKnown(back[src[i]])) back[src[i]] = o[i];
  }
  if (o.fully_known()) {
    DimProduct total = ProductOf(o.dims(), 0, o.ndim());
    if (total.overflow) return TooLarge("output", o);
    if (!SolveProduct(&back, 0, back.ndim(), total.known)) return SizeMismatch(o, data);
  }
  return AssignShape(in, 0, back, "input data");
}

absl::Status InferReshape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto& p = Param<ReshapeParam>(attrs);
  SYMX_RETURN_IF_ERROR(ReshapeSweep(p, in, out));
  // A dim filled backward may settle a -1 that was unknown in the first sweep.
  return ReshapeSweep(p, in, out);
}

// ----------------------------------------------------------------------------- expand_dims

struct ExpandDimsParam : OpParam {
  int64_t axis = 0;
};

absl::StatusOr<OpParamPtr> ParseExpandDims(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ExpandDimsParam>();
  p->axis = r.Int("axis");
  return r.Finish(std::move(p));
}

absl::Status InferExpandDims(const NodeAttrs& attrs, std::vector<Shape>* in,
                             std::vector<Shape>* out) {
  const int64_t axis = Param<ExpandDimsParam>(attrs).axis;
  int n = (*in)[0].ndim();
  if (n < 0 && (*out)[0].ndim_known()) {
    n = (*out)[0].ndim() - 1;
    if (n < 0) return ShapeError("output", (*out)[0], "at least 1 dim");
  }
  if (n < 0) return absl::OkStatus();
  if (axis < -n - 1 || axis > n) {
    return absl::InvalidArgumentError(absl::StrCat("expand_dims: axis ", axis, " is out of range [",
                                                   -n - 1, ", ", n, "] for a ", n, "-dim input"));
  }
  const int ax = static_cast<int>(axis < 0 ? axis + n + 1 : axis);
  if ((*out)[0].ndim() == n + 1) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, ShapeWithout((*out)[0], ax), "input data"));
  }
  return AssignShape(out, 0, ShapeWith((*in)[0], ax, 1), "output");
}

// ----------------------------------------------------------------------------- squeeze

struct SqueezeParam : OpParam {
  std::optional<std::vector<int64_t>> axis;
};

absl::StatusOr<OpParamPtr> ParseSqueeze(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SqueezeParam>();
  p->axis = r.OptionalTuple("axis");
  return r.Finish(std::move(p));
}

absl::Status InferSqueeze(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto& p = Param<SqueezeParam>(attrs);
  Shape data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  const int n = data.ndim();
  std::set<int> drop;
  if (p.axis) {
    for (int64_t a : *p.axis) {
      int ax = 0;
      SYMX_RETURN_IF_ERROR(NormalizeAxis(a, n, "squeeze: axis", &ax));
      if (DimKnown(data[ax]) && data[ax] != 1) {
        return absl::InvalidArgumentError(absl::StrCat("squeeze: cannot squeeze axis ", a,
                                                       " of size ", data[ax], " in input ",
                                                       data.ToString()));
      }
      data[ax] = 1;
      drop.insert(ax);
    }
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, data, "input data"));
  } else {
    // Which dims go depends on their sizes, so every dim must be known.
    if (!data.fully_known()) return absl::OkStatus();
    for (int i = 0; i < n; ++i) {
      if (data[i] == 1) drop.insert(i);
    }
  }
  std::vector<int64_t> kept;
  std::vector<int> kept_from;
  for (int i = 0; i < n; ++i) {
    if (drop.count(i)) continue;
    kept.push_back(data[i]);
    kept_from.push_back(i);
  }
  // Squeezing every dim leaves (1,), as MXNet does.
  if (kept.empty()) return AssignShape(out, 0, Shape{1}, "output");
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape(kept), "output"));
  const Shape& o = (*out)[0];
  for (size_t i = 0; i < kept_from.size(); ++i) data[kept_from[i]] = o[i];
  return AssignShape(in, 0, data, "input data");
}

}  // namespace

SYMX_REGISTER_OP("Flatten")
    .Describe("Collapses all dims but the first: (N, d1, d2, ...) -> (N, d1*d2*...).")
    .AddAlias("flatten")
    .SetInferShape(InferFlatten)
    .SetInplace({{0, 0}})
    .SetGradient(ReshapeGradient);

SYMX_REGISTER_OP("Reshape")
    .Describe(
        "Views the input with a new shape. `shape` may hold 0 (copy a dim), -1 (infer), "
        "-2 (copy the rest), -3 (merge two dims) and -4 a b (split a dim into a*b); "
        "reverse=True applies them from the right. The legacy target_shape infers its 0 "
        "entry; keep_highest keeps the first dim.")
    .AddAlias("reshape")
    .SetParse(ParseReshape)
    .SetInferShape(InferReshape)
    .SetInplace({{0, 0}})
    .SetGradient(ReshapeGradient);

SYMX_REGISTER_OP("expand_dims")
    .Describe("Inserts a dim of size 1 at `axis` (in [-ndim-1, ndim]).")
    .SetParse(ParseExpandDims)
    .SetInferShape(InferExpandDims)
    .SetInplace({{0, 0}})
    .SetGradient(ReshapeGradient);

SYMX_REGISTER_OP("squeeze")
    .Describe("Removes dims of size 1 (those in `axis`, or all); squeezing every dim gives (1,).")
    .SetParse(ParseSqueeze)
    .SetInferShape(InferSqueeze)
    .SetInplace({{0, 0}})
    .SetGradient(ReshapeGradient);

static Op& symx_backward_reshape_registration =
    RegisterBackwardOp("_backward_reshape", ParseForwardAttrs, {"ograd"},
                       [](const NodeAttrs&) { return 1; })
        .Describe(
            "Gradient of Reshape, Flatten, expand_dims and squeeze: ograd viewed with "
            "the forward input's shape.");

std::vector<int> TransposePermutation(const TransposeParam& p, int n) {
  std::vector<int> perm(n);
  for (int i = 0; i < n; ++i) perm[i] = p.axes.empty() ? n - 1 - i : static_cast<int>(p.axes[i]);
  return perm;
}

namespace {

absl::StatusOr<OpParamPtr> ParseTranspose(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<TransposeParam>();
  p->axes = r.Tuple("axes", {});
  // axes must list every dim once, so its length is the input's rank and it can be checked
  // here. Negative entries count from the end.
  const int64_t n = static_cast<int64_t>(p->axes.size());
  std::vector<bool> seen(p->axes.size(), false);
  for (int64_t& a : p->axes) {
    if (a < -n || a >= n) {
      r.Fail("axes",
             absl::StrCat("must be a permutation of 0..", n - 1, "; ", a, " is out of range"));
      break;
    }
    if (a < 0) a += n;
    if (seen[a]) {
      r.Fail("axes",
             absl::StrCat("must be a permutation of 0..", n - 1, "; axis ", a, " appears twice"));
      break;
    }
    seen[a] = true;
  }
  return r.Finish(std::move(p));
}

absl::Status InferTranspose(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const auto& p = Param<TransposeParam>(attrs);
  const Shape& data = (*in)[0];
  int n = data.ndim_known() ? data.ndim() : (*out)[0].ndim();
  if (n < 0) return absl::OkStatus();
  if (!p.axes.empty() && static_cast<int>(p.axes.size()) != n) {
    const Shape& known = data.ndim_known() ? data : (*out)[0];
    return absl::InvalidArgumentError(absl::StrCat(
        "transpose: axes (", absl::StrJoin(p.axes, ", "), ") has ", p.axes.size(), " entries but ",
        data.ndim_known() ? "input data " : "output ", known.ToString(), " has ", n, " dims"));
  }
  const std::vector<int> perm = TransposePermutation(p, n);
  if (data.ndim_known()) {
    Shape o = Shape::UnknownDims(n);
    for (int i = 0; i < n; ++i) o[i] = data[perm[i]];
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, o, "output"));
  }
  const Shape& o = (*out)[0];
  if (!o.ndim_known()) return absl::OkStatus();
  Shape back = Shape::UnknownDims(o.ndim());
  for (int i = 0; i < n && i < o.ndim(); ++i) back[perm[i]] = o[i];
  return AssignShape(in, 0, back, "input data");
}

std::vector<NodeEntry> TransposeGradient(const NodePtr& node,
                                         const std::vector<NodeEntry>& out_grads) {
  if (!out_grads[0].node) return {NodeEntry{}};
  const auto& p = Param<TransposeParam>(node->attrs);
  AttrMap attrs;
  // Reversing the dims is its own inverse.
  if (!p.axes.empty()) {
    std::vector<int64_t> inverse(p.axes.size());
    for (size_t i = 0; i < p.axes.size(); ++i) inverse[p.axes[i]] = static_cast<int64_t>(i);
    attrs["axes"] = AttrValue(inverse).str();
  }
  return {MakeInternalEntry("transpose", absl::StrCat(node->name(), "_backward"), {out_grads[0]},
                            std::move(attrs))};
}

}  // namespace

SYMX_REGISTER_OP("transpose")
    .Describe("Permutes the dims: output dim i is input dim axes[i]; empty axes reverse them.")
    .SetParse(ParseTranspose)
    .SetInferShape(InferTranspose)
    .SetGradient(TransposeGradient);

namespace {

// A bound on argument and output counts, so a typo like num_args=1e9 is an error rather than
// a billion input names.
constexpr int64_t kMaxParts = 1 << 20;

std::vector<std::string> NumberedNames(absl::string_view prefix, int64_t n) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) names.push_back(absl::StrCat(prefix, i));
  return names;
}

// ----------------------------------------------------------------------------- Concat

absl::StatusOr<OpParamPtr> ParseConcat(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ConcatParam>();
  p->num_args = r.Int("num_args");
  p->dim = r.Int("dim", 1);
  if (p->num_args < 1 || p->num_args > kMaxParts) {
    r.Fail("num_args", absl::StrCat("must be in [1, ", kMaxParts, "]"));
  }
  return r.Finish(std::move(p));
}

int64_t ConcatCount(const NodeAttrs& attrs) {
  auto p = ParamsOf<ConcatParam>(attrs, ParseConcat);
  return p ? p->num_args : 0;
}

absl::Status InferConcat(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto& p = Param<ConcatParam>(attrs);
  auto arg = [](size_t i) { return absl::StrCat("input arg", i); };
  int ndim = -1;
  for (const Shape& s : *in) {
    if (s.ndim_known()) ndim = s.ndim();
  }
  if (ndim < 0) ndim = (*out)[0].ndim();
  if (ndim < 0) return absl::OkStatus();
  if (ndim == 0) return absl::InvalidArgumentError("Concat: 0-dim arrays cannot be concatenated");
  int axis = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.dim, ndim, "Concat: dim", &axis));

  // Every dim but the axis is common to all inputs and the output.
  Shape common = Shape::UnknownDims(ndim);
  auto merge = [&](const Shape& s, const std::string& what) -> absl::Status {
    if (!s.ndim_known()) return absl::OkStatus();
    Shape masked = s;
    if (s.ndim() == ndim) masked[axis] = kUnknownDim;
    Shape before = common;
    if (!MergeShape(&common, masked)) {
      before[axis] = s.ndim() == ndim ? s[axis] : kUnknownDim;
      return absl::InvalidArgumentError(absl::StrCat("Shape inconsistent for ", what,
                                                     ", Provided = ", s.ToString(),
                                                     ", inferred shape = ", before.ToString()));
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < in->size(); ++i) SYMX_RETURN_IF_ERROR(merge((*in)[i], arg(i)));
  SYMX_RETURN_IF_ERROR(merge((*out)[0], "output"));

  int64_t sum = 0;
  int unknown = 0;
  size_t unknown_at = 0;
  for (size_t i = 0; i < in->size(); ++i) {
    Shape s = common;
    if ((*in)[i].ndim_known()) s[axis] = (*in)[i][axis];
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, s, arg(i)));
    if (!DimKnown(s[axis])) {
      ++unknown;
      unknown_at = i;
    } else if (__builtin_add_overflow(sum, s[axis], &sum)) {
      return absl::InvalidArgumentError("Concat: the output's concat dim overflows");
    }
  }
  Shape o = common;
  o[axis] = unknown ? kUnknownDim : sum;
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, o, "output"));
  // The output's size along the axis settles a single input whose size there is unknown.
  const int64_t total = (*out)[0][axis];
  if (unknown == 1 && DimKnown(total)) {
    if (total < sum) {
      return absl::InvalidArgumentError(
          absl::StrCat("Concat: output ", (*out)[0].ToString(), " is smaller along dim ", axis,
                       " than the other inputs together (", sum, ")"));
    }
    Shape s = (*in)[unknown_at];
    s[axis] = total - sum;
    SYMX_RETURN_IF_ERROR(AssignShape(in, unknown_at, s, arg(unknown_at)));
  }
  return absl::OkStatus();
}

// _rnn_param_concat: Gluon's RNN layers join their flattened weights and
// biases with it into the RNN op's one `parameters` input. It is Concat, but
// the output's size (known from the RNN op) also settles two inputs of unknown
// size, shared equally, as MXNet's RNNParamConcatShape does.
absl::Status InferRnnParamConcat(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(InferConcat(attrs, in, out));
  const Shape& o = (*out)[0];
  if (!o.ndim_known() || o.ndim() == 0) return absl::OkStatus();
  int axis = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(Param<ConcatParam>(attrs).dim, o.ndim(), "dim", &axis));
  if (!o.dim_known(axis)) return absl::OkStatus();
  std::vector<size_t> unknown;
  int64_t sum = 0;
  for (size_t i = 0; i < in->size(); ++i) {
    const Shape& s = (*in)[i];
    if (!s.ndim_known() || !s.dim_known(axis)) {
      unknown.push_back(i);
    } else {
      sum += s[axis];
    }
  }
  if (unknown.size() < 2) return absl::OkStatus();  // InferConcat settled one
  const int64_t residual = o[axis] - sum;
  if (unknown.size() > 2 || residual < 0 || residual % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "_rnn_param_concat: ", unknown.size(), " inputs of unknown size cannot share the ",
        residual, " elements the output ", o.ToString(), " leaves along dim ", axis,
        " (MXNet infers one input, or two of equal size)"));
  }
  for (size_t i : unknown) {
    Shape s = o;
    if ((*in)[i].ndim_known()) s = (*in)[i];
    s[axis] = residual / 2;
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, s, absl::StrCat("input arg", i)));
  }
  return absl::OkStatus();
}

std::vector<NodeEntry> ConcatGradient(const NodePtr& node,
                                      const std::vector<NodeEntry>& out_grads) {
  if (!out_grads[0].node) return std::vector<NodeEntry>(node->inputs.size());
  return MakeBackwardNode("_backward_Concat", node, {out_grads[0]});
}

// ----------------------------------------------------------------------------- SliceChannel

absl::StatusOr<OpParamPtr> ParseSliceChannel(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SliceChannelParam>();
  p->num_outputs = r.Int("num_outputs");
  p->axis = r.Int("axis", 1);
  p->squeeze_axis = r.Bool("squeeze_axis", false);
  if (p->num_outputs < 1 || p->num_outputs > kMaxParts) {
    r.Fail("num_outputs", absl::StrCat("must be in [1, ", kMaxParts, "]"));
  }
  return r.Finish(std::move(p));
}

int64_t SliceCount(const NodeAttrs& attrs) {
  auto p = ParamsOf<SliceChannelParam>(attrs, ParseSliceChannel);
  return p ? p->num_outputs : 0;
}

absl::Status InferSliceChannel(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out) {
  const auto& p = Param<SliceChannelParam>(attrs);
  const int64_t k = p.num_outputs;
  // All outputs share one shape.
  Shape o;
  for (size_t i = 0; i < out->size(); ++i) {
    if (!MergeShape(&o, (*out)[i])) {
      return absl::InvalidArgumentError(absl::StrCat("Shape inconsistent for output ", i,
                                                     ", Provided = ", (*out)[i].ToString(),
                                                     ", inferred shape = ", o.ToString()));
    }
  }
  // Backward: the input is an output widened k times along the axis (or with it restored).
  if (o.ndim_known()) {
    const int n = p.squeeze_axis ? o.ndim() + 1 : o.ndim();
    int ax = 0;
    SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, n, "SliceChannel: axis", &ax));
    Shape back = o;
    if (p.squeeze_axis) {
      std::vector<int64_t> dims = o.dims();
      dims.insert(dims.begin() + ax, k);
      back = Shape(std::move(dims));
    } else if (DimKnown(o[ax]) && __builtin_mul_overflow(o[ax], k, &back[ax])) {
      return absl::InvalidArgumentError("SliceChannel: input size along the axis overflows");
    }
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, back, "input data"));
  }
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  int ax = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, data.ndim(), "SliceChannel: axis", &ax));
  Shape part = data;
  const int64_t d = data[ax];
  if (DimKnown(d)) {
    if (d % k != 0) {
      return absl::InvalidArgumentError(absl::StrCat("SliceChannel: cannot split axis ", ax,
                                                     " of input ", data.ToString(), " into ", k,
                                                     " equal parts (num_outputs=", k, ")"));
    }
    if (p.squeeze_axis && d != k) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SliceChannel: squeeze_axis=True needs the split axis size to equal num_outputs, but "
          "axis ",
          ax, " of input ", data.ToString(), " has size ", d, " and num_outputs=", k));
    }
    part[ax] = d / k;
  }
  if (p.squeeze_axis) {
    std::vector<int64_t> dims = part.dims();
    dims.erase(dims.begin() + ax);
    part = Shape(std::move(dims));
    // Each part is 1 wide along the squeezed axis, so the input has exactly k there.
    if (!DimKnown(d)) {
      Shape filled = data;
      filled[ax] = k;
      SYMX_RETURN_IF_ERROR(AssignShape(in, 0, filled, "input data"));
    }
  }
  for (size_t i = 0; i < out->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, i, part, absl::StrCat("output", i)));
  }
  return absl::OkStatus();
}

std::vector<NodeEntry> SliceChannelGradient(const NodePtr& node,
                                            const std::vector<NodeEntry>& out_grads) {
  bool any = false;
  for (const NodeEntry& g : out_grads) any = any || g.node != nullptr;
  if (!any) return {NodeEntry{}};
  return MakeBackwardNode("_backward_SliceChannel", node, FillZeroGrads(node, out_grads));
}

// ----------------------------------------------------------------------------- slice_axis

absl::StatusOr<OpParamPtr> ParseSliceAxis(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SliceAxisParam>();
  p->axis = r.Int("axis");
  p->begin = r.Int("begin");
  // end is required, though its value may be None.
  if (attrs.count("end")) {
    p->end = r.OptionalInt("end");
  } else {
    r.Int("end");
  }
  // Where both count from the same side the range can be checked now.
  if (p->end && (p->begin >= 0) == (*p->end >= 0) && *p->end <= p->begin) {
    r.Fail("end", absl::StrCat("the range [", p->begin, ", ", *p->end, ") is empty"));
  }
  return r.Finish(std::move(p));
}

absl::Status InferSliceAxis(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const auto& p = Param<SliceAxisParam>(attrs);
  // Backward first: every dim but the sliced one is the output's.
  const Shape& o = (*out)[0];
  if (o.ndim_known()) {
    int ax = 0;
    SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, o.ndim(), "slice_axis: axis", &ax));
    Shape back = o;
    back[ax] = kUnknownDim;
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, back, "input data"));
  }
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  int ax = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, data.ndim(), "slice_axis: axis", &ax));
  Shape sliced = data;
  const int64_t d = data[ax];
  if (DimKnown(d)) {
    int64_t b = p.begin < 0 ? p.begin + d : p.begin;
    int64_t e = !p.end ? d : (*p.end < 0 ? *p.end + d : *p.end);
    if (b < 0 || e > d || b >= e) {
      return absl::InvalidArgumentError(absl::StrCat(
          "slice_axis: begin=", p.begin, ", end=", p.end ? absl::StrCat(*p.end) : "None",
          " select an empty or out-of-range part of axis ", ax, " (size ", d, ") of input ",
          data.ToString()));
    }
    sliced[ax] = e - b;
  } else {
    sliced[ax] = p.begin >= 0 && p.end && *p.end >= 0 ? *p.end - p.begin : kUnknownDim;
  }
  return AssignShape(out, 0, sliced, "output");
}

std::vector<NodeEntry> SliceAxisGradient(const NodePtr& node,
                                         const std::vector<NodeEntry>& out_grads) {
  if (!out_grads[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_slice_axis", node, {out_grads[0]});
}

}  // namespace

SYMX_REGISTER_OP("Concat")
    .Describe("Joins num_args arrays along `dim`; all other dims must agree.")
    .AddAlias("concat")
    .SetParse(ParseConcat)
    .SetVariadic("num_args")
    .SetInputNames([](const NodeAttrs& attrs) { return NumberedNames("arg", ConcatCount(attrs)); })
    .SetInferShape(InferConcat)
    .SetGradient(ConcatGradient);

SYMX_REGISTER_OP("_rnn_param_concat")
    .Describe(
        "Concat for the weights of Gluon's RNN layers: the output's size also settles two "
        "inputs of unknown size.")
    .SetParse(ParseConcat)
    .SetVariadic("num_args")
    .SetInputNames([](const NodeAttrs& attrs) { return NumberedNames("arg", ConcatCount(attrs)); })
    .SetInferShape(InferRnnParamConcat)
    .SetGradient(ConcatGradient);

static Op& symx_backward_concat_registration =
    RegisterBackwardOp("_backward_Concat", ParseConcat, {"ograd"}, [](const NodeAttrs& attrs) {
      return static_cast<int>(ConcatCount(attrs));
    }).Describe("Gradient of Concat: ograd cut back into one piece per input.");

SYMX_REGISTER_OP("SliceChannel")
    .Describe(
        "Splits the input into num_outputs equal parts along `axis`; squeeze_axis=True drops "
        "that axis (its size must then equal num_outputs).")
    .AddAlias("split")
    .SetParse(ParseSliceChannel)
    .SetOutputNames([](const NodeAttrs& attrs) {
      return NumberedNames("output", SliceCount(attrs));
    })
    .SetInferShape(InferSliceChannel)
    .SetGradient(SliceChannelGradient);

static Op& symx_backward_slice_channel_registration =
    RegisterBackwardOp(
        "_backward_SliceChannel", ParseSliceChannel,
        [](const NodeAttrs& attrs) { return NumberedNames("ograd", SliceCount(attrs)); },
        [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of SliceChannel: the output gradients joined along the axis.");

SYMX_REGISTER_OP("slice_axis")
    .Describe(
        "Takes [begin, end) of one axis; negative bounds count from the end, end=None means "
        "the axis' end.")
    .SetParse(ParseSliceAxis)
    .SetInferShape(InferSliceAxis)
    .SetGradient(SliceAxisGradient);

static Op& symx_backward_slice_axis_registration =
    RegisterBackwardOp("_backward_slice_axis", ParseSliceAxis, {"ograd"}, [](const NodeAttrs&) {
      return 1;
    }).Describe("Gradient of slice_axis: ograd placed in zeros of the input's shape.");

}  // namespace symx
