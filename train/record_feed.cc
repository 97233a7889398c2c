#include "train/record_feed.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "graph/error.h"

namespace symx::train {

RecordFeed::RecordFeed(image::ImageRecordIterConfig config, const FeedShare& share, bool training)
    : first_row_(share.first_row), drop_short_(training && !config.round_batch) {
  if (config.label_width != 1) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "training a classifier takes one label per image; label_width is ", config.label_width)));
  }
  config.batch_size = static_cast<int>(share.rows);
  config.part_index = share.part;
  config.num_parts = share.parts;
  config.allow_empty_shard = !training;
  batch_rows_ = share.rows;
  iter_ = ValueOrThrow(image::ImageRecordIter::Create(std::move(config)));
}

int64_t RecordFeed::num_batches() const {
  if (drop_short_) return iter_->num_records() / std::max<int64_t>(1, batch_rows_);
  return iter_->batches_per_epoch();
}

void RecordFeed::Reset(int epoch) {
  handed_ = 0;
  // The iterator starts at epoch 0; each later epoch is one Reset on.
  while (epoch_ < epoch) {
    iter_->Reset();
    ++epoch_;
  }
}

bool RecordFeed::Next() {
  if (handed_ >= num_batches()) return false;
  ++handed_;
  return ValueOrThrow(iter_->Next(&batch_));
}

}  // namespace symx::train
