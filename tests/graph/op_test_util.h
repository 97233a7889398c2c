// Test helpers: run one op's parser and shape/dtype inference without a graph.
#ifndef SYMX_TESTS_GRAPH_OP_TEST_UTIL_H_
#define SYMX_TESTS_GRAPH_OP_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/attrs.h"
#include "graph/dtype.h"
#include "graph/node.h"
#include "graph/shape.h"

namespace symx {
namespace testing {

// Attributes of a node of `op_name` with `dict` parsed; an error if the op is
// unknown or the attributes do not parse.
absl::StatusOr<NodeAttrs> ParseAttrs(const std::string& op_name, const AttrMap& dict);

struct ShapeResult {
  std::vector<Shape> in;
  std::vector<Shape> out;
};
// Runs the op's shape inference. `in` must have one entry per input (aux
// included); unknown outputs are created as needed.
absl::StatusOr<ShapeResult> InferOpShape(const std::string& op_name, const AttrMap& dict,
                                         std::vector<Shape> in,
                                         std::vector<Shape> out = {});

struct TypeResult {
  std::vector<DType> in;
  std::vector<DType> out;
};
absl::StatusOr<TypeResult> InferOpType(const std::string& op_name, const AttrMap& dict,
                                       std::vector<DType> in, std::vector<DType> out = {});

}  // namespace testing
}  // namespace symx

#endif  // SYMX_TESTS_GRAPH_OP_TEST_UTIL_H_
