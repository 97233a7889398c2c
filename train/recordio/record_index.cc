#include "train/recordio/record_index.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/file_io.h"

namespace symx::recordio {

absl::StatusOr<std::vector<IndexEntry>> ReadIndex(const std::string& path, uint64_t rec_size) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot open RecordIO index ", path, ": ", std::strerror(errno)));
  }
  std::vector<IndexEntry> entries;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty()) continue;
    std::vector<absl::string_view> fields =
        absl::StrSplit(text, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    auto bad = [&](const std::string& what) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": line ", number, ": ", what, " (\"", text, "\")"));
    };
    if (fields.size() != 2) {
      return bad(absl::StrCat("expected KEY<TAB>OFFSET, found ", fields.size(), " fields"));
    }
    IndexEntry e;
    e.key = std::string(fields[0]);
    if (!absl::SimpleAtoi(fields[1], &e.offset)) {
      return bad("the offset is not a non-negative integer");
    }
    if (e.offset % 4 != 0) return bad("offsets of RecordIO records are multiples of 4");
    if (rec_size > 0 && e.offset >= rec_size) {
      return bad(absl::StrCat("offset ", e.offset, " is past the end of the .rec file (", rec_size,
                              " bytes)"));
    }
    entries.push_back(std::move(e));
  }
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat("cannot read RecordIO index ", path));
  }
  return entries;
}

absl::Status WriteIndex(const std::string& path, const std::vector<IndexEntry>& entries) {
  return WriteFileBytes(path, [&](const ByteSink& sink) {
    for (const IndexEntry& e : entries) {
      const std::string line = absl::StrCat(e.key, "\t", e.offset, "\n");
      sink(line.data(), line.size());
    }
  });
}

}  // namespace symx::recordio
