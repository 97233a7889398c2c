#include "train/image/transform.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/geometry/image_resize.h"

namespace symx::image {
namespace {

// One output column's horizontal taps: source offsets (times channels) and
// fixed-point weights (round(w * 2048)); `edge`: the edge pixel alone.
struct ColumnTaps {
  int n;
  bool edge;
  int64_t src[8];
  int32_t w[8];
};

// A source row's horizontal sums at every output column and channel, as
// resize_detail::RowSum computes each, with the tap count fixed at compile
// time so the loop unrolls.
template <int N>
void HorizontalSums(const uint8_t* row, const std::vector<ColumnTaps>& cols, int c, int32_t* dst) {
  const int64_t out_w = static_cast<int64_t>(cols.size());
  for (int64_t x = 0; x < out_w; ++x) {
    const ColumnTaps& ct = cols[x];
    int32_t* d = dst + x * c;
    if (ct.edge) {
      for (int ch = 0; ch < c; ++ch) d[ch] = static_cast<int32_t>(row[ct.src[0] + ch]) * 2048;
      continue;
    }
    for (int ch = 0; ch < c; ++ch) {
      int32_t sum = 0;
      for (int k = 0; k < N; ++k) sum += static_cast<int32_t>(row[ct.src[k] + ch]) * ct.w[k];
      d[ch] = sum;
    }
  }
}

// The separable kernels (linear, cubic, lanczos4, area growing) on uint8,
// row by row: each output pixel is what ResizePixel computes (the same tap
// positions, fixed-point weights and vertical rounding, VerticalU8 itself),
// but the taps are found once per column and row and each source row's
// horizontal sums once (OpenCV's order of work), not per pixel and channel.
// Rows [y0, y0 + out->height) and columns [x0, x0 + out->width) of the
// resized image.
void ResizeSeparableU8(const Image& in, const ResizeGeom& g, int64_t y0, int64_t x0, Image* out) {
  using namespace resize_detail;  // NOLINT: the shared per-pixel pieces
  const int c = in.channels;
  const int64_t row_len = int64_t{out->width} * c;
  std::vector<ColumnTaps> cols(out->width);
  for (int64_t x = 0; x < out->width; ++x) {
    const AxisTaps t = TapsAt(g.interp, x0 + x, g.in_w, g.scale_x, g.inv_x, ResizeAxis::kX);
    ColumnTaps& ct = cols[x];
    ct.n = t.n;
    ct.edge = t.edge;
    for (int k = 0; k < t.n; ++k) {
      ct.src[k] = t.src[k] * c;
      ct.w[k] = FixedWeight(t.w[k]);
    }
  }
  // Horizontal sums of the most recent source rows (a row is needed by the
  // few consecutive output rows whose taps reach it).
  constexpr int kCached = 8;
  int64_t cached_row[kCached];
  std::vector<int32_t> cache[kCached];
  for (int k = 0; k < kCached; ++k) {
    cached_row[k] = -1;
    cache[k].resize(row_len);
  }
  int next_slot = 0;
  auto sums_of = [&](int64_t sy) -> const int32_t* {
    for (int k = 0; k < kCached; ++k) {
      if (cached_row[k] == sy) return cache[k].data();
    }
    const int slot = next_slot;
    next_slot = (next_slot + 1) % kCached;
    cached_row[slot] = sy;
    int32_t* dst = cache[slot].data();
    const uint8_t* row = in.row(static_cast<int>(sy));
    switch (cols.empty() ? 0 : cols[0].n) {
      case 2:
        HorizontalSums<2>(row, cols, c, dst);
        break;
      case 4:
        HorizontalSums<4>(row, cols, c, dst);
        break;
      default:
        HorizontalSums<8>(row, cols, c, dst);
        break;
    }
    return dst;
  };
  for (int64_t y = 0; y < out->height; ++y) {
    const AxisTaps ty = TapsAt(g.interp, y0 + y, g.in_h, g.scale_y, g.inv_y, ResizeAxis::kY);
    const int32_t* rows[8];
    for (int k = 0; k < ty.n; ++k) rows[k] = sums_of(ty.src[k]);
    uint8_t* dst = out->row(static_cast<int>(y));
    if (ty.n == 2) {
      // VerticalU8's two-tap form (OpenCV's SIMD rounding), weights hoisted.
      const int32_t w0 = FixedWeight(ty.w[0]), w1 = FixedWeight(ty.w[1]);
      const int32_t* r0 = rows[0];
      const int32_t* r1 = rows[1];
      for (int64_t at = 0; at < row_len; ++at) {
        int32_t v = (((r0[at] >> 4) * w0) >> 16) + (((r1[at] >> 4) * w1) >> 16);
        v = (v + 2) >> 2;
        dst[at] = static_cast<uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
      }
      continue;
    }
    int32_t v[8];
    for (int64_t at = 0; at < row_len; ++at) {
      for (int k = 0; k < ty.n; ++k) v[k] = rows[k][at];
      dst[at] = VerticalU8(g, ty, v, x0 * c + at);  // `at` along the whole output row
    }
  }
}

}  // namespace

absl::StatusOr<Image> Resize(const Image& image, int height, int width, int interp) {
  return ResizeRegion(image, height, width, interp, 0, 0, height, width);
}

absl::StatusOr<Image> ResizeRegion(const Image& image, int height, int width, int interp, int y0,
                                   int x0, int h, int w) {
  if (interp < kResizeNearest || interp > kResizeLanczos4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "resize interp ", interp,
        ": expected 0 (nearest), 1 (bilinear), 2 (bicubic), 3 (area) or 4 (lanczos4)"));
  }
  if (height <= 0 || width <= 0 || image.height <= 0 || image.width <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("cannot resize a ", image.height, "x",
                                                   image.width, " image to ", height, "x", width));
  }
  if (y0 < 0 || x0 < 0 || h <= 0 || w <= 0 || y0 + h > height || x0 + w > width) {
    return absl::InvalidArgumentError(absl::StrCat("region ", h, "x", w, " at (", y0, ", ", x0,
                                                   ") is outside a ", height, "x", width,
                                                   " image"));
  }
  if (height == image.height && width == image.width) return Crop(image, y0, x0, h, w);
  Image out;
  out.height = h;
  out.width = w;
  out.channels = image.channels;
  out.pixels.resize(size_t(h) * w * image.channels);
  const ResizeGeom g =
      MakeResizeGeom(image.height, image.width, height, width, image.channels, interp);
  if (g.method == ResizeMethod::kSeparable) {
    ResizeSeparableU8(image, g, y0, x0, &out);
    return out;
  }
  for (int y = 0; y < h; ++y) {
    uint8_t* row = out.row(y);
    for (int x = 0; x < w; ++x) {
      for (int c = 0; c < image.channels; ++c) {
        row[x * image.channels + c] = ResizePixel(g, image.pixels.data(), y0 + y, x0 + x, c);
      }
    }
  }
  return out;
}

namespace {

// OpenCV's 8-bit RGB <-> HLS: H = hue / 2 (degrees), L and S scaled to 255.
void RgbToHls(const uint8_t* rgb, float* h, float* l, float* s) {
  const float r = rgb[0] / 255.f, g = rgb[1] / 255.f, b = rgb[2] / 255.f;
  const float vmax = std::max({r, g, b}), vmin = std::min({r, g, b});
  const float diff = vmax - vmin;
  *l = (vmax + vmin) * 0.5f;
  *s = 0;
  *h = 0;
  if (diff > FLT_EPSILON) {
    *s = *l < 0.5f ? diff / (vmax + vmin) : diff / (2 - vmax - vmin);
    const float k = 60.f / diff;
    if (vmax == r) {
      *h = (g - b) * k;
    } else if (vmax == g) {
      *h = (b - r) * k + 120.f;
    } else {
      *h = (r - g) * k + 240.f;
    }
    if (*h < 0) *h += 360.f;
  }
}

void HlsToRgb(float h, float l, float s, uint8_t* rgb) {
  float c[3];
  if (s == 0) {
    c[0] = c[1] = c[2] = l;
  } else {
    const float p2 = l <= 0.5f ? l * (1 + s) : l + s - l * s;
    const float p1 = 2 * l - p2;
    auto channel = [&](float t) {
      if (t < 0) t += 360.f;
      if (t >= 360.f) t -= 360.f;
      if (t < 60.f) return p1 + (p2 - p1) * t / 60.f;
      if (t < 180.f) return p2;
      if (t < 240.f) return p1 + (p2 - p1) * (240.f - t) / 60.f;
      return p1;
    };
    c[0] = channel(h + 120.f);
    c[1] = channel(h);
    c[2] = channel(h - 120.f);
  }
  for (int k = 0; k < 3; ++k) {
    rgb[k] = static_cast<uint8_t>(std::clamp(std::lround(c[k] * 255.f), 0L, 255L));
  }
}

}  // namespace

void ShiftHls(Image* image, int dh, int dl, int ds) {
  const size_t n = size_t(image->height) * image->width;
  uint8_t* px = image->pixels.data();
  for (size_t i = 0; i < n; ++i, px += 3) {
    float h, l, s;
    RgbToHls(px, &h, &l, &s);
    // The 8-bit values OpenCV stores, shifted and clamped as MXNet does.
    const int h8 = std::clamp(static_cast<int>(std::lround(h * 0.5f)) + dh, 0, 180);
    const int l8 = std::clamp(static_cast<int>(std::lround(l * 255.f)) + dl, 0, 255);
    const int s8 = std::clamp(static_cast<int>(std::lround(s * 255.f)) + ds, 0, 255);
    HlsToRgb(h8 * 2.f, l8 / 255.f, s8 / 255.f, px);
  }
}

ImageSize ShorterEdgeTo(int height, int width, int edge) {
  if (height > width) {
    return {static_cast<int>(int64_t{edge} * height / width), edge};
  }
  return {edge, static_cast<int>(int64_t{edge} * width / height)};
}

int ResolveInterp(int method, int in_h, int in_w, int out_h, int out_w, double draw) {
  if (method == 9) {
    if (out_h > in_h && out_w > in_w) return kResizeCubic;
    if (out_h < in_h && out_w < in_w) return kResizeArea;
    return kResizeLinear;
  }
  if (method == 10) return std::min(4, static_cast<int>(draw * 5));
  return method;
}

Image Crop(const Image& image, int y, int x, int h, int w) {
  Image out;
  out.height = h;
  out.width = w;
  out.channels = image.channels;
  out.pixels.resize(size_t(h) * w * image.channels);
  const size_t bytes = size_t(w) * image.channels;
  for (int r = 0; r < h; ++r) {
    std::memcpy(out.row(r), image.row(y + r) + size_t(x) * image.channels, bytes);
  }
  return out;
}

Image Pad(const Image& image, int pad, uint8_t fill) {
  Image out;
  out.height = image.height + 2 * pad;
  out.width = image.width + 2 * pad;
  out.channels = image.channels;
  out.pixels.assign(size_t(out.height) * out.width * out.channels, fill);
  const size_t bytes = size_t(image.width) * image.channels;
  for (int r = 0; r < image.height; ++r) {
    std::memcpy(out.row(r + pad) + size_t(pad) * image.channels, image.row(r), bytes);
  }
  return out;
}

void FlipLeftRight(Image* image) {
  const int c = image->channels;
  for (int y = 0; y < image->height; ++y) {
    uint8_t* row = image->row(y);
    for (int a = 0, b = image->width - 1; a < b; ++a, --b) {
      for (int k = 0; k < c; ++k) std::swap(row[a * c + k], row[b * c + k]);
    }
  }
}

}  // namespace symx::image
