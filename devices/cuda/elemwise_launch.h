// Launchers of the elemwise CUDA kernels (devices/cuda/elemwise.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_ELEMWISE_LAUNCH_H_
#define SYMX_DEVICES_CUDA_ELEMWISE_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// y = f(x). Activation's types and the unary math ops.
enum class UnaryFn {
  kIdentity,
  kNegative,
  kExp,
  kLog,
  kSqrt,
  kSquare,
  kAbs,
  kRelu,
  kSigmoid,
  kLogSigmoid,
  kTanh,
  kSoftRelu,
  kSoftSign,
  kMish,
  kSignPositive,  // 1 where x > 0, else -1 (MAERegressionOutput's gradient)
  kLogicalNot,    // 1 where x == 0, else 0
};
cudaError_t LaunchUnary(UnaryFn f, Elem t, const void* x, void* y, int64_t n, cudaStream_t s);

// dx = g * f'(...) from the head gradient g, the forward output y and input x
// (each rule reads what it needs; pass y for x when the rule needs no input).
enum class UnaryGradFn {
  kReluFromOut,
  kSigmoidFromOut,
  kLogSigmoidFromOut,
  kTanhFromOut,
  kSoftReluFromOut,
  kSqrtFromOut,
  kSquareFromIn,
  kAbsFromIn,
  kSoftSignFromIn,
  kMishFromIn,
};
cudaError_t LaunchUnaryGrad(UnaryGradFn f, Elem t, const void* g, const void* y, const void* x,
                            void* dx, int64_t n, cudaStream_t s);

// The comparisons and logic ops give 1 or 0 in the operands' type.
enum class BinaryFn {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kMin,
  kPow,
  kEqual,
  kNotEqual,
  kGreater,
  kGreaterEqual,
  kLesser,
  kLesserEqual,
  kLogicalAnd,
  kLogicalOr,
  kLogicalXor,
};
// out = f(a, b), same shapes.
cudaError_t LaunchBinary(BinaryFn f, Elem t, const void* a, const void* b, void* out, int64_t n,
                         cudaStream_t s);

// Up to kMaxDims dims: out[i] = f(a[i . a_strides], b[i . b_strides]) with
// element strides that are 0 on broadcast axes.
struct BroadcastDims {
  int ndim = 0;
  int64_t out_dims[kMaxDims] = {};
  int64_t a_strides[kMaxDims] = {};
  int64_t b_strides[kMaxDims] = {};
};
cudaError_t LaunchBroadcast(BinaryFn f, Elem t, const void* a, const void* b, void* out,
                            const BroadcastDims& d, int64_t n, cudaStream_t s);

// y = f(x, scalar).
enum class ScalarFn {
  kPlus,
  kMinus,
  kRMinus,
  kMul,
  kDiv,
  kRDiv,
  kMax,
  kMin,
  kPow,
  kRPow,
  kEqual,
  kNotEqual,
  kGreater,
  kGreaterEqual,
  kLesser,
  kLesserEqual,
  kLogicalAnd,
  kLogicalOr,
  kLogicalXor,
};
cudaError_t LaunchScalar(ScalarFn f, Elem t, const void* x, double scalar, void* y, int64_t n,
                         cudaStream_t s);

// dx = g * d/dx f(x, scalar), from v (the forward input, or output for kRPow).
enum class ScalarGradFn { kRDivFromIn, kMaxFromIn, kMinFromIn, kPowFromIn, kRPowFromOut };
cudaError_t LaunchScalarGrad(ScalarGradFn f, Elem t, const void* g, const void* v, double scalar,
                             void* dx, int64_t n, cudaStream_t s);

// y[i] = value for every element of any known type.
cudaError_t LaunchFill(Elem t, double value, void* y, int64_t n, cudaStream_t s);
// y[i] = the element whose bits are the low elem_bytes bytes of `bits`.
cudaError_t LaunchFillBits(size_t elem_bytes, uint64_t bits, void* y, int64_t n, cudaStream_t s);
// _arange: y[i] = start + (i / repeat) * step; integer types use int_start
// and int_step (the values cast to the type) in int64 arithmetic.
cudaError_t LaunchArange(Elem t, double start, double step, int64_t int_start, int64_t int_step,
                         int64_t repeat, void* y, int64_t n, cudaStream_t s);
// y = x converted, between any two known types (float to integer truncates
// toward zero, saturating; NaN becomes 0).
cudaError_t LaunchCast(Elem from, const void* x, Elem to, void* y, int64_t n, cudaStream_t s);

// where: out[i] = cond[i / row] != 0 ? x[i] : y[i] (row == 1: one condition
// per element). Backward: gx/gy get g where the condition picks them, else 0
// (null: not wanted).
cudaError_t LaunchWhere(Elem cond_t, const void* cond, Elem t, const void* x, const void* y,
                        int64_t row, void* out, int64_t n, cudaStream_t s);
cudaError_t LaunchWhereGrad(Elem cond_t, const void* cond, Elem t, const void* g, int64_t row,
                            void* gx, void* gy, int64_t n, cudaStream_t s);

// clip: y = x < lo ? lo : (x > hi ? hi : x) (NaN passes); the gradient passes
// where !(x < lo || x > hi).
cudaError_t LaunchClip(Elem t, const void* x, double lo, double hi, void* y, int64_t n,
                       cudaStream_t s);
cudaError_t LaunchClipGrad(Elem t, const void* g, const void* x, double lo, double hi, void* dx,
                           int64_t n, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_ELEMWISE_LAUNCH_H_
