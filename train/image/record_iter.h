// ImageRecordIter: batches of augmented images from a RecordIO file, with
// MXNet 1.9.1's parameters (docs/data.md lists them and the differences).
//
// The shard: with an .idx, records [r * ceil(N/parts), (r+1) * ceil(N/parts))
// in file order; without, the records whose headers start in byte range r of
// `parts` equal 4-aligned ranges. Both are MXNet's splits, so a job reads
// the same records on each rank as MXNet would.
//
// An epoch visits the shard in file order, or shuffled (shuffle=true) by a
// permutation drawn from (seed, epoch): shuffling is global over the shard,
// with or without an .idx. The last batch, when short, wraps to the start of
// the epoch's order (round_batch=true) or is zero-filled; either way `pad`
// says how many trailing rows are not new. Each epoch starts afresh (MXNet
// instead continues the next epoch after the wrapped records).
//
// Work: `preprocess_threads` threads each build whole batches (read, decode,
// augment, normalize), at most max(prefetch_buffer, threads) batches ahead of
// the consumer. Augmentation draws come from a generator seeded by (seed,
// epoch, record) — or (seed_aug, record) when seed_aug is set, the same
// augmentation every epoch — so the output is the same whatever the number
// of threads and however they are scheduled.
#ifndef SYMX_TRAIN_IMAGE_RECORD_ITER_H_
#define SYMX_TRAIN_IMAGE_RECORD_ITER_H_

#include <array>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/tensor.h"
#include "graph/dtype.h"
#include "train/image/augment.h"
#include "train/image/det_augment.h"
#include "train/recordio/image_record.h"
#include "train/recordio/record_set.h"

namespace symx::image {

struct ImageRecordIterConfig {
  std::string path_imgrec, path_imgidx, path_imglist;
  int channels = 3, height = 0, width = 0;  // data_shape (C, H, W); C is 1, 3 or 4
  int batch_size = 0;
  int label_width = 1;
  bool shuffle = false;
  uint64_t seed = 0;
  std::optional<uint64_t> seed_aug;
  int part_index = 0, num_parts = 1;
  bool round_batch = true;
  int preprocess_threads = 4;
  int prefetch_buffer = 4;
  bool mirror = false, rand_mirror = false;
  std::array<float, 4> mean = {0, 0, 0, 0};  // mean_r, mean_g, mean_b, mean_a
  std::array<float, 4> std = {1, 1, 1, 1};
  float scale = 1;
  float max_random_contrast = 0, max_random_illumination = 0;
  std::string mean_img;  // an mx.nd.save file of one (C, H, W) array; computed when missing
  DType dtype = DType::kFloat32;  // float32 (normalized), uint8 (raw), int8 (minus mean)
  AugmentParams aug;              // out_h/out_w are set from data_shape
  // ImageDetRecordIter: the detection augmenter instead of `aug`, boxes as
  // labels (label_width <= 0: any width), each image's label row
  // [C, H, W, L, the L label values, label_pad_value...] of width
  // label_pad_width + 4 (label_pad_width <= 0: the longest label of the shard).
  // Normalization is (p - mean) / std * scale with std 0 meaning 1 (MXNet's
  // detection defaults); an image smaller than data_shape after a shrink or
  // fit resize sits top-left in zeros.
  std::optional<DetAugmentParams> det;
  // An empty shard is an epoch of no batches instead of an error (a
  // validation set split over more ranks than it has records).
  bool allow_empty_shard = false;
  int label_pad_width = 0;
  float label_pad_value = -1;
};

struct ImageBatch {
  Tensor data;                  // (batch, C, H, W), RGB[A]
  Tensor label;                 // (batch,) or (batch, label_width), float32
  int pad = 0;                  // trailing rows that repeat earlier records or are zeros
  std::vector<uint64_t> index;  // each row's record id (the header's id)
};

class ImageRecordIter {
 public:
  // Opens the files and checks the configuration; errors name the parameter
  // or file at fault. Starts the worker threads.
  static absl::StatusOr<std::unique_ptr<ImageRecordIter>> Create(ImageRecordIterConfig config);
  ~ImageRecordIter();
  ImageRecordIter(const ImageRecordIter&) = delete;
  ImageRecordIter& operator=(const ImageRecordIter&) = delete;

  // The next batch of this epoch; false at its end. An error (a record that
  // does not decode, a label that does not fit) names the file, the record's
  // byte offset and id; the iterator stays usable after Reset().
  absl::StatusOr<bool> Next(ImageBatch* batch);
  // Starts the next epoch (a new order when shuffling).
  void Reset();

  int64_t num_records() const { return static_cast<int64_t>(offsets_.size()); }
  int64_t batches_per_epoch() const;
  Shape data_shape() const;
  Shape label_shape() const;
  int label_pad_width() const { return config_.label_pad_width; }
  // Seconds Next() has spent waiting for a batch that was not ready yet.
  double wait_seconds() const;

 private:
  explicit ImageRecordIter(ImageRecordIterConfig config) : config_(std::move(config)) {}
  absl::Status Open();
  void StartEpochLocked();
  void WorkerLoop(int worker);
  absl::StatusOr<ImageBatch> BuildBatch(int64_t batch, const std::vector<int64_t>& order,
                                        int64_t epoch, class WorkerState& state) const;
  // A data tensor for a batch: one of the pool's that nobody else holds, or a new one.
  absl::StatusOr<Tensor> FreeBuffer(const Shape& shape, DType dtype) const;
  absl::Status ProcessRecord(int64_t record, int64_t epoch, const std::string& payload,
                             ImageBatch* out, int row) const;
  // The labels of a record: the image list's when there is one.
  absl::StatusOr<const std::vector<float>*> LabelsOf(const recordio::ImageRecord& rec) const;
  // The record's image decoded with data_shape's channels (errors name its id).
  absl::StatusOr<Image> DecodeRecord(const recordio::ImageRecord& rec) const;
  // The draws of one record: from (seed, epoch, record), or (seed_aug, record).
  Rng RngFor(int64_t record, int64_t epoch) const;
  absl::Status ProcessDetRecord(int64_t record, int64_t epoch, const std::string& payload,
                                ImageBatch* out, int row) const;
  // mean_img names a file that does not exist: computes the mean image over
  // the whole file and saves it there (MXNet's behaviour).
  absl::Status CreateMeanImage() const;
  // Detection: the longest label of the shard (a pass over its records).
  absl::StatusOr<int> LongestLabel();

  ImageRecordIterConfig config_;
  recordio::RecordSet records_;    // path_imgrec's files
  std::vector<uint64_t> offsets_;  // the shard's records, in file order (offsets in records_)
  std::unordered_map<uint64_t, std::vector<float>> list_labels_;  // path_imglist, by id
  Tensor mean_image_;  // (C, H, W) float32 when mean_img is given
  mutable std::mutex pool_mu_;
  mutable std::vector<Tensor> pool_;  // batch data buffers, reused once released

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  int64_t epoch_ = -1;
  int64_t generation_ = 0;
  std::shared_ptr<const std::vector<int64_t>> order_;
  int64_t next_claim_ = 0, next_deliver_ = 0;
  std::map<int64_t, absl::StatusOr<ImageBatch>> ready_;
  double wait_seconds_ = 0;
  std::vector<std::thread> workers_;
};

}  // namespace symx::image

#endif  // SYMX_TRAIN_IMAGE_RECORD_ITER_H_
