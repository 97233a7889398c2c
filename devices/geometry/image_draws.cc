#include "devices/geometry/image_draws.h"

#include "devices/geometry/random_draws.h"

namespace symx {
namespace {

// U[lo, hi) rounded to float (lo when the interval is empty).
float UniformFloat(float lo, float hi, RandomStream* s) {
  return static_cast<float>(lo + (static_cast<double>(hi) - lo) * s->Uniform());
}

}  // namespace

ImageColorPlan DrawEnhance(ImageColorStep step, const ImageEnhanceParam& p, uint64_t key) {
  RandomStream s(key, 0);
  ImageColorPlan plan;
  plan.steps = 1;
  plan.step[0] = step;
  plan.factor[0] = UniformFloat(p.min_factor, p.max_factor, &s);
  return plan;
}

ImageColorPlan DrawJitter(const ImageJitterParam& p, uint64_t key) {
  RandomStream s(key, 0);
  int order[4] = {0, 1, 2, 3};
  for (int i = 3; i > 0; --i) {  // Fisher-Yates
    int j = static_cast<int>(s.Uniform() * (i + 1));
    if (j > i) j = i;
    const int t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  const float amount[4] = {p.brightness, p.contrast, p.saturation, p.hue};
  ImageColorPlan plan;
  for (int k : order) {
    if (!(amount[k] > 0)) continue;
    const float jitter = UniformFloat(-amount[k], amount[k], &s);
    const auto step = static_cast<ImageColorStep>(k);
    plan.step[plan.steps] = step;
    plan.factor[plan.steps] = step == ImageColorStep::kHue ? jitter : 1.0f + jitter;
    ++plan.steps;
  }
  return plan;
}

void DrawLightingAlphas(const ImageRandomLightingParam& p, uint64_t key, float alpha[3]) {
  RandomStream s(key, 0);
  for (int c = 0; c < 3; ++c) alpha[c] = static_cast<float>(p.alpha_std * s.Normal());
}

bool DrawFlip(uint64_t key) {
  RandomStream s(key, 0);
  return (s.Next32() & 1u) != 0;
}

}  // namespace symx
