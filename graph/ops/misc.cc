// Miscellaneous elementwise ops: ElementWiseSum (add_n), zeros_like,
// ones_like, BlockGrad (stop_gradient), _copy (identity), Cast (cast), where
// and clip, plus the backward ops of Cast, where and clip.
//
// Cast and where are the only ops of this family whose inputs do not all share
// one dtype: Cast's output is its `dtype` attribute whatever the input is, and
// where's condition may be any type (typically int or float masks).
#include "graph/ops/misc.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

// A generous bound that keeps a corrupt num_args from allocating millions of
// input names.
constexpr int64_t kMaxSumArgs = 1 << 20;

absl::StatusOr<OpParamPtr> ParseSum(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SumParam>();
  p->num_args = r.Int("num_args");
  if (p->num_args < 1 || p->num_args > kMaxSumArgs) {
    r.Fail("num_args", absl::StrCat("must be in [1, ", kMaxSumArgs, "]"));
  }
  return r.Finish(std::move(p));
}

std::vector<std::string> SumInputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  if (!attrs.parsed) return names;
  int64_t n = Param<SumParam>(attrs).num_args;
  names.reserve(n);
  for (int64_t i = 0; i < n; ++i) names.push_back(absl::StrCat("arg", i));
  return names;
}

absl::StatusOr<OpParamPtr> ParseCast(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<CastParam>();
  p->dtype = r.Dtype("dtype");
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseClip(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ClipParam>();
  p->a_min = r.Float("a_min");
  p->a_max = r.Float("a_max");
  if (p->a_min > p->a_max) {
    r.Fail("a_max", absl::StrCat("must be >= a_min = ", FormatDouble(p->a_min)));
  }
  return r.Finish(std::move(p));
}

absl::Status SameShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

// Only the output's dtype is known: it is the attribute.
absl::Status CastType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  return AssignType(out, 0, Param<CastParam>(attrs).dtype, "output");
}

// x, y and the output share a shape. The condition has that shape too, or is
// 1-D and picks whole rows (its length is x's first dim). Like MXNet, nothing
// is read from the condition until x's ndim is known, since a 1-D condition
// does not fix x's ndim.
absl::Status WhereShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape xy = (*in)[1];
  if (!MergeShape(&xy, (*in)[2])) {
    return absl::InvalidArgumentError(absl::StrCat("x and y must have one shape, got x ",
                                                   (*in)[1].ToString(), " and y ",
                                                   (*in)[2].ToString()));
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, xy, "output"));
  (*in)[1] = (*out)[0];
  (*in)[2] = (*out)[0];
  const Shape& x = (*in)[1];
  const Shape& cond = (*in)[0];
  if (!x.ndim_known() || !cond.ndim_known()) return absl::OkStatus();
  if (cond.ndim() == x.ndim()) {
    Shape merged = x;
    if (!MergeShape(&merged, cond)) {
      return absl::InvalidArgumentError(absl::StrCat("Shape inconsistent for input condition, ",
                                                     "Provided = ", cond.ToString(),
                                                     ", inferred shape = ", x.ToString()));
    }
    for (int i = 0; i < 3; ++i) (*in)[i] = merged;
    (*out)[0] = merged;
    return absl::OkStatus();
  }
  if (cond.ndim() != 1 || x.ndim() < 1) {
    return ShapeError("input condition", cond,
                      absl::StrCat("x's shape ", x.ToString(), " or 1-D of length x.shape[0]"));
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, Shape{x[0]}, "input condition"));
  Shape x_filled = Shape::UnknownDims(x.ndim());
  x_filled[0] = (*in)[0][0];
  for (int i = 1; i < 3; ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, x_filled, i == 1 ? "input x" : "input y"));
  }
  return AssignShape(out, 0, x_filled, "output");
}

// x, y and the output share a dtype; the condition's is its own.
absl::Status WhereType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = DType::kUnknown;
  for (DType d : {(*in)[1], (*in)[2], (*out)[0]}) {
    if (d != DType::kUnknown) {
      t = d;
      break;
    }
  }
  SYMX_RETURN_IF_ERROR(AssignType(in, 1, t, "input x"));
  SYMX_RETURN_IF_ERROR(AssignType(in, 2, t, "input y"));
  return AssignType(out, 0, t, "output");
}

// Backward op dtypes come from the forward node; these only keep the inference
// pass from forcing one dtype on inputs that legitimately differ.
absl::Status BackwardCastType(const NodeAttrs& attrs, std::vector<DType>* in,
                              std::vector<DType>* out) {
  return absl::OkStatus();
}

absl::Status BackwardWhereType(const NodeAttrs& attrs, std::vector<DType>* in,
                               std::vector<DType>* out) {
  SYMX_RETURN_IF_ERROR(AssignType(out, 0, (*in)[1], "output 0 (condition gradient)"));
  SYMX_RETURN_IF_ERROR(AssignType(out, 1, (*in)[0], "output 1 (x gradient)"));
  return AssignType(out, 2, (*in)[0], "output 2 (y gradient)");
}

std::vector<NodeEntry> PassGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return PassThroughGradient(n, og);
}

std::vector<NodeEntry> CastGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode("_backward_Cast", n, {og[0]});
}

// The condition is not differentiable; its slot of the backward op exists only
// because backward ops have one output per forward input.
std::vector<NodeEntry> WhereGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  std::vector<NodeEntry> grads = MakeBackwardNode("_backward_where", n, {og[0], n->inputs[0]});
  grads[0] = NodeEntry{};
  return grads;
}

std::vector<NodeEntry> ClipGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode("_backward_clip", n, {og[0], n->inputs[0]});
}

SYMX_REGISTER_OP("ElementWiseSum")
    .SetLayoutAgnostic()
    .Describe("Sum of num_args arrays of one shape.")
    .AddAlias("add_n")
    .SetParse(ParseSum)
    .SetVariadic("num_args")
    .SetInputNames(SumInputNames)
    .SetInferShape(SameShape)
    .SetInplace({{0, 0}})
    .SetGradient(PassGradient);

SYMX_REGISTER_OP("zeros_like")
    .SetLayoutAgnostic()
    .Describe("An array of zeros with the input's shape and dtype.")
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    .SetGradient(ZeroGradient);

SYMX_REGISTER_OP("ones_like")
    .Describe("An array of ones with the input's shape and dtype.")
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    .SetGradient(ZeroGradient);

SYMX_REGISTER_OP("BlockGrad")
    .Describe("Identity in the forward pass; stops gradients in the backward pass.")
    .AddAlias("stop_gradient")
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    .SetInplace({{0, 0}})
    .SetGradient(ZeroGradient);

SYMX_REGISTER_OP("_copy")
    .SetLayoutAgnostic()
    .Describe("Identity: copies the input.")
    .AddAlias("identity")
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    .SetInplace({{0, 0}})
    .SetGradient(PassGradient);

SYMX_REGISTER_OP("Cast")
    .Describe("Converts the input to `dtype`.")
    .AddAlias("cast")
    .SetParse(ParseCast)
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    .SetInferType(CastType)
    .SetInplace({{0, 0}})
    .SetGradient(CastGradient);

SYMX_REGISTER_OP("where")
    .SetIndexInputs({0})
    .Describe("Picks x where condition is non-zero, else y (elementwise or by row).")
    .SetInputNames({"condition", "x", "y"})
    .SetInferShape(WhereShape)
    .SetInferType(WhereType)
    .SetGradient(WhereGradient);

SYMX_REGISTER_OP("clip")
    .SetLayoutAgnostic()
    .Describe("Limits values to [a_min, a_max].")
    .SetParse(ParseClip)
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    .SetInplace({{0, 0}})
    .SetGradient(ClipGradient);

int OneGrad(const NodeAttrs&) { return 1; }
int ThreeGrads(const NodeAttrs&) { return 3; }

[[maybe_unused]] const bool kBackwardOpsRegistered = [] {
  RegisterBackwardOp("_backward_Cast", ParseCast, {"ograd"}, OneGrad)
      .SetInferType(BackwardCastType);
  RegisterBackwardOp("_backward_where", ParseNoParams, {"ograd", "condition"}, ThreeGrads)
      .SetInferType(BackwardWhereType);
  RegisterBackwardOp("_backward_clip", ParseClip, {"ograd", "data"}, OneGrad);
  return true;
}();

}  // namespace
}  // namespace symx
