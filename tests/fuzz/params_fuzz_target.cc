// libFuzzer entry point for the tensor file loaders: .params (every record
// version, sparse densification) and, for inputs starting with numpy's magic,
// .npy. Anything a loader accepts must save, reload, and save again to the same
// bytes (errors are fine; crashes, hangs, leaks and huge allocations are not).
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/string_view.h"
#include "devices/npy.h"
#include "devices/params_io.h"

namespace {

void Fail(const char* what, const absl::Status& status) {
  std::cerr << what << ": " << status << "\n";
  std::abort();
}

void CheckParams(absl::string_view bytes) {
  symx::LoadParamsOptions options;
  options.max_densified_bytes = size_t{4} << 20;  // fast runs, far below the RSS limit
  absl::StatusOr<symx::NamedTensors> loaded =
      symx::LoadParamsFromBuffer(bytes, "fuzz.params", options);
  if (!loaded.ok()) {
    if (loaded.status().message().rfind("fuzz.params: ", 0) != 0) {
      Fail("error does not name the file", loaded.status());
    }
    return;
  }
  symx::SaveParamsOptions save;
  for (const symx::Tensor& t : loaded->tensors) {
    if (t.defined() && t.shape().ndim() == 0) save.np_shape = true;
    if (t.defined()) t.ToDoubles();  // every element is a valid value of its type
  }
  absl::StatusOr<std::string> saved = symx::SaveParamsToString(*loaded, save);
  if (!saved.ok()) Fail("save failed", saved.status());
  absl::StatusOr<symx::NamedTensors> again = symx::LoadParamsFromBuffer(*saved, "resaved");
  if (!again.ok()) Fail("reload failed", again.status());
  absl::StatusOr<std::string> resaved = symx::SaveParamsToString(*again, save);
  if (!resaved.ok() || *resaved != *saved) Fail("second save differs", resaved.status());
}

void CheckNpy(absl::string_view bytes) {
  absl::StatusOr<symx::Tensor> loaded = symx::LoadNpyFromBuffer(bytes, "fuzz.npy");
  if (!loaded.ok()) {
    if (loaded.status().message().rfind("fuzz.npy: ", 0) != 0) {
      Fail("error does not name the file", loaded.status());
    }
    return;
  }
  loaded->ToDoubles();
  absl::StatusOr<std::string> saved = symx::SaveNpyToString(*loaded);
  if (!saved.ok()) Fail("save failed", saved.status());
  absl::StatusOr<symx::Tensor> again = symx::LoadNpyFromBuffer(*saved, "resaved");
  if (!again.ok()) Fail("reload failed", again.status());
  absl::StatusOr<std::string> resaved = symx::SaveNpyToString(*again);
  if (!resaved.ok() || *resaved != *saved) Fail("second save differs", resaved.status());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.substr(0, 6) == absl::string_view("\x93NUMPY", 6)) {
    CheckNpy(bytes);
  } else {
    CheckParams(bytes);
  }
  return 0;
}
