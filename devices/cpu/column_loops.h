// Element access through double and a parallel walk over the columns of an
// (outer, n, inner) layout: the plain loops of the legacy normalization and
// softmax-like kernels (softmax_kernels.cc, norm_kernels.cc,
// resample_kernels.cc), which compute in double so that one template serves
// float16, float32 and float64.
//
// Include only from devices/cpu/*_kernels.cc.
#ifndef SYMX_DEVICES_CPU_COLUMN_LOOPS_H_
#define SYMX_DEVICES_CPU_COLUMN_LOOPS_H_

#include <cstdint>

#include "devices/geometry/axis_layout.h"
#include "devices/cpu/kernel_util.h"

namespace symx {
namespace cpu {
namespace column_loops {

template <typename T>
inline double Ld(const T* p, int64_t i) {
  return ToDouble(p[i]);
}
template <typename T>
inline void St(T* p, int64_t i, double v) {
  p[i] = FromDouble<T>(v);
}

using Layout = AxisLayout;

// Runs fn(c0, c1) over the columns [0, columns) in parallel.
template <typename Fn>
void ForColumns(const KernelContext& ctx, const Layout& l, double cost_per_elem, Fn&& fn) {
  if (l.size() == 0) return;
  ParallelFor(ctx, l.columns(), cost_per_elem * static_cast<double>(l.n), fn);
}

}  // namespace column_loops
}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_COLUMN_LOOPS_H_
