// Parameters of the spatial ops (GridGenerator, BilinearSampler,
// SpatialTransformer, Correlation), shared by the schema (graph/ops/spatial.cc)
// and the kernels (devices/cpu/spatial_kernels.cc, devices/cuda/spatial_kernels.cc).
#ifndef SYMX_GRAPH_OPS_SPATIAL_H_
#define SYMX_GRAPH_OPS_SPATIAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/param.h"

namespace symx {

struct GridGeneratorParam : OpParam {
  std::string transform_type;  // "affine" or "warp"
  // (H, W) of the output grid; affine only (warp keeps the flow's size).
  std::vector<int64_t> target_shape = {0, 0};
};

struct BilinearSamplerParam : OpParam {
  std::optional<bool> cudnn_off;  // accepted and ignored
};

struct SpatialTransformerParam : OpParam {
  std::vector<int64_t> target_shape = {0, 0};
  std::string transform_type;     // "affine"
  std::string sampler_type;       // "bilinear"
  std::optional<bool> cudnn_off;  // accepted and ignored
};

// Correlation (FlowNet): output channel k = (dy + r) * (2r + 1) + (dx + r)
// compares data1's patch at p with data2's at p + (dx, dy) * stride2, r =
// max_displacement / stride2.
struct CorrelationParam : OpParam {
  int64_t kernel_size = 1;  // odd
  int64_t max_displacement = 1;
  int64_t stride1 = 1, stride2 = 1;
  int64_t pad_size = 0;
  bool is_multiply = true;  // false: absolute differences
  int64_t grid_radius() const { return max_displacement / stride2; }
  int64_t grid_width() const { return 2 * grid_radius() + 1; }
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_SPATIAL_H_
