// The remaining elementwise unary math ops of MXNet 1.9.1 (logarithms and
// exponentials, trigonometric and hyperbolic functions with their inverses,
// degrees/radians, rounding, sign, reciprocal roots, erf/erfinv,
// gamma/gammaln) and smooth_l1, with the backward ops of their gradients.
//
// All keep the input's shape and dtype and may run in place. The rounding
// ops (floor, ceil, round, rint, fix, trunc) and sign have a zero gradient,
// as in MXNet. The others differentiate through "_backward_<op>"(ograd, v),
// v being the forward input or, where the derivative is a cheaper function
// of it, the forward output (expm1, tan, cbrt, erfinv).
//
// smooth_l1 takes MXNet's scalar-op parameters (`scalar` = sigma, default 1;
// `is_int` recorded only): f(x) = 0.5 (sigma x)^2 where |x| < 1/sigma^2,
// else |x| - 0.5/sigma^2.
//
// The contributed ops of the same kind: the straight-through estimators
// _contrib_round_ste and _contrib_sign_ste (round and sign forward, the head
// gradient passed through unchanged), _contrib_gradientmultiplier (the
// identity forward, the head gradient times `scalar` backward: a _mul_scalar
// with the forward's attributes) and _contrib_quadratic (a x^2 + b x + c,
// computed as x (a x + b) + c with a, b, c float32 values, as MXNet's).
#include "graph/ops/math.h"

#include <string>
#include <vector>

#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/elemwise.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

absl::Status UnaryShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

int OneGrad(const NodeAttrs&) { return 1; }

// float32 parameters, as MXNet declares them: the values are rounded to
// float32 before any dtype uses them.
absl::StatusOr<OpParamPtr> ParseQuadratic(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<QuadraticParam>();
  p->a = static_cast<float>(r.Float("a", 0.0));
  p->b = static_cast<float>(r.Float("b", 0.0));
  p->c = static_cast<float>(r.Float("c", 0.0));
  return r.Finish(std::move(p));
}

Op& RegisterUnary(const std::string& name, const std::string& what) {
  return OpRegistry::Global()
      .Register(name)
      .Describe(what)
      .SetInputNames({"data"})
      .SetInferShape(UnaryShape)
      .SetInplace({{0, 0}});
}

// An op whose gradient is "_backward_<name>"(ograd, data or output).
void RegisterDifferentiable(const std::string& name, const std::string& what, bool use_output,
                            PrecisionClass precision) {
  const std::string backward = "_backward_" + name;
  RegisterUnary(name, what)
      .SetGradient(UnaryBackwardGradient(backward, use_output))
      .SetPrecisionClass(precision);
  RegisterBackwardOp(backward, ParseNoParams,
                     {"ograd", use_output ? std::string("output") : std::string("data")}, OneGrad);
}

[[maybe_unused]] const bool kRegistered = [] {
  struct Entry {
    const char* name;
    const char* what;
    bool use_output;
    // Mixed precision keeps in float32 the math whose results leave float16's
    // range or need its lost bits.
    PrecisionClass precision = PrecisionClass::kFollow;
  };
  const Entry differentiable[] = {
      {"log2", "Elementwise base-2 logarithm.", false, PrecisionClass::kFloat32},
      {"log10", "Elementwise base-10 logarithm.", false, PrecisionClass::kFloat32},
      {"log1p", "Elementwise log(1 + x).", false, PrecisionClass::kFloat32},
      {"expm1", "Elementwise e^x - 1.", true, PrecisionClass::kFloat32},
      {"sin", "Elementwise sine (radians).", false},
      {"cos", "Elementwise cosine (radians).", false},
      {"tan", "Elementwise tangent (radians).", true},
      {"arcsin", "Elementwise inverse sine, in [-pi/2, pi/2].", false},
      {"arccos", "Elementwise inverse cosine, in [0, pi].", false},
      {"arctan", "Elementwise inverse tangent, in (-pi/2, pi/2).", false},
      {"sinh", "Elementwise hyperbolic sine.", false},
      {"cosh", "Elementwise hyperbolic cosine.", false},
      {"arcsinh", "Elementwise inverse hyperbolic sine.", false},
      {"arccosh", "Elementwise inverse hyperbolic cosine (x >= 1).", false},
      {"arctanh", "Elementwise inverse hyperbolic tangent (|x| < 1).", false},
      {"degrees", "Radians to degrees: x * 180 / pi.", false},
      {"radians", "Degrees to radians: x * pi / 180.", false},
      {"reciprocal", "Elementwise 1 / x.", false, PrecisionClass::kFloat32},
      {"rsqrt", "Elementwise 1 / sqrt(x).", false, PrecisionClass::kFloat32},
      {"cbrt", "Elementwise cube root.", true},
      {"rcbrt", "Elementwise 1 / cbrt(x).", false},
      {"erf", "Elementwise Gauss error function.", false},
      {"erfinv", "Elementwise inverse of erf, on (-1, 1).", true},
      {"gamma", "Elementwise gamma function.", false},
      {"gammaln", "Elementwise log |gamma(x)|.", false},
  };
  for (const Entry& e : differentiable) {
    RegisterDifferentiable(e.name, e.what, e.use_output, e.precision);
  }

  const Entry zero_grad[] = {
      {"floor", "Elementwise largest integer <= x.", false},
      {"ceil", "Elementwise smallest integer >= x.", false},
      {"round", "Elementwise nearest integer, halves away from zero.", false},
      {"rint", "Elementwise nearest integer, halves down (MXNet: rint(0.5) = 0, rint(-0.5) = -1).",
       false},
      {"fix", "Elementwise rounding toward zero.", false},
      {"trunc", "Elementwise rounding toward zero.", false},
      {"sign", "Elementwise -1, 0 or 1 (0 for NaN, as MXNet).", false},
  };
  for (const Entry& e : zero_grad) RegisterUnary(e.name, e.what).SetGradient(ZeroGradient);

  RegisterUnary("smooth_l1",
                "Smooth L1: 0.5 (sigma x)^2 where |x| < 1/sigma^2, else |x| - 0.5/sigma^2; "
                "sigma = `scalar`.")
      .SetParse(ParseScalarParam)
      .SetGradient(UnaryBackwardGradient("_backward_smooth_l1", /*use_output=*/false));
  RegisterBackwardOp("_backward_smooth_l1", ParseScalarParam, {"ograd", "data"}, OneGrad);

  RegisterUnary("_contrib_round_ste",
                "round (halves away from zero) forward; the head gradient passes unchanged.")
      .SetGradient(PassThroughGradient);
  RegisterUnary("_contrib_sign_ste", "sign forward; the head gradient passes unchanged.")
      .SetGradient(PassThroughGradient);
  RegisterUnary("_contrib_gradientmultiplier",
                "The identity forward; the head gradient times `scalar` backward.")
      .SetParse(ParseScalarParam)
      .SetGradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
        if (!og[0].node) return ZeroGradient(n, og);
        return std::vector<NodeEntry>{
            MakeInternalEntry("_mul_scalar", n->name() + "_backward", {og[0]}, n->attrs.dict)};
      });
  RegisterUnary("_contrib_quadratic", "a x^2 + b x + c.")
      .SetParse(ParseQuadratic)
      .SetGradient(UnaryBackwardGradient("_contrib_backward_quadratic", /*use_output=*/false));
  RegisterBackwardOp("_contrib_backward_quadratic", ParseQuadratic, {"ograd", "data"}, OneGrad);
  return true;
}();

}  // namespace
}  // namespace symx
