#include "tests/graph/op_test_util.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace testing {

absl::StatusOr<NodeAttrs> ParseAttrs(const std::string& op_name, const AttrMap& dict) {
  SYMX_ASSIGN_OR_RETURN(const Op* op, OpRegistry::Global().Lookup(op_name));
  NodeAttrs attrs;
  attrs.op = op;
  attrs.name = "test";
  attrs.dict = dict;
  SYMX_ASSIGN_OR_RETURN(attrs.parsed, op->Parse(dict));
  return attrs;
}

absl::StatusOr<ShapeResult> InferOpShape(const std::string& op_name, const AttrMap& dict,
                                         std::vector<Shape> in, std::vector<Shape> out) {
  SYMX_ASSIGN_OR_RETURN(NodeAttrs attrs, ParseAttrs(op_name, dict));
  const Op* op = attrs.op;
  if (static_cast<int>(in.size()) != op->NumInputs(attrs)) {
    return absl::InvalidArgumentError(absl::StrCat("test gave ", in.size(), " input shapes, ",
                                                   op_name, " has ", op->NumInputs(attrs)));
  }
  out.resize(op->NumOutputs(attrs));
  if (!op->infer_shape()) return absl::UnimplementedError(op_name + " has no infer_shape");
  SYMX_RETURN_IF_ERROR(op->infer_shape()(attrs, &in, &out));
  return ShapeResult{std::move(in), std::move(out)};
}

absl::StatusOr<TypeResult> InferOpType(const std::string& op_name, const AttrMap& dict,
                                       std::vector<DType> in, std::vector<DType> out) {
  SYMX_ASSIGN_OR_RETURN(NodeAttrs attrs, ParseAttrs(op_name, dict));
  const Op* op = attrs.op;
  out.resize(op->NumOutputs(attrs), DType::kUnknown);
  SYMX_RETURN_IF_ERROR(op->infer_type()(attrs, &in, &out));
  return TypeResult{std::move(in), std::move(out)};
}

::testing::AssertionResult ErrorContains(const absl::Status& status,
                                         const std::vector<std::string>& parts) {
  if (status.ok()) return ::testing::AssertionFailure() << "expected an error, got OK";
  for (const std::string& part : parts) {
    if (std::string(status.message()).find(part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "error \"" << status.message() << "\" lacks \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

absl::Status ShapeStatus(const std::string& op, const AttrMap& attrs, std::vector<Shape> in,
                         std::vector<Shape> out) {
  return InferOpShape(op, attrs, std::move(in), std::move(out)).status();
}

absl::Status ParseStatus(const std::string& op, const AttrMap& attrs) {
  return ParseAttrs(op, attrs).status();
}

GradCase Differentiate(const std::string& op, const AttrMap& attrs, int num_inputs) {
  std::vector<NodeEntry> inputs;
  for (int i = 0; i < num_inputs; ++i) {
    inputs.push_back(Out(MakeVariableNode("in" + std::to_string(i))));
  }
  absl::StatusOr<NodePtr> node = MakeOpNode(op, "fwd", attrs, inputs);
  EXPECT_TRUE(node.ok()) << node.status();
  if (!node.ok()) return {};
  GradCase c;
  c.node = *node;
  c.head = MakeVariableNode("head_grad");
  std::vector<NodeEntry> ograds(c.node->num_outputs());
  ograds[0] = Out(c.head);
  c.grads = c.node->op()->gradient()(c.node, ograds);
  return c;
}

void ExpectBackward(const GradCase& c, const std::string& op, int num_grads,
                    const std::vector<NodeEntry>& inputs) {
  ASSERT_GE(c.grads.size(), static_cast<size_t>(num_grads));
  ASSERT_TRUE(c.grads[0].node);
  const NodePtr& bwd = c.grads[0].node;
  EXPECT_EQ(bwd->op()->name(), op);
  EXPECT_TRUE(bwd->op()->is_backward());
  EXPECT_EQ(bwd->num_outputs(), num_grads);
  ASSERT_EQ(bwd->control_deps.size(), 1u);
  EXPECT_EQ(bwd->control_deps[0], c.node);
  for (int i = 0; i < num_grads; ++i) {
    EXPECT_EQ(c.grads[i].node, bwd);
    EXPECT_EQ(c.grads[i].index, static_cast<uint32_t>(i));
  }
  ASSERT_EQ(bwd->inputs.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(bwd->inputs[i], inputs[i]) << i;
  EXPECT_EQ(bwd->attrs.dict, c.node->attrs.dict);
}

ShapeResult Infer(const std::string& op, const AttrMap& attrs, std::vector<Shape> in,
                  std::vector<Shape> out) {
  absl::StatusOr<ShapeResult> r = InferOpShape(op, attrs, std::move(in), std::move(out));
  EXPECT_TRUE(r.ok()) << op << ": " << r.status();
  return r.ok() ? *r : ShapeResult{};
}

std::string InferError(const std::string& op, const AttrMap& attrs, std::vector<Shape> in,
                       std::vector<Shape> out) {
  absl::StatusOr<ShapeResult> r = InferOpShape(op, attrs, std::move(in), std::move(out));
  EXPECT_FALSE(r.ok()) << op << " unexpectedly inferred";
  return r.ok() ? "" : std::string(r.status().message());
}

std::string ParseError(const std::string& op, const AttrMap& attrs) {
  absl::StatusOr<NodeAttrs> r = ParseAttrs(op, attrs);
  EXPECT_FALSE(r.ok()) << op << " unexpectedly parsed";
  return r.ok() ? "" : std::string(r.status().message());
}

std::vector<std::string> InputNames(const std::string& op, const AttrMap& attrs) {
  absl::StatusOr<NodeAttrs> a = ParseAttrs(op, attrs);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? a->op->InputNames(*a) : std::vector<std::string>{};
}

}  // namespace testing
}  // namespace symx
