// Pooling's window geometry, from the node's parameters and the data and
// output shapes: one definition for every device's kernels. Data is
// (batch, channel, 1 to 3 spatial dims); the spatial dims are right-aligned
// into three (leading ones of size 1).
#ifndef SYMX_DEVICES_GEOMETRY_POOL_GEOM_H_
#define SYMX_DEVICES_GEOMETRY_POOL_GEOM_H_

#include <cstdint>

#include "absl/status/status.h"
#include "devices/kernel.h"

namespace symx {

enum class PoolType { kMax, kAvg, kSum, kLp };

struct PoolGeom {
  int64_t planes = 0;  // batch * channels
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  int64_t in_size = 1, out_size = 1, window = 1;
  PoolType type = PoolType::kMax;
  bool count_include_pad = true;
  int64_t p = 1;
};

// Errors name the node: shapes that are not (batch, channel, 1-3 dims), a
// kernel of the wrong rank, an unknown pool_type.
absl::Status MakePoolGeom(const KernelContext& ctx, const Shape& data, const Shape& out,
                          PoolGeom* g);

// Pooling_v1's geometry (graph/ops/pooling.h states its rules): 4-D data, the
// two spatial dims in in[1], in[2] (in[0] is 1); global pooling is a whole-plane
// kernel with stride 1 and no padding. Padding is counted in padded
// coordinates: a window covers [o * stride, min(o * stride + kernel,
// size + 2 * pad)) and reads zeros outside the data.
absl::Status MakePoolV1Geom(const KernelContext& ctx, const Shape& data, const Shape& out,
                            PoolGeom* g);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_POOL_GEOM_H_
