// im2rec: MXNet's tools/im2rec.py as a library (the `symx im2rec` command).
//
// Listing (MakeImageLists): image files under ROOT whose lower-cased suffix
// is in `exts`; with `recursive`, every directory holding images is a class
// (ids 0, 1, ... in sorted depth-first order, ROOT itself first when it
// holds images), otherwise ROOT's files only, all label 0. The list is
// shuffled (unless !shuffle) and split: train_ratio 1 writes PREFIX.lst;
// otherwise PREFIX_test.lst (the first test_ratio share), PREFIX_train.lst
// (the next train_ratio share) and PREFIX_val.lst (the rest). Lines are
// "index<TAB>label...<TAB>relative/path" as im2rec.py writes them. The
// shuffle is seeded but not Python's, so the order differs from
// im2rec.py's (the set and ids do not).
//
// Packing (PackImageList): each listed image, re-encoded (resized so its
// shorter edge is `resize`, centre-cropped to a square with center_crop;
// JPEG at `quality`, or PNG with compression min(quality, 9)) or copied
// as-is (pass_through), into PREFIX.rec and PREFIX.idx (keys: the list's
// indices; the header id the index, one label or with pack_label all of
// them). Images that cannot be read or decoded are skipped and reported;
// the files appear only when packing finishes. Images are encoded by
// `threads` threads a window of 64 per thread at a time and written in list
// order, so memory does not grow with the list.
#ifndef SYMX_TRAIN_RECORDIO_IM2REC_H_
#define SYMX_TRAIN_RECORDIO_IM2REC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace symx::recordio {

struct ListOptions {
  std::vector<std::string> exts = {".jpeg", ".jpg", ".png"};
  bool recursive = false;
  bool shuffle = true;
  uint64_t seed = 100;
  double train_ratio = 1.0;
  double test_ratio = 0.0;
};

struct ImageLists {
  std::vector<std::string> files;    // the .lst files written
  std::vector<std::string> classes;  // class id -> directory relative to ROOT ("." for ROOT)
  int64_t images = 0;
};

absl::StatusOr<ImageLists> MakeImageLists(const std::string& prefix, const std::string& root,
                                          const ListOptions& options);

struct ListEntry {
  int64_t index = 0;
  std::vector<float> labels;
  std::string path;  // relative to the images' root
};

// Reads a .lst file; errors name the file and line.
absl::StatusOr<std::vector<ListEntry>> ReadImageList(const std::string& path);

struct PackOptions {
  int resize = 0;  // 0: keep the size
  bool center_crop = false;
  int quality = 95;
  std::string encoding = ".jpg";  // .jpg or .png
  int color = 1;                  // 1 colour, 0 grayscale, -1 as stored
  bool pack_label = false;
  bool pass_through = false;
  int threads = 1;
};

struct PackResult {
  std::string rec, idx;
  int64_t packed = 0;
  std::vector<std::string> skipped;  // "path: why"
};

absl::StatusOr<PackResult> PackImageList(const std::string& lst_path, const std::string& root,
                                         const std::string& out_prefix, const PackOptions& options);

}  // namespace symx::recordio

#endif  // SYMX_TRAIN_RECORDIO_IM2REC_H_
