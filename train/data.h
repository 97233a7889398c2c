// Training data: MNIST-shaped image classification sets and a batch iterator.
//
// A Dataset holds `images` (float32 [N, 1, H, W], values in [0, 1]) and
// `labels` (float32 [N], class ids 0..9). Models that want [N, 784] get it from
// FullyConnected, which flattens its input.
//
// SyntheticDataset: a built-in 10-class task that needs no files. Each class
// is a fixed pattern of random strokes drawn on a 28x28 canvas; an example is
// its class pattern shifted by up to 2 pixels in each direction, with a random
// contrast, a few pixels of clutter and Gaussian noise, clipped to [0, 1]. The
// class patterns depend on the seed only; train and test examples are drawn
// from separate random streams, so the splits never share an example. An MLP
// or LeNet learns it to well over 95% test accuracy in one or two epochs.
//
// LoadMnist reads the four uncompressed idx files of the MNIST distribution
// from one directory: train-images-idx3-ubyte, train-labels-idx1-ubyte,
// t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte (the spellings with a '.'
// before "idx", e.g. train-images.idx3-ubyte, are accepted too). Gzipped
// files are not read: gunzip them first (the error says so when only the .gz
// exists). Errors name the file: missing, wrong magic (0x00000803 images,
// 0x00000801 labels), truncated data, trailing bytes, image and label counts
// that differ, labels above 9.
#ifndef SYMX_TRAIN_DATA_H_
#define SYMX_TRAIN_DATA_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/tensor.h"

namespace symx::train {

inline constexpr int kNumClasses = 10;

struct Dataset {
  Tensor images;  // float32 [N, 1, H, W]
  Tensor labels;  // float32 [N]
  int64_t size() const { return labels.defined() ? labels.shape()[0] : 0; }
  // Shape of one example: [1, H, W].
  Shape example_shape() const;
};

struct DataSplits {
  Dataset train, test;
  std::string description;  // "synthetic (seed 7)" or the directory
};

DataSplits SyntheticDataset(int64_t num_train, int64_t num_test, uint64_t seed);

absl::StatusOr<DataSplits> LoadMnist(const std::string& dir);

// Reads one idx file pair (images, labels); exposed for tests.
absl::StatusOr<Dataset> LoadIdxPair(const std::string& images_path, const std::string& labels_path);

// Iterates over a Dataset in batches of `batch_size`, in a fresh order each
// epoch when shuffling (the order of epoch e depends on seed and e only).
//   kDiscard: the last partial batch is dropped (training; every example is
//             still seen over epochs because the order changes).
//   kPad:     the last batch is filled up with examples from the start of the
//             epoch's order; pad() says how many rows of it are padding
//             (evaluation, so that every example is counted once).
class BatchIterator {
 public:
  enum class LastBatch { kDiscard, kPad };
  BatchIterator(const Dataset& data, int64_t batch_size, bool shuffle, uint64_t seed,
                LastBatch last_batch);

  // Starts epoch `epoch` (0-based).
  void Reset(int epoch);
  // Fills data() and label() with the next batch; false at the end of the epoch.
  bool Next();
  const Tensor& data() const { return data_; }    // float32 [B, 1, H, W]
  const Tensor& label() const { return label_; }  // float32 [B]
  int64_t pad() const { return pad_; }
  int64_t batch_size() const { return batch_size_; }
  int64_t num_batches() const;

 private:
  const Dataset& dataset_;
  int64_t batch_size_;
  bool shuffle_;
  uint64_t seed_;
  LastBatch last_batch_;
  std::vector<int64_t> order_;
  int64_t cursor_ = 0;
  int64_t pad_ = 0;
  Tensor data_, label_;
};

}  // namespace symx::train

#endif  // SYMX_TRAIN_DATA_H_
