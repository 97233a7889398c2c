// How an index value (read as a double) becomes a position along an axis,
// as MXNet 1.9.1 does (graph/ops/indexing.cc): for host and device code
// alike (plain C++, compiled by nvcc for the GPU kernels too), so that the
// CPU and GPU kernels of one_hot, pick, take and gather_nd agree exactly.
#ifndef SYMX_DEVICES_GEOMETRY_INDEX_POSITION_H_
#define SYMX_DEVICES_GEOMETRY_INDEX_POSITION_H_

#include <math.h>

#include <cstdint>
#ifndef __CUDACC__
#include <sstream>
#include <string>
#endif

#include "devices/host_device.h"

namespace symx {

// clip and wrap truncate toward zero, then clip to [0, n) or wrap (Python
// modulo); NaN reads 0. n > 0.
SYMX_HOST_DEVICE inline int64_t ClipOrWrapPosition(double v, int64_t n, bool wrap) {
  if (v != v) return 0;
  if (wrap) {
    double r = fmod(trunc(v), static_cast<double>(n));
    if (r < 0) r += static_cast<double>(n);
    return static_cast<int64_t>(r);
  }
  if (!(v > 0)) return 0;
  if (v >= static_cast<double>(n - 1)) return n - 1;
  return static_cast<int64_t>(v);
}

// take's raise mode: the position, or -1 when v is outside [0, n - 1].
SYMX_HOST_DEVICE inline int64_t RaisePosition(double v, int64_t n) {
  return (v >= 0 && v <= static_cast<double>(n - 1)) ? static_cast<int64_t>(v) : -1;
}

// gather_nd: negative values count from the end; -1 outside [-n, n - 1].
SYMX_HOST_DEVICE inline int64_t GatherNdPosition(double v, int64_t n) {
  if (!(v >= -static_cast<double>(n) && v <= static_cast<double>(n - 1))) return -1;
  if (v < 0) v += static_cast<double>(n);
  return static_cast<int64_t>(v);
}

// one_hot: the column set to on_value, or -1 (NaN or outside [0, depth)).
SYMX_HOST_DEVICE inline int64_t OneHotColumn(double v, int64_t depth) {
  if (v != v) return -1;
  const double t = trunc(v);
  return (t >= 0 && t < static_cast<double>(depth)) ? static_cast<int64_t>(t) : -1;
}

#ifndef __CUDACC__
// An index value as error messages show it: integral values without a
// fraction, others as doubles.
inline std::string FormatIndexValue(double v) {
  if (v == trunc(v) && fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  std::ostringstream os;
  os << v;
  return os.str();
}
#endif

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_INDEX_POSITION_H_
