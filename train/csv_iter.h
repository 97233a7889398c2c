// CSVIter: batches of rows of CSV files, MXNet's CSVIter with its parameters
// (data_csv, data_shape, label_csv, label_shape, batch_size, round_batch,
// dtype float32 | int32 | int64). Each line is one example of
// prod(data_shape) comma-separated numbers; label_csv, when given, holds one
// line of prod(label_shape) numbers per data line; without it every label
// is 0. Differences from MXNet (docs/data.md): a field that is not a number
// is an error naming the file, line and column (MXNet drops it and then
// reports the row's length); the last short batch's pad is right and its
// unfilled rows are zeros (round_batch=false) or wrap to the first rows
// (true); every epoch starts at the first line.
#ifndef SYMX_TRAIN_CSV_ITER_H_
#define SYMX_TRAIN_CSV_ITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/tensor.h"
#include "graph/dtype.h"
#include "graph/shape.h"

namespace symx::train {

struct CsvIterConfig {
  std::string data_csv, label_csv;  // label_csv "" or "NULL": zeros
  Shape data_shape, label_shape = Shape{1};
  int batch_size = 0;
  bool round_batch = true;
  DType dtype = DType::kFloat32;
};

struct CsvBatch {
  Tensor data;   // (batch, *data_shape)
  Tensor label;  // (batch,) when label_shape is (1,), else (batch, *label_shape)
  int pad = 0;
};

class CsvIter {
 public:
  // Reads the files whole; errors name the file and line at fault.
  static absl::StatusOr<std::unique_ptr<CsvIter>> Create(CsvIterConfig config);
  absl::StatusOr<bool> Next(CsvBatch* batch);
  void Reset() { next_ = 0; }
  int64_t num_rows() const { return rows_; }
  Shape data_shape() const;
  Shape label_shape() const;

  // Name=value parameters as the Python front passes them (MXNet's names;
  // unknown names are errors). Accepted and ignored: prefetch_buffer, ctx.
  static absl::StatusOr<CsvIterConfig> ConfigFrom(
      const std::vector<std::pair<std::string, std::string>>& params);

 private:
  explicit CsvIter(CsvIterConfig config) : config_(std::move(config)) {}
  CsvIterConfig config_;
  int64_t rows_ = 0;
  std::vector<char> data_, label_;  // rows_ rows of each, in dtype
  int64_t next_ = 0;                // next row
};

}  // namespace symx::train

#endif  // SYMX_TRAIN_CSV_ITER_H_
