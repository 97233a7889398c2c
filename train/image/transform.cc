#include "train/image/transform.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "devices/geometry/image_resize.h"

namespace symx::image {

absl::StatusOr<Image> Resize(const Image& image, int height, int width, int interp) {
  if (interp < kResizeNearest || interp > kResizeLanczos4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "resize interp ", interp,
        ": expected 0 (nearest), 1 (bilinear), 2 (bicubic), 3 (area) or 4 (lanczos4)"));
  }
  if (height <= 0 || width <= 0 || image.height <= 0 || image.width <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("cannot resize a ", image.height, "x",
                                                   image.width, " image to ", height, "x", width));
  }
  Image out;
  out.height = height;
  out.width = width;
  out.channels = image.channels;
  if (height == image.height && width == image.width) {
    out.pixels = image.pixels;
    return out;
  }
  out.pixels.resize(size_t(height) * width * image.channels);
  const ResizeGeom g =
      MakeResizeGeom(image.height, image.width, height, width, image.channels, interp);
  for (int y = 0; y < height; ++y) {
    uint8_t* row = out.row(y);
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < image.channels; ++c) {
        row[x * image.channels + c] = ResizePixel(g, image.pixels.data(), y, x, c);
      }
    }
  }
  return out;
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
