// Shared pieces of the elementwise, broadcast and activation CPU kernels
// (devices/cpu/{elemwise,broadcast,activation}_kernels.cc only).
#ifndef SYMX_DEVICES_CPU_ELEMWISE_KERNELS_H_
#define SYMX_DEVICES_CPU_ELEMWISE_KERNELS_H_

#include <type_traits>

#include "devices/cpu/kernel_util.h"
#include "devices/cpu/vector_math.h"  // ComputeType

namespace symx {
namespace cpu {

// T(v) for a double attribute (scalars, slopes); Eigen::half converts through float.
template <typename T>
inline T FromAttr(double v) {
  return static_cast<T>(v);
}
template <>
inline Eigen::half FromAttr<Eigen::half>(double v) {
  return Eigen::half(static_cast<float>(v));
}

// Output j is not wanted (its gradient request is null); the kernel may skip it.
inline bool SkipOutput(const KernelContext& ctx, size_t j) {
  return (j < ctx.req.size() && ctx.req[j] == OpReq::kNull) || !ctx.outputs[j].defined();
}

// out[i] = f(in[i]) for i in [0, n), computing in ComputeType<T>; large
// arrays are split over the device's pool. For formulas Eigen has no
// vectorized form of; everything else should be an Eigen expression.
template <typename T, typename F>
void MapUnary(const KernelContext& ctx, const T* in, T* out, int64_t n, double cost, F f) {
  using C = ComputeType<T>;
  ParallelFor(ctx, n, cost, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = static_cast<T>(f(static_cast<C>(in[i])));
  });
}

// out[i] = f(a[i], b[i]).
template <typename T, typename F>
void MapBinary(const KernelContext& ctx, const T* a, const T* b, T* out, int64_t n, double cost,
               F f) {
  using C = ComputeType<T>;
  ParallelFor(ctx, n, cost, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      out[i] = static_cast<T>(f(static_cast<C>(a[i]), static_cast<C>(b[i])));
    }
  });
}

// out[i] = f(a[i], b[i], c[i]).
template <typename T, typename F>
void MapTernary(const KernelContext& ctx, const T* a, const T* b, const T* c, T* out, int64_t n,
                double cost, F f) {
  using C = ComputeType<T>;
  ParallelFor(ctx, n, cost, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      out[i] = static_cast<T>(f(static_cast<C>(a[i]), static_cast<C>(b[i]), static_cast<C>(c[i])));
    }
  });
}

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_ELEMWISE_KERNELS_H_
