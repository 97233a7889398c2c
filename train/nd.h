// The few array operations the C++ optimizers compose their steps from, each
// one call of the engine's operator of MXNet's name through the imperative
// path (executor/imperative.h), so a step runs on the weight's device and
// rounds as mx.nd's arithmetic does (the Python optimizers call the same
// operators). Errors throw symx::Error naming the op.
#ifndef SYMX_TRAIN_ND_H_
#define SYMX_TRAIN_ND_H_

#include <string>
#include <vector>

#include "devices/tensor.h"
#include "graph/attrs.h"

namespace symx::train::nd {

// The op on `inputs` with `attrs`; into `out` when given (may be an input).
Tensor Call(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs = {},
            const Tensor& out = Tensor());
// Several outputs (the multi_ update ops write each weight).
void CallInto(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs,
              std::vector<Tensor> out);

// A double as an attribute, exactly (Python's repr of a float reads back to
// the same double; so does this).
std::string Num(double v);
// A tuple attribute of such numbers: "(0.1,0.2)".
std::string Tuple(const std::vector<double>& values);

Tensor ZerosLike(const Tensor& t);
Tensor Copy(const Tensor& t);
Tensor Cast(const Tensor& t, DType dtype);

// x op scalar (the _*_scalar ops); RSub is scalar - x.
Tensor MulScalar(const Tensor& x, double s);
Tensor PlusScalar(const Tensor& x, double s);
Tensor DivScalar(const Tensor& x, double s);
// a op b, broadcasting (broadcast_add, ...).
Tensor Add(const Tensor& a, const Tensor& b);
Tensor Sub(const Tensor& a, const Tensor& b);
Tensor Mul(const Tensor& a, const Tensor& b);
Tensor Div(const Tensor& a, const Tensor& b);
Tensor Maximum(const Tensor& a, const Tensor& b);
Tensor Square(const Tensor& x);
Tensor Sqrt(const Tensor& x);
Tensor Abs(const Tensor& x);
Tensor Clip(const Tensor& x, double lo, double hi);
// The 2-norm of every element, shape [1] (the norm operator).
Tensor Norm(const Tensor& x);
// In place, as x += y, x *= s, x[:] = y.
void AddInto(const Tensor& x, const Tensor& y);
void SubInto(const Tensor& x, const Tensor& y);
void MulScalarInto(const Tensor& x, double s);
void Assign(const Tensor& x, const Tensor& y);

}  // namespace symx::train::nd

#endif  // SYMX_TRAIN_ND_H_
