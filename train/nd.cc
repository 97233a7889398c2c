#include "train/nd.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "executor/imperative.h"
#include "graph/error.h"

namespace symx::train::nd {

Tensor Call(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs, const Tensor& out) {
  InvokeArgs args;
  args.op = op;
  args.attrs = std::move(attrs);
  args.positional = std::move(inputs);
  if (out.defined()) args.out = {out};
  return Invoke(args)[0];
}

void CallInto(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs,
              std::vector<Tensor> out) {
  InvokeArgs args;
  args.op = op;
  args.attrs = std::move(attrs);
  args.positional = std::move(inputs);
  args.out = std::move(out);
  Invoke(args);
}

std::string Num(double v) { return absl::StrFormat("%.17g", v); }

std::string Tuple(const std::vector<double>& values) {
  std::vector<std::string> parts;
  for (double x : values) parts.push_back(Num(x));
  return absl::StrCat("(", absl::StrJoin(parts, ","), ")");
}

Tensor ZerosLike(const Tensor& t) {
  return ValueOrThrow(Tensor::Zeros(t.shape(), t.dtype(), t.ctx()));
}
Tensor Copy(const Tensor& t) { return ValueOrThrow(CopyToNew(t, t.ctx(), t.dtype())); }
Tensor Cast(const Tensor& t, DType dtype) { return ValueOrThrow(CopyToNew(t, t.ctx(), dtype)); }

Tensor MulScalar(const Tensor& x, double s) {
  return Call("_mul_scalar", {x}, {{"scalar", Num(s)}});
}
Tensor PlusScalar(const Tensor& x, double s) {
  return Call("_plus_scalar", {x}, {{"scalar", Num(s)}});
}
Tensor DivScalar(const Tensor& x, double s) {
  return Call("_div_scalar", {x}, {{"scalar", Num(s)}});
}
Tensor Add(const Tensor& a, const Tensor& b) { return Call("broadcast_add", {a, b}); }
Tensor Sub(const Tensor& a, const Tensor& b) { return Call("broadcast_sub", {a, b}); }
Tensor Mul(const Tensor& a, const Tensor& b) { return Call("broadcast_mul", {a, b}); }
Tensor Div(const Tensor& a, const Tensor& b) { return Call("broadcast_div", {a, b}); }
Tensor Maximum(const Tensor& a, const Tensor& b) { return Call("broadcast_maximum", {a, b}); }
Tensor Square(const Tensor& x) { return Call("square", {x}); }
Tensor Sqrt(const Tensor& x) { return Call("sqrt", {x}); }
Tensor Abs(const Tensor& x) { return Call("abs", {x}); }
Tensor Clip(const Tensor& x, double lo, double hi) {
  return Call("clip", {x}, {{"a_min", Num(lo)}, {"a_max", Num(hi)}});
}
Tensor Norm(const Tensor& x) { return Call("norm", {x}); }
void AddInto(const Tensor& x, const Tensor& y) { Call("broadcast_add", {x, y}, {}, x); }
void SubInto(const Tensor& x, const Tensor& y) { Call("broadcast_sub", {x, y}, {}, x); }
void MulScalarInto(const Tensor& x, double s) { Call("_mul_scalar", {x}, {{"scalar", Num(s)}}, x); }
void Assign(const Tensor& x, const Tensor& y) { ThrowIfError(CopyTensor(y, x)); }

}  // namespace symx::train::nd
