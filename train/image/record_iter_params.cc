#include "train/image/record_iter_params.h"

#include <functional>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "graph/error.h"

namespace symx::image {
namespace {

using Setter = std::function<absl::Status(ImageRecordIterConfig*, absl::string_view)>;

absl::Status BadValue(absl::string_view name, absl::string_view value, absl::string_view want) {
  return absl::InvalidArgumentError(
      absl::StrCat("ImageRecordIter: parameter ", name, "=\"", value, "\": expected ", want));
}

template <typename T>
Setter Int(T ImageRecordIterConfig::*field) {
  return [field](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
    int64_t x;
    if (!absl::SimpleAtoi(v, &x)) return absl::InvalidArgumentError("an integer");
    c->*field = static_cast<T>(x);
    return absl::OkStatus();
  };
}

template <typename T>
Setter AugInt(T AugmentParams::*field) {
  return [field](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
    int64_t x;
    if (!absl::SimpleAtoi(v, &x)) return absl::InvalidArgumentError("an integer");
    c->aug.*field = static_cast<T>(x);
    return absl::OkStatus();
  };
}

// rotate_list: "0,90,180" (MXNet's form); "[0, 90, 180]" or "(0, 90, 180)"
// too, which MXNet would misread as starting with 0.
absl::Status SetRotateList(ImageRecordIterConfig* c, absl::string_view v) {
  absl::string_view s = v;
  absl::ConsumePrefix(&s, "(") || absl::ConsumePrefix(&s, "[");
  absl::ConsumeSuffix(&s, ")") || absl::ConsumeSuffix(&s, "]");
  std::vector<int> angles;
  for (absl::string_view part : absl::StrSplit(s, ',', absl::SkipWhitespace())) {
    int x;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &x)) {
      return absl::InvalidArgumentError("a comma-separated list of integer angles");
    }
    angles.push_back(x);
  }
  if (angles.empty()) return absl::InvalidArgumentError("a comma-separated list of integer angles");
  c->aug.rotate_list = std::move(angles);
  return absl::OkStatus();
}

absl::StatusOr<float> ParseFloat(absl::string_view v) {
  float x;
  if (!absl::SimpleAtof(v, &x)) return absl::InvalidArgumentError("a number");
  return x;
}

Setter Float(float ImageRecordIterConfig::*field) {
  return [field](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
    auto x_or = ParseFloat(v);
    if (!x_or.ok()) return x_or.status();
    float x = *x_or;
    c->*field = x;
    return absl::OkStatus();
  };
}

absl::StatusOr<bool> ParseBool(absl::string_view v) {
  std::string s = absl::AsciiStrToLower(v);
  if (s == "true" || s == "1") return true;
  if (s == "false" || s == "0") return false;
  return absl::InvalidArgumentError("True or False");
}

Setter Bool(bool ImageRecordIterConfig::*field) {
  return [field](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
    auto x_or = ParseBool(v);
    if (!x_or.ok()) return x_or.status();
    bool x = *x_or;
    c->*field = x;
    return absl::OkStatus();
  };
}

Setter Text(std::string ImageRecordIterConfig::*field) {
  return [field](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
    c->*field = std::string(v);
    return absl::OkStatus();
  };
}

Setter Channel(std::array<float, 4> ImageRecordIterConfig::*field, int k) {
  return [field, k](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
    auto x_or = ParseFloat(v);
    if (!x_or.ok()) return x_or.status();
    float x = *x_or;
    (c->*field)[k] = x;
    return absl::OkStatus();
  };
}

Setter AugFloat(float AugmentParams::*field) {
  return [field](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
    auto x_or = ParseFloat(v);
    if (!x_or.ok()) return x_or.status();
    float x = *x_or;
    c->aug.*field = x;
    return absl::OkStatus();
  };
}

Setter Ignored() {
  return [](ImageRecordIterConfig*, absl::string_view) { return absl::OkStatus(); };
}

const std::map<std::string, Setter>& Setters() {
  static const auto* setters = new std::map<std::string, Setter>{
      {"path_imgrec", Text(&ImageRecordIterConfig::path_imgrec)},
      {"path_imgidx", Text(&ImageRecordIterConfig::path_imgidx)},
      {"path_imglist", Text(&ImageRecordIterConfig::path_imglist)},
      {"mean_img", Text(&ImageRecordIterConfig::mean_img)},
      {"data_shape",
       [](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
         absl::string_view s = absl::StripAsciiWhitespace(v);
         absl::ConsumePrefix(&s, "(");
         absl::ConsumePrefix(&s, "[");
         absl::ConsumeSuffix(&s, ")");
         absl::ConsumeSuffix(&s, "]");
         std::vector<std::string> dims = absl::StrSplit(s, ',', absl::SkipWhitespace());
         int d[3];
         if (dims.size() != 3) return absl::InvalidArgumentError("(channels, height, width)");
         for (int k = 0; k < 3; ++k) {
           if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(dims[k]), &d[k])) {
             return absl::InvalidArgumentError("(channels, height, width)");
           }
         }
         c->channels = d[0];
         c->height = d[1];
         c->width = d[2];
         return absl::OkStatus();
       }},
      {"batch_size", Int(&ImageRecordIterConfig::batch_size)},
      {"label_width", Int(&ImageRecordIterConfig::label_width)},
      {"shuffle", Bool(&ImageRecordIterConfig::shuffle)},
      {"seed", Int(&ImageRecordIterConfig::seed)},
      {"seed_aug",
       [](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
         if (v == "None" || v.empty()) {
           c->seed_aug.reset();
           return absl::OkStatus();
         }
         int64_t x;
         if (!absl::SimpleAtoi(v, &x)) return absl::InvalidArgumentError("an integer or None");
         c->seed_aug = static_cast<uint64_t>(x);
         return absl::OkStatus();
       }},
      {"part_index", Int(&ImageRecordIterConfig::part_index)},
      {"num_parts", Int(&ImageRecordIterConfig::num_parts)},
      {"round_batch", Bool(&ImageRecordIterConfig::round_batch)},
      {"preprocess_threads", Int(&ImageRecordIterConfig::preprocess_threads)},
      {"prefetch_buffer", Int(&ImageRecordIterConfig::prefetch_buffer)},
      {"mirror", Bool(&ImageRecordIterConfig::mirror)},
      {"rand_mirror", Bool(&ImageRecordIterConfig::rand_mirror)},
      {"mean_r", Channel(&ImageRecordIterConfig::mean, 0)},
      {"mean_g", Channel(&ImageRecordIterConfig::mean, 1)},
      {"mean_b", Channel(&ImageRecordIterConfig::mean, 2)},
      {"mean_a", Channel(&ImageRecordIterConfig::mean, 3)},
      {"std_r", Channel(&ImageRecordIterConfig::std, 0)},
      {"std_g", Channel(&ImageRecordIterConfig::std, 1)},
      {"std_b", Channel(&ImageRecordIterConfig::std, 2)},
      {"std_a", Channel(&ImageRecordIterConfig::std, 3)},
      {"scale", Float(&ImageRecordIterConfig::scale)},
      {"max_random_contrast", Float(&ImageRecordIterConfig::max_random_contrast)},
      {"max_random_illumination", Float(&ImageRecordIterConfig::max_random_illumination)},
      {"dtype",
       [](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
         if (v == "float32" || v == "None") {
           c->dtype = DType::kFloat32;
         } else if (v == "uint8") {
           c->dtype = DType::kUint8;
         } else if (v == "int8") {
           c->dtype = DType::kInt8;
         } else {
           return absl::InvalidArgumentError("float32, uint8 or int8");
         }
         return absl::OkStatus();
       }},
      {"resize", AugInt(&AugmentParams::resize)},
      {"rand_crop",
       [](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
         auto x_or = ParseBool(v);
         if (!x_or.ok()) return x_or.status();
         bool x = *x_or;
         c->aug.rand_crop = x;
         return absl::OkStatus();
       }},
      {"random_resized_crop",
       [](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
         auto x_or = ParseBool(v);
         if (!x_or.ok()) return x_or.status();
         bool x = *x_or;
         c->aug.random_resized_crop = x;
         return absl::OkStatus();
       }},
      {"max_rotate_angle", AugInt(&AugmentParams::max_rotate_angle)},
      {"rotate", AugInt(&AugmentParams::rotate)},
      {"rotate_list", SetRotateList},
      {"max_shear_ratio", AugFloat(&AugmentParams::max_shear_ratio)},
      {"max_aspect_ratio", AugFloat(&AugmentParams::max_aspect_ratio)},
      {"min_aspect_ratio",
       [](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
         if (v == "None" || v.empty()) {
           c->aug.min_aspect_ratio.reset();
           return absl::OkStatus();
         }
         auto x_or = ParseFloat(v);
         if (!x_or.ok()) return x_or.status();
         float x = *x_or;
         c->aug.min_aspect_ratio = x;
         return absl::OkStatus();
       }},
      {"max_random_scale", AugFloat(&AugmentParams::max_random_scale)},
      {"min_random_scale", AugFloat(&AugmentParams::min_random_scale)},
      {"max_random_area", AugFloat(&AugmentParams::max_random_area)},
      {"min_random_area", AugFloat(&AugmentParams::min_random_area)},
      {"max_crop_size", AugInt(&AugmentParams::max_crop_size)},
      {"min_crop_size", AugInt(&AugmentParams::min_crop_size)},
      {"max_img_size", AugFloat(&AugmentParams::max_img_size)},
      {"min_img_size", AugFloat(&AugmentParams::min_img_size)},
      {"brightness", AugFloat(&AugmentParams::brightness)},
      {"contrast", AugFloat(&AugmentParams::contrast)},
      {"saturation", AugFloat(&AugmentParams::saturation)},
      {"pca_noise", AugFloat(&AugmentParams::pca_noise)},
      {"random_h", AugInt(&AugmentParams::random_h)},
      {"random_s", AugInt(&AugmentParams::random_s)},
      {"random_l", AugInt(&AugmentParams::random_l)},
      {"fill_value", AugInt(&AugmentParams::fill_value)},
      {"inter_method", AugInt(&AugmentParams::inter_method)},
      {"pad", AugInt(&AugmentParams::pad)},
      // Accepted, no effect here (placement, logging, MXNet's chunked
      // reading, which symx's whole-shard shuffle replaces).
      {"verbose", Ignored()},
      {"ctx", Ignored()},
      {"device_id", Ignored()},
      {"shuffle_chunk_size", Ignored()},
      {"shuffle_chunk_seed", Ignored()},
      {"data_name", Ignored()},
      {"label_name", Ignored()},
  };
  return *setters;
}

}  // namespace

absl::Status SetImageRecordIterParam(ImageRecordIterConfig* config, absl::string_view name,
                                     absl::string_view value) {
  if (name == "aug_seq") {
    if (value == "aug_default") return absl::OkStatus();
    return BadValue(name, value, "aug_default (the only augmenter sequence symx has)");
  }
  const auto& setters = Setters();
  auto it = setters.find(std::string(name));
  if (it == setters.end()) {
    std::vector<std::string> names;
    for (const auto& [known, setter] : setters) names.push_back(known);
    return absl::InvalidArgumentError(absl::StrCat("ImageRecordIter: unknown parameter '", name,
                                                   "'; known: ", absl::StrJoin(names, ", ")));
  }
  absl::Status s = it->second(config, absl::StripAsciiWhitespace(value));
  if (!s.ok()) return BadValue(name, value, s.message());
  return absl::OkStatus();
}

namespace {

absl::StatusOr<std::vector<float>> ParseFloats(absl::string_view v) {
  absl::string_view s = absl::StripAsciiWhitespace(v);
  absl::ConsumePrefix(&s, "(");
  absl::ConsumePrefix(&s, "[");
  absl::ConsumeSuffix(&s, ")");
  absl::ConsumeSuffix(&s, "]");
  std::vector<float> out;
  for (absl::string_view part : absl::StrSplit(s, ',', absl::SkipWhitespace())) {
    float x;
    if (!absl::SimpleAtof(absl::StripAsciiWhitespace(part), &x)) {
      return absl::InvalidArgumentError("a number or a tuple of numbers");
    }
    out.push_back(x);
  }
  if (out.empty()) return absl::InvalidArgumentError("a number or a tuple of numbers");
  return out;
}

using DetSetter = std::function<absl::Status(ImageRecordIterConfig*, absl::string_view)>;

DetSetter DetFloat(float DetAugmentParams::*field) {
  return [field](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
    float x;
    if (!absl::SimpleAtof(v, &x)) return absl::InvalidArgumentError("a number");
    c->det.value().*field = x;
    return absl::OkStatus();
  };
}

DetSetter DetInt(int DetAugmentParams::*field) {
  return [field](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
    int x;
    if (!absl::SimpleAtoi(v, &x)) return absl::InvalidArgumentError("an integer");
    c->det.value().*field = x;
    return absl::OkStatus();
  };
}

DetSetter DetFloats(std::vector<float> DetAugmentParams::*field) {
  return [field](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
    absl::StatusOr<std::vector<float>> x = ParseFloats(v);
    if (!x.ok()) return x.status();
    c->det.value().*field = *x;
    return absl::OkStatus();
  };
}

const std::map<std::string, DetSetter>& DetSetters() {
  using D = DetAugmentParams;
  static const auto* setters = new std::map<std::string, DetSetter>{
      {"resize", DetInt(&D::resize)},
      {"rand_crop_prob", DetFloat(&D::rand_crop_prob)},
      {"num_crop_sampler", DetInt(&D::num_crop_sampler)},
      {"min_crop_scales", DetFloats(&D::min_crop_scales)},
      {"max_crop_scales", DetFloats(&D::max_crop_scales)},
      {"min_crop_aspect_ratios", DetFloats(&D::min_crop_aspect_ratios)},
      {"max_crop_aspect_ratios", DetFloats(&D::max_crop_aspect_ratios)},
      {"min_crop_overlaps", DetFloats(&D::min_crop_overlaps)},
      {"max_crop_overlaps", DetFloats(&D::max_crop_overlaps)},
      {"min_crop_sample_coverages", DetFloats(&D::min_crop_sample_coverages)},
      {"max_crop_sample_coverages", DetFloats(&D::max_crop_sample_coverages)},
      {"min_crop_object_coverages", DetFloats(&D::min_crop_object_coverages)},
      {"max_crop_object_coverages", DetFloats(&D::max_crop_object_coverages)},
      {"max_crop_trials", DetFloats(&D::max_crop_trials)},
      {"crop_emit_mode",
       [](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
         if (v != "center" && v != "overlap")
           return absl::InvalidArgumentError("center or overlap");
         c->det->emit_by_overlap = v == "overlap";
         return absl::OkStatus();
       }},
      {"emit_overlap_thresh", DetFloat(&D::emit_overlap_thresh)},
      {"rand_pad_prob", DetFloat(&D::rand_pad_prob)},
      {"max_pad_scale", DetFloat(&D::max_pad_scale)},
      {"max_random_contrast", DetFloat(&D::max_random_contrast)},
      {"random_contrast_prob", DetFloat(&D::random_contrast_prob)},
      {"max_random_hue", DetFloat(&D::max_random_hue)},
      {"random_hue_prob", DetFloat(&D::random_hue_prob)},
      {"max_random_saturation", DetFloat(&D::max_random_saturation)},
      {"random_saturation_prob", DetFloat(&D::random_saturation_prob)},
      {"max_random_illumination", DetFloat(&D::max_random_illumination)},
      {"random_illumination_prob", DetFloat(&D::random_illumination_prob)},
      {"rand_mirror_prob", DetFloat(&D::rand_mirror_prob)},
      {"fill_value", DetInt(&D::fill_value)},
      {"inter_method", DetInt(&D::inter_method)},
      {"resize_mode",
       [](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
         if (v == "force") {
           c->det->resize_mode = D::ResizeMode::kForce;
         } else if (v == "shrink") {
           c->det->resize_mode = D::ResizeMode::kShrink;
         } else if (v == "fit") {
           c->det->resize_mode = D::ResizeMode::kFit;
         } else {
           return absl::InvalidArgumentError("force, shrink or fit");
         }
         return absl::OkStatus();
       }},
      {"label_pad_width",
       [](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
         if (!absl::SimpleAtoi(v, &c->label_pad_width)) {
           return absl::InvalidArgumentError("an integer");
         }
         return absl::OkStatus();
       }},
      {"label_pad_value",
       [](ImageRecordIterConfig* c, absl::string_view v) -> absl::Status {
         if (!absl::SimpleAtof(v, &c->label_pad_value)) {
           return absl::InvalidArgumentError("a number");
         }
         return absl::OkStatus();
       }},
  };
  return *setters;
}

// The classification iterator's parameters the detection one shares.
bool SharedWithDet(const std::string& name) {
  static const auto* names = new std::set<std::string>{"path_imgrec",
                                                       "path_imgidx",
                                                       "path_imglist",
                                                       "mean_img",
                                                       "data_shape",
                                                       "batch_size",
                                                       "label_width",
                                                       "shuffle",
                                                       "seed",
                                                       "seed_aug",
                                                       "part_index",
                                                       "num_parts",
                                                       "round_batch",
                                                       "preprocess_threads",
                                                       "prefetch_buffer",
                                                       "mean_r",
                                                       "mean_g",
                                                       "mean_b",
                                                       "mean_a",
                                                       "std_r",
                                                       "std_g",
                                                       "std_b",
                                                       "std_a",
                                                       "scale",
                                                       "dtype",
                                                       "verbose",
                                                       "ctx",
                                                       "device_id",
                                                       "shuffle_chunk_size",
                                                       "shuffle_chunk_seed",
                                                       "data_name",
                                                       "label_name"};
  return names->count(name) > 0;
}

}  // namespace

absl::StatusOr<ImageRecordIterConfig> ImageDetRecordIterConfigFrom(
    const std::vector<std::pair<std::string, std::string>>& params) {
  ImageRecordIterConfig config;
  config.det.emplace();
  config.label_width = -1;    // any width
  config.std = {0, 0, 0, 0};  // MXNet's detection default: no division
  for (const auto& [name, value] : params) {
    absl::string_view v = absl::StripAsciiWhitespace(value);
    if (name == "aug_seq") {
      if (v != "det_aug_default") {
        return BadValue(name, value, "det_aug_default (the detection augmenter)");
      }
      continue;
    }
    auto it = DetSetters().find(name);
    if (it != DetSetters().end()) {
      absl::Status s = it->second(&config, v);
      if (!s.ok()) return BadValue(name, value, s.message());
      continue;
    }
    if (!SharedWithDet(name)) {
      std::vector<std::string> names;
      for (const auto& [known, setter] : DetSetters()) names.push_back(known);
      return absl::InvalidArgumentError(absl::StrCat(
          "ImageDetRecordIter: unknown parameter '", name, "'; besides the shared ones (",
          "path_imgrec, data_shape, batch_size, mean_r, ...) it knows: ",
          absl::StrJoin(names, ", ")));
    }
    SYMX_RETURN_IF_ERROR(SetImageRecordIterParam(&config, name, value));
  }
  return config;
}

absl::StatusOr<ImageRecordIterConfig> ImageRecordIterConfigFrom(
    const std::vector<std::pair<std::string, std::string>>& params) {
  ImageRecordIterConfig config;
  for (const auto& [name, value] : params) {
    absl::Status s = SetImageRecordIterParam(&config, name, value);
    if (!s.ok()) return s;
  }
  return config;
}

}  // namespace symx::image
