// libFuzzer entry point for RecordIO and the image codecs: the bytes are read
// as a .rec file (every record parsed in turn), each payload as an image
// record, and each record's image decoded in the three colour modes. Errors
// must name the file; a parsed payload must frame and parse back to itself; a
// decoded image's pixel count must match its size (crashes, hangs, leaks and
// libjpeg/libpng longjmps that escape are the bugs this looks for).
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "train/image/codec.h"
#include "train/recordio/image_record.h"
#include "train/recordio/record_file.h"

namespace {

void Fail(const char* what, const absl::Status& status) {
  std::cerr << what << ": " << status << "\n";
  std::abort();
}

void CheckImage(absl::string_view bytes) {
  for (int flag : {1, 0, -1}) {
    // A small cap keeps runs fast; the cap itself is what is being tested.
    absl::StatusOr<symx::image::Image> img = symx::image::Decode(bytes, flag, true, 1 << 20);
    if (!img.ok()) continue;
    if (img->pixels.size() != size_t(img->height) * img->width * img->channels ||
        img->height <= 0 || img->width <= 0) {
      Fail("decoded image has an inconsistent size", absl::OkStatus());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string payload, again, framed;
  uint64_t at = 0;
  while (at < bytes.size()) {
    absl::StatusOr<uint64_t> next = symx::recordio::ParseRecord(bytes, at, &payload, "fuzz.rec");
    if (!next.ok()) {
      if (!absl::StartsWith(next.status().message(), "fuzz.rec: byte ")) {
        Fail("error does not name the file and offset", next.status());
      }
      break;
    }
    if (*next <= at) Fail("the reader did not move forward", absl::OkStatus());
    at = *next;
    framed.clear();
    if (!symx::recordio::FrameRecord(payload, &framed).ok()) Fail("reframe", absl::OkStatus());
    absl::StatusOr<uint64_t> end = symx::recordio::ParseRecord(framed, 0, &again);
    if (!end.ok() || again != payload || *end != framed.size()) {
      Fail("a parsed payload does not frame back to itself", end.status());
    }
    absl::StatusOr<symx::recordio::ImageRecord> rec = symx::recordio::UnpackImageRecord(payload);
    if (rec.ok()) CheckImage(rec->image);
  }
  // The whole input as an image too (the codecs see raw bytes this way).
  CheckImage(bytes);
  return 0;
}
