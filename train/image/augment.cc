#include "train/image/augment.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "train/image/transform.h"

namespace symx::image {
namespace {

float Uniform(Rng& rng, float lo, float hi) {
  return std::uniform_real_distribution<float>(lo, hi)(rng);
}
int UniformInt(Rng& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// A crop's top-left corner given the room around it: drawn (y first) with
// rand_crop, else centred (rounded down).
std::pair<int, int> CropOrigin(const AugmentParams& p, Rng& rng, int room_y, int room_x) {
  if (!p.rand_crop) return {room_y / 2, room_x / 2};
  const int y = UniformInt(rng, 0, room_y);
  return {y, UniformInt(rng, 0, room_x)};
}

// What MXNet's inter_method resolves to for one resize: a draw only for 10.
int InterpFor(const AugmentParams& p, Rng& rng, int in_h, int in_w, int out_h, int out_w) {
  double draw = p.inter_method == 10 ? Uniform(rng, 0, 1) : 0.0;
  return ResolveInterp(p.inter_method, in_h, in_w, out_h, out_w, draw);
}

// OpenCV's saturate_cast<uchar>: round half to even, then clamp. The
// rounding is float arithmetic's own (adding and removing 1.5 * 2^23 leaves
// the nearest integer, ties to even), which vectorizes where lrint is a
// library call.
inline uint8_t SaturateU8(float v) {
  v = std::min(std::max(v, -1.f), 256.f);
  const float r = (v + 12582912.f) - 12582912.f;
  return static_cast<uint8_t>(static_cast<int>(std::min(std::max(r, 0.f), 255.f)));
}

std::array<float, 2> AspectRange(const AugmentParams& p) {
  if (p.min_aspect_ratio.has_value()) return {*p.min_aspect_ratio, p.max_aspect_ratio};
  return {1 - p.max_aspect_ratio, 1 + p.max_aspect_ratio};
}

bool AffineWanted(const AugmentParams& p) {
  auto ar = AspectRange(p);
  return p.max_rotate_angle > 0 || p.max_shear_ratio > 0 || p.rotate > 0 ||
         !p.rotate_list.empty() || p.max_random_scale != 1 || p.min_random_scale != 1 ||
         (!p.random_resized_crop && (ar[0] != 1 || ar[1] != 1)) || p.max_img_size != 1e10f ||
         p.min_img_size != 0;
}

// dst = src warped by the forward affine map m (2x3), sampled at the inverse
// image of each output pixel; outside the source the value is `fill` (alpha 0).
Image WarpAffine(const Image& src, const double m[6], int out_h, int out_w, bool nearest,
                 int fill) {
  Image dst;
  dst.height = out_h;
  dst.width = out_w;
  dst.channels = src.channels;
  dst.pixels.resize(size_t(out_h) * out_w * src.channels);
  const double det = m[0] * m[4] - m[1] * m[3];
  const double inv_det = det != 0 ? 1.0 / det : 0.0;
  const double ia = m[4] * inv_det, ib = -m[1] * inv_det, ic = -m[3] * inv_det, id = m[0] * inv_det;
  const double tx = m[2], ty = m[5];
  const int c = src.channels;
  auto border = [&](int ch) { return static_cast<uint8_t>(ch == 3 ? 0 : fill); };
  auto at = [&](int y, int x, int ch) -> double {
    if (y < 0 || y >= src.height || x < 0 || x >= src.width) return border(ch);
    return src.row(y)[size_t(x) * c + ch];
  };
  for (int y = 0; y < out_h; ++y) {
    uint8_t* row = dst.row(y);
    for (int x = 0; x < out_w; ++x) {
      const double dx = x - tx, dy = y - ty;
      const double sx = ia * dx + ib * dy, sy = ic * dx + id * dy;
      for (int ch = 0; ch < c; ++ch) {
        double v;
        if (nearest) {
          v = at(static_cast<int>(std::lround(sy)), static_cast<int>(std::lround(sx)), ch);
        } else {
          const int x0 = static_cast<int>(std::floor(sx)), y0 = static_cast<int>(std::floor(sy));
          const double fx = sx - x0, fy = sy - y0;
          v = (at(y0, x0, ch) * (1 - fx) + at(y0, x0 + 1, ch) * fx) * (1 - fy) +
              (at(y0 + 1, x0, ch) * (1 - fx) + at(y0 + 1, x0 + 1, ch) * fx) * fy;
        }
        row[size_t(x) * c + ch] = SaturateU8(v);
      }
    }
  }
  return dst;
}

// SaturateU8 for values known to lie well inside (-2^22, 2^22), as colour
// jitter's do (|v| < 1000): the same result, with the clamp done on the
// integer so the loops vectorize without float compare masks.
inline uint8_t RoundToU8(float v) {
  const int i = static_cast<int>((v + 12582912.f) - 12582912.f);
  return static_cast<uint8_t>(std::clamp(i, 0, 255));
}

// The luma OpenCV's RGB2GRAY gives (fixed point, rounded).
uint8_t Luma(const uint8_t* rgb) {
  return static_cast<uint8_t>((rgb[0] * 4899 + rgb[1] * 9617 + rgb[2] * 1868 + 8192) >> 14);
}

void ColorJitter(Image* img, const AugmentParams& p, Rng& rng) {
  const float alpha_b = 1 + Uniform(rng, -p.brightness, p.brightness);
  const float alpha_c = 1 + Uniform(rng, -p.contrast, p.contrast);
  const float alpha_s = 1 + Uniform(rng, -p.saturation, p.saturation);
  std::array<int, 3> order = {0, 1, 2};
  std::shuffle(order.begin(), order.end(), rng);
  const size_t n = size_t(img->height) * img->width;
  uint8_t* px = img->pixels.data();
  // Flat float loops rather than lookup tables: the compiler vectorizes
  // them. A factor of exactly 1 changes nothing and is skipped.
  for (int step : order) {
    if (step == 0 && alpha_b != 1.f) {
      for (size_t i = 0; i < n * 3; ++i) px[i] = RoundToU8(px[i] * alpha_b);
    } else if (step == 1 && alpha_c != 1.f) {
      uint64_t sum = 0;  // integer lumas: the sum is exact
      for (size_t i = 0; i < n; ++i) sum += Luma(px + i * 3);
      const float mean = static_cast<float>(n ? static_cast<double>(sum) / n : 0.0);
      const float shift = (1 - alpha_c) * mean;
      for (size_t i = 0; i < n * 3; ++i) px[i] = RoundToU8(px[i] * alpha_c + shift);
    } else if (step == 2 && alpha_s != 1.f) {
      // p * alpha + (1 - alpha) * luma, row by row, the weighted luma spread
      // to every channel first so the blend is one flat loop.
      const size_t w = img->width;
      std::vector<float> gray(w * 3);
      for (int y = 0; y < img->height; ++y) {
        uint8_t* row = px + y * w * 3;
        for (size_t x = 0; x < w; ++x) {
          const float g = (1 - alpha_s) * Luma(row + x * 3);
          gray[x * 3] = gray[x * 3 + 1] = gray[x * 3 + 2] = g;
        }
        for (size_t i = 0; i < w * 3; ++i) row[i] = RoundToU8(alpha_s * row[i] + gray[i]);
      }
    }
  }
}

void PcaLighting(Image* img, float std, Rng& rng) {
  // AlexNet's eigen decomposition of ImageNet's RGB covariance, in pixel units.
  static constexpr double kEigval[3] = {55.46, 4.794, 1.148};
  static constexpr double kEigvec[3][3] = {
      {-0.5675, 0.7192, 0.4009}, {-0.5808, -0.0045, -0.8140}, {-0.5836, -0.6948, 0.4203}};
  std::normal_distribution<float> normal(0, std);
  double a[3];
  for (double& v : a) v = normal(rng);
  // A shift per channel: MXNet adds it to the integer pixel and truncates
  // toward zero, then clamps; for an integer p that is clamp(p +
  // floor(shift)) (a negative sum clamps to 0 either way), integer
  // arithmetic over a flat row, which vectorizes.
  const size_t w = img->width;
  std::vector<int> offset(w * 3);
  for (int i = 0; i < 3; ++i) {
    double shift = 0;
    for (int j = 0; j < 3; ++j) shift += kEigval[j] * kEigvec[i][j] * a[j];
    // (Bounded first: beyond +-512 every pixel clamps the same way.)
    const int floor_shift = static_cast<int>(std::floor(std::clamp(shift, -512.0, 512.0)));
    for (size_t x = 0; x < w; ++x) offset[x * 3 + i] = floor_shift;
  }
  for (int y = 0; y < img->height; ++y) {
    uint8_t* row = img->row(y);
    for (size_t i = 0; i < w * 3; ++i) {
      row[i] = static_cast<uint8_t>(std::clamp(row[i] + offset[i], 0, 255));
    }
  }
}

}  // namespace

absl::Status ValidateAugmentParams(const AugmentParams& p) {
  auto bad = [](const std::string& m) { return absl::InvalidArgumentError(m); };
  const int im = p.inter_method;
  if (!((im >= 0 && im <= 4) || im == 9 || im == 10)) {
    return bad(absl::StrCat("inter_method ", im,
                            ": expected 0-4 (nearest, bilinear, bicubic, area, lanczos4), "
                            "9 (by direction) or 10 (random)"));
  }
  if (p.random_resized_crop && (p.min_random_scale != 1 || p.max_random_scale != 1 ||
                                p.min_crop_size != -1 || p.max_crop_size != -1 || p.rand_crop)) {
    return bad(
        "random_resized_crop cannot be combined with min_random_scale, max_random_scale, "
        "min_crop_size, max_crop_size or rand_crop");
  }
  auto ar = AspectRange(p);
  if (p.random_resized_crop && (ar[0] <= 0 || ar[0] > ar[1])) {
    return bad(absl::StrCat("random_resized_crop: the aspect ratio range [", ar[0], ", ", ar[1],
                            "] must be positive and ordered"));
  }
  if (p.min_random_area > p.max_random_area || p.min_random_area <= 0) {
    return bad(absl::StrCat("min_random_area ", p.min_random_area, " and max_random_area ",
                            p.max_random_area, ": expected 0 < min <= max"));
  }
  if (!p.random_resized_crop && ar[0] <= 0 && AffineWanted(p)) {
    return bad(absl::StrCat("max_aspect_ratio ", p.max_aspect_ratio,
                            " makes the aspect ratio range reach ", ar[0],
                            "; it must stay positive"));
  }
  if (p.min_random_scale > p.max_random_scale || p.min_random_scale <= 0) {
    return bad(absl::StrCat("min_random_scale ", p.min_random_scale, " and max_random_scale ",
                            p.max_random_scale, ": expected 0 < min <= max"));
  }
  if ((p.max_crop_size != -1 || p.min_crop_size != -1) &&
      (p.min_crop_size <= 0 || p.max_crop_size < p.min_crop_size)) {
    return bad(absl::StrCat("min_crop_size ", p.min_crop_size, " and max_crop_size ",
                            p.max_crop_size, ": set both, with 0 < min <= max"));
  }
  if (p.pad < 0) return bad(absl::StrCat("pad ", p.pad, " is negative"));
  if (p.fill_value < 0 || p.fill_value > 255) {
    return bad(absl::StrCat("fill_value ", p.fill_value, ": expected 0 to 255"));
  }
  if (p.brightness < 0 || p.contrast < 0 || p.saturation < 0 || p.pca_noise < 0) {
    return bad("brightness, contrast, saturation and pca_noise must not be negative");
  }
  return absl::OkStatus();
}

namespace {

// `*img` = `next`, or its error.
absl::Status Take(absl::StatusOr<Image> next, Image* img) {
  if (!next.ok()) return next.status();
  *img = *std::move(next);
  return absl::OkStatus();
}

// Step 1's resize, planned but not yet run: when the next step is the
// default crop, only the cropped pixels of the resized image are computed
// (ResizeRegion, the same values); any other step resizes the whole image.
struct PendingResize {
  int h, w, interp;
};

std::optional<PendingResize> PlanResize(const Image& img, const AugmentParams& p, Rng& rng) {
  if (p.resize <= 0) return std::nullopt;
  const auto [h, w] = ShorterEdgeTo(img.height, img.width, p.resize);
  const int interp = InterpFor(p, rng, img.height, img.width, h, w);
  if (h == img.height && w == img.width) return std::nullopt;
  return PendingResize{h, w, interp};
}

// 2. Rotation, shear, scale, aspect ratio (MXNet's draws, in its order).
absl::StatusOr<Image> AffineStep(const Image& img, const AugmentParams& p, Rng& rng) {
  auto ar = AspectRange(p);
  const float shear = Uniform(rng, -p.max_shear_ratio, p.max_shear_ratio);
  int angle = UniformInt(rng, -p.max_rotate_angle, p.max_rotate_angle);
  if (p.rotate > 0) angle = p.rotate;
  if (!p.rotate_list.empty()) {
    angle = p.rotate_list[UniformInt(rng, 0, static_cast<int>(p.rotate_list.size()) - 1)];
  }
  const float scale =
      p.random_resized_crop ? 1.f : Uniform(rng, p.min_random_scale, p.max_random_scale);
  const float ratio = p.random_resized_crop ? 1.f : Uniform(rng, ar[0], ar[1]);
  const double rad = angle * M_PI / 180.0;
  const double a = std::cos(rad), b = std::sin(rad);
  const double hs = 2.0 * scale / (1 + ratio), ws = ratio * hs;
  const int new_w =
      static_cast<int>(std::clamp<double>(scale * img.width, p.min_img_size, p.max_img_size));
  const int new_h =
      static_cast<int>(std::clamp<double>(scale * img.height, p.min_img_size, p.max_img_size));
  if (new_w <= 0 || new_h <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("the affine augmenter made an empty ", new_h,
                                                   "x", new_w, " image (scale ", scale, ")"));
  }
  double m[6] = {hs * a - shear * b * ws, hs * b + shear * a * ws, 0, -b * ws, a * ws, 0};
  m[2] = (new_w - (m[0] * img.width + m[1] * img.height)) / 2;
  m[5] = (new_h - (m[3] * img.width + m[4] * img.height)) / 2;
  const int interp = InterpFor(p, rng, img.height, img.width, new_h, new_w);
  return WarpAffine(img, m, new_h, new_w, interp == 0, p.fill_value);
}

// 4a. Inception's crop: up to 10 draws of area and aspect; false when none fits.
absl::StatusOr<bool> RandomResizedCrop(Image* img, const AugmentParams& p, Rng& rng) {
  auto ar = AspectRange(p);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const float area = Uniform(rng, p.min_random_area, p.max_random_area);
    const float ratio = Uniform(rng, ar[0], ar[1]);
    const double target = double(img->height) * img->width * area;
    int h = static_cast<int>(std::lround(std::sqrt(target / ratio)));
    int w = static_cast<int>(std::lround(std::sqrt(target * ratio)));
    if (Uniform(rng, 0, 1) > 0.5f) std::swap(h, w);
    if (h <= 0 || w <= 0 || h > img->height || w > img->width) continue;
    const int y = UniformInt(rng, 0, img->height - h), x = UniformInt(rng, 0, img->width - w);
    const int interp = InterpFor(p, rng, h, w, p.out_h, p.out_w);
    SYMX_RETURN_IF_ERROR(Take(Resize(Crop(*img, y, x, h, w), p.out_h, p.out_w, interp), img));
    return true;
  }
  return false;
}

// 4b. A random square of [min_crop_size, max_crop_size], resized.
absl::Status RandomSizeCrop(Image* img, const AugmentParams& p, Rng& rng) {
  if (img->width < p.max_crop_size || img->height < p.max_crop_size) {
    return absl::InvalidArgumentError(absl::StrCat("an input image of ", img->height, "x",
                                                   img->width, " is smaller than max_crop_size ",
                                                   p.max_crop_size));
  }
  const int size = UniformInt(rng, p.min_crop_size, p.max_crop_size);
  const auto [y, x] = CropOrigin(p, rng, img->height - size, img->width - size);
  const int interp = InterpFor(p, rng, size, size, p.out_h, p.out_w);
  return Take(Resize(Crop(*img, y, x, size, size), p.out_h, p.out_w, interp), img);
}

// 4c. The default crop, running a pending resize on the cropped pixels only.
// An image smaller than (H, W) is first enlarged keeping its aspect ratio,
// as MXNet does.
absl::Status DefaultCrop(Image* img, std::optional<PendingResize>* pending, const AugmentParams& p,
                         Rng& rng) {
  const int H = p.out_h, W = p.out_w;
  const int rows = *pending ? (*pending)->h : img->height;
  const int cols = *pending ? (*pending)->w : img->width;
  const int interp = InterpFor(p, rng, rows, cols, H, W);
  if (rows < H || cols < W) {
    if (*pending) {
      SYMX_RETURN_IF_ERROR(
          Take(Resize(*img, (*pending)->h, (*pending)->w, (*pending)->interp), img));
      pending->reset();
    }
    if (img->height < H) {
      const int w = std::max(1, static_cast<int>(float(H) / img->height * img->width));
      SYMX_RETURN_IF_ERROR(Take(Resize(*img, H, w, interp), img));
    }
    if (img->width < W) {
      const int h = std::max(1, static_cast<int>(float(W) / img->width * img->height));
      SYMX_RETURN_IF_ERROR(Take(Resize(*img, h, W, interp), img));
    }
    if (img->height < H || img->width < W) {  // float truncation can leave it a pixel short
      SYMX_RETURN_IF_ERROR(
          Take(Resize(*img, std::max(H, img->height), std::max(W, img->width), interp), img));
    }
  }
  const int full_h = *pending ? (*pending)->h : img->height;
  const int full_w = *pending ? (*pending)->w : img->width;
  const auto [y, x] = CropOrigin(p, rng, full_h - H, full_w - W);
  if (*pending) {
    const PendingResize r = **pending;
    pending->reset();
    return Take(ResizeRegion(*img, r.h, r.w, r.interp, y, x, H, W), img);
  }
  if (y != 0 || x != 0 || img->height != H || img->width != W) *img = Crop(*img, y, x, H, W);
  return absl::OkStatus();
}

// 5. Colour: jitter, HLS, PCA lighting.
absl::Status ColourStep(Image* img, const AugmentParams& p, Rng& rng) {
  const bool jitter = p.brightness > 0 || p.contrast > 0 || p.saturation > 0;
  if ((jitter || p.pca_noise > 0) && img->channels != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("brightness, contrast, saturation and pca_noise need 3-channel images; "
                     "data_shape asks for ",
                     img->channels));
  }
  if (jitter) ColorJitter(img, p, rng);
  if (p.random_h != 0 || p.random_s != 0 || p.random_l != 0) {
    if (img->channels != 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "random_h, random_s and random_l need 3-channel images; data_shape asks for ",
          img->channels));
    }
    // MXNet's draws: each a mean of two uniforms weighted (1 + 4) / 5, in
    // [-bound, bound], truncated toward zero.
    auto draw = [&](int bound) {
      const float u = (Uniform(rng, 0, 1) + 4 * Uniform(rng, 0, 1)) / 5;
      return static_cast<int>(u * 2 * bound - bound);
    };
    const int dh = draw(p.random_h), ds = draw(p.random_s), dl = draw(p.random_l);
    ShiftHls(img, dh, dl, ds);
  }
  if (p.pca_noise > 0) PcaLighting(img, p.pca_noise, rng);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Image> Augment(Image img, const AugmentParams& p, Rng& rng) {
  std::optional<PendingResize> pending = PlanResize(img, p, rng);  // 1.
  const bool affine = AffineWanted(p);
  const auto ar = AspectRange(p);
  const bool rrc = p.random_resized_crop &&
                   (p.min_random_area != 1 || p.max_random_area != 1 || ar[0] != 1 || ar[1] != 1);
  const bool crop_size = !p.random_resized_crop && (p.max_crop_size != -1 || p.min_crop_size != -1);
  if (pending && (affine || p.pad > 0 || rrc || crop_size)) {
    SYMX_RETURN_IF_ERROR(Take(Resize(img, pending->h, pending->w, pending->interp), &img));
    pending.reset();
  }
  if (affine) SYMX_RETURN_IF_ERROR(Take(AffineStep(img, p, rng), &img));     // 2.
  if (p.pad > 0) img = Pad(img, p.pad, static_cast<uint8_t>(p.fill_value));  // 3.
  bool cropped = false;                                                      // 4.
  if (rrc) {
    SYMX_ASSIGN_OR_RETURN(cropped, RandomResizedCrop(&img, p, rng));
  } else if (crop_size) {
    SYMX_RETURN_IF_ERROR(RandomSizeCrop(&img, p, rng));
    cropped = true;
  }
  if (!cropped) SYMX_RETURN_IF_ERROR(DefaultCrop(&img, &pending, p, rng));
  SYMX_RETURN_IF_ERROR(ColourStep(&img, p, rng));  // 5.
  return img;
}

}  // namespace symx::image
