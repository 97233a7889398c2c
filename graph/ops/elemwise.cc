// The elemwise family: the basic unary ops, the array-with-scalar ops, the
// utility ops (ElementWiseSum, *_like, BlockGrad, _copy, Cast, where, clip) and
// the loss-scaling point.
//
// Elementwise unary math ops (exp, log, sqrt, square, abs, negative, relu,
// sigmoid, tanh) and the backward ops their gradients use.
//
// All of them keep the input's shape and dtype and may run in place. Where the
// derivative is a cheap expression of the output (exp) or a single forward op
// (log, negative) the gradient is built from forward ops; the rest use one
// "_backward_<op>" node fed the head gradient and whichever forward value
// (input or output) gives the derivative most cheaply.
//
// Array-with-scalar ops (_plus_scalar, _rminus_scalar, _power_scalar, ...) and
// the backward ops of those whose derivative is not a forward op.
//
// These are what `sym + 2`, `2 - sym`, `sym ** 3` build in MXNet's Python front
// end. The scalar travels as the `scalar` attribute; `is_int` records whether
// Python passed an int (MXNet 1.9 writes it; it does not change the schema).
// The "r" variants put the scalar on the left: _rminus_scalar is scalar - x.
//
// Miscellaneous elementwise ops: ElementWiseSum (add_n), zeros_like,
// ones_like, BlockGrad (stop_gradient), _copy (identity), Cast (cast), where
// and clip, plus the backward ops of Cast, where and clip. Two more copies:
// _identity_with_attr_like_rhs (lhs itself, rhs only ties the shape and
// dtype: MXNet's executor wraps head gradients in it) and _copyto (MXNet's
// NDArray copy; its output dtype is whatever the output's use says, and the
// copy converts; its gradient converts the head gradient back).
//
// Cast and where are the only ops of this family whose inputs do not all share
// one dtype: Cast's output is its `dtype` attribute whatever the input is, and
// where's condition may be any type (typically int or float masks).
//
// _symx_loss_scale(data, scale): the loss-scaling point of mixed-precision
// training (train/mixed_precision.h). The forward pass is the identity on
// data; the backward pass multiplies the head gradient by `scale` (a
// one-element array the trainer sets between steps, so the scale changes
// without a new bind), and scale gets no gradient.
//
// The pass puts it on the float32 side of a loss head's input: the head's
// gradient is scaled up while still in float32, before a Cast takes it down
// to float16, so small gradients do not flush to zero in the float16 part of
// backward. A loss head itself (SoftmaxOutput, MakeLoss) ignores head
// gradients, which is why the scale needs a node of its own.
#include "graph/ops/elemwise.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

absl::Status UnaryShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

std::string GradName(const NodePtr& n) { return absl::StrCat(n->name(), "_backward"); }

// d exp(x) = exp(x) dx: reuse the forward output.
std::vector<NodeEntry> ExpGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return {MakeInternalEntry("elemwise_mul", GradName(n), {og[0], Out(n)})};
}

// d log(x) = dx / x.
std::vector<NodeEntry> LogGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return {MakeInternalEntry("elemwise_div", GradName(n), {og[0], n->inputs[0]})};
}

std::vector<NodeEntry> NegativeGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return {MakeInternalEntry("negative", GradName(n), {og[0]})};
}

int OneGrad(const NodeAttrs&) { return 1; }

SYMX_REGISTER_OP("exp")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Elementwise e^x.")
    .SetInputNames({"data"})
    .SetInferShape(UnaryShape)
    .SetInplace({{0, 0}})
    .SetGradient(ExpGradient);

SYMX_REGISTER_OP("log")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Elementwise natural logarithm.")
    .SetInputNames({"data"})
    .SetInferShape(UnaryShape)
    .SetInplace({{0, 0}})
    .SetGradient(LogGradient);

SYMX_REGISTER_OP("negative")
    .SetLayoutAgnostic()
    .Describe("Elementwise -x.")
    .SetInputNames({"data"})
    .SetInferShape(UnaryShape)
    .SetInplace({{0, 0}})
    .SetGradient(NegativeGradient);

SYMX_REGISTER_OP("sqrt")
    .Describe("Elementwise square root.")
    .SetInputNames({"data"})
    .SetInferShape(UnaryShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_sqrt", /*use_output=*/true));

SYMX_REGISTER_OP("square")
    .Describe("Elementwise x^2.")
    .SetInputNames({"data"})
    .SetInferShape(UnaryShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_square", /*use_output=*/false));

SYMX_REGISTER_OP("abs")
    .Describe("Elementwise absolute value.")
    .SetInputNames({"data"})
    .SetInferShape(UnaryShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_abs", /*use_output=*/false));

SYMX_REGISTER_OP("relu")
    .Describe("Elementwise max(x, 0).")
    .SetInputNames({"data"})
    .SetInferShape(UnaryShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_relu", /*use_output=*/true));

SYMX_REGISTER_OP("sigmoid")
    .Describe("Elementwise logistic function 1 / (1 + e^-x).")
    .SetInputNames({"data"})
    .SetInferShape(UnaryShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_sigmoid", /*use_output=*/true));

SYMX_REGISTER_OP("tanh")
    .Describe("Elementwise hyperbolic tangent.")
    .SetInputNames({"data"})
    .SetInferShape(UnaryShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_tanh", /*use_output=*/true));

// The derivatives of sqrt, relu, sigmoid and tanh are functions of the output;
// those of square and abs need the input.
[[maybe_unused]] const bool kUnaryBackwardOpsRegistered = [] {
  for (const char* name :
       {"_backward_sqrt", "_backward_relu", "_backward_sigmoid", "_backward_tanh"}) {
    RegisterBackwardOp(name, ParseNoParams, {"ograd", "output"}, OneGrad);
  }
  for (const char* name : {"_backward_square", "_backward_abs"}) {
    RegisterBackwardOp(name, ParseNoParams, {"ograd", "data"}, OneGrad);
  }
  return true;
}();

}  // namespace

absl::StatusOr<OpParamPtr> ParseScalarParam(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ScalarParam>();
  p->scalar = r.FloatOrNan("scalar", 1.0);
  p->is_int = r.Bool("is_int", true);
  return r.Finish(std::move(p));
}

namespace {

absl::Status ScalarShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

std::vector<NodeEntry> IdentityGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return {og[0]};
}

std::vector<NodeEntry> NegateGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return {MakeInternalEntry("negative", GradName(n), {og[0]})};
}

// x*c and x/c differentiate to the same op applied to the head gradient; the
// forward attributes (scalar, is_int) are reused as they are.
GradientFn SameScalarOp(std::string op) {
  return [op](const NodePtr& n, const std::vector<NodeEntry>& og) -> std::vector<NodeEntry> {
    if (!og[0].node) return ZeroGradient(n, og);
    return {MakeInternalEntry(op, GradName(n), {og[0]}, n->attrs.dict)};
  };
}

SYMX_REGISTER_OP("_plus_scalar")
    .Describe("x + scalar.")
    .AddAlias("_PlusScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(IdentityGradient);

SYMX_REGISTER_OP("_minus_scalar")
    .Describe("x - scalar.")
    .AddAlias("_MinusScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(IdentityGradient);

SYMX_REGISTER_OP("_rminus_scalar")
    .Describe("scalar - x.")
    .AddAlias("_RMinusScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(NegateGradient);

SYMX_REGISTER_OP("_mul_scalar")
    .Describe("x * scalar.")
    .AddAlias("_MulScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(SameScalarOp("_mul_scalar"));

SYMX_REGISTER_OP("_div_scalar")
    .Describe("x / scalar.")
    .AddAlias("_DivScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(SameScalarOp("_div_scalar"));

SYMX_REGISTER_OP("_rdiv_scalar")
    .Describe("scalar / x.")
    .AddAlias("_RDivScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_rdiv_scalar", /*use_output=*/false));

SYMX_REGISTER_OP("_maximum_scalar")
    .Describe("max(x, scalar).")
    .AddAlias("_MaximumScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_maximum_scalar", /*use_output=*/false));

SYMX_REGISTER_OP("_minimum_scalar")
    .Describe("min(x, scalar).")
    .AddAlias("_MinimumScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_minimum_scalar", /*use_output=*/false));

SYMX_REGISTER_OP("_power_scalar")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("x ^ scalar.")
    .AddAlias("_PowerScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_power_scalar", /*use_output=*/false));

// d(c^x) = ln(c) c^x dx: the forward output is all the kernel needs.
SYMX_REGISTER_OP("_rpower_scalar")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("scalar ^ x.")
    .AddAlias("_RPowerScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_rpower_scalar", /*use_output=*/true));

[[maybe_unused]] const bool kScalarBackwardOpsRegistered = [] {
  auto one = [](const NodeAttrs&) { return 1; };
  for (const char* name : {"_backward_rdiv_scalar", "_backward_maximum_scalar",
                           "_backward_minimum_scalar", "_backward_power_scalar"}) {
    RegisterBackwardOp(name, ParseScalarParam, {"ograd", "data"}, one);
  }
  RegisterBackwardOp("_backward_rpower_scalar", ParseScalarParam, {"ograd", "output"}, one);
  return true;
}();

}  // namespace

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
  std::vector<Shape> merged_out = *out;
  SYMX_RETURN_IF_ERROR(AssignShape(&merged_out, 0, xy, "output"));
  // As MXNet 1.9.1: conflicts are errors at once, but nothing is inferred
  // until the condition's shape is fully known (its rank decides between the
  // elementwise and the by-row form).
  if (!(*in)[0].fully_known()) return absl::OkStatus();
  *out = std::move(merged_out);
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

SYMX_REGISTER_OP("_identity_with_attr_like_rhs")
    .Describe("lhs itself; rhs (never read) must have its shape and dtype.")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(SameShape)
    .SetInplace({{0, 0}})
    .SetGradient([](const NodePtr& n, const std::vector<NodeEntry>& og) -> std::vector<NodeEntry> {
      if (!og[0].node) return ZeroGradient(n, og);
      return {og[0], NodeEntry{}};
    });

SYMX_REGISTER_OP("_copyto")
    .Describe("A copy whose output dtype comes from its use (the copy converts).")
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    // As MXNet's: the two dtypes are independent, each known only from its own side.
    .SetInferType([](const NodeAttrs&, std::vector<DType>*, std::vector<DType>*) {
      return absl::OkStatus();
    })
    .SetGradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      if (!og[0].node) return ZeroGradient(n, og);
      return MakeBackwardNode("_backward_copyto", n, {og[0]});
    });

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

int ThreeGrads(const NodeAttrs&) { return 3; }

[[maybe_unused]] const bool kUtilityBackwardOpsRegistered = [] {
  RegisterBackwardOp("_backward_copyto", ParseNoParams, {"ograd"}, OneGrad)
      .Describe("Gradient of _copyto: the head gradient converted to the input's dtype.");
  RegisterBackwardOp("_backward_Cast", ParseCast, {"ograd"}, OneGrad)
      .SetInferType(BackwardCastType);
  RegisterBackwardOp("_backward_where", ParseNoParams, {"ograd", "condition"}, ThreeGrads)
      .SetInferType(BackwardWhereType);
  RegisterBackwardOp("_backward_clip", ParseClip, {"ograd", "data"}, OneGrad);
  return true;
}();

}  // namespace

namespace {

absl::Status LossScaleShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{1}, "input scale"));
  std::vector<Shape> data = {(*in)[0]};
  SYMX_RETURN_IF_ERROR(InferSameShape(&data, out));
  return AssignShape(in, 0, data[0], "input data");
}

std::vector<NodeEntry> LossScaleGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  // broadcast_mul's gradient graph is never built (this is already a
  // gradient), so the scale stays a constant of backward.
  return {MakeInternalEntry("broadcast_mul", n->name() + "_scaled_grad", {og[0], n->inputs[1]}),
          NodeEntry{}};
}

SYMX_REGISTER_OP("_symx_loss_scale")
    .Describe(
        "Identity on data; its gradient is the head gradient times scale (shape [1]). The "
        "loss-scaling point that mixed-precision training puts before each loss head.")
    .SetInputNames({"data", "scale"})
    .SetInferShape(LossScaleShape)
    .SetGradient(LossScaleGradient);

}  // namespace

}  // namespace symx
