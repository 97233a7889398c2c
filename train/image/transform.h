// Geometric steps of the image augmenters, on 8-bit HWC images (codec.h):
// resize with OpenCV 3.4.2's arithmetic (the one mx.image.imresize and
// MXNet's ImageRecordIter run; devices/geometry/image_resize.h), crop, pad
// and mirror.
#ifndef SYMX_TRAIN_IMAGE_TRANSFORM_H_
#define SYMX_TRAIN_IMAGE_TRANSFORM_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "train/image/codec.h"

namespace symx::image {

// interp: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 lanczos4 (OpenCV's
// codes). Errors name a bad interp or an empty size.
absl::StatusOr<Image> Resize(const Image& image, int height, int width, int interp);

// Rows [y0, y0 + h) and columns [x0, x0 + w) of Resize(image, height, width,
// interp), computing only those pixels (a resize followed by a crop).
absl::StatusOr<Image> ResizeRegion(const Image& image, int height, int width, int interp, int y0,
                                   int x0, int h, int w);

// The size whose shorter edge is `edge`, the longer edge scaled by integer
// division (MXNet's `resize` augmenter and im2rec's --resize alike).
struct ImageSize {
  int height = 0, width = 0;
};
ImageSize ShorterEdgeTo(int height, int width, int edge);

// MXNet's inter_method 9 (area when shrinking, cubic when growing, else
// linear) and 10 (one of 0-4 drawn by `draw`, a value in [0, 1)); other
// values pass through.
int ResolveInterp(int method, int in_h, int in_w, int out_h, int out_w, double draw);

// Rows [y, y + h) and columns [x, x + w), which must lie inside the image.
Image Crop(const Image& image, int y, int x, int h, int w);

// `pad` pixels of `fill` on every side.
Image Pad(const Image& image, int pad, uint8_t fill);

void FlipLeftRight(Image* image);

// Adds (dh, dl, ds) to every pixel's hue, lightness and saturation in
// OpenCV's 8-bit HLS (H in [0, 180), L and S in [0, 255]), each clamped
// (hue too, as MXNet does, not wrapped), and converts back. 3-channel RGB.
void ShiftHls(Image* image, int dh, int dl, int ds);

}  // namespace symx::image

#endif  // SYMX_TRAIN_IMAGE_TRANSFORM_H_
