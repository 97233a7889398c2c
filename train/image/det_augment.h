// The detection augmenter of MXNet's ImageDetRecordIter ("det_aug_default"):
// an image and its boxes move together. Labels are MXNet's raw detection
// vectors: [header_width A >= 2, object_width B >= 5, extra header...,
// then objects of B values: id, xmin, ymin, xmax, ymax, extra...], the
// coordinates relative to the image (0-1). Objects with xmax <= xmin or
// ymax <= ymin are dropped when read, as MXNet does.
//
// In MXNet's order: the shorter edge to `resize`; hue, saturation and
// illumination (HLS, each with its probability) and contrast; mirror (rand_mirror_prob; boxes x ->
// 1 - x); random pad (rand_pad_prob: a canvas up to max_pad_scale times larger, fill_value around,
// boxes projected); random crop (rand_crop_prob: SSD's samplers, each a scale and aspect-ratio
// range with IoU / sample-coverage / object-coverage constraints, tried max_crop_trials times;
// objects kept by centre or by overlap, crop_emit_mode); then to data_shape by resize_mode: force
// (stretch), shrink (only if larger, aspect kept), fit (aspect kept).
#ifndef SYMX_TRAIN_IMAGE_DET_AUGMENT_H_
#define SYMX_TRAIN_IMAGE_DET_AUGMENT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "train/image/augment.h"
#include "train/image/codec.h"

namespace symx::image {

struct DetAugmentParams {
  int out_h = 0, out_w = 0;  // data_shape's H, W
  int resize = -1;
  float rand_crop_prob = 0;
  int num_crop_sampler = 1;
  // One value per sampler (a single value is repeated for every sampler).
  std::vector<float> min_crop_scales = {0}, max_crop_scales = {1};
  std::vector<float> min_crop_aspect_ratios = {1}, max_crop_aspect_ratios = {1};
  std::vector<float> min_crop_overlaps = {0}, max_crop_overlaps = {1};
  std::vector<float> min_crop_sample_coverages = {0}, max_crop_sample_coverages = {1};
  std::vector<float> min_crop_object_coverages = {0}, max_crop_object_coverages = {1};
  std::vector<float> max_crop_trials = {25};
  bool emit_by_overlap = false;  // crop_emit_mode: center (false) or overlap
  float emit_overlap_thresh = 0.3f;
  float rand_pad_prob = 0, max_pad_scale = 1;
  float max_random_contrast = 0, random_contrast_prob = 0;
  float max_random_hue = 0, random_hue_prob = 0;
  float max_random_saturation = 0, random_saturation_prob = 0;
  float max_random_illumination = 0, random_illumination_prob = 0;
  float rand_mirror_prob = 0;
  int fill_value = 127;
  int inter_method = 1;
  enum class ResizeMode { kForce, kShrink, kFit } resize_mode = ResizeMode::kForce;
};

// Checks the parameters (MXNet's checks as errors) and repeats single
// sampler values to num_crop_sampler.
absl::Status ValidateDetAugmentParams(DetAugmentParams* p);

// Checks a raw detection label ("label of 6 values: at least 7 (a 2-value
// header and one 5-value object)", ...).
absl::Status CheckDetLabel(const std::vector<float>& raw);

// Augments `image` and `label` (raw layout in and out).
absl::StatusOr<Image> DetAugment(Image image, std::vector<float>* label, const DetAugmentParams& p,
                                 Rng& rng);

}  // namespace symx::image

#endif  // SYMX_TRAIN_IMAGE_DET_AUGMENT_H_
