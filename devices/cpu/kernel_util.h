// Helpers for CPU kernels (devices/cpu/*_kernels.cc only): Eigen maps over
// Tensor buffers, dtype dispatch, and running an expression on the right
// Eigen device for its size.
//
// This header pulls in Eigen's Tensor module; keep it out of other headers so
// the heavy templates are compiled only in the kernel translation units.
#ifndef SYMX_DEVICES_CPU_KERNEL_UTIL_H_
#define SYMX_DEVICES_CPU_KERNEL_UTIL_H_

#define EIGEN_USE_THREADS
#include <algorithm>
#include <cstdint>
#include <string>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/cpu_device.h"
#include "devices/dtype_switch.h"
#include "devices/kernel.h"
#include "unsupported/Eigen/CXX11/Tensor"
#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/omp_parallel.h"
#endif

namespace symx {
namespace cpu {

// Fails unless `t` has `size` elements; `what` names it ("output", "ograd").
inline absl::Status CheckSize(const KernelContext& ctx, const Tensor& t, int64_t size,
                              const char* what) {
  if (t.size() == size) return absl::OkStatus();
  return Fail(ctx, absl::StrCat(what, " ", t.DebugString(), " should have ", size, " elements"));
}

// Fails unless `a` and `b` have as many elements.
inline absl::Status CheckSameSize(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (a.size() == b.size()) return absl::OkStatus();
  return Fail(ctx, absl::StrCat(a.DebugString(), " and ", b.DebugString(), " differ in size"));
}

// Eigen views of a contiguous run of n elements.
template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// The Eigen scalar type for a storage type (float16 computes as Eigen::half).
template <typename T>
struct EigenScalar {
  using type = T;
};
template <>
struct EigenScalar<float16_t> {
  using type = Eigen::half;
};

template <typename T>
using Vec = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, int64_t>, Eigen::Aligned>;
template <typename T, int N>
using TensorN = Eigen::TensorMap<Eigen::Tensor<T, N, Eigen::RowMajor, int64_t>>;
template <typename T>
using MatrixRM = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatMap = Eigen::Map<MatrixRM<T>>;

// The tensor's elements as a flat vector (T must match the dtype's layout).
// Views may start at any element offset, so no alignment is assumed.
template <typename T>
Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, int64_t>> Flat(const Tensor& t) {
  return Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, int64_t>>(t.data<T>(), t.size());
}

// The tensor as an N-d Eigen map with the given dims (product == size).
template <typename T, int N>
TensorN<T, N> AsTensor(const Tensor& t, const Eigen::array<int64_t, N>& dims) {
  return TensorN<T, N>(t.data<T>(), dims);
}

// The tensor as a row-major rows x cols matrix.
template <typename T>
MatMap<T> AsMatrix(const Tensor& t, int64_t rows, int64_t cols) {
  return MatMap<T>(t.data<T>(), rows, cols);
}

// Elements below which an op runs on the calling thread.
inline constexpr int64_t kParallelThreshold = 1 << 15;

inline const Eigen::ThreadPoolDevice& EigenDevice(const KernelContext& ctx) {
  return static_cast<CpuDevice*>(ctx.device)->eigen();
}

// The threads a step may use: its device's share (KernelContext::num_threads).
inline int StepThreads(const KernelContext& ctx) {
  return ctx.device != nullptr ? std::max(ctx.num_threads, 1) : 1;
}

// Splits [0, n) into chunks run in parallel; `cost_per_unit` is the rough
// number of scalar operations per index (below kParallelThreshold in all, the
// calling thread runs it). With oneDNN the chunks run on the calling thread's
// OpenMP team (devices/cpu/omp_parallel.h), one per member; without, on the
// device's Eigen pool, which picks the chunk sizes from the cost.
template <typename Fn>
void ParallelFor(const KernelContext& ctx, int64_t n, double cost_per_unit, Fn&& fn) {
  const int threads = StepThreads(ctx);
  if (threads <= 1 ||
      static_cast<double>(n) * cost_per_unit < static_cast<double>(kParallelThreshold)) {
    fn(int64_t{0}, n);
    return;
  }
#ifdef SYMX_WITH_ONEDNN
  OmpParallelFor(threads, n, 1, [&fn](int64_t begin, int64_t end) { fn(begin, end); });
#else
  EigenDevice(ctx).parallelFor(n, Eigen::TensorOpCost(0, 0, cost_per_unit),
                               [&fn](Eigen::Index begin, Eigen::Index end) { fn(begin, end); });
#endif
}

// dst = expr, in parallel when large enough to pay for it. With oneDNN the
// expression is evaluated the way Eigen's thread-pool executor does it
// (element ranges of one evaluator, vectorized), the ranges spread over the
// OpenMP team; subexpressions Eigen evaluates first (a full reduction) run
// on the calling thread.
template <typename Dst, typename Expr>
void Assign(const KernelContext& ctx, Dst dst, const Expr& expr, int64_t size) {
  const int threads = StepThreads(ctx);
  if (size < kParallelThreshold || threads <= 1) {
    dst = expr;
    return;
  }
#ifdef SYMX_WITH_ONEDNN
  using AssignOp = Eigen::TensorAssignOp<Dst, const Expr>;
  using Evaluator = Eigen::TensorEvaluator<const AssignOp, Eigen::DefaultDevice>;
  using Range = Eigen::internal::EvalRange<Evaluator, Eigen::Index, Evaluator::PacketAccess>;
  // Range starts at multiples of 4 packets (EvalRange's unrolled step), as
  // Eigen's own executor cuts them: 64 elements cover every packet size here.
  constexpr int64_t kAlign = 64;
  Eigen::DefaultDevice device;
  const AssignOp op(dst, expr);
  Evaluator evaluator(op, device);
  if (evaluator.evalSubExprsIfNeeded(nullptr)) {
    OmpParallelFor(threads, evaluator.dimensions().TotalSize(), kAlign,
                   [&evaluator](int64_t begin, int64_t end) {
                     Range::run(&evaluator, static_cast<Eigen::Index>(begin),
                                static_cast<Eigen::Index>(end));
                   });
  }
  evaluator.cleanup();
#else
  dst.device(EigenDevice(ctx)) = expr;
#endif
}

}  // namespace cpu
}  // namespace symx

// Runs the body with T = float or double; other dtypes return UnsupportedDType.
#define SYMX_FLOAT_SWITCH(ctx, dtype, T, ...)          \
  switch (dtype) {                                     \
    SYMX_DTYPE_CASE_(kFloat32, float, T, __VA_ARGS__)  \
    SYMX_DTYPE_CASE_(kFloat64, double, T, __VA_ARGS__) \
    default:                                           \
      return ::symx::UnsupportedDType(ctx, dtype);     \
  }

// Same, adding float16 computed as Eigen::half.
#define SYMX_FLOAT16_SWITCH(ctx, dtype, T, ...)             \
  switch (dtype) {                                          \
    SYMX_DTYPE_CASE_(kFloat32, float, T, __VA_ARGS__)       \
    SYMX_DTYPE_CASE_(kFloat64, double, T, __VA_ARGS__)      \
    SYMX_DTYPE_CASE_(kFloat16, Eigen::half, T, __VA_ARGS__) \
    default:                                                \
      return ::symx::UnsupportedDType(ctx, dtype);          \
  }

#endif  // SYMX_DEVICES_CPU_KERNEL_UTIL_H_
