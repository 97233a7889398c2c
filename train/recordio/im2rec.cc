#include "train/recordio/im2rec.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/error.h"
#include "graph/file_io.h"
#include "train/image/codec.h"
#include "train/image/transform.h"
#include "train/recordio/image_record.h"
#include "train/recordio/record_file.h"
#include "train/recordio/record_index.h"

namespace symx::recordio {
namespace fs = std::filesystem;

namespace {

bool Listed(const fs::path& file, const std::vector<std::string>& exts) {
  std::string ext = absl::AsciiStrToLower(file.extension().string());
  return std::find(exts.begin(), exts.end(), ext) != exts.end();
}

// Files of one directory that are images, sorted by name.
std::vector<fs::path> ImagesIn(const fs::path& dir, const std::vector<std::string>& exts) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec) && Listed(e.path(), exts)) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Depth-first, sorted, a directory before its subdirectories.
void Walk(const fs::path& dir, std::vector<fs::path>* dirs) {
  dirs->push_back(dir);
  std::vector<fs::path> subs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory(ec)) subs.push_back(e.path());
  }
  std::sort(subs.begin(), subs.end());
  for (const fs::path& s : subs) Walk(s, dirs);
}

absl::Status WriteList(const std::string& path, const std::vector<ListEntry>& entries) {
  return WriteFileBytes(path, [&](const ByteSink& sink) {
    for (const ListEntry& e : entries) {
      std::string line = absl::StrCat(e.index, "\t");
      for (float l : e.labels) absl::StrAppendFormat(&line, "%f\t", l);
      absl::StrAppend(&line, e.path, "\n");
      sink(line.data(), line.size());
    }
  });
}

}  // namespace

absl::StatusOr<ImageLists> MakeImageLists(const std::string& prefix, const std::string& root,
                                          const ListOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return absl::NotFoundError(absl::StrCat("im2rec: image root ", root, " is not a directory"));
  }
  if (options.train_ratio <= 0 || options.train_ratio > 1 || options.test_ratio < 0 ||
      options.train_ratio + options.test_ratio > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "im2rec: train ratio ", options.train_ratio, " and test ratio ", options.test_ratio,
        ": expected 0 < train <= 1, 0 <= test, train + test <= 1"));
  }
  ImageLists lists;
  std::vector<ListEntry> entries;
  std::vector<fs::path> dirs;
  // Paths in the list are relative to ROOT as written ("photos/" or
  // "photos"), lexically: symlinks inside it are not resolved away.
  fs::path base = fs::path(root).lexically_normal();
  if (!base.has_filename()) base = base.parent_path();
  if (options.recursive) {
    Walk(base, &dirs);
  } else {
    dirs.push_back(base);
  }
  for (const fs::path& dir : dirs) {
    std::vector<fs::path> images = ImagesIn(dir, options.exts);
    if (images.empty()) continue;
    const int label = options.recursive ? static_cast<int>(lists.classes.size()) : 0;
    lists.classes.push_back(dir.lexically_relative(base).string());
    for (const fs::path& image : images) {
      ListEntry e;
      e.index = static_cast<int64_t>(entries.size());
      e.labels = {static_cast<float>(label)};
      e.path = image.lexically_relative(base).string();
      entries.push_back(std::move(e));
    }
  }
  if (!options.recursive) lists.classes.resize(std::min<size_t>(1, lists.classes.size()));
  if (entries.empty()) {
    return absl::NotFoundError(absl::StrCat("im2rec: no images (", absl::StrJoin(options.exts, " "),
                                            ") under ", root,
                                            options.recursive ? ""
                                                              : " (add --recursive for "
                                                                "a class per subfolder)"));
  }
  lists.images = static_cast<int64_t>(entries.size());
  if (options.shuffle) {
    std::mt19937_64 rng(options.seed);
    std::shuffle(entries.begin(), entries.end(), rng);
  }
  if (options.train_ratio == 1.0) {
    SYMX_RETURN_IF_ERROR(WriteList(prefix + ".lst", entries));
    lists.files.push_back(prefix + ".lst");
    return lists;
  }
  const size_t n = entries.size();
  const size_t test = static_cast<size_t>(n * options.test_ratio);
  const size_t train = static_cast<size_t>(n * options.train_ratio);
  auto part = [&](size_t begin, size_t end) {
    return std::vector<ListEntry>(entries.begin() + begin, entries.begin() + std::min(end, n));
  };
  if (options.test_ratio > 0) {
    SYMX_RETURN_IF_ERROR(WriteList(prefix + "_test.lst", part(0, test)));
    lists.files.push_back(prefix + "_test.lst");
  }
  SYMX_RETURN_IF_ERROR(WriteList(prefix + "_train.lst", part(test, test + train)));
  lists.files.push_back(prefix + "_train.lst");
  if (options.train_ratio + options.test_ratio < 1.0) {
    SYMX_RETURN_IF_ERROR(WriteList(prefix + "_val.lst", part(test + train, n)));
    lists.files.push_back(prefix + "_val.lst");
  }
  return lists;
}

absl::StatusOr<std::vector<ListEntry>> ReadImageList(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("im2rec: cannot open list ", path));
  std::vector<ListEntry> entries;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    for (std::string& f : fields) absl::StripAsciiWhitespace(&f);
    ListEntry e;
    bool ok = fields.size() >= 3 && absl::SimpleAtoi(fields[0], &e.index);
    for (size_t k = 1; ok && k + 1 < fields.size(); ++k) {
      float v;
      ok = absl::SimpleAtof(fields[k], &v);
      e.labels.push_back(v);
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": line ", number, ": expected index<TAB>label...<TAB>path, found \"", line, "\""));
    }
    e.path = fields.back();
    entries.push_back(std::move(e));
  }
  return entries;
}

namespace {

// The encoded image of one list entry, as im2rec.py makes it.
absl::StatusOr<std::string> Encode(const std::string& path, const PackOptions& o) {
  SYMX_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
  if (o.pass_through) return bytes;
  SYMX_ASSIGN_OR_RETURN(image::Image img, image::Decode(bytes, o.color, /*to_rgb=*/true));
  if (o.center_crop && img.height != img.width) {
    const int side = std::min(img.height, img.width);
    const int margin = (std::max(img.height, img.width) - side) / 2;
    img = img.height > img.width ? image::Crop(img, margin, 0, side, side)
                                 : image::Crop(img, 0, margin, side, side);
  }
  if (o.resize > 0) {
    const auto [h, w] = image::ShorterEdgeTo(img.height, img.width, o.resize);
    SYMX_ASSIGN_OR_RETURN(img, image::Resize(img, h, w, /*interp=*/1));
  }
  if (o.encoding == ".png") return image::EncodePng(img, std::min(o.quality, 9), true);
  if (img.channels == 4) {  // JPEG has no alpha: drop it, as OpenCV's encoder does
    image::Image rgb;
    rgb.height = img.height;
    rgb.width = img.width;
    rgb.channels = 3;
    for (size_t i = 0; i < img.pixels.size(); i += 4) {
      rgb.pixels.insert(rgb.pixels.end(), img.pixels.begin() + i, img.pixels.begin() + i + 3);
    }
    img = std::move(rgb);
  }
  return image::EncodeJpeg(img, o.quality, true);
}

}  // namespace

absl::StatusOr<PackResult> PackImageList(const std::string& lst_path, const std::string& root,
                                         const std::string& out_prefix, const PackOptions& o) {
  if (o.encoding != ".jpg" && o.encoding != ".png") {
    return absl::InvalidArgumentError(
        absl::StrCat("im2rec: encoding '", o.encoding, "': expected .jpg or .png"));
  }
  if (o.color != 1 && o.color != 0 && o.color != -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("im2rec: color ", o.color, ": expected 1, 0 or -1"));
  }
  if (o.encoding == ".jpg" && (o.quality < 1 || o.quality > 100)) {
    return absl::InvalidArgumentError(
        absl::StrCat("im2rec: JPEG quality ", o.quality, ": expected 1 to 100"));
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<ListEntry> entries, ReadImageList(lst_path));
  PackResult result;
  result.rec = out_prefix + ".rec";
  result.idx = out_prefix + ".idx";
  // Encoding runs on `threads` threads over a window of the list at a time,
  // each window written in list order before the next is encoded, so memory
  // stays bounded whatever the dataset's size.
  const size_t n = entries.size();
  const size_t window = 64 * static_cast<size_t>(std::max(1, o.threads));
  SYMX_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> writer, RecordWriter::Create(result.rec));
  std::vector<IndexEntry> index;
  std::vector<absl::StatusOr<std::string>> encoded;
  for (size_t begin = 0; begin < n; begin += window) {
    const size_t end = std::min(n, begin + window);
    encoded.assign(end - begin, absl::UnknownError("not encoded"));
    std::atomic<size_t> next{begin};
    auto work = [&] {
      for (size_t i = next++; i < end; i = next++) {
        const ListEntry& e = entries[i];
        absl::StatusOr<std::string> img = Encode((fs::path(root) / e.path).string(), o);
        if (!img.ok()) {
          encoded[i - begin] = img.status();
          continue;
        }
        std::vector<float> labels = e.labels;
        if (!o.pack_label && labels.size() > 1) labels.resize(1);
        encoded[i - begin] = PackImageRecord(labels, static_cast<uint64_t>(e.index), 0, *img,
                                             o.pack_label && labels.size() > 1);
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::max(1, o.threads); ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    for (size_t i = begin; i < end; ++i) {
      const absl::StatusOr<std::string>& record = encoded[i - begin];
      if (!record.ok()) {
        result.skipped.push_back(absl::StrCat(entries[i].path, ": ", record.status().message()));
        continue;
      }
      SYMX_ASSIGN_OR_RETURN(uint64_t at, writer->Write(*record));
      index.push_back({std::to_string(entries[i].index), at});
      ++result.packed;
    }
  }
  if (result.packed == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "im2rec: none of the ", n, " images of ", lst_path, " could be packed",
        result.skipped.empty() ? "" : absl::StrCat(" (first: ", result.skipped[0], ")")));
  }
  SYMX_RETURN_IF_ERROR(writer->Close());
  SYMX_RETURN_IF_ERROR(WriteIndex(result.idx, index));
  return result;
}

}  // namespace symx::recordio
