// Elementwise unary math ops (exp, log, sqrt, square, abs, negative, relu,
// sigmoid, tanh) and the backward ops their gradients use.
//
// All of them keep the input's shape and dtype and may run in place. Where the
// derivative is a cheap expression of the output (exp) or a single forward op
// (log, negative) the gradient is built from forward ops; the rest use one
// "_backward_<op>" node fed the head gradient and whichever forward value
// (input or output) gives the derivative most cheaply.
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
[[maybe_unused]] const bool kBackwardOpsRegistered = [] {
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
}  // namespace symx
