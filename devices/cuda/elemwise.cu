// The elemwise family's CUDA kernels (launchers in devices/cuda/elemwise_launch.h).
//
// Elementwise CUDA kernels: unary math and activations with their gradients,
// binary (same shape and broadcast), array-with-scalar, fill and cast.
//
// Dropout masks, Embedding, where and clip on the GPU.
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/elemwise_launch.h"
#include "devices/stable_math.h"

namespace symx {
namespace cuda {
namespace {

template <typename C>
__device__ __forceinline__ bool IsNan(C x) {
  return x != x;
}

template <typename C>
__device__ __forceinline__ C ApplyUnary(UnaryFn f, C x) {
  switch (f) {
    case UnaryFn::kIdentity:
      return x;
    case UnaryFn::kNegative:
      return -x;
    case UnaryFn::kExp:
      return exp(x);
    case UnaryFn::kLog:
      return log(x);
    case UnaryFn::kSqrt:
      return sqrt(x);
    case UnaryFn::kSquare:
      return x * x;
    case UnaryFn::kAbs:
      return fabs(x);
    case UnaryFn::kRelu:
      // max(x, 0) with NaN passing through, as MXNet.
      return (x > C(0) || IsNan(x)) ? x : C(0);
    case UnaryFn::kSigmoid:
      return StableSigmoid(x);
    case UnaryFn::kLogSigmoid:
      return StableLogSigmoid(x);
    case UnaryFn::kTanh:
      return tanh(x);
    case UnaryFn::kSoftRelu:
      return StableSoftplus(x);
    case UnaryFn::kSoftSign:
      return x / (fabs(x) + C(1));
    case UnaryFn::kMish:
      return StableMish(x);
    case UnaryFn::kSignPositive:
      return x > C(0) ? C(1) : C(-1);
    case UnaryFn::kLogicalNot:
      return x == C(0) ? C(1) : C(0);
  }
  return x;
}

template <typename C>
__device__ __forceinline__ C ApplyUnaryGrad(UnaryGradFn f, C g, C y, C x) {
  switch (f) {
    case UnaryGradFn::kReluFromOut:
      return y > C(0) ? g : C(0);
    case UnaryGradFn::kSigmoidFromOut:
      return g * y * (C(1) - y);
    case UnaryGradFn::kLogSigmoidFromOut:
      return -g * expm1(y);
    case UnaryGradFn::kTanhFromOut:
      return g * (C(1) - y * y);
    case UnaryGradFn::kSoftReluFromOut:
      return -g * expm1(-y);
    case UnaryGradFn::kSqrtFromOut:
      return g / (y * C(2));
    case UnaryGradFn::kSquareFromIn:
      return g * x * C(2);
    case UnaryGradFn::kAbsFromIn:
      return x > C(0) ? g : (x < C(0) ? -g : C(0));
    case UnaryGradFn::kSoftSignFromIn: {
      C d = fabs(x) + C(1);
      return g / (d * d);
    }
    case UnaryGradFn::kMishFromIn: {
      C t = StableTanhSoftplus(x);
      return g * (t + x * StableSigmoid(x) * (C(1) - t * t));
    }
  }
  return g;
}

// The comparisons and logic ops shared by the array and scalar forms; false
// for the arithmetic ones.
template <typename C>
__device__ __forceinline__ bool Compare(BinaryFn f, C a, C b, C* out) {
  bool r;
  switch (f) {
    case BinaryFn::kEqual:
      r = a == b;
      break;
    case BinaryFn::kNotEqual:
      r = a != b;
      break;
    case BinaryFn::kGreater:
      r = a > b;
      break;
    case BinaryFn::kGreaterEqual:
      r = a >= b;
      break;
    case BinaryFn::kLesser:
      r = a < b;
      break;
    case BinaryFn::kLesserEqual:
      r = a <= b;
      break;
    case BinaryFn::kLogicalAnd:
      r = a != C(0) && b != C(0);
      break;
    case BinaryFn::kLogicalOr:
      r = a != C(0) || b != C(0);
      break;
    case BinaryFn::kLogicalXor:
      r = (a != C(0)) != (b != C(0));
      break;
    default:
      return false;
  }
  *out = r ? C(1) : C(0);
  return true;
}

template <typename C>
__device__ __forceinline__ C ApplyBinary(BinaryFn f, C a, C b) {
  C cmp;
  if (Compare(f, a, b, &cmp)) return cmp;
  switch (f) {
    case BinaryFn::kAdd:
      return a + b;
    case BinaryFn::kSub:
      return a - b;
    case BinaryFn::kMul:
      return a * b;
    case BinaryFn::kDiv:
      return a / b;
    case BinaryFn::kMax:
      return (IsNan(a) || a > b) ? a : b;
    case BinaryFn::kMin:
      return (IsNan(a) || a < b) ? a : b;
    case BinaryFn::kPow:
      return pow(a, b);
    default:
      break;
  }
  return a;
}

template <typename C>
__device__ __forceinline__ C ApplyScalar(ScalarFn f, C x, C s) {
  if (f >= ScalarFn::kEqual) {
    // The comparisons line up with BinaryFn's, array on the left.
    C cmp;
    Compare(static_cast<BinaryFn>(static_cast<int>(f) - static_cast<int>(ScalarFn::kEqual) +
                                  static_cast<int>(BinaryFn::kEqual)),
            x, s, &cmp);
    return cmp;
  }
  switch (f) {
    case ScalarFn::kPlus:
      return x + s;
    case ScalarFn::kMinus:
      return x - s;
    case ScalarFn::kRMinus:
      return s - x;
    case ScalarFn::kMul:
      return x * s;
    case ScalarFn::kDiv:
      return x / s;
    case ScalarFn::kRDiv:
      return s / x;
    case ScalarFn::kMax:
      return (IsNan(x) || x > s) ? x : s;
    case ScalarFn::kMin:
      return (IsNan(x) || x < s) ? x : s;
    case ScalarFn::kPow:
      return pow(x, s);
    case ScalarFn::kRPow:
      return pow(s, x);
    default:
      break;
  }
  return x;
}

template <typename C>
__device__ __forceinline__ C ApplyScalarGrad(ScalarGradFn f, C g, C v, C s) {
  switch (f) {
    case ScalarGradFn::kRDivFromIn:
      return g * (-s / (v * v));
    case ScalarGradFn::kMaxFromIn:
      return v >= s ? g : C(0);
    case ScalarGradFn::kMinFromIn:
      return v <= s ? g : C(0);
    case ScalarGradFn::kPowFromIn:
      return g * s * pow(v, s - C(1));
    case ScalarGradFn::kRPowFromOut:
      return g * v * log(s);
  }
  return g;
}

template <typename T>
__global__ void UnaryKernel(UnaryFn f, const T* x, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(y, i, ApplyUnary<Acc<T>>(f, Load(x, i))); }
}

template <typename T>
__global__ void UnaryGradKernel(UnaryGradFn f, const T* g, const T* y, const T* x, T* dx,
                                int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    Store(dx, i, ApplyUnaryGrad<Acc<T>>(f, Load(g, i), Load(y, i), Load(x, i)));
  }
}

template <typename T>
__global__ void BinaryKernel(BinaryFn f, const T* a, const T* b, T* out, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(out, i, ApplyBinary<Acc<T>>(f, Load(a, i), Load(b, i))); }
}

template <typename T>
__global__ void BroadcastKernel(BinaryFn f, const T* a, const T* b, T* out, BroadcastDims d,
                                int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    int64_t rest = i, ai = 0, bi = 0;
    for (int k = d.ndim - 1; k >= 0; --k) {
      const int64_t idx = rest % d.out_dims[k];
      rest /= d.out_dims[k];
      ai += idx * d.a_strides[k];
      bi += idx * d.b_strides[k];
    }
    Store(out, i, ApplyBinary<Acc<T>>(f, Load(a, ai), Load(b, bi)));
  }
}

template <typename T>
__global__ void ScalarKernel(ScalarFn f, const T* x, Acc<T> s, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(y, i, ApplyScalar<Acc<T>>(f, Load(x, i), s)); }
}

template <typename T>
__global__ void ScalarGradKernel(ScalarGradFn f, const T* g, const T* v, Acc<T> s, T* dx,
                                 int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(dx, i, ApplyScalarGrad<Acc<T>>(f, Load(g, i), Load(v, i), s)); }
}

template <typename T>
__global__ void FillKernel(T value, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { y[i] = value; }
}

template <typename S, typename D>
__global__ void CastKernel(const S* x, D* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    if constexpr (std::is_integral_v<S> && std::is_integral_v<D> && !std::is_same_v<D, bool>) {
      y[i] = static_cast<D>(x[i]);  // exact for 64-bit integers
    } else {
      y[i] = FromDouble<D>(ToDouble(x[i]));
    }
  }
}

template <typename S>
cudaError_t CastFrom(const S* x, Elem to, void* y, int64_t n, cudaStream_t s) {
  SYMX_CUDA_ALL_SWITCH(
      to, D, { CastKernel<S, D><<<GridFor(n), kThreads, 0, s>>>(x, static_cast<D*>(y), n); });
  return LastLaunchError();
}

// Integer types step in int64 and wrap into T, as the CPU kernel does;
// floating ones compute start + k * step in double.
template <typename T>
__global__ void ArangeKernel(double start, double step, int64_t s0, int64_t st, int64_t repeat,
                             T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const int64_t k = i / repeat;
    if constexpr (std::is_integral_v<T>) {  // bool too: nonzero is true
      y[i] = static_cast<T>(s0 + k * st);
    } else {
      y[i] = FromDouble<T>(start + static_cast<double>(k) * step);
    }
  }
}

template <typename C, typename T>
__global__ void WhereKernel(const C* cond, const T* x, const T* y, int64_t row, T* out, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { out[i] = ToDouble(cond[i / row]) != 0.0 ? x[i] : y[i]; }
}

template <typename C, typename T>
__global__ void WhereGradKernel(const C* cond, const T* g, int64_t row, T* gx, T* gy, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const bool take = ToDouble(cond[i / row]) != 0.0;
    const Acc<T> v = Load(g, i);
    if (gx != nullptr) Store(gx, i, take ? v : Acc<T>(0));
    if (gy != nullptr) Store(gy, i, take ? Acc<T>(0) : v);
  }
}

template <typename T>
__global__ void ClipKernel(const T* x, Acc<T> lo, Acc<T> hi, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const Acc<T> v = Load(x, i);
    Store(y, i, v < lo ? lo : (v > hi ? hi : v));
  }
}

template <typename T>
__global__ void ClipGradKernel(const T* g, const T* x, Acc<T> lo, Acc<T> hi, T* dx, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const Acc<T> v = Load(x, i);
    Store(dx, i, (v < lo || v > hi) ? Acc<T>(0) : Load(g, i));
  }
}

}  // namespace

bool IsKnownElem(Elem t) {
  switch (t) {
    case Elem::kF32:
    case Elem::kF64:
    case Elem::kF16:
    case Elem::kU8:
    case Elem::kI32:
    case Elem::kI8:
    case Elem::kI64:
    case Elem::kBool:
    case Elem::kBF16:
      return true;
  }
  return false;
}

cudaError_t LaunchUnary(UnaryFn f, Elem t, const void* x, void* y, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    UnaryKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(f, static_cast<const T*>(x), static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchUnaryGrad(UnaryGradFn f, Elem t, const void* g, const void* y, const void* x,
                            void* dx, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    UnaryGradKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(f, static_cast<const T*>(g), static_cast<const T*>(y),
                                         static_cast<const T*>(x), static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchBinary(BinaryFn f, Elem t, const void* a, const void* b, void* out, int64_t n,
                         cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BinaryKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        f, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchBroadcast(BinaryFn f, Elem t, const void* a, const void* b, void* out,
                            const BroadcastDims& d, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (d.ndim < 0 || d.ndim > kMaxDims) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BroadcastKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        f, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), d, n);
  });
  return LastLaunchError();
}

cudaError_t LaunchScalar(ScalarFn f, Elem t, const void* x, double scalar, void* y, int64_t n,
                         cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    ScalarKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        f, static_cast<const T*>(x), static_cast<Acc<T>>(scalar), static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchScalarGrad(ScalarGradFn f, Elem t, const void* g, const void* v, double scalar,
                             void* dx, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    ScalarGradKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(f, static_cast<const T*>(g), static_cast<const T*>(v),
                                         static_cast<Acc<T>>(scalar), static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchFill(Elem t, double value, void* y, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(t, T, {
    FillKernel<T><<<GridFor(n), kThreads, 0, s>>>(FromDouble<T>(value), static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchFillBits(size_t elem_bytes, uint64_t bits, void* y, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_WIDTH_SWITCH(elem_bytes, U, {
    FillKernel<U><<<GridFor(n), kThreads, 0, s>>>(static_cast<U>(bits), static_cast<U*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchArange(Elem t, double start, double step, int64_t int_start, int64_t int_step,
                         int64_t repeat, void* y, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (repeat <= 0) return cudaErrorInvalidValue;
  SYMX_CUDA_ALL_SWITCH(t, T, {
    ArangeKernel<T><<<GridFor(n), kThreads, 0, s>>>(start, step, int_start, int_step, repeat,
                                                    static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchCast(Elem from, const void* x, Elem to, void* y, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(from, S, { return CastFrom(static_cast<const S*>(x), to, y, n, s); });
  return LastLaunchError();
}

cudaError_t LaunchWhere(Elem cond_t, const void* cond, Elem t, const void* x, const void* y,
                        int64_t row, void* out, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(cond_t, C, {
    SYMX_CUDA_FLOAT_SWITCH(t, T, {
      WhereKernel<C, T>
          <<<GridFor(n), kThreads, 0, s>>>(static_cast<const C*>(cond), static_cast<const T*>(x),
                                           static_cast<const T*>(y), row, static_cast<T*>(out), n);
    });
  });
  return LastLaunchError();
}

cudaError_t LaunchWhereGrad(Elem cond_t, const void* cond, Elem t, const void* g, int64_t row,
                            void* gx, void* gy, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(cond_t, C, {
    SYMX_CUDA_FLOAT_SWITCH(t, T, {
      WhereGradKernel<C, T>
          <<<GridFor(n), kThreads, 0, s>>>(static_cast<const C*>(cond), static_cast<const T*>(g),
                                           row, static_cast<T*>(gx), static_cast<T*>(gy), n);
    });
  });
  return LastLaunchError();
}

cudaError_t LaunchClip(Elem t, const void* x, double lo, double hi, void* y, int64_t n,
                       cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    ClipKernel<T><<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<Acc<T>>(lo),
                                                  static_cast<Acc<T>>(hi), static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchClipGrad(Elem t, const void* g, const void* x, double lo, double hi, void* dx,
                           int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    ClipGradKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<const T*>(g), static_cast<const T*>(x), static_cast<Acc<T>>(lo),
        static_cast<Acc<T>>(hi), static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
