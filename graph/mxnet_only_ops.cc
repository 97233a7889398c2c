#include "graph/mxnet_only_ops.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace symx {
namespace {

// Operators only MXNet's own machinery creates: they never appear in a symbol
// file an exporter writes (symx derives gradients itself), or they hold a
// Python callback or an imperative action.
const std::set<absl::string_view>& InternalOps() {
  static const auto* ops = new std::set<absl::string_view>{"_CachedOp",
                                                           "_CachedOpThreadSafe",
                                                           "_NoGradient",
                                                           "_broadcast_backward",
                                                           "_grad_add",
                                                           "_set_value",
                                                           "_split_v2_backward",
                                                           "_contrib_backward_gradientmultiplier",
                                                           "_contrib_backward_hawkesll",
                                                           "_contrib_backward_index_copy"};
  return *ops;
}

const std::set<absl::string_view>& PythonCallbackOps() {
  static const auto* ops =
      new std::set<absl::string_view>{"_CustomFunction", "_NDArray", "_Native"};
  return *ops;
}

const std::set<absl::string_view>& ImageIoOps() {
  static const auto* ops = new std::set<absl::string_view>{
      "_cvimdecode", "_cvimread", "_cvimresize", "_cvcopyMakeBorder", "_imdecode"};
  return *ops;
}

// Operators defined on sparse (CSR / row_sparse) storage or DGL's CSR graphs.
const std::set<absl::string_view>& SparseOps() {
  static const auto* ops = new std::set<absl::string_view>{"cast_storage",
                                                           "_sparse_retain",
                                                           "_square_sum",
                                                           "_contrib_SparseEmbedding",
                                                           "_sparse_adagrad_update",
                                                           "_scatter_elemwise_div",
                                                           "_scatter_minus_scalar",
                                                           "_scatter_plus_scalar",
                                                           "_contrib_getnnz",
                                                           "_contrib_edge_id"};
  return *ops;
}

}  // namespace

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
  if (op_name == "_contrib_calibrate_entropy") {
    return "the calibration step of MXNet's INT8 quantization flow, run while quantizing, never "
           "in a model";
  }
  if (InternalOps().count(op_name)) {
    return "an operator MXNet's own machinery inserts (autograd's gradient nodes, cached "
           "graphs, in-place assignment); exported symbol files do not contain it, and symx "
           "derives gradients itself";
  }
  if (PythonCallbackOps().count(op_name)) {
    return "a Python callback operator (autograd.Function or the legacy NDArrayOp/NumpyOp) "
           "whose code lives in the script that built the model, not in the model files";
  }
  if (ImageIoOps().count(op_name)) {
    return "an image file decoding or OpenCV operator that MXNet runs on arrays outside "
           "models; decode images before they reach the model (mx.image.imdecode, imread, "
           "imresize, copyMakeBorder, or mx.io.ImageRecordIter)";
  }
  if (SparseOps().count(op_name) || absl::StartsWith(op_name, "_contrib_dgl_")) {
    return "an operator of sparse (CSR / row_sparse) storage or DGL graphs; symx stores every "
           "array densely";
  }
  return "";
}

}  // namespace symx
