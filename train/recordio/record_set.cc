#include "train/recordio/record_set.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "graph/error.h"
#include "train/name_filter.h"

namespace symx::recordio {
namespace {

namespace fs = std::filesystem;

// The regular, non-empty files of `folder`, by name (MXNet lists them in
// the order the file system gives; sorting makes the order the same on
// every machine).
absl::StatusOr<std::vector<std::string>> FilesIn(const fs::path& folder,
                                                 const train::NameFilter* filter) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->file_size(ec) == 0) continue;
    if (filter != nullptr && !filter->Matches(it->path().filename().string())) continue;
    out.push_back(it->path().string());
  }
  if (ec) {
    return absl::NotFoundError(absl::StrCat("cannot list ", folder.string(), ": ", ec.message()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

absl::StatusOr<std::vector<std::string>> Expand(const std::string& entry) {
  std::error_code ec;
  const fs::path path(entry);
  if (fs::is_directory(path, ec)) {
    SYMX_ASSIGN_OR_RETURN(std::vector<std::string> files, FilesIn(path, nullptr));
    if (files.empty()) return absl::NotFoundError(absl::StrCat("folder ", entry, " has no files"));
    return files;
  }
  if (fs::exists(path, ec)) {
    if (fs::file_size(path, ec) == 0 && !ec) return std::vector<std::string>{};
    return std::vector<std::string>{entry};
  }
  // Not a file or folder. A plain name is a missing file (the reader's own
  // error says so); a name with pattern characters ('.' aside, which file
  // names are full of) matches the names in its folder.
  const std::string name = path.filename().string();
  if (name.find_first_of("*?[](){}|+^$\\") == std::string::npos) {
    return RecordReader::Open(entry).status();
  }
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(folder, ec)) {
    return absl::NotFoundError(absl::StrCat(entry, ": no such file or folder"));
  }
  SYMX_ASSIGN_OR_RETURN(train::NameFilter filter,
                        train::NameFilter::Create(path.filename().string(), entry));
  SYMX_ASSIGN_OR_RETURN(std::vector<std::string> files, FilesIn(folder, &filter));
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat(entry, ": no such file, and no file in ",
                                            folder.string(), " matches '", path.filename().string(),
                                            "'"));
  }
  return files;
}

}  // namespace

absl::StatusOr<RecordSet> RecordSet::Open(const std::string& uri) {
  RecordSet set;
  uint64_t start = 0;
  for (absl::string_view entry : absl::StrSplit(uri, ';', absl::SkipWhitespace())) {
    SYMX_ASSIGN_OR_RETURN(std::vector<std::string> files,
                          Expand(std::string(absl::StripAsciiWhitespace(entry))));
    for (std::string& file : files) {
      SYMX_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader, RecordReader::Open(file));
      if (reader->size() == 0) continue;
      set.files_.push_back(RecordFileSpan{std::move(file), start, reader->size()});
      start += reader->size();
    }
  }
  if (set.files_.empty()) {
    return absl::NotFoundError(absl::StrCat("'", uri, "' names no non-empty RecordIO file"));
  }
  return set;
}

size_t RecordSet::FileOf(uint64_t offset) const {
  auto it = std::upper_bound(files_.begin(), files_.end(), offset,
                             [](uint64_t o, const RecordFileSpan& f) { return o < f.start; });
  return it == files_.begin() ? 0 : static_cast<size_t>(it - files_.begin() - 1);
}

std::string RecordSet::Where(uint64_t offset) const {
  const RecordFileSpan& f = files_[FileOf(offset)];
  return absl::StrCat(f.path, ": record at byte ", offset - f.start);
}

absl::StatusOr<std::vector<uint64_t>> RecordSet::RecordsIn(uint64_t begin, uint64_t end) const {
  std::vector<uint64_t> out;
  for (const RecordFileSpan& f : files_) {
    if (f.start + f.size <= begin || f.start >= end) continue;
    SYMX_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader, RecordReader::Open(f.path));
    // A scan from the file's start: the first record of a range that begins
    // mid-file is only known by walking the framing up to it.
    while (true) {
      const uint64_t at = f.start + reader->Tell();
      if (at >= end) break;
      SYMX_ASSIGN_OR_RETURN(bool more, reader->Next(nullptr));
      if (!more) break;
      if (at >= begin) out.push_back(at);
    }
  }
  return out;
}

absl::StatusOr<bool> RecordSetReader::ReadAt(uint64_t offset, std::string* payload) {
  const size_t file = set_->FileOf(offset);
  if (readers_.size() < set_->files().size()) readers_.resize(set_->files().size());
  const RecordFileSpan& span = set_->files()[file];
  if (readers_[file] == nullptr) {
    SYMX_ASSIGN_OR_RETURN(readers_[file], RecordReader::Open(span.path));
  }
  SYMX_RETURN_IF_ERROR(readers_[file]->Seek(offset - span.start));
  return readers_[file]->Next(payload);
}

}  // namespace symx::recordio
