// Image decode and encode: JPEG through libjpeg-turbo, PNG through libpng,
// with the conventions of MXNet 1.9.1's mx.image.imdecode (OpenCV's imdecode
// over the same libraries): 8-bit HWC pixels, 16-bit PNG samples cut to
// their high byte, palettes and low bit depths expanded, and
//   flag 1  (color):     3 channels; gray images repeated, alpha dropped
//   flag 0  (grayscale): 1 channel; a colour JPEG gives its luma (Y), a
//                        colour PNG libpng's 0.299/0.587/0.114 mix
//   flag -1 (unchanged): the file's own channels (1, 3, or 4 with alpha)
// Colour channels come out RGB, or BGR (OpenCV's order) when !to_rgb.
#ifndef SYMX_TRAIN_IMAGE_CODEC_H_
#define SYMX_TRAIN_IMAGE_CODEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace symx::image {

struct Image {
  int height = 0, width = 0, channels = 0;
  std::vector<uint8_t> pixels;  // height * width * channels, row-major HWC
  uint8_t* row(int y) { return pixels.data() + size_t(y) * width * channels; }
  const uint8_t* row(int y) const { return pixels.data() + size_t(y) * width * channels; }
};

enum class Format { kUnknown, kJpeg, kPng };
Format Sniff(absl::string_view bytes);

// Decodes a JPEG or PNG (told apart by their signatures). Errors say what
// the bytes are when neither ("12 bytes starting ff 00 ..., neither a JPEG
// nor a PNG") and what the library reported when decoding fails.
// An image larger than `max_pixels` (height * width) is refused before any
// pixel memory is taken: a 100-byte header can claim 65535 x 65535.
inline constexpr int64_t kMaxDecodePixels = int64_t{1} << 28;
absl::StatusOr<Image> Decode(absl::string_view bytes, int flag = 1, bool to_rgb = true,
                             int64_t max_pixels = kMaxDecodePixels);

// Encodes 1 or 3 channels (RGB, or BGR when !rgb) at `quality` (1-100).
absl::StatusOr<std::string> EncodeJpeg(const Image& image, int quality = 95, bool rgb = true);
// Encodes 1, 3 or 4 channels (RGB[A], or BGR[A] when !rgb); compression 0-9.
absl::StatusOr<std::string> EncodePng(const Image& image, int compression = 3, bool rgb = true);

}  // namespace symx::image

#endif  // SYMX_TRAIN_IMAGE_CODEC_H_
