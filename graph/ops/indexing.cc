// The indexing family: one_hot, pick, take, gather_nd and Embedding, with
// their backward ops.
//
// Registers the indexing ops: one_hot, pick (choose_element_0index), take,
// gather_nd, and the backward ops _backward_pick, _backward_take and
// _backward_gather_nd. Semantics follow MXNet 1.9.1 (checked against it):
//
// - Index inputs may have any numeric dtype; float indices are truncated toward
//   zero after the mode is applied to the value (so -0.5 clips to 0 and wraps
//   to 0, -1.7 wraps as -1).
// - one_hot: an index outside [0, depth) (or NaN) gives a row of off_value.
//   Not differentiable.
// - pick: mode clip or wrap; axis None is an error (as in MXNet). The index has
//   the data's shape without the axis, or with the axis of size 1. The gradient
//   goes to the picked positions of data (_backward_pick); none to the index.
// - take: mode clip, wrap or raise. With raise an index is valid only when
//   0 <= value <= n - 1 (no negative indices, as in MXNet); the kernel fails
//   naming the value. The gradient scatter-adds into `a` (_backward_take).
// - gather_nd: indices (M, Y...) index the first M dims of data; out shape
//   Y... + data.shape[M:]. A value v along a dim of size n is valid when
//   -n <= v <= n - 1; negative values count from the end (n is added before
//   truncation, as MXNet does). Others are a kernel error naming the value.
//   The gradient scatter-adds (_backward_gather_nd; MXNet's public op of that
//   name, with a `shape` attribute, is not provided).
//
// Registers Embedding (row lookup of integer-valued indices in a (input_dim, output_dim)
// table) and _backward_Embedding.
#include "graph/ops/indexing.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/dtype.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {
namespace {

IndexMode ToMode(const std::string& s) {
  if (s == "wrap") return IndexMode::kWrap;
  if (s == "raise") return IndexMode::kRaise;
  return IndexMode::kClip;
}

// ----------------------------------------------------------------------------- one_hot

absl::StatusOr<OpParamPtr> ParseOneHot(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<OneHotParam>();
  p->depth = r.Int("depth");
  if (p->depth < 0) r.Fail("depth", "must be >= 0");
  p->on_value = r.Float("on_value", 1.0);
  p->off_value = r.Float("off_value", 0.0);
  const std::string dt = r.Enum(
      "dtype", {"bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8"},
      "float32");
  absl::StatusOr<DType> d = ParseDType(dt);
  if (d.ok()) p->dtype = *d;
  return r.Finish(std::move(p));
}

absl::Status OneHotShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const OneHotParam& p = Param<OneHotParam>(attrs);
  const Shape& o = (*out)[0];
  if (o.ndim_known() && !(*in)[0].ndim_known()) {
    if (o.ndim() == 0) return ShapeError("output", o, "at least 1 dim (..., depth)");
    SYMX_RETURN_IF_ERROR(AssignShape(
        in, 0, Shape(std::vector<int64_t>(o.dims().begin(), o.dims().end() - 1)), "input indices"));
  }
  const Shape& idx = (*in)[0];
  if (!idx.ndim_known()) return absl::OkStatus();
  std::vector<int64_t> dims = idx.dims();
  dims.push_back(p.depth);
  return AssignShape(out, 0, Shape(dims), "output");
}

absl::Status OneHotType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  return AssignType(out, 0, Param<OneHotParam>(attrs).dtype, "output");
}

SYMX_REGISTER_OP("one_hot")
    .SetIndexInputs({0})
    .Describe(
        "One-hot encoding: out[..., j] = on_value where j == indices[...] (truncated), else "
        "off_value; out shape = indices shape + (depth,).")
    .SetParse(ParseOneHot)
    .SetInputNames({"indices"})
    .SetInferShape(OneHotShape)
    .SetInferType(OneHotType)
    .SetNonDifferentiable();

// ----------------------------------------------------------------------------- pick

absl::StatusOr<OpParamPtr> ParsePick(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<PickParam>();
  p->axis = r.OptionalInt("axis", -1);
  p->keepdims = r.Bool("keepdims", false);
  p->mode = ToMode(r.Enum("mode", {"clip", "wrap"}, "clip"));
  return r.Finish(std::move(p));
}

absl::Status PickShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const PickParam& p = Param<PickParam>(attrs);
  if (!p.axis.has_value()) {
    return absl::InvalidArgumentError(
        "axis=None is not supported by pick (MXNet neither): give an axis");
  }
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  if (data.ndim() == 0) return ShapeError("input data", data, "at least 1 dim");
  int axis = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(*p.axis, data.ndim(), "axis", &axis));
  std::vector<int64_t> kept = data.dims(), reduced;
  kept[axis] = 1;
  for (int d = 0; d < data.ndim(); ++d) {
    if (d != axis) reduced.push_back(data[d]);
  }
  if (reduced.empty()) reduced.push_back(1);
  // The index may have either form; an index of unknown ndim gets the reduced one.
  const Shape& idx = (*in)[1];
  const bool index_kept = idx.ndim_known() && idx.ndim() == data.ndim() && data.ndim() > 1;
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape(index_kept ? kept : reduced), "input index"));
  return AssignShape(out, 0, Shape(p.keepdims ? kept : reduced), "output");
}

// The output has the data's dtype; the index keeps its own.
absl::Status DataTypeFirstInput(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  if ((*in)[0] != DType::kUnknown) {
    SYMX_RETURN_IF_ERROR(AssignType(out, 0, (*in)[0], "output"));
  } else if ((*out)[0] != DType::kUnknown) {
    SYMX_RETURN_IF_ERROR(AssignType(in, 0, (*out)[0], "input data"));
  }
  return absl::OkStatus();
}

std::vector<NodeEntry> PickGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return std::vector<NodeEntry>(node->inputs.size());
  std::vector<NodeEntry> g = MakeBackwardNode("_backward_pick", node, {og[0], node->inputs[1]});
  return {g[0], NodeEntry{}};
}

SYMX_REGISTER_OP("pick")
    .SetIndexInputs({1})
    .Describe("Picks one element along `axis` for each position of `index`.")
    .AddAlias("choose_element_0index")
    .SetParse(ParsePick)
    .SetInputNames({"data", "index"})
    .SetInferShape(PickShape)
    .SetInferType(DataTypeFirstInput)
    .SetGradient(PickGradient);

Op& backward_pick_registration = RegisterBackwardOp("_backward_pick", ParsePick, {"ograd", "index"},
                                                    [](const NodeAttrs&) { return 1; });

// ----------------------------------------------------------------------------- take

absl::StatusOr<OpParamPtr> ParseTake(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<TakeParam>();
  p->axis = r.Int("axis", 0);
  p->mode = ToMode(r.Enum("mode", {"clip", "raise", "wrap"}, "clip"));
  return r.Finish(std::move(p));
}

absl::Status TakeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const TakeParam& p = Param<TakeParam>(attrs);
  const Shape& a = (*in)[0];
  const Shape& idx = (*in)[1];
  if (!a.ndim_known()) return absl::OkStatus();
  if (a.ndim() == 0) return ShapeError("input a", a, "at least 1 dim");
  int axis = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, a.ndim(), "axis", &axis));
  if (!idx.ndim_known()) return absl::OkStatus();
  std::vector<int64_t> dims(a.dims().begin(), a.dims().begin() + axis);
  dims.insert(dims.end(), idx.dims().begin(), idx.dims().end());
  dims.insert(dims.end(), a.dims().begin() + axis + 1, a.dims().end());
  return AssignShape(out, 0, Shape(dims), "output");
}

std::vector<NodeEntry> TakeGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return std::vector<NodeEntry>(node->inputs.size());
  std::vector<NodeEntry> g = MakeBackwardNode("_backward_take", node, {og[0], node->inputs[1]});
  return {g[0], NodeEntry{}};
}

SYMX_REGISTER_OP("take")
    .SetIndexInputs({1})
    .Describe(
        "Takes slices of `a` along `axis` at `indices`: out shape = a.shape[:axis] + "
        "indices.shape + a.shape[axis+1:].")
    .SetParse(ParseTake)
    .SetInputNames({"a", "indices"})
    .SetInferShape(TakeShape)
    .SetInferType(DataTypeFirstInput)
    .SetGradient(TakeGradient);

Op& backward_take_registration = RegisterBackwardOp(
    "_backward_take", ParseTake, {"ograd", "indices"}, [](const NodeAttrs&) { return 1; });

// ----------------------------------------------------------------------------- gather_nd

absl::Status GatherNdShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& data = (*in)[0];
  const Shape& idx = (*in)[1];
  if (!data.ndim_known() || !idx.ndim_known()) return absl::OkStatus();
  if (idx.ndim() < 2) {
    return ShapeError("input indices", idx, "at least 2 dims (M, Y0, ...)");
  }
  if (!idx.dim_known(0)) return absl::OkStatus();
  if (idx[0] < 1 || idx[0] > data.ndim()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices ", idx.ToString(), " index ", idx[0], " dims but data ", data.ToString(), " has ",
        data.ndim(), " (indices must have shape (M, ...) with 1 <= M <= data ndim)"));
  }
  std::vector<int64_t> dims(idx.dims().begin() + 1, idx.dims().end());
  dims.insert(dims.end(), data.dims().begin() + idx[0], data.dims().end());
  return AssignShape(out, 0, Shape(dims), "output");
}

std::vector<NodeEntry> GatherNdGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return std::vector<NodeEntry>(node->inputs.size());
  std::vector<NodeEntry> g =
      MakeBackwardNode("_backward_gather_nd", node, {og[0], node->inputs[1]});
  return {g[0], NodeEntry{}};
}

SYMX_REGISTER_OP("gather_nd")
    .SetIndexInputs({1})
    .Describe(
        "Gathers elements or slices of `data` at the M-dim coordinates in `indices` (M, Y...): "
        "out shape = Y... + data.shape[M:].")
    .SetInputNames({"data", "indices"})
    .SetInferShape(GatherNdShape)
    .SetInferType(DataTypeFirstInput)
    .SetGradient(GatherNdGradient);

Op& backward_gather_nd_registration = RegisterBackwardOp(
    "_backward_gather_nd", ParseNoParams, {"ograd", "indices"}, [](const NodeAttrs&) { return 1; });

}  // namespace

namespace {

absl::StatusOr<OpParamPtr> ParseEmbedding(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<EmbeddingParam>();
  p->input_dim = r.Int("input_dim");
  if (p->input_dim < 1) r.Fail("input_dim", "must be > 0");
  p->output_dim = r.Int("output_dim");
  if (p->output_dim < 1) r.Fail("output_dim", "must be > 0");
  p->dtype = r.Dtype("dtype", DType::kFloat32);
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
