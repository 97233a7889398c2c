// SoftmaxOutput's gradient with class-index labels: (y - onehot) scaled,
// with ignore_label, label smoothing and the "valid" normalization (whose
// count of non-ignored labels is taken on the device first).
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/loss_launch.h"

namespace symx {
namespace cuda {
namespace {

constexpr int64_t kNoClass = INT64_MIN;

// A label value as a class index, truncated like a C cast; values no int can
// hold give a class that matches nothing (as the CPU kernel's ClassOf).
template <typename C>
__device__ __forceinline__ int64_t ClassOf(C v) {
  if (!(v > C(-2147483648.0) && v < C(2147483648.0))) return kNoClass;
  return static_cast<int64_t>(static_cast<int>(v));
}

template <typename T>
__global__ void CountValidKernel(const T* label, int64_t entries, int64_t ignore,
                                 unsigned long long* valid) {
  SYMX_GRID_STRIDE(i, entries) {
    if (ClassOf(Load(label, i)) != ignore) atomicAdd(valid, 1ull);
  }
}

template <typename T>
__global__ void SoftmaxOutputGradKernel(const T* y, const T* label, SoftmaxOutputGradArgs a,
                                        const unsigned long long* valid, T* gx) {
  using C = Acc<T>;
  C scale = static_cast<C>(a.scale);
  if (valid != nullptr) {
    const unsigned long long v = *valid;
    scale = static_cast<C>(a.scale / static_cast<double>(v > 0 ? v : 1));
  }
  const C hit = C(1) - static_cast<C>(a.smooth_alpha);
  const C miss =
      a.classes > 1 ? static_cast<C>(a.smooth_alpha) / static_cast<C>(a.classes - 1) : C(0);
  SYMX_GRID_STRIDE(u, a.outer * a.inner) {
    const int64_t o = u / a.inner, i = u % a.inner;
    const int64_t k = ClassOf(Load(label, u));
    const int64_t base = o * a.classes * a.inner + i;
    const bool ignored = a.use_ignore && k == a.ignore;
    for (int64_t c = 0; c < a.classes; ++c) {
      const int64_t at = base + c * a.inner;
      Store(gx, at, ignored ? C(0) : (Load(y, at) - (c == k ? hit : miss)) * scale);
    }
  }
}

template <typename T>
__global__ void CountGreaterKernel(const T* x, int64_t n, double thresh,
                                   unsigned long long* count) {
  SYMX_GRID_STRIDE(i, n) {
    if (static_cast<double>(Load(x, i)) > thresh) atomicAdd(count, 1ull);
  }
}

template <typename T>
__global__ void FillDividedKernel(double value, const unsigned long long* count, T* y, int64_t n) {
  const unsigned long long c = *count;
  const Acc<T> v = static_cast<Acc<T>>(value / static_cast<double>(c > 0 ? c : 1));
  SYMX_GRID_STRIDE(i, n) { Store(y, i, v); }
}

}  // namespace

cudaError_t LaunchFillDividedByCountAbove(Elem t, const void* x, int64_t n, double thresh,
                                          double value, void* workspace, void* y, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    auto* count = static_cast<unsigned long long*>(workspace);
    cudaError_t e = cudaMemsetAsync(count, 0, sizeof(*count), s);
    if (e != cudaSuccess) return e;
    CountGreaterKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), n, thresh, count);
    FillDividedKernel<T><<<GridFor(n), kThreads, 0, s>>>(value, count, static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchSoftmaxOutputGrad(Elem t, const void* y, const void* label,
                                    const SoftmaxOutputGradArgs& a, void* workspace, void* gx,
                                    cudaStream_t s) {
  const int64_t positions = a.outer * a.inner;
  if (positions == 0 || a.classes == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    unsigned long long* valid = nullptr;
    if (a.valid_normalization) {
      valid = static_cast<unsigned long long*>(workspace);
      cudaError_t e = cudaMemsetAsync(valid, 0, sizeof(*valid), s);
      if (e != cudaSuccess) return e;
      CountValidKernel<T><<<GridFor(a.entries), kThreads, 0, s>>>(static_cast<const T*>(label),
                                                                  a.entries, a.ignore, valid);
    }
    SoftmaxOutputGradKernel<T><<<GridFor(positions), kThreads, 0, s>>>(
        static_cast<const T*>(y), static_cast<const T*>(label), a, valid, static_cast<T*>(gx));
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
