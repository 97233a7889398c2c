// MXNet 1.9.1's operator registry (dumped by dump_mxnet_registry.py) held
// against symx's: which MXNet operators symx implements, which it refuses and
// why, which are still to come, and where an implemented op's parameters
// differ from MXNet's. //tests/registry:op_coverage_test asserts the
// accounting is complete; update_op_table writes it to docs/operators.md.
#ifndef SYMX_TOOLS_REGISTRY_OP_TABLE_H_
#define SYMX_TOOLS_REGISTRY_OP_TABLE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/op.h"

namespace symx {

// Paths relative to the workspace root (the runfiles root in tests).
inline constexpr char kMxnetRegistryPath[] = "tools/registry/mxnet_1.9.1_ops.json";
inline constexpr char kPendingOpsPath[] = "tools/registry/pending_ops.txt";
inline constexpr char kParamDifferencesPath[] = "tools/registry/param_differences.txt";
inline constexpr char kOperatorsDocPath[] = "docs/operators.md";

struct MxnetParam {
  std::string name;
  std::string type;  // MXNet's type text: "int", "Shape(tuple)", "{'avg', 'max'}"
  bool required = false;
  std::optional<std::string> default_text;
};

struct MxnetOp {
  std::string name;
  std::vector<std::string> aliases;
  std::vector<MxnetParam> params;
  // The count parameter of a variadic op MXNet's front end adds ("num_args"
  // of add_n): not in `params`, but written in symbol files.
  std::string key_var_num_args;
  // Every name is in MXNet's NumPy interface (_np*, _npi*, _npx*).
  bool numpy_interface = false;
};

absl::StatusOr<std::vector<MxnetOp>> ParseMxnetRegistry(absl::string_view json_text);

// "name -> plan" from pending_ops.txt: one op per line under a "# plan" line.
absl::StatusOr<std::map<std::string, std::string>> ParsePendingOps(absl::string_view text);

// "op.key -> reason" from param_differences.txt ("op.key: reason" lines).
absl::StatusOr<std::map<std::string, std::string>> ParseParamDifferences(absl::string_view text);

enum class OpState { kImplemented, kRefused, kPending, kUnaccounted };

struct OpCoverage {
  const MxnetOp* op = nullptr;
  OpState state = OpState::kUnaccounted;
  const Op* symx_op = nullptr;  // kImplemented
  std::string detail;           // the refusal or the plan
  // MXNet names of the op (outside the NumPy interface) symx does not know,
  // or knows as another op.
  std::vector<std::string> alias_gaps;
};

// One entry per operator of `mxnet`, in its order.
std::vector<OpCoverage> Classify(const std::vector<MxnetOp>& mxnet,
                                 const std::map<std::string, std::string>& pending);

// Where `symx_op`'s parameters differ from `mxnet_op`'s, keyed "op.key": a
// parameter one side lacks, a default the other side gives differently
// (numbers compared to float32 precision, as MXNet prints them), or an
// MXNet default spelling symx refuses.
std::map<std::string, std::string> ParamDifferences(const MxnetOp& mxnet_op, const Op& symx_op);

// Everything the test and the doc need, read from the files under `root`
// (the workspace, or the runfiles root in a test).
struct CoverageReport {
  std::vector<MxnetOp> mxnet;
  std::vector<OpCoverage> coverage;  // points into `mxnet`
  std::map<std::string, std::string> pending;
  std::map<std::string, std::string> allowed_differences;  // param_differences.txt
  std::map<std::string, std::string> found_differences;    // ParamDifferences of every op
  std::string doc;                                         // docs/operators.md as it should be
};
absl::StatusOr<CoverageReport> BuildCoverageReport(const std::string& root);

// docs/operators.md's full text.
std::string OperatorsDoc(const std::vector<OpCoverage>& coverage,
                         const std::map<std::string, std::string>& param_differences);

}  // namespace symx

#endif  // SYMX_TOOLS_REGISTRY_OP_TABLE_H_
