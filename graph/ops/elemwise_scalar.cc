// Array-with-scalar ops (_plus_scalar, _rminus_scalar, _power_scalar, ...) and
// the backward ops of those whose derivative is not a forward op.
//
// These are what `sym + 2`, `2 - sym`, `sym ** 3` build in MXNet's Python front
// end. The scalar travels as the `scalar` attribute; `is_int` records whether
// Python passed an int (MXNet 1.9 writes it; it does not change the schema).
// The "r" variants put the scalar on the left: _rminus_scalar is scalar - x.
#include "graph/ops/elemwise_scalar.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {

absl::StatusOr<OpParamPtr> ParseScalarParam(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ScalarParam>();
  p->scalar = r.Float("scalar", 1.0);
  p->is_int = r.Bool("is_int", true);
  return r.Finish(std::move(p));
}

namespace {

absl::Status ScalarShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

std::string GradName(const NodePtr& n) { return absl::StrCat(n->name(), "_backward"); }

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

[[maybe_unused]] const bool kBackwardOpsRegistered = [] {
  auto one = [](const NodeAttrs&) { return 1; };
  for (const char* name : {"_backward_rdiv_scalar", "_backward_maximum_scalar",
                           "_backward_minimum_scalar", "_backward_power_scalar"}) {
    RegisterBackwardOp(name, ParseScalarParam, {"ograd", "data"}, one);
  }
  RegisterBackwardOp("_backward_rpower_scalar", ParseScalarParam, {"ograd", "output"}, one);
  return true;
}();

}  // namespace
}  // namespace symx
