// Operators that exist only inside MXNet and can never be loaded by symx, and
// why: a model that uses one gets that reason instead of a bare "unknown op".
#ifndef SYMX_GRAPH_MXNET_ONLY_OPS_H_
#define SYMX_GRAPH_MXNET_ONLY_OPS_H_

#include <string>

#include "absl/strings/string_view.h"
#include "graph/attrs.h"

namespace symx {

// Why `op_name` (with the node's attributes `attrs`) cannot run outside
// MXNet, or "" when it is simply an operator symx does not have.
std::string WhyMxnetOnly(absl::string_view op_name, const AttrMap& attrs);

}  // namespace symx

#endif  // SYMX_GRAPH_MXNET_ONLY_OPS_H_
