// The image_random family's draws (graph/ops/image_random.cc): what one call
// of a random augmenter takes from its device's generator, made on the host
// by both devices' kernels from the call's key, so a seeded CPU and GPU draw
// the same factors. One Philox stream (devices/geometry/random_draws.h) per
// call; the transform itself is devices/geometry/image_color.h.
#ifndef SYMX_DEVICES_GEOMETRY_IMAGE_DRAWS_H_
#define SYMX_DEVICES_GEOMETRY_IMAGE_DRAWS_H_

#include <cstdint>

#include "devices/geometry/image_color.h"
#include "graph/ops/image.h"

namespace symx {

// The color steps of one call, in the order they run, with their factors
// (for kHue the turn in units of 360 degrees).
struct ImageColorPlan {
  int steps = 0;
  ImageColorStep step[4] = {};
  float factor[4] = {};
};

// _image_random_brightness / contrast / saturation / hue: one step, its
// factor uniform in [min_factor, max_factor).
ImageColorPlan DrawEnhance(ImageColorStep step, const ImageEnhanceParam& p, uint64_t key);

// _image_random_color_jitter: the four steps in a uniformly random order,
// keeping those whose parameter is > 0; brightness, contrast and saturation
// factors 1 + U(-x, x), hue U(-hue, hue).
ImageColorPlan DrawJitter(const ImageJitterParam& p, uint64_t key);

// _image_random_lighting: three alphas from N(0, alpha_std).
void DrawLightingAlphas(const ImageRandomLightingParam& p, uint64_t key, float alpha[3]);

// The random flips: true (flip) with probability 1/2.
bool DrawFlip(uint64_t key);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_IMAGE_DRAWS_H_
