// A RecordIO data set as MXNet's `path_imgrec` names it: one .rec file, or
// several joined by ';', each entry a file, a folder (its non-empty files,
// by name) or a regular expression over the file names of a folder
// ("data/train-.*\.rec"; a name without pattern characters other than '.'
// that does not exist is a missing file). As in MXNet (dmlc's InputSplit), the files are
// read as one concatenation: a record is addressed by its byte offset in it,
// and the byte-range shards of num_parts cover the concatenation, so a shard
// can span files. Empty files are skipped, as MXNet does.
#ifndef SYMX_TRAIN_RECORDIO_RECORD_SET_H_
#define SYMX_TRAIN_RECORDIO_RECORD_SET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "train/recordio/record_file.h"

namespace symx::recordio {

struct RecordFileSpan {
  std::string path;
  uint64_t start = 0;  // offset of its first byte in the concatenation
  uint64_t size = 0;
};

class RecordSet {
 public:
  // Errors: an entry that names nothing (no file, folder or matching name),
  // a bad regular expression, a folder or pattern with no non-empty file,
  // a set with no bytes at all — each naming the entry.
  static absl::StatusOr<RecordSet> Open(const std::string& uri);

  const std::vector<RecordFileSpan>& files() const { return files_; }
  uint64_t size() const { return files_.empty() ? 0 : files_.back().start + files_.back().size; }
  // The file holding byte `offset` of the concatenation.
  size_t FileOf(uint64_t offset) const;
  // "PATH: record at byte N" with N the offset inside PATH, for errors.
  std::string Where(uint64_t offset) const;
  // The offsets of the records whose headers start in [begin, end), in
  // order; only the files that overlap the range are scanned.
  absl::StatusOr<std::vector<uint64_t>> RecordsIn(uint64_t begin, uint64_t end) const;

 private:
  std::vector<RecordFileSpan> files_;
};

// Reads records of a RecordSet at their offsets, keeping one open reader per
// file it has touched. One per thread.
class RecordSetReader {
 public:
  explicit RecordSetReader(const RecordSet* set) : set_(set) {}
  // The record at `offset` (one RecordsIn returned). False when there is none.
  absl::StatusOr<bool> ReadAt(uint64_t offset, std::string* payload);

 private:
  const RecordSet* set_;
  std::vector<std::unique_ptr<RecordReader>> readers_;
};

}  // namespace symx::recordio

#endif  // SYMX_TRAIN_RECORDIO_RECORD_SET_H_
