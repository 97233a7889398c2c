// MXNet symbol JSON: writing MXNet 1.9's format byte for byte, and reading it and
// the legacy formats (0.8-era "param"/"attr", two-element inputs, missing aux
// inputs, un-hidden system keys), upgrading as MXNet's loader does.
//
// Loading validates everything: malformed JSON, wrong value types, unknown ops,
// bad attributes, dangling or forward node references (so no cycles), wrong input
// counts. Errors name the source (file), the node (index and name) and the field.
#ifndef SYMX_GRAPH_JSON_H_
#define SYMX_GRAPH_JSON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/node.h"

namespace symx {

// The version written into "attrs": {"mxnet_version": ["int", N]} (MXNet 1.9.1).
inline constexpr int kMxnetVersion = 10901;

std::string SaveJson(const std::vector<NodeEntry>& outputs);

// `source` names the text in error messages (a file path, "<json string>").
absl::StatusOr<std::vector<NodeEntry>> LoadJson(absl::string_view text, absl::string_view source);
absl::StatusOr<std::vector<NodeEntry>> LoadJsonFile(const std::string& path);

}  // namespace symx

#endif  // SYMX_GRAPH_JSON_H_
