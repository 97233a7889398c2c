// Launchers of the CUDA kernels (devices/cuda/*.cu), in plain C++ so that the
// kernel registrations (*.cc, compiled by the host compiler) call them without
// nvcc ever seeing absl or the graph.
//
// Every launcher enqueues its work on `stream` and returns the launch's error
// (cudaSuccess for empty work); failures while running surface at the next
// synchronization, naming the device there.
#ifndef SYMX_DEVICES_CUDA_LAUNCH_H_
#define SYMX_DEVICES_CUDA_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace symx {
namespace cuda {

// Element types, numbered as graph/dtype.h (MXNet's type flags).
enum class Elem : int {
  kF32 = 0,
  kF64 = 1,
  kF16 = 2,
  kU8 = 3,
  kI32 = 4,
  kI8 = 5,
  kI64 = 6,
  kBool = 7,
  kBF16 = 12,
};

// Floating element types: F32, F64, F16, BF16 (half types compute in float).
bool IsFloatElem(Elem t);
// Every type Elem names.
bool IsKnownElem(Elem t);

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

enum class BinaryFn { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow };
// out = f(a, b), same shapes.
cudaError_t LaunchBinary(BinaryFn f, Elem t, const void* a, const void* b, void* out, int64_t n,
                         cudaStream_t s);

// Up to kMaxDims dims: out[i] = f(a[i . a_strides], b[i . b_strides]) with
// element strides that are 0 on broadcast axes.
constexpr int kMaxDims = 8;
struct BroadcastDims {
  int ndim = 0;
  int64_t out_dims[kMaxDims] = {};
  int64_t a_strides[kMaxDims] = {};
  int64_t b_strides[kMaxDims] = {};
};
cudaError_t LaunchBroadcast(BinaryFn f, Elem t, const void* a, const void* b, void* out,
                            const BroadcastDims& d, int64_t n, cudaStream_t s);

// y = f(x, scalar).
enum class ScalarFn { kPlus, kMinus, kRMinus, kMul, kDiv, kRDiv, kMax, kMin, kPow, kRPow };
cudaError_t LaunchScalar(ScalarFn f, Elem t, const void* x, double scalar, void* y, int64_t n,
                         cudaStream_t s);

// dx = g * d/dx f(x, scalar), from v (the forward input, or output for kRPow).
enum class ScalarGradFn { kRDivFromIn, kMaxFromIn, kMinFromIn, kPowFromIn, kRPowFromOut };
cudaError_t LaunchScalarGrad(ScalarGradFn f, Elem t, const void* g, const void* v, double scalar,
                             void* dx, int64_t n, cudaStream_t s);

// y[i] = value for every element of any known type.
cudaError_t LaunchFill(Elem t, double value, void* y, int64_t n, cudaStream_t s);
// y = x converted, between any two known types (float to integer truncates
// toward zero, saturating; NaN becomes 0).
cudaError_t LaunchCast(Elem from, const void* x, Elem to, void* y, int64_t n, cudaStream_t s);

// out[c] = scale * sum over r of in[r, c] for a rows x cols matrix, or
// out[c] += that when `accumulate` (float types; float32 accumulation for the
// half types).
cudaError_t LaunchColumnSums(Elem t, const void* in, int64_t rows, int64_t cols, double scale,
                             bool accumulate, void* out, cudaStream_t s);

// Reductions over the middle axis of an (outer, len, inner) view.
enum class ReduceFn { kSum, kMax, kMin };
// y[o, i] = scale * reduce_l x[o, l, i] (kSum), or the max/min.
cudaError_t LaunchReduce(ReduceFn f, Elem t, const void* x, int64_t outer, int64_t len,
                         int64_t inner, double scale, void* y, cudaStream_t s);

// Softmax over the middle axis of (outer, len, inner): y = softmax(x / temperature),
// or its log when `log`.
cudaError_t LaunchSoftmax(Elem t, const void* x, int64_t outer, int64_t len, int64_t inner,
                          double temperature, bool log, void* y, cudaStream_t s);
// Its gradient from the output y and head gradient g:
// softmax: dx = (g - sum(g * y)) * y / temperature;
// log_softmax: dx = (g - exp(y) * sum(g)) / temperature.
cudaError_t LaunchSoftmaxGrad(Elem t, const void* g, const void* y, int64_t outer, int64_t len,
                              int64_t inner, double temperature, bool log, void* dx,
                              cudaStream_t s);

// SoftmaxOutput's gradient for class-index labels over (outer, classes,
// inner): gx = (y - target) * scale, target = 1 - smooth_alpha for the label's
// class and smooth_alpha / (classes - 1) for the others; positions whose
// label is `ignore` get 0 when use_ignore. With valid_normalization the scale
// is further divided by the count of labels (of `entries`) that are not
// `ignore` (at least 1), counted on the device into `workspace` (8 bytes).
struct SoftmaxOutputGradArgs {
  int64_t outer = 0, classes = 0, inner = 0;
  int64_t entries = 0;
  double scale = 1;
  double smooth_alpha = 0;
  int64_t ignore = 0;
  bool use_ignore = false;
  bool valid_normalization = false;
};
cudaError_t LaunchSoftmaxOutputGrad(Elem t, const void* y, const void* label,
                                    const SoftmaxOutputGradArgs& a, void* workspace, void* gx,
                                    cudaStream_t s);

// y[0, n) = value / max(1, count of x[i] > thresh), the count taken on the
// device into `workspace` (8 bytes): MakeLoss's normalization=valid.
cudaError_t LaunchFillDividedByCountAbove(Elem t, const void* x, int64_t n, double thresh,
                                          double value, void* workspace, void* y,
                                          cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_LAUNCH_H_
