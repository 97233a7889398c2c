// The image family's parameters (mx.nd.image: _image_to_tensor,
// _image_normalize, the flips, _image_adjust_lighting, _image_crop, and the
// random augmenters of graph/ops/image_random.cc), shared by the schemas and
// the kernels.
#ifndef SYMX_GRAPH_OPS_IMAGE_H_
#define SYMX_GRAPH_OPS_IMAGE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/dtype.h"
#include "graph/param.h"

namespace symx {

// _image_normalize: per-channel mean and std, one value each or one per
// channel (float, as MXNet keeps them).
struct ImageNormalizeParam : OpParam {
  std::vector<float> mean, std;
};

// _image_adjust_lighting: the three PCA lighting alphas (R, G, B).
struct ImageLightingParam : OpParam {
  float alpha[3] = {0, 0, 0};
};

// _image_crop: the window [y, y + height) x [x, x + width) of (H, W, C) or
// (N, H, W, C) images.
struct ImageCropParam : OpParam {
  int64_t x = 0, y = 0, width = 0, height = 0;
};

// _image_random_brightness, _contrast, _saturation and _hue: the factor is
// drawn uniformly from [min_factor, max_factor).
struct ImageEnhanceParam : OpParam {
  float min_factor = 0, max_factor = 0;
};

// _image_random_color_jitter: brightness, contrast and saturation factors
// 1 + U(-x, x), hue U(-hue, hue), each applied (in a random order) only when
// its value is > 0.
struct ImageJitterParam : OpParam {
  float brightness = 0, contrast = 0, saturation = 0, hue = 0;
};

// _image_random_lighting: the three PCA alphas are drawn from N(0, alpha_std).
struct ImageRandomLightingParam : OpParam {
  float alpha_std = 0.05f;
};

// OK for the dtypes of MXNet's image operators (its legacy type switch:
// float16/32/64, uint8, int8, int32, int64) and unknown; else an error naming
// `op` and the dtype.
absl::Status ImageDType(absl::string_view op, DType t);

// The PCA lighting offsets of (R, G, B) for alpha, in float as MXNet computes
// them (its eigen table rounded to float, then float products and sums).
void LightingOffsets(const float alpha[3], float out[3]);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_IMAGE_H_
