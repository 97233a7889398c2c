// Test helpers: run one op's parser, shape/dtype inference and gradient without a
// graph, and check the results.
#ifndef SYMX_TESTS_GRAPH_OP_TEST_UTIL_H_
#define SYMX_TESTS_GRAPH_OP_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/attrs.h"
#include "graph/dtype.h"
#include "graph/node.h"
#include "graph/shape.h"
#include "gtest/gtest.h"

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
                                         std::vector<Shape> in, std::vector<Shape> out = {});

struct TypeResult {
  std::vector<DType> in;
  std::vector<DType> out;
};
absl::StatusOr<TypeResult> InferOpType(const std::string& op_name, const AttrMap& dict,
                                       std::vector<DType> in, std::vector<DType> out = {});

// Success if `status` is an error whose message contains every one of `parts`.
::testing::AssertionResult ErrorContains(const absl::Status& status,
                                         const std::vector<std::string>& parts);

// The status of InferOpShape / ParseAttrs alone.
absl::Status ShapeStatus(const std::string& op, const AttrMap& attrs, std::vector<Shape> in,
                         std::vector<Shape> out = {});
absl::Status ParseStatus(const std::string& op, const AttrMap& attrs);

// A node of `op` over fresh variables, and its gradient for a head gradient on output 0.
struct GradCase {
  NodePtr node;
  NodePtr head;
  std::vector<NodeEntry> grads;
};
GradCase Differentiate(const std::string& op, const AttrMap& attrs, int num_inputs);

// Checks that grads[i] is output i of one backward node of `op` over `inputs`.
void ExpectBackward(const GradCase& c, const std::string& op, int num_grads,
                    const std::vector<NodeEntry>& inputs);

// Shape inference that must succeed (a test failure otherwise; then empty lists).
ShapeResult Infer(const std::string& op, const AttrMap& attrs, std::vector<Shape> in,
                  std::vector<Shape> out = {});
// The error message of shape inference / attribute parsing that must fail (a test
// failure and "" if it succeeds).
std::string InferError(const std::string& op, const AttrMap& attrs, std::vector<Shape> in,
                       std::vector<Shape> out = {});
std::string ParseError(const std::string& op, const AttrMap& attrs);

// The input names of a node of `op` with `attrs`.
std::vector<std::string> InputNames(const std::string& op, const AttrMap& attrs);

}  // namespace testing
}  // namespace symx

#endif  // SYMX_TESTS_GRAPH_OP_TEST_UTIL_H_
