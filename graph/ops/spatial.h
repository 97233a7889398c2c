// Parameters of the spatial-transformer ops (GridGenerator, BilinearSampler,
// SpatialTransformer), shared by the schema (graph/ops/spatial.cc) and the CPU
// kernels (devices/cpu/spatial_kernels.cc).
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

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_SPATIAL_H_
