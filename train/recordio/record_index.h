// .idx files: one "KEY<TAB>OFFSET" line per record (mx.recordio's
// MXIndexedRecordIO and im2rec write them; OFFSET is the byte where the
// record starts in the .rec). Keys are kept as text: MXNet's Python reads
// them with a key_type (int by default) and its C++ reader as integers.
#ifndef SYMX_TRAIN_RECORDIO_RECORD_INDEX_H_
#define SYMX_TRAIN_RECORDIO_RECORD_INDEX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace symx::recordio {

struct IndexEntry {
  std::string key;
  uint64_t offset = 0;
};

// Reads PATH. Fields may be separated by tabs or spaces; blank lines are
// skipped. Errors name the file and line: a missing or non-numeric offset,
// an offset not a multiple of 4, or one past `rec_size` when given (> 0).
absl::StatusOr<std::vector<IndexEntry>> ReadIndex(const std::string& path, uint64_t rec_size = 0);

// Writes PATH whole, atomically (graph/file_io's WriteFileBytes).
absl::Status WriteIndex(const std::string& path, const std::vector<IndexEntry>& entries);

}  // namespace symx::recordio

#endif  // SYMX_TRAIN_RECORDIO_RECORD_INDEX_H_
