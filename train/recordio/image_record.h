// The image record inside a RecordIO record, as MXNet's im2rec and
// mx.recordio.pack write it: a 24-byte header, then `flag` float32 labels
// when flag > 0, then the encoded image (JPEG, PNG, or raw bytes for
// pass-through records).
//   uint32 flag     0: one label, in `label`; n > 0: n labels follow the header
//   float32 label   the label when flag == 0 (0 otherwise)
//   uint64 id, id2  the image's index in the .lst file, and a second id
#ifndef SYMX_TRAIN_RECORDIO_IMAGE_RECORD_H_
#define SYMX_TRAIN_RECORDIO_IMAGE_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace symx::recordio {

inline constexpr size_t kImageHeaderBytes = 24;

struct ImageRecord {
  uint32_t flag = 0;
  // flag == 0: one entry (the header's label); flag == n: the n trailing labels.
  std::vector<float> labels;
  uint64_t id = 0;
  uint64_t id2 = 0;
  absl::string_view image;  // points into the payload Unpack read
};

// Splits a payload. Errors say which part is missing ("record of 10 bytes is
// shorter than the 24-byte image header", "flag 5 says 5 labels (20 bytes)
// follow but only 8 bytes do"). `where` prefixes them (file and offset).
absl::StatusOr<ImageRecord> UnpackImageRecord(absl::string_view payload,
                                              absl::string_view where = "");

// The inverse: one label writes flag 0 (unless `force_vector`, MXNet's
// pack_label / label vector of length 1), several write flag = count.
std::string PackImageRecord(const std::vector<float>& labels, uint64_t id, uint64_t id2,
                            absl::string_view image, bool force_vector = false);

}  // namespace symx::recordio

#endif  // SYMX_TRAIN_RECORDIO_IMAGE_RECORD_H_
