#include "train/recordio/record_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "graph/error.h"

namespace symx::recordio {
namespace {

constexpr uint32_t kFlagShift = 29;

uint32_t LRec(uint32_t cflag, uint32_t length) { return (cflag << kFlagShift) | length; }

void AppendU32(uint32_t v, std::string* out) {
  // The format is little-endian; so are the machines symx builds for.
  char b[4];
  std::memcpy(b, &v, 4);
  out->append(b, 4);
}

uint32_t LoadU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

uint64_t Pad4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }

// Reads whole records part by part from any byte source. `read(offset, dst,
// n)` fills n bytes, which the caller has checked lie inside [0, size).
template <typename ReadFn>
absl::StatusOr<uint64_t> ParseParts(ReadFn&& read, uint64_t size, uint64_t offset,
                                    std::string* payload, absl::string_view name, uint64_t base) {
  if (payload != nullptr) payload->clear();
  auto corrupt = [&](uint64_t at, const std::string& what) {
    return absl::DataLossError(
        absl::StrCat(name, ": byte ", base + at, ": not a RecordIO record: ", what));
  };
  if (offset % 4 != 0) {
    return corrupt(offset, "records start at multiples of 4 bytes");
  }
  bool first = true;
  while (true) {
    if (offset + 8 > size) {
      return corrupt(offset, absl::StrCat("the file ends ", size - offset,
                                          " bytes into an 8-byte part header (truncated)"));
    }
    char header[8];
    SYMX_RETURN_IF_ERROR(read(offset, header, 8));
    uint32_t magic = LoadU32(header);
    if (magic != kMagic) {
      return corrupt(
          offset, absl::StrFormat("expected the magic word 0x%08x, found 0x%08x", kMagic, magic));
    }
    uint32_t lrec = LoadU32(header + 4);
    uint32_t cflag = lrec >> kFlagShift;
    uint32_t length = lrec & kMaxPartLength;
    if (first && cflag != 0 && cflag != 1) {
      return corrupt(offset, absl::StrCat("continuation flag ", cflag,
                                          " (a middle or last part) where a record starts"));
    }
    if (!first && cflag != 2 && cflag != 3) {
      return corrupt(offset, absl::StrCat("continuation flag ", cflag,
                                          " inside a record split in parts (expected 2 or 3)"));
    }
    if (cflag > 3) {
      return corrupt(offset, absl::StrCat("continuation flag ", cflag, " (0 to 3 exist)"));
    }
    uint64_t body = offset + 8;
    if (body + Pad4(length) > size) {
      return corrupt(offset, absl::StrCat("a part of ", length, " bytes (", Pad4(length),
                                          " with padding) but the file ends at byte ", base + size,
                                          " (truncated)"));
    }
    offset = body + Pad4(length);
    if (payload != nullptr) {
      size_t old = payload->size();
      payload->resize(old + length);
      if (length > 0) SYMX_RETURN_IF_ERROR(read(body, payload->data() + old, length));
    }
    if (cflag == 0 || cflag == 3) return offset;
    // The writer cut the payload at a magic word and dropped it: restore it.
    if (payload != nullptr) AppendU32(kMagic, payload);
    first = false;
  }
}

std::string ErrnoText() { return std::strerror(errno); }

}  // namespace

absl::Status FrameRecord(absl::string_view payload, std::string* out) {
  if (payload.size() > kMaxPartLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a RecordIO record holds at most 2^29 - 1 bytes; this one has ", payload.size()));
  }
  const uint32_t len = static_cast<uint32_t>(payload.size());
  const uint32_t aligned = len & ~3U;
  uint32_t start = 0;  // first byte of the part being built
  for (uint32_t i = 0; i < aligned; i += 4) {
    if (LoadU32(payload.data() + i) != kMagic) continue;
    AppendU32(kMagic, out);
    AppendU32(LRec(start == 0 ? 1 : 2, i - start), out);
    out->append(payload.data() + start, i - start);  // i - start is a multiple of 4
    start = i + 4;
  }
  AppendU32(kMagic, out);
  AppendU32(LRec(start == 0 ? 0 : 3, len - start), out);
  out->append(payload.data() + start, len - start);
  out->append(Pad4(len) - len, '\0');
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ParseRecord(absl::string_view bytes, uint64_t offset, std::string* payload,
                                     absl::string_view name, uint64_t base) {
  auto read = [&](uint64_t at, char* dst, size_t n) {
    std::memcpy(dst, bytes.data() + at, n);
    return absl::OkStatus();
  };
  return ParseParts(read, bytes.size(), offset, payload, name, base);
}

// ---- RecordWriter ----

absl::StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Create(const std::string& path) {
  std::string partial = path + ".partial";
  std::FILE* file = std::fopen(partial.c_str(), "wb");
  if (file == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("cannot create RecordIO file ", partial, ": ", ErrnoText()));
  }
  return std::unique_ptr<RecordWriter>(new RecordWriter(path, file));
}

RecordWriter::~RecordWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::remove((path_ + ".partial").c_str());
  }
}

absl::StatusOr<uint64_t> RecordWriter::Write(absl::string_view payload) {
  if (file_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(path_, ": the writer is closed"));
  }
  frame_.clear();
  SYMX_RETURN_IF_ERROR(FrameRecord(payload, &frame_));
  if (std::fwrite(frame_.data(), 1, frame_.size(), file_) != frame_.size()) {
    return absl::DataLossError(absl::StrCat("cannot write to ", path_, ".partial: ", ErrnoText()));
  }
  uint64_t at = offset_;
  offset_ += frame_.size();
  return at;
}

absl::Status RecordWriter::Close() {
  if (file_ == nullptr) return absl::OkStatus();
  std::FILE* file = std::exchange(file_, nullptr);
  std::string partial = path_ + ".partial";
  bool flushed = std::fflush(file) == 0;
  std::string why = flushed ? "" : ErrnoText();
  if (std::fclose(file) != 0 && flushed) {
    flushed = false;
    why = ErrnoText();
  }
  if (!flushed) {
    std::remove(partial.c_str());
    return absl::DataLossError(absl::StrCat("cannot write ", partial, ": ", why));
  }
  if (std::rename(partial.c_str(), path_.c_str()) != 0) {
    why = ErrnoText();
    std::remove(partial.c_str());
    return absl::DataLossError(absl::StrCat("cannot rename ", partial, " to ", path_, ": ", why));
  }
  return absl::OkStatus();
}

// ---- RecordReader ----

absl::StatusOr<std::unique_ptr<RecordReader>> RecordReader::Open(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("cannot open RecordIO file ", path, ": ", ErrnoText()));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot open RecordIO file ", path, ": it is a directory"));
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot open RecordIO file ", path, ": ", ErrnoText()));
  }
  return std::unique_ptr<RecordReader>(
      new RecordReader(path, file, static_cast<uint64_t>(st.st_size)));
}

RecordReader::~RecordReader() { std::fclose(file_); }

absl::Status RecordReader::ReadAt(uint64_t offset, void* dst, size_t n) {
  if (offset != file_pos_) {
    if (::fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0) {
      return absl::DataLossError(
          absl::StrCat(path_, ": cannot seek to byte ", offset, ": ", ErrnoText()));
    }
  }
  size_t got = std::fread(dst, 1, n, file_);
  file_pos_ = offset + got;
  if (got != n) {
    return absl::DataLossError(absl::StrCat(path_, ": byte ", offset + got,
                                            ": the file ended early (was it truncated while "
                                            "being read?)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> RecordReader::Next(std::string* payload) {
  if (offset_ >= end_) return false;
  auto read = [this](uint64_t at, char* dst, size_t n) { return ReadAt(at, dst, n); };
  SYMX_ASSIGN_OR_RETURN(uint64_t next, ParseParts(read, size_, offset_, payload, path_, 0));
  offset_ = next;
  return true;
}

absl::Status RecordReader::Seek(uint64_t offset) {
  if (offset > size_) {
    return absl::OutOfRangeError(
        absl::StrCat(path_, ": cannot seek to byte ", offset, ": the file has ", size_, " bytes"));
  }
  if (offset % 4 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": cannot seek to byte ", offset,
                                                   ": records start at multiples of 4 bytes"));
  }
  offset_ = offset;
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> RecordReader::NextRecordStart(uint64_t offset) {
  uint64_t at = Pad4(offset);
  constexpr uint64_t kBlock = 1 << 16;
  std::vector<char> buf(kBlock + 4);
  while (at + 8 <= size_) {
    // Each window overlaps the next by 4 bytes so a header across the seam
    // is seen whole.
    uint64_t n = std::min<uint64_t>(kBlock + 4, size_ - at);
    SYMX_RETURN_IF_ERROR(ReadAt(at, buf.data(), n));
    for (uint64_t i = 0; i + 8 <= n; i += 4) {
      if (LoadU32(buf.data() + i) != kMagic) continue;
      uint32_t cflag = LoadU32(buf.data() + i + 4) >> kFlagShift;
      if (cflag == 0 || cflag == 1) return at + i;
    }
    at += kBlock;
  }
  return size_;
}

}  // namespace symx::recordio
