// RecordFeed: a BatchFeed over ImageRecordIter (train/image/record_iter.h),
// for `symx train MODEL --train-rec ...`. In a data-parallel job over ranks
// each process reads shard `part` of `parts` of the file with a batch of its
// own rows of the global batch; otherwise the whole file in global batches.
// The label must be one class id per image (label_width 1).
#ifndef SYMX_TRAIN_RECORD_FEED_H_
#define SYMX_TRAIN_RECORD_FEED_H_

#include <memory>

#include "train/batch_feed.h"
#include "train/image/record_iter.h"

namespace symx::train {

class RecordFeed : public BatchFeed {
 public:
  // `config`'s batch_size, part_index and num_parts are replaced by the
  // share's. Throws symx::Error (the iterator's errors). A training feed
  // never hands out a batch with zero rows in it (round_batch=false: the
  // short last batch is left out, as the in-memory examples' is); an
  // evaluation feed may have an empty shard (no batches).
  RecordFeed(image::ImageRecordIterConfig config, const FeedShare& share, bool training);
  void Reset(int epoch) override;
  bool Next() override;
  const Tensor& data() const override { return batch_.data; }
  const Tensor& label() const override { return batch_.label; }
  int64_t pad() const override { return batch_.pad; }
  int64_t num_batches() const override;
  int64_t first_row() const override { return first_row_; }
  double wait_seconds() const override { return iter_->wait_seconds(); }
  int64_t num_records() const { return iter_->num_records(); }

 private:
  std::unique_ptr<image::ImageRecordIter> iter_;
  image::ImageBatch batch_;
  int64_t first_row_ = 0;
  int epoch_ = 0;
  bool drop_short_ = false;  // training without round_batch
  int64_t handed_ = 0;       // batches handed out this epoch
  int64_t batch_rows_ = 0;
};

}  // namespace symx::train

#endif  // SYMX_TRAIN_RECORD_FEED_H_
