// SoftmaxOutput's gradient with class-index labels: (y - onehot) scaled,
// with ignore_label, label smoothing and the "valid" normalization (whose
// count of non-ignored labels is taken on the device first). SVMOutput's
// gradient, softmax_cross_entropy and IdentityAttachKLSparseReg's backward.
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

template <typename T>
__global__ void SvmGradKernel(const T* y, const T* label, SvmGradArgs a, T* gx) {
  using C = Acc<T>;
  const C margin = static_cast<C>(a.margin), reg = static_cast<C>(a.reg);
  SYMX_GRID_STRIDE(i, a.rows * a.cols) {
    const int64_t r = i / a.cols, x = i % a.cols;
    const int64_t k = ClassOf(Load(label, r));
    const C v = Load(y, i);
    C d;
    if (a.linear) {
      d = x == k ? (margin > v ? -reg : C(0)) : (margin > -v ? reg : C(0));
    } else if (x == k) {
      d = (margin > v ? C(2) * (margin - v) : C(0)) * -reg;
    } else {
      d = (margin > -v ? C(-2) * (margin + v) : C(0)) * -reg;
    }
    Store(gx, i, d);
  }
}

// Row r's class, or -1 after flagging the row.
template <typename T>
__device__ __forceinline__ int64_t CheckedClass(const T* label, int64_t r, int64_t cols,
                                                unsigned long long* bad_row) {
  const int64_t k = ClassOf(Load(label, r));
  if (k < 0 || k >= cols) {
    atomicMin(bad_row, static_cast<unsigned long long>(r));
    return -1;
  }
  return k;
}

// The max and the sum of exp(x - max) of one row.
template <typename C, typename T>
__device__ __forceinline__ void RowStats(const T* x, int64_t cols, C* mx, C* sum) {
  *mx = Load(x, 0);
  for (int64_t c = 1; c < cols; ++c) *mx = max(*mx, static_cast<C>(Load(x, c)));
  *sum = C(0);
  for (int64_t c = 0; c < cols; ++c) *sum += exp(static_cast<C>(Load(x, c)) - *mx);
}

template <typename T>
__global__ void CrossEntropyRowsKernel(const T* x, const T* label, int64_t rows, int64_t cols,
                                       double* row_loss, unsigned long long* bad_row) {
  using C = Acc<T>;
  SYMX_GRID_STRIDE(r, rows) {
    const int64_t k = CheckedClass(label, r, cols, bad_row);
    if (k < 0) {
      row_loss[r] = 0;
      continue;
    }
    C mx, sum;
    RowStats<C>(x + r * cols, cols, &mx, &sum);
    const C p = exp(static_cast<C>(Load(x, r * cols + k)) - mx) / sum;
    row_loss[r] = static_cast<double>(-log(max(p, static_cast<C>(1e-8f))));
  }
}

template <typename T>
__global__ void SumRowsKernel(const double* row_loss, int64_t rows, T* out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) total += row_loss[r];
  Store(out, 0, static_cast<Acc<T>>(total));
}

template <typename T>
__global__ void CrossEntropyGradKernel(const T* g, const T* x, const T* label, int64_t rows,
                                       int64_t cols, unsigned long long* bad_row, T* gx) {
  using C = Acc<T>;
  const C scale = Load(g, 0);
  SYMX_GRID_STRIDE(r, rows) {
    const int64_t k = CheckedClass(label, r, cols, bad_row);
    C mx, sum;
    RowStats<C>(x + r * cols, cols, &mx, &sum);
    for (int64_t c = 0; c < cols; ++c) {
      C p = exp(static_cast<C>(Load(x, r * cols + c)) - mx) / sum;
      if (c == k) p -= C(1);
      Store(gx, r * cols + c, p * scale);
    }
  }
}

template <typename T>
__global__ void KlAverageKernel(const T* x, T* avg, KlSparseArgs a) {
  using C = Acc<T>;
  SYMX_GRID_STRIDE(c, a.channels) {
    double sum = 0;
    for (int64_t o = 0; o < a.outer; ++o) {
      for (int64_t i = 0; i < a.inner; ++i) sum += ToDouble(x[(o * a.channels + c) * a.inner + i]);
    }
    const C mean = static_cast<C>(sum / static_cast<double>(a.outer * a.inner));
    const C m = static_cast<C>(a.momentum);
    Store(avg, c, m * Load(avg, c) + (C(1) - m) * mean);
  }
}

template <typename T>
__global__ void KlGradKernel(const T* g, const T* avg, KlSparseArgs a, T* gx) {
  using C = Acc<T>;
  const C target = static_cast<C>(a.target), penalty = static_cast<C>(a.penalty);
  SYMX_GRID_STRIDE(i, a.outer * a.channels * a.inner) {
    const C m = Load(avg, (i / a.inner) % a.channels);
    Store(gx, i, Load(g, i) + penalty * (-target / m + (C(1) - target) / (C(1) - m)));
  }
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

cudaError_t LaunchSvmGrad(Elem t, const void* y, const void* label, const SvmGradArgs& a, void* gx,
                          cudaStream_t s) {
  const int64_t n = a.rows * a.cols;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    SvmGradKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<const T*>(y), static_cast<const T*>(label), a, static_cast<T*>(gx));
  });
  return LastLaunchError();
}

cudaError_t LaunchSoftmaxCrossEntropy(Elem t, const void* x, const void* label, int64_t rows,
                                      int64_t cols, double* row_loss,
                                      unsigned long long* bad_row, void* out, cudaStream_t s) {
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    if (rows > 0) {
      CrossEntropyRowsKernel<T><<<GridFor(rows), kThreads, 0, s>>>(
          static_cast<const T*>(x), static_cast<const T*>(label), rows, cols, row_loss, bad_row);
    }
    SumRowsKernel<T><<<1, 1, 0, s>>>(row_loss, rows, static_cast<T*>(out));
  });
  return LastLaunchError();
}

cudaError_t LaunchSoftmaxCrossEntropyGrad(Elem t, const void* g, const void* x, const void* label,
                                          int64_t rows, int64_t cols,
                                          unsigned long long* bad_row, void* gx, cudaStream_t s) {
  if (rows == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    CrossEntropyGradKernel<T><<<GridFor(rows), kThreads, 0, s>>>(
        static_cast<const T*>(g), static_cast<const T*>(x), static_cast<const T*>(label), rows,
        cols, bad_row, static_cast<T*>(gx));
  });
  return LastLaunchError();
}

cudaError_t LaunchKlSparseRegGrad(Elem t, const void* g, const void* x, void* avg,
                                  const KlSparseArgs& a, void* gx, cudaStream_t s) {
  if (a.channels == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    KlAverageKernel<T><<<GridFor(a.channels), kThreads, 0, s>>>(static_cast<const T*>(x),
                                                                static_cast<T*>(avg), a);
    const int64_t n = a.outer * a.channels * a.inner;
    if (gx != nullptr && n > 0) {
      KlGradKernel<T><<<GridFor(n), kThreads, 0, s>>>(
          static_cast<const T*>(g), static_cast<const T*>(avg), a, static_cast<T*>(gx));
    }
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
