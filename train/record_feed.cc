#include "train/record_feed.h"

#include "absl/strings/str_cat.h"
#include "graph/error.h"

namespace symx::train {

RecordFeed::RecordFeed(image::ImageRecordIterConfig config, const FeedShare& share)
    : first_row_(share.first_row) {
  if (config.label_width != 1) {
    throw Error(absl::InvalidArgumentError(absl::StrCat(
        "training a classifier takes one label per image; label_width is ", config.label_width)));
  }
  config.batch_size = static_cast<int>(share.rows);
  config.part_index = share.part;
  config.num_parts = share.parts;
  iter_ = ValueOrThrow(image::ImageRecordIter::Create(std::move(config)));
}

void RecordFeed::Reset(int epoch) {
  // The iterator starts at epoch 0; each later epoch is one Reset on.
  while (epoch_ < epoch) {
    iter_->Reset();
    ++epoch_;
  }
}

bool RecordFeed::Next() { return ValueOrThrow(iter_->Next(&batch_)); }

}  // namespace symx::train
