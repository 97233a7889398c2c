// BatchFeed: where the training loop (trainer.h) takes its batches from —
// an in-memory Dataset (DatasetFeed) or a RecordIO file through
// ImageRecordIter (record_feed.h).
//
// A feed's batch holds rows [first_row(), first_row() + rows) of the
// global batch: the whole batch (first_row 0) when every process reads
// everything, or one process's share when each rank of a data-parallel job
// reads its own shard of the data (FeedShare says which share).
#ifndef SYMX_TRAIN_BATCH_FEED_H_
#define SYMX_TRAIN_BATCH_FEED_H_

#include <cstdint>
#include <functional>
#include <memory>

#include "devices/tensor.h"
#include "train/data.h"

namespace symx::train {

class BatchFeed {
 public:
  virtual ~BatchFeed() = default;
  // Starts epoch `epoch` (0-based).
  virtual void Reset(int epoch) = 0;
  // Loads the next batch; false at the end of the epoch. Throws symx::Error
  // on bad data (a record that does not decode, a label that does not fit).
  virtual bool Next() = 0;
  virtual const Tensor& data() const = 0;   // [rows, *example]
  virtual const Tensor& label() const = 0;  // [rows]
  // Trailing rows of the batch that repeat earlier examples (not counted
  // in evaluation).
  virtual int64_t pad() const = 0;
  virtual int64_t num_batches() const = 0;
  virtual int64_t first_row() const { return 0; }
  // Seconds Next() spent waiting for data not ready yet (0 for memory).
  virtual double wait_seconds() const { return 0; }
};

// What a feed made for one process reads: global-batch rows [first_row,
// first_row + rows), and shard `part` of `parts` of the data.
struct FeedShare {
  int64_t first_row = 0;
  int64_t rows = 0;
  int part = 0;
  int parts = 1;
};
using FeedFactory = std::function<std::unique_ptr<BatchFeed>(const FeedShare&)>;

// A Dataset in batches of the global batch (every process reads all of it;
// the share is ignored): shuffled with the last partial batch dropped for
// training, in order with the last batch padded for evaluation.
class DatasetFeed : public BatchFeed {
 public:
  DatasetFeed(const Dataset& data, int64_t batch_size, bool training, uint64_t seed)
      : it_(data, batch_size, training, seed,
            training ? BatchIterator::LastBatch::kDiscard : BatchIterator::LastBatch::kPad) {}
  void Reset(int epoch) override { it_.Reset(epoch); }
  bool Next() override { return it_.Next(); }
  const Tensor& data() const override { return it_.data(); }
  const Tensor& label() const override { return it_.label(); }
  int64_t pad() const override { return it_.pad(); }
  int64_t num_batches() const override { return it_.num_batches(); }

 private:
  BatchIterator it_;
};

}  // namespace symx::train

#endif  // SYMX_TRAIN_BATCH_FEED_H_
