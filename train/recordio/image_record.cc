#include "train/recordio/image_record.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace symx::recordio {

absl::StatusOr<ImageRecord> UnpackImageRecord(absl::string_view payload, absl::string_view where) {
  std::string prefix = where.empty() ? "" : absl::StrCat(where, ": ");
  if (payload.size() < kImageHeaderBytes) {
    return absl::DataLossError(absl::StrCat(prefix, "a record of ", payload.size(),
                                            " bytes is shorter than the 24-byte image header"));
  }
  ImageRecord r;
  float label;
  std::memcpy(&r.flag, payload.data(), 4);
  std::memcpy(&label, payload.data() + 4, 4);
  std::memcpy(&r.id, payload.data() + 8, 8);
  std::memcpy(&r.id2, payload.data() + 16, 8);
  size_t at = kImageHeaderBytes;
  if (r.flag == 0) {
    r.labels = {label};
  } else {
    uint64_t bytes = uint64_t{r.flag} * 4;
    if (bytes > payload.size() - at) {
      return absl::DataLossError(
          absl::StrCat(prefix, "the image header's flag ", r.flag, " says ", r.flag, " labels (",
                       bytes, " bytes) follow it, but only ", payload.size() - at, " bytes do"));
    }
    r.labels.resize(r.flag);
    std::memcpy(r.labels.data(), payload.data() + at, bytes);
    at += bytes;
  }
  r.image = payload.substr(at);
  return r;
}

std::string PackImageRecord(const std::vector<float>& labels, uint64_t id, uint64_t id2,
                            absl::string_view image, bool force_vector) {
  const bool vector = force_vector || labels.size() != 1;
  uint32_t flag = vector ? static_cast<uint32_t>(labels.size()) : 0;
  float label = vector ? 0.0f : labels[0];
  std::string out(kImageHeaderBytes, '\0');
  std::memcpy(out.data(), &flag, 4);
  std::memcpy(out.data() + 4, &label, 4);
  std::memcpy(out.data() + 8, &id, 8);
  std::memcpy(out.data() + 16, &id2, 8);
  if (vector && !labels.empty()) {
    out.append(reinterpret_cast<const char*>(labels.data()), labels.size() * 4);
  }
  out.append(image.data(), image.size());
  return out;
}

}  // namespace symx::recordio
