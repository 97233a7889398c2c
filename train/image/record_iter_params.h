// ImageRecordIter's parameters by MXNet's names, from text values, as the
// Python front (mx.io.ImageRecordIter(**kwargs), each value str()-ed) and
// the symx tool's flags pass them. Unlike MXNet, which ignores names it does
// not know, an unknown or misspelled name is an error that lists the known
// ones, and a value that does not parse names the parameter.
#ifndef SYMX_TRAIN_IMAGE_RECORD_ITER_PARAMS_H_
#define SYMX_TRAIN_IMAGE_RECORD_ITER_PARAMS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "train/image/record_iter.h"

namespace symx::image {

// Sets one parameter. Booleans take True/False/true/false/1/0; data_shape
// "(3, 224, 224)" or "3,224,224"; dtype float32/uint8/int8; seed_aug "None"
// for unset. Names MXNet accepts that change nothing here (verbose, ctx,
// device_id, aug_seq="aug_default", shuffle_chunk_*, data_name, label_name)
// are accepted and ignored.
absl::Status SetImageRecordIterParam(ImageRecordIterConfig* config, absl::string_view name,
                                     absl::string_view value);

absl::StatusOr<ImageRecordIterConfig> ImageRecordIterConfigFrom(
    const std::vector<std::pair<std::string, std::string>>& params);

// ImageDetRecordIter's: the shared names (paths, data_shape, batch_size,
// shuffle, shards, mean/std/scale, ...) and the detection augmenter's
// (rand_crop_prob, the crop samplers' tuples "(0.1, 0.3)", rand_pad_prob,
// max_pad_scale, rand_mirror_prob, resize_mode, label_pad_width, ...);
// label_width defaults to -1 (any) and std_* to 0 (no division).
absl::StatusOr<ImageRecordIterConfig> ImageDetRecordIterConfigFrom(
    const std::vector<std::pair<std::string, std::string>>& params);

}  // namespace symx::image

#endif  // SYMX_TRAIN_IMAGE_RECORD_ITER_PARAMS_H_
