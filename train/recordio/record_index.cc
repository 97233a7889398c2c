#include "train/recordio/record_index.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

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
  std::string partial = path + ".partial";
  std::FILE* f = std::fopen(partial.c_str(), "w");
  if (f == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot create ", partial, ": ", std::strerror(errno)));
  }
  bool ok = true;
  for (const IndexEntry& e : entries) {
    ok = ok && std::fprintf(f, "%s\t%llu\n", e.key.c_str(),
                            static_cast<unsigned long long>(e.offset)) > 0;
  }
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(partial.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(partial.c_str());
    return absl::DataLossError(absl::StrCat("cannot write ", path, ": ", why));
  }
  return absl::OkStatus();
}

}  // namespace symx::recordio
