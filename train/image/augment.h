// The per-image augmenter of MXNet's ImageRecordIter (its "aug_default"),
// on decoded 8-bit HWC images, with the same parameters and order:
//   1. resize: the shorter edge to `resize` (up or down), when resize > 0
//   2. affine: rotation, shear, random scale and aspect ratio, when any is
//      asked for (inverse-mapped bilinear/nearest, `fill_value` outside)
//   3. pad: `pad` pixels of fill_value on every side
//   4. crop to data_shape's (H, W):
//        random_resized_crop (Inception's: area and aspect drawn, 10 tries),
//        or a random square of [min_crop_size, max_crop_size] resized,
//        or (default) an image smaller than (H, W) is first enlarged keeping
//        its aspect ratio, then cropped: at random with rand_crop, else centred
//   5. colour: brightness, contrast, saturation (in a random order), HLS
//      jitter (random_h/s/l), then PCA lighting noise (AlexNet's
//      eigenvectors, pixel units)
// Mirroring and normalization happen when the image is written into the
// batch (record_iter.cc). Draws come from the `Rng` passed in, so a caller
// that seeds it per image gets the same augmentation whatever thread runs it.
//
// Deliberate differences from MXNet 1.9.1 (docs/data.md): contrast and
// saturation use the luma of the RGB pixels (MXNet's weights are applied to
// BGR data, swapping the red and blue weights); the draws are not MXNet's
// (std::mt19937 per thread there, so not reproducible with several threads).
#ifndef SYMX_TRAIN_IMAGE_AUGMENT_H_
#define SYMX_TRAIN_IMAGE_AUGMENT_H_

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "train/image/codec.h"

namespace symx::image {

using Rng = std::mt19937_64;

struct AugmentParams {
  int out_h = 0, out_w = 0;  // data_shape's H, W
  int resize = -1;
  bool rand_crop = false;
  bool random_resized_crop = false;
  int max_rotate_angle = 0;
  int rotate = -1;
  // rotate_list: each image's angle drawn uniformly from these (overrides
  // rotate and max_rotate_angle, as in MXNet).
  std::vector<int> rotate_list;
  float max_shear_ratio = 0;
  float max_aspect_ratio = 0;
  std::optional<float> min_aspect_ratio;
  float max_random_scale = 1, min_random_scale = 1;
  float max_random_area = 1, min_random_area = 1;
  int max_crop_size = -1, min_crop_size = -1;
  float max_img_size = 1e10f, min_img_size = 0;
  float brightness = 0, contrast = 0, saturation = 0, pca_noise = 0;
  int random_h = 0, random_s = 0, random_l = 0;  // HLS jitter bounds (OpenCV's 8-bit units)
  int fill_value = 255;
  int inter_method = 1;
  int pad = 0;
};

// Checks the combination once (MXNet's own checks, as errors): inter_method
// in {0..4, 9, 10}, random_resized_crop against scale/crop-size/rand_crop,
// area and aspect ranges, crop sizes.
absl::Status ValidateAugmentParams(const AugmentParams& p);

// Runs steps 1-5 on `image` (1, 3 or 4 channels; colour steps need 3).
// Errors name the step ("input image of 20x30 is smaller than max_crop_size 64").
absl::StatusOr<Image> Augment(Image image, const AugmentParams& p, Rng& rng);

}  // namespace symx::image

#endif  // SYMX_TRAIN_IMAGE_AUGMENT_H_
