#include "tests/graph/op_test_util.h"

#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "graph/op.h"

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

}  // namespace testing
}  // namespace symx
