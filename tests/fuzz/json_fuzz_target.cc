// libFuzzer entry point for the symbol JSON loader. Anything the loader accepts
// must also write back, reload to the same text, and survive shape and dtype
// inference (errors are fine; crashes, hangs and leaks are not).
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "graph/error.h"
#include "graph/json.h"
#include "graph/symbol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<symx::NodeEntry>> loaded = symx::LoadJson(text, "fuzz");
  if (!loaded.ok()) return 0;
  symx::Symbol sym(*loaded);
  std::string json = sym.ToJson();
  absl::StatusOr<std::vector<symx::NodeEntry>> again = symx::LoadJson(json, "fuzz-rewritten");
  if (!again.ok() || symx::SaveJson(*again) != json) {
    std::cerr << "round trip failed: " << again.status() << "\n";
    std::abort();
  }
  try {
    sym.InferShapePartial(std::map<std::string, symx::Shape>{});
    sym.InferTypePartial(std::map<std::string, symx::DType>{});
  } catch (const symx::Error&) {
  }
  return 0;
}
