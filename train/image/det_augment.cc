#include "train/image/det_augment.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "train/image/transform.h"

namespace symx::image {
namespace {

struct Box {  // relative coordinates, as MXNet's cv::Rect_<float>
  float x = 0, y = 0, w = 0, h = 0;
  float area() const { return w * h; }
  bool contains(float px, float py) const { return px >= x && px < x + w && py >= y && py < y + h; }
};

Box Intersect(const Box& a, const Box& b) {
  const float x1 = std::max(a.x, b.x), y1 = std::max(a.y, b.y);
  const float x2 = std::min(a.x + a.w, b.x + b.w), y2 = std::min(a.y + a.h, b.y + b.h);
  if (x2 <= x1 || y2 <= y1) return Box{};
  return Box{x1, y1, x2 - x1, y2 - y1};
}

struct Object {
  float id, left, top, right, bottom;
  std::vector<float> extra;
  Box box() const { return Box{left, top, right - left, bottom - top}; }
  Object Project(const Box& b) const {
    Object o = *this;
    o.left = std::max(0.f, (left - b.x) / b.w);
    o.top = std::max(0.f, (top - b.y) / b.h);
    o.right = std::min(1.f, (right - b.x) / b.w);
    o.bottom = std::min(1.f, (bottom - b.y) / b.h);
    return o;
  }
};

struct DetLabel {
  std::vector<float> header;
  int object_width = 5;
  std::vector<Object> objects;

  explicit DetLabel(const std::vector<float>& raw) {
    const int header_width = static_cast<int>(raw[0]);
    object_width = static_cast<int>(raw[1]);
    header.assign(raw.begin(), raw.begin() + header_width);
    for (size_t i = header_width; i + object_width <= raw.size(); i += object_width) {
      Object o{raw[i], raw[i + 1], raw[i + 2], raw[i + 3], raw[i + 4], {}};
      o.extra.assign(raw.begin() + i + 5, raw.begin() + i + object_width);
      if (o.right > o.left && o.bottom > o.top) objects.push_back(std::move(o));
    }
  }

  std::vector<float> ToArray() const {
    std::vector<float> out(header);
    for (const Object& o : objects) {
      out.insert(out.end(), {o.id, o.left, o.top, o.right, o.bottom});
      out.insert(out.end(), o.extra.begin(), o.extra.end());
    }
    return out;
  }

  static float IoU(const Box& a, const Box& b) {
    const float inter = Intersect(a, b).area();
    if (inter <= 0) return 0;
    return inter / (a.area() + b.area() - inter);
  }

  // MXNet's TryCrop: the crop must satisfy the sampler's constraints for at
  // least one object, and keep at least one.
  bool TryCrop(const Box& crop, const DetAugmentParams& p, int s) {
    if (objects.empty()) return true;
    const bool constrained =
        p.min_crop_overlaps[s] > 0 || p.max_crop_overlaps[s] < 1 ||
        p.min_crop_sample_coverages[s] > 0 || p.max_crop_sample_coverages[s] < 1 ||
        p.min_crop_object_coverages[s] > 0 || p.max_crop_object_coverages[s] < 1;
    bool valid = !constrained;
    for (size_t i = 0; i < objects.size() && !valid; ++i) {
      const Box gt = objects[i].box();
      if (p.min_crop_overlaps[s] > 0 || p.max_crop_overlaps[s] < 1) {
        const float o = IoU(crop, gt);
        if (o < p.min_crop_overlaps[s] || o > p.max_crop_overlaps[s]) continue;
      }
      if (p.min_crop_sample_coverages[s] > 0 || p.max_crop_sample_coverages[s] < 1) {
        const float c = Intersect(crop, gt).area() / crop.area();
        if (c < p.min_crop_sample_coverages[s] || c > p.max_crop_sample_coverages[s]) continue;
      }
      if (p.min_crop_object_coverages[s] > 0 || p.max_crop_object_coverages[s] < 1) {
        const float c = Intersect(crop, gt).area() / gt.area();
        if (c < p.min_crop_object_coverages[s] || c > p.max_crop_object_coverages[s]) continue;
      }
      valid = true;
    }
    if (!valid) return false;
    std::vector<Object> kept;
    for (const Object& o : objects) {
      if (!p.emit_by_overlap) {
        if (!crop.contains((o.left + o.right) * 0.5f, (o.top + o.bottom) * 0.5f)) continue;
      } else if (Intersect(crop, o.box()).area() / o.box().area() <= p.emit_overlap_thresh) {
        continue;
      }
      kept.push_back(o.Project(crop));
    }
    if (kept.empty()) return false;
    objects = std::move(kept);
    return true;
  }
};

float Uniform(Rng& rng, float lo, float hi) {
  return std::uniform_real_distribution<float>(lo, hi)(rng);
}

int InterpFor(const DetAugmentParams& p, Rng& rng, int in_h, int in_w, int out_h, int out_w) {
  double draw = p.inter_method == 10 ? Uniform(rng, 0, 1) : 0.0;
  return ResolveInterp(p.inter_method, in_h, in_w, out_h, out_w, draw);
}

absl::StatusOr<Image> ResizeTo(const Image& img, int h, int w, const DetAugmentParams& p,
                               Rng& rng) {
  if (h <= 0 || w <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the detection augmenter made an empty ", h, "x", w, " image"));
  }
  return Resize(img, h, w, InterpFor(p, rng, img.height, img.width, h, w));
}

}  // namespace

absl::Status ValidateDetAugmentParams(DetAugmentParams* p) {
  auto bad = [](const std::string& m) { return absl::InvalidArgumentError(m); };
  const int im = p->inter_method;
  if (!((im >= 0 && im <= 4) || im == 9 || im == 10)) {
    return bad(absl::StrCat("inter_method ", im, ": expected 0-4, 9 or 10"));
  }
  if (p->num_crop_sampler < 0) return bad("num_crop_sampler must not be negative");
  const int n = p->num_crop_sampler;
  struct Named {
    const char* name;
    std::vector<float>* values;
  };
  const Named all[] = {{"min_crop_scales", &p->min_crop_scales},
                       {"max_crop_scales", &p->max_crop_scales},
                       {"min_crop_aspect_ratios", &p->min_crop_aspect_ratios},
                       {"max_crop_aspect_ratios", &p->max_crop_aspect_ratios},
                       {"min_crop_overlaps", &p->min_crop_overlaps},
                       {"max_crop_overlaps", &p->max_crop_overlaps},
                       {"min_crop_sample_coverages", &p->min_crop_sample_coverages},
                       {"max_crop_sample_coverages", &p->max_crop_sample_coverages},
                       {"min_crop_object_coverages", &p->min_crop_object_coverages},
                       {"max_crop_object_coverages", &p->max_crop_object_coverages},
                       {"max_crop_trials", &p->max_crop_trials}};
  for (const Named& v : all) {
    if (n > 0 && v.values->size() == 1) v.values->assign(n, (*v.values)[0]);
    if (n > 0 && static_cast<int>(v.values->size()) != n) {
      return bad(absl::StrCat(v.name, " has ", v.values->size(), " values for ", n,
                              " crop samplers (num_crop_sampler)"));
    }
  }
  for (int i = 0; i < n; ++i) {
    if (p->min_crop_scales[i] < 0 || p->max_crop_scales[i] > 1 ||
        p->max_crop_scales[i] <= p->min_crop_scales[i]) {
      return bad(absl::StrCat("crop sampler ", i, ": scales [", p->min_crop_scales[i], ", ",
                              p->max_crop_scales[i], "] must satisfy 0 <= min < max <= 1"));
    }
    if (p->min_crop_aspect_ratios[i] < 0 ||
        p->max_crop_aspect_ratios[i] < p->min_crop_aspect_ratios[i] ||
        p->max_crop_overlaps[i] < p->min_crop_overlaps[i] ||
        p->max_crop_sample_coverages[i] < p->min_crop_sample_coverages[i] ||
        p->max_crop_object_coverages[i] < p->min_crop_object_coverages[i]) {
      return bad(
          absl::StrCat("crop sampler ", i, ": every min_crop_* must be at most its max_crop_*"));
    }
  }
  if (p->emit_overlap_thresh < 0) return bad("emit_overlap_thresh must not be negative");
  if (p->fill_value < 0 || p->fill_value > 255) {
    return bad(absl::StrCat("fill_value ", p->fill_value, ": expected 0 to 255"));
  }
  return absl::OkStatus();
}

absl::Status CheckDetLabel(const std::vector<float>& raw) {
  const size_t n = raw.size();
  if (n < 7) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a detection label of ", n,
        " values: at least 7 (a 2-value header [header width, object width] and one 5-value "
        "object [id, xmin, ymin, xmax, ymax])"));
  }
  const int header = static_cast<int>(raw[0]), object = static_cast<int>(raw[1]);
  if (header < 2 || object < 5 || static_cast<size_t>(header) > n || (n - header) % object != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a detection label of ", n, " values with header width ", raw[0], " and object width ",
        raw[1],
        ": the header must be at least 2, objects at least 5 wide, and the objects must "
        "fill the rest exactly"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Image> DetAugment(Image img, std::vector<float>* label, const DetAugmentParams& p,
                                 Rng& rng) {
  if (p.resize > 0) {
    const auto [h, w] = ShorterEdgeTo(img.height, img.width, p.resize);
    absl::StatusOr<Image> next = ResizeTo(img, h, w, p, rng);
    if (!next.ok()) return next.status();
    img = *std::move(next);
  }
  DetLabel det(*label);
  // Colour, with MXNet's draws: hue, saturation, illumination and contrast
  // in [-1, 1) times their bounds, then one coin each for whether it applies.
  if (p.random_hue_prob > 0 || p.random_saturation_prob > 0 || p.random_illumination_prob > 0 ||
      p.random_contrast_prob > 0) {
    int h = static_cast<int>(Uniform(rng, -1, 1) * p.max_random_hue);
    int s = static_cast<int>(Uniform(rng, -1, 1) * p.max_random_saturation);
    int l = static_cast<int>(Uniform(rng, -1, 1) * p.max_random_illumination);
    float c = Uniform(rng, -1, 1) * p.max_random_contrast;
    if (!(Uniform(rng, 0, 1) < p.random_hue_prob)) h = 0;
    if (!(Uniform(rng, 0, 1) < p.random_saturation_prob)) s = 0;
    if (!(Uniform(rng, 0, 1) < p.random_illumination_prob)) l = 0;
    if (!(Uniform(rng, 0, 1) < p.random_contrast_prob)) c = 0;
    if ((h != 0 || s != 0 || l != 0) && img.channels != 3) {
      return absl::InvalidArgumentError(
          absl::StrCat("hue, saturation and illumination jitter need 3-channel images; "
                       "data_shape asks for ",
                       img.channels));
    }
    if (h != 0 || s != 0 || l != 0) ShiftHls(&img, h, l, s);
    if (std::fabs(c) > 1e-3f) {
      uint8_t table[256];
      for (int v = 0; v < 256; ++v) {
        table[v] = static_cast<uint8_t>(std::clamp(std::lrint(v * (c + 1.f)), 0L, 255L));
      }
      for (uint8_t& v : img.pixels) v = table[v];
    }
  }
  if (p.rand_mirror_prob > 0 && Uniform(rng, 0, 1) < p.rand_mirror_prob) {
    for (Object& o : det.objects) {
      const float left = 1.f - o.right, right = 1.f - o.left;
      o.left = left;
      o.right = right;
    }
    FlipLeftRight(&img);
  }
  if (p.rand_pad_prob > 0 && p.max_pad_scale > 1.f && Uniform(rng, 0, 1) < p.rand_pad_prob) {
    const float scale = Uniform(rng, 1.f, p.max_pad_scale);
    if (scale >= 1.05f) {
      const float x0 = Uniform(rng, 0.f, scale - 1), y0 = Uniform(rng, 0.f, scale - 1);
      const Box pad{-x0, -y0, scale, scale};
      for (Object& o : det.objects) o = o.Project(pad);
      const int left = static_cast<int>(x0 * img.width), top = static_cast<int>(y0 * img.height);
      const int right = static_cast<int>((scale - x0 - 1) * img.width);
      const int bottom = static_cast<int>((scale - y0 - 1) * img.height);
      Image canvas;
      canvas.height = img.height + top + bottom;
      canvas.width = img.width + left + right;
      canvas.channels = img.channels;
      canvas.pixels.assign(size_t(canvas.height) * canvas.width * canvas.channels,
                           static_cast<uint8_t>(p.fill_value));
      for (int y = 0; y < img.height; ++y) {
        std::copy(img.row(y), img.row(y) + size_t(img.width) * img.channels,
                  canvas.row(y + top) + size_t(left) * img.channels);
      }
      img = std::move(canvas);
    }
  }
  if (p.rand_crop_prob > 0 && p.num_crop_sampler > 0 && Uniform(rng, 0, 1) < p.rand_crop_prob) {
    std::vector<int> order(p.num_crop_sampler);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    bool cropped = false;
    for (int s : order) {
      if (cropped) break;
      for (int t = 0; t < static_cast<int>(p.max_crop_trials[s]); ++t) {
        const float aspect = static_cast<float>(img.width) / img.height;
        const float scale = Uniform(rng, p.min_crop_scales[s], p.max_crop_scales[s]) + 1e-12f;
        const float min_ratio = std::max(p.min_crop_aspect_ratios[s] / aspect, scale * scale);
        const float max_ratio =
            std::min(p.max_crop_aspect_ratios[s] / aspect, 1.f / (scale * scale));
        if (!(min_ratio <= max_ratio)) continue;
        const float ratio = std::sqrt(Uniform(rng, min_ratio, max_ratio));
        const float w = std::min(1.f, scale * ratio), h = std::min(1.f, scale / ratio);
        const Box crop{Uniform(rng, 0.f, 1 - w), Uniform(rng, 0.f, 1 - h), w, h};
        if (!det.TryCrop(crop, p, s)) continue;
        const int left = static_cast<int>(crop.x * img.width);
        const int top = static_cast<int>(crop.y * img.height);
        const int cw = std::max(1, std::min(img.width - left, static_cast<int>(w * img.width)));
        const int ch = std::max(1, std::min(img.height - top, static_cast<int>(h * img.height)));
        img = Crop(img, top, left, ch, cw);
        cropped = true;
        break;
      }
    }
  }
  const int H = p.out_h, W = p.out_w;
  if (p.resize_mode == DetAugmentParams::ResizeMode::kForce) {
    absl::StatusOr<Image> next = ResizeTo(img, H, W, p, rng);
    if (!next.ok()) return next.status();
    img = *std::move(next);
  } else if (p.resize_mode == DetAugmentParams::ResizeMode::kFit || img.height > H ||
             img.width > W) {
    const float ratio = std::min(float(H) / img.height, float(W) / img.width);
    absl::StatusOr<Image> next = ResizeTo(img, static_cast<int>(ratio * img.height),
                                          static_cast<int>(ratio * img.width), p, rng);
    if (!next.ok()) return next.status();
    img = *std::move(next);
  }
  *label = det.ToArray();
  return img;
}

}  // namespace symx::image
