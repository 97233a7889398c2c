#include "graph/mxnet_only_ops.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace symx {

std::string WhyMxnetOnly(absl::string_view op_name, const AttrMap& attrs) {
  if (op_name == "Custom") {
    auto it = attrs.find("op_type");
    const std::string type = it == attrs.end() ? "unnamed" : absl::StrCat("'", it->second, "'");
    return absl::StrCat("a Python operator (op_type ", type,
                        ") registered by the script that built the model; its code is not in "
                        "the model files and runs only inside MXNet's Python process. Rewrite "
                        "it with built-in operators");
  }
  if (absl::StartsWith(op_name, "_sg_")) {
    return "a fused subgraph operator that MXNet's graph passes (oneDNN fusion, quantization, "
           "optimize_for) write; load the model as exported before those passes";
  }
  if (absl::StartsWith(op_name, "_contrib_quantize") ||
      absl::StartsWith(op_name, "_contrib_dequantize") ||
      absl::StartsWith(op_name, "_contrib_requantize") ||
      absl::StartsWith(op_name, "_contrib_quantized_")) {
    return "part of MXNet's INT8 quantization flow; load the float32 model it was made from";
  }
  if (absl::StartsWith(op_name, "_npi_") || absl::StartsWith(op_name, "_np_") ||
      absl::StartsWith(op_name, "_npx_")) {
    return "an operator of MXNet's NumPy interface (mx.np / mx.npx), which symx does not "
           "implement; symx runs the legacy mx.sym operators";
  }
  return "";
}

}  // namespace symx
