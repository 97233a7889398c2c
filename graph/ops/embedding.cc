// Registers Embedding (row lookup of integer-valued indices in a (input_dim, output_dim)
// table) and _backward_Embedding.
#include "graph/ops/embedding.h"

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/dtype.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseEmbedding(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<EmbeddingParam>();
  p->input_dim = r.Int("input_dim");
  if (p->input_dim < 1) r.Fail("input_dim", "must be > 0");
  p->output_dim = r.Int("output_dim");
  if (p->output_dim < 1) r.Fail("output_dim", "must be > 0");
  p->dtype = r.OptionalDtype("dtype").value_or(DType::kFloat32);
  p->sparse_grad = r.Bool("sparse_grad", false);
  return r.Finish(std::move(p));
}

absl::Status EmbeddingInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  const EmbeddingParam& p = Param<EmbeddingParam>(attrs);
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{p.input_dim, p.output_dim}, "input weight"));
  const Shape& o = (*out)[0];
  if (o.ndim_known()) {
    if (o.ndim() == 0) return ShapeError("output", o, "at least 1 dim (..., output_dim)");
    // The output is the index shape with one trailing embedding dim. Only unknown index
    // dims are filled, so that a conflict is reported on the output.
    Shape index(std::vector<int64_t>(o.dims().begin(), o.dims().end() - 1));
    const Shape& known = (*in)[0];
    if (known.ndim() == index.ndim()) {
      for (int d = 0; d < index.ndim(); ++d) {
        if (known[d] != kUnknownDim) index[d] = known[d];
      }
    }
    if (!known.ndim_known() || known.ndim() == index.ndim()) {
      SYMX_RETURN_IF_ERROR(AssignShape(in, 0, index, "input data"));
    }
  }
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  std::vector<int64_t> dims = data.dims();
  dims.push_back(p.output_dim);
  return AssignShape(out, 0, Shape(dims), "output");
}

// Indices may have any dtype; the table and the output share one (float32 by default).
absl::Status EmbeddingInferType(const NodeAttrs& attrs, std::vector<DType>* in,
                                std::vector<DType>* out) {
  // A dtype already fixed on the weight or the output wins over the attribute, so tables
  // cast to another precision keep working (MXNet's rule).
  DType table = (*in)[1] != DType::kUnknown ? (*in)[1] : (*out)[0];
  if (table == DType::kUnknown) table = Param<EmbeddingParam>(attrs).dtype;
  SYMX_RETURN_IF_ERROR(AssignType(in, 1, table, "input weight"));
  return AssignType(out, 0, table, "output");
}

std::vector<NodeEntry> EmbeddingGradient(const NodePtr& node,
                                         const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  // The index gradient is zero by definition; the kernel still writes it.
  return MakeBackwardNode("_backward_Embedding", node, {ograds[0], node->inputs[0]});
}

SYMX_REGISTER_OP("Embedding")
    .SetIndexInputs({0})
    .Describe(
        "Maps integer indices to rows of a (input_dim, output_dim) weight: out shape "
        "= data shape + (output_dim,).")
    .SetParse(ParseEmbedding)
    .SetInputNames({"data", "weight"})
    .SetInferShape(EmbeddingInferShape)
    .SetInferType(EmbeddingInferType)
    .SetGradient(EmbeddingGradient);

Op& backward_embedding_registration = RegisterBackwardOp(
    "_backward_Embedding", ParseEmbedding, {"ograd", "data"}, [](const NodeAttrs&) { return 2; });

}  // namespace
}  // namespace symx
