// RecordIO files, byte-compatible with MXNet's (dmlc-core's) .rec format.
//
// A file is a sequence of parts, each aligned to 4 bytes:
//   uint32 magic (0xced7230a, little-endian)
//   uint32 lrec  = cflag << 29 | length   (length < 2^29)
//   `length` payload bytes, then zero padding to a multiple of 4.
// A record is one part with cflag 0, or a chain 1, 2..., 3 when its payload
// holds the magic word at a 4-aligned position: the writer cuts the payload
// there and drops those four bytes, the reader puts them back. Because of that
// cut, the magic never appears 4-aligned inside a payload, so a reader that
// starts at any 4-aligned byte can find the next record by scanning (what
// sharding by byte range relies on, see record_shard.h).
//
// Errors name the file and the byte offset of the part at fault; the reader
// never reads past the end of the file or allocates more than the file holds.
#ifndef SYMX_TRAIN_RECORDIO_RECORD_FILE_H_
#define SYMX_TRAIN_RECORDIO_RECORD_FILE_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace symx::recordio {

inline constexpr uint32_t kMagic = 0xced7230aU;
inline constexpr uint32_t kMaxPartLength = (1U << 29) - 1;

// Appends one record's framed bytes (every part, padding included) to `out`.
// Fails when the record is 2^29 bytes or more, as MXNet does.
absl::Status FrameRecord(absl::string_view payload, std::string* out);

// Parses the record that starts at `offset` of `bytes` (a whole file or a
// window of one). On success fills `payload` and returns the offset just past
// the record. `name` and `base` (the window's offset in the file) only make
// the messages exact.
absl::StatusOr<uint64_t> ParseRecord(absl::string_view bytes, uint64_t offset, std::string* payload,
                                     absl::string_view name = "<memory>", uint64_t base = 0);

// Writes records to PATH. The bytes go to PATH.partial and are renamed to
// PATH by Close(), so a writer that dies or is destroyed without Close()
// leaves no half-written .rec behind (the .partial file is removed).
class RecordWriter {
 public:
  static absl::StatusOr<std::unique_ptr<RecordWriter>> Create(const std::string& path);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  // Appends one record; returns the byte offset where it starts (what an .idx
  // file stores for it).
  absl::StatusOr<uint64_t> Write(absl::string_view payload);
  // Byte offset the next record will start at.
  uint64_t Tell() const { return offset_; }
  // Flushes, closes and renames into place. Idempotent.
  absl::Status Close();
  const std::string& path() const { return path_; }

 private:
  RecordWriter(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}
  std::string path_;
  std::FILE* file_;
  uint64_t offset_ = 0;
  std::string frame_;  // reused framing buffer
};

// Reads records from PATH, in order, or from any record start after Seek().
class RecordReader {
 public:
  static absl::StatusOr<std::unique_ptr<RecordReader>> Open(const std::string& path);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // Reads the next record into `payload`. Returns false at the end of the
  // file (or of the range set by SetEnd), an error naming the file and byte
  // offset when the bytes there are not a well-formed record.
  // A null `payload` checks the record's framing and skips its bytes (a scan
  // that reads 8 bytes per part).
  absl::StatusOr<bool> Next(std::string* payload);
  // Moves to byte `offset`, which must be a record's start (an .idx entry).
  absl::Status Seek(uint64_t offset);
  // Stops Next() at byte `end` (a record boundary), for reading one shard.
  void SetEnd(uint64_t end) { end_ = end < size_ ? end : size_; }
  // Byte offset of the next record.
  uint64_t Tell() const { return offset_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // The offset of the first record that starts at or after `offset`
  // (rounded up to 4), or size() when none does: the scan by which a shard
  // that begins mid-record finds its first whole record.
  absl::StatusOr<uint64_t> NextRecordStart(uint64_t offset);

 private:
  RecordReader(std::string path, std::FILE* file, uint64_t size)
      : path_(std::move(path)), file_(file), size_(size), end_(size) {}
  absl::Status ReadAt(uint64_t offset, void* dst, size_t n);

  std::string path_;
  std::FILE* file_;
  uint64_t size_;
  uint64_t end_;
  uint64_t offset_ = 0;
  uint64_t file_pos_ = 0;  // where the FILE's position is, to skip redundant seeks
};

}  // namespace symx::recordio

#endif  // SYMX_TRAIN_RECORDIO_RECORD_FILE_H_
