// The binary family: elementwise ops of two arrays, on equal shapes
// (elemwise_*, _maximum, _minimum, _power) or broadcasting (broadcast_*).
//
// Elementwise binary ops on equal shapes (elemwise_add/sub/mul/div, _maximum,
// _minimum, _power) and the backward ops of the last three.
//
// Unlike the broadcast_* family these require lhs, rhs and the output to have
// one shape, so inference simply merges all three. The +, -, *, / gradients are
// exact compositions of forward ops; max, min and power need a backward op that
// sees both operands.
//
// Broadcasting binary ops (broadcast_add/sub/mul/div/maximum/minimum/power/
// mod/hypot) and their backward ops.
//
// Shapes follow numpy: dims are aligned on the right, a missing dim counts as
// 1, and a 1 stretches to the other side's size. Inference works with unknown
// dims as far as the rule allows and fills an input dim from the output only
// where the input's dim is forced, never guessing between 1 and n.
//
// Modulo and hypotenuse (_mod, _hypot, broadcast_mod, broadcast_hypot and the
// array-with-scalar _mod_scalar, _rmod_scalar, _hypot_scalar). MXNet's modulo
// takes the divisor's sign, as Python's % does, and is 0 where the divisor is
// 0 (never NaN, whatever the dtype); the scalar is converted to the array's
// dtype first (an int32 array takes 2.5 as 2). d(a mod b) = (g, -floor(a/b) g).
//
// Explicit broadcasts (broadcast_to, broadcast_axis, broadcast_like): the
// output repeats the input along axes where the input has 1; the gradient sums
// the head gradient back over them (the reduction of broadcast_add's gradient).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/elemwise.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

absl::Status BinaryShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

NodeEntry Internal(absl::string_view op, const NodePtr& n, absl::string_view suffix,
                   std::vector<NodeEntry> inputs) {
  return MakeInternalEntry(op, absl::StrCat(n->name(), "_backward_", suffix), std::move(inputs));
}

std::vector<NodeEntry> AddGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return PassThroughGradient(n, og);
}

std::vector<NodeEntry> SubGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return {og[0], Internal("negative", n, "rhs", {og[0]})};
}

std::vector<NodeEntry> MulGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return {Internal("elemwise_mul", n, "lhs", {og[0], n->inputs[1]}),
          Internal("elemwise_mul", n, "rhs", {og[0], n->inputs[0]})};
}

// d(l/r) = dl/r - (l/r) dr/r, and l/r is the forward output, so both terms
// share g/r.
std::vector<NodeEntry> DivGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  NodeEntry g_over_rhs = Internal("elemwise_div", n, "lhs", {og[0], n->inputs[1]});
  NodeEntry scaled = Internal("elemwise_mul", n, "rhs_scaled", {g_over_rhs, Out(n)});
  return {g_over_rhs, Internal("negative", n, "rhs", {scaled})};
}

// "_backward_<op>"(ograd, lhs, rhs) with one output per operand.
GradientFn ViaBackwardOp(std::string backward_op) {
  return
      [backward_op](const NodePtr& n, const std::vector<NodeEntry>& og) -> std::vector<NodeEntry> {
        if (!og[0].node) return ZeroGradient(n, og);
        return MakeBackwardNode(backward_op, n, {og[0], n->inputs[0], n->inputs[1]});
      };
}

SYMX_REGISTER_OP("elemwise_add")
    .SetLayoutAgnostic()
    .Describe("lhs + rhs for arrays of one shape.")
    .AddAlias("_add")
    .AddAlias("_plus")
    .AddAlias("_Plus")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(AddGradient);

SYMX_REGISTER_OP("elemwise_sub")
    .SetLayoutAgnostic()
    .Describe("lhs - rhs for arrays of one shape.")
    .AddAlias("_sub")
    .AddAlias("_minus")
    .AddAlias("_Minus")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(SubGradient);

SYMX_REGISTER_OP("elemwise_mul")
    .SetLayoutAgnostic()
    .Describe("lhs * rhs for arrays of one shape.")
    .AddAlias("_mul")
    .AddAlias("_Mul")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(MulGradient);

SYMX_REGISTER_OP("elemwise_div")
    .SetLayoutAgnostic()
    .Describe("lhs / rhs for arrays of one shape.")
    .AddAlias("_div")
    .AddAlias("_Div")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(DivGradient);

SYMX_REGISTER_OP("_maximum")
    .Describe("Elementwise max(lhs, rhs) for arrays of one shape.")
    .AddAlias("_Maximum")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(ViaBackwardOp("_backward_maximum"));

SYMX_REGISTER_OP("_minimum")
    .Describe("Elementwise min(lhs, rhs) for arrays of one shape.")
    .AddAlias("_Minimum")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(ViaBackwardOp("_backward_minimum"));

SYMX_REGISTER_OP("_power")
    .Describe("Elementwise lhs^rhs for arrays of one shape.")
    .AddAlias("_Power")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(ViaBackwardOp("_backward_power"));

SYMX_REGISTER_OP("_mod")
    .Describe(
        "Elementwise lhs mod rhs (the sign of rhs; 0 where rhs is 0) for arrays of one shape.")
    .AddAlias("_Mod")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(ViaBackwardOp("_backward_mod"));

SYMX_REGISTER_OP("_hypot")
    .Describe("Elementwise sqrt(lhs^2 + rhs^2) for arrays of one shape.")
    .AddAlias("_Hypot")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .SetGradient(ViaBackwardOp("_backward_hypot"));

[[maybe_unused]] const bool kBackwardOpsRegistered = [] {
  for (const char* name : {"_backward_maximum", "_backward_minimum", "_backward_power",
                           "_backward_mod", "_backward_hypot"}) {
    RegisterBackwardOp(name, ParseNoParams, {"ograd", "lhs", "rhs"},
                       [](const NodeAttrs&) { return 2; });
  }
  return true;
}();

}  // namespace

namespace {

std::vector<NodeEntry> GradOnly(const std::string& backward_op, const NodePtr& n,
                                const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode(backward_op, n, {og[0]});
}

std::vector<NodeEntry> GradWithInputs(const std::string& backward_op, const NodePtr& n,
                                      const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode(backward_op, n, {og[0], n->inputs[0], n->inputs[1]});
}

// Registers broadcast_<name> (plus `alias` if any) and _backward_broadcast_<name>.
// The backward op sums the head gradient over broadcast dims; add and sub need
// nothing else, the others also read both operands.
Op& RegisterBroadcastOp(const std::string& name, const std::string& alias,
                        const std::string& description, bool backward_needs_inputs) {
  std::string backward_op = absl::StrCat("_backward_broadcast_", name);
  std::vector<std::string> backward_inputs = {"ograd"};
  if (backward_needs_inputs) {
    backward_inputs.push_back("lhs");
    backward_inputs.push_back("rhs");
  }
  RegisterBackwardOp(backward_op, ParseNoParams, backward_inputs,
                     [](const NodeAttrs&) { return 2; });
  Op& op = OpRegistry::Global()
               .Register(absl::StrCat("broadcast_", name))
               .Describe(description)
               .SetInputNames({"lhs", "rhs"})
               .SetInferShape(InferBroadcastShape)
               .SetInplace({{0, 0}, {1, 0}});
  if (!alias.empty()) op.AddAlias(alias);
  if (backward_needs_inputs) {
    op.SetGradient([backward_op](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return GradWithInputs(backward_op, n, og);
    });
  } else {
    op.SetGradient([backward_op](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return GradOnly(backward_op, n, og);
    });
  }
  return op;
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterBroadcastOp("add", "broadcast_plus", "lhs + rhs with broadcasting.", false);
  RegisterBroadcastOp("sub", "broadcast_minus", "lhs - rhs with broadcasting.", false);
  RegisterBroadcastOp("mul", "", "lhs * rhs with broadcasting.", true);
  RegisterBroadcastOp("div", "", "lhs / rhs with broadcasting.", true);
  RegisterBroadcastOp("maximum", "", "Elementwise max(lhs, rhs) with broadcasting.", true);
  RegisterBroadcastOp("minimum", "", "Elementwise min(lhs, rhs) with broadcasting.", true);
  RegisterBroadcastOp("power", "", "lhs ^ rhs with broadcasting.", true);
  RegisterBroadcastOp("mod", "",
                      "lhs mod rhs with broadcasting (the sign of rhs; 0 where rhs is 0).", true);
  RegisterBroadcastOp("hypot", "", "sqrt(lhs^2 + rhs^2) with broadcasting.", true)
      .SetPrecisionClass(PrecisionClass::kFloat32);
  return true;
}();

// ---------------------------------------------------------------------------
// mod and hypot with a scalar.

absl::Status ScalarShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

// d(x mod s)/dx = 1: the head gradient itself.
std::vector<NodeEntry> ModScalarGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return {og[0]};
}

SYMX_REGISTER_OP("_mod_scalar")
    .Describe("x mod scalar (the sign of the scalar; 0 where it is 0).")
    .AddAlias("_ModScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(ModScalarGradient);

SYMX_REGISTER_OP("_rmod_scalar")
    .Describe("scalar mod x (the sign of x; 0 where x is 0).")
    .AddAlias("_RModScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_rmod_scalar", /*use_output=*/false));

SYMX_REGISTER_OP("_hypot_scalar")
    .Describe("sqrt(x^2 + scalar^2).")
    .AddAlias("_HypotScalar")
    .SetParse(ParseScalarParam)
    .SetInputNames({"data"})
    .SetInferShape(ScalarShape)
    .SetInplace({{0, 0}})
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .SetGradient(UnaryBackwardGradient("_backward_hypot_scalar", /*use_output=*/false));

[[maybe_unused]] const bool kScalarBackwardOpsRegistered = [] {
  for (const char* name : {"_backward_rmod_scalar", "_backward_hypot_scalar"}) {
    RegisterBackwardOp(name, ParseScalarParam, {"ograd", "data"},
                       [](const NodeAttrs&) { return 1; });
  }
  return true;
}();

// ---------------------------------------------------------------------------
// broadcast_to, broadcast_axis, broadcast_like.

struct BroadcastToParam : OpParam {
  std::vector<int64_t> shape;  // 0 keeps the input's dim
};

struct BroadcastAxisParam : OpParam {
  std::vector<int64_t> axis;
  std::vector<int64_t> size;
};

struct BroadcastLikeParam : OpParam {
  std::optional<std::vector<int64_t>> lhs_axes;
  std::optional<std::vector<int64_t>> rhs_axes;
};

std::string TupleText(const std::vector<int64_t>& v) {
  return absl::StrCat("(", absl::StrJoin(v, ", "), ")");
}

absl::StatusOr<OpParamPtr> ParseBroadcastTo(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BroadcastToParam>();
  p->shape = r.Tuple("shape", {});
  for (int64_t d : p->shape) {
    if (d < 0) {
      r.Fail("shape", "dims must be non-negative (0 keeps the input's dim)");
      break;
    }
  }
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseBroadcastAxis(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BroadcastAxisParam>();
  p->axis = r.Tuple("axis", {});
  p->size = r.Tuple("size", {});
  for (int64_t a : p->axis) {
    if (a < 0) {
      r.Fail("axis", "axes must be non-negative");
      break;
    }
  }
  for (int64_t s : p->size) {
    if (s < 0) {
      r.Fail("size", "sizes must be non-negative");
      break;
    }
  }
  if (p->axis.size() != p->size.size()) {
    r.Fail("size", absl::StrCat("must have one entry per axis: axis has ", p->axis.size(),
                                ", size has ", p->size.size()));
  }
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseBroadcastLike(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BroadcastLikeParam>();
  p->lhs_axes = r.OptionalTuple("lhs_axes");
  p->rhs_axes = r.OptionalTuple("rhs_axes");
  if (p->lhs_axes && p->rhs_axes) {
    if (p->lhs_axes->size() != p->rhs_axes->size()) {
      r.Fail("rhs_axes",
             absl::StrCat("must have as many entries as lhs_axes ", TupleText(*p->lhs_axes)));
    } else if (p->lhs_axes->empty()) {
      r.Fail("lhs_axes", "must not be empty");
    }
  }
  return r.Finish(std::move(p));
}

// The output of broadcasting `in` to `target` (dims equal, or 1 in `in`);
// unknown target dims take the input's.
absl::Status BroadcastOutput(const char* op, const Shape& in, const Shape& target, Shape* out) {
  if (in.ndim() != target.ndim()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": the input of shape ", in.ToString(),
                                                   " cannot be broadcast to ", target.ToString(),
                                                   ": the number of dims differs"));
  }
  *out = target;
  for (int i = 0; i < in.ndim(); ++i) {
    if (!target.dim_known(i)) {
      (*out)[i] = in[i];
    } else if (in.dim_known(i) && in[i] != target[i] && in[i] != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": the input of shape ", in.ToString(), " cannot be broadcast to ",
                       target.ToString(), ": dim ", i, " is ", in[i], ", not 1 or ", target[i]));
    }
  }
  return absl::OkStatus();
}

absl::Status InferBroadcastTo(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  const auto& p = Param<BroadcastToParam>(attrs);
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  // 0 in `shape` keeps the input's dim (still unknown where that is).
  Shape target = Shape::UnknownDims(static_cast<int>(p.shape.size()));
  for (size_t i = 0; i < p.shape.size(); ++i) {
    if (p.shape[i] != 0) target[static_cast<int>(i)] = p.shape[i];
  }
  if (data.ndim() != target.ndim()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "broadcast_to: the input of shape ", data.ToString(), " cannot be broadcast to ",
        TupleText(p.shape), ": the number of dims differs"));
  }
  Shape o;
  SYMX_RETURN_IF_ERROR(BroadcastOutput("broadcast_to", data, target, &o));
  return AssignShape(out, 0, o, "output");
}

absl::Status InferBroadcastAxis(const NodeAttrs& attrs, std::vector<Shape>* in,
                                std::vector<Shape>* out) {
  const auto& p = Param<BroadcastAxisParam>(attrs);
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  Shape o = data;
  for (size_t i = 0; i < p.axis.size(); ++i) {
    const int64_t a = p.axis[i];
    if (a >= data.ndim()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "broadcast_axis: axis ", a, " is out of range for the input of shape ", data.ToString()));
    }
    const int ax = static_cast<int>(a);
    if (data.dim_known(ax) && data[ax] != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("broadcast_axis: the input of shape ", data.ToString(), " has ", data[ax],
                       " at axis ", a, "; a broadcast axis must have size 1"));
    }
    o[ax] = p.size[i];
  }
  return AssignShape(out, 0, o, "output");
}

absl::Status InferBroadcastLike(const NodeAttrs& attrs, std::vector<Shape>* in,
                                std::vector<Shape>* out) {
  const auto& p = Param<BroadcastLikeParam>(attrs);
  const Shape& lhs = (*in)[0];
  const Shape& rhs = (*in)[1];
  if (!lhs.ndim_known() || !rhs.ndim_known()) return absl::OkStatus();
  Shape o;
  if (!p.lhs_axes || !p.rhs_axes) {
    // Without both axis lists, the whole of rhs's shape (MXNet ignores a lone list).
    SYMX_RETURN_IF_ERROR(BroadcastOutput("broadcast_like", lhs, rhs, &o));
  } else {
    o = lhs;
    for (size_t i = 0; i < p.lhs_axes->size(); ++i) {
      int from = 0, to = 0;
      SYMX_RETURN_IF_ERROR(NormalizeAxis((*p.lhs_axes)[i], lhs.ndim(), "lhs_axes", &from));
      SYMX_RETURN_IF_ERROR(NormalizeAxis((*p.rhs_axes)[i], rhs.ndim(), "rhs_axes", &to));
      if (lhs.dim_known(from) && lhs[from] != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("broadcast_like: lhs of shape ", lhs.ToString(), " has ", lhs[from],
                         " at axis ", (*p.lhs_axes)[i], "; it must be 1 to take rhs's ",
                         rhs.ToString(), " axis ", (*p.rhs_axes)[i]));
      }
      o[from] = rhs[to];
    }
  }
  return AssignShape(out, 0, o, "output");
}

// The input's gradient: the head gradient summed down to the input's shape
// (`_backward_broadcast_*`, one output); broadcast_like's rhs only lends its
// shape and gets none.
GradientFn SumBackToInput(std::string backward_op) {
  return
      [backward_op](const NodePtr& n, const std::vector<NodeEntry>& og) -> std::vector<NodeEntry> {
        if (!og[0].node) return ZeroGradient(n, og);
        std::vector<NodeEntry> g = MakeBackwardNode(backward_op, n, {og[0]});
        g.resize(n->inputs.size());
        return g;
      };
}

SYMX_REGISTER_OP("broadcast_to")
    .Describe("Repeats the input along its size-1 axes to `shape` (0 keeps a dim).")
    .SetParse(ParseBroadcastTo)
    .SetInputNames({"data"})
    .SetInferShape(InferBroadcastTo)
    .SetGradient(SumBackToInput("_backward_broadcast_to"));

SYMX_REGISTER_OP("broadcast_axis")
    .Describe("Repeats the input along the size-1 axes `axis` to the sizes `size`.")
    .AddAlias("broadcast_axes")
    .SetParse(ParseBroadcastAxis)
    .SetInputNames({"data"})
    .SetInferShape(InferBroadcastAxis)
    .SetGradient(SumBackToInput("_backward_broadcast_axis"));

SYMX_REGISTER_OP("broadcast_like")
    .Describe(
        "Broadcasts lhs to rhs's shape, or only lhs's axes `lhs_axes` to rhs's sizes at "
        "`rhs_axes`.")
    .SetParse(ParseBroadcastLike)
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(InferBroadcastLike)
    .SetGradient(SumBackToInput("_backward_broadcast_like"));

[[maybe_unused]] const bool kBroadcastBackwardRegistered = [] {
  auto one = [](const NodeAttrs&) { return 1; };
  RegisterBackwardOp("_backward_broadcast_to", ParseBroadcastTo, {"ograd"}, one);
  RegisterBackwardOp("_backward_broadcast_axis", ParseBroadcastAxis, {"ograd"}, one);
  RegisterBackwardOp("_backward_broadcast_like", ParseBroadcastLike, {"ograd"}, one);
  return true;
}();

}  // namespace

}  // namespace symx
