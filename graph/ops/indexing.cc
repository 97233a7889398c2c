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
//
// Registers _contrib_boolean_mask: the entries of data along `axis` where index
// (one value per entry, any numeric dtype) is nonzero, in order. Its output
// length along the axis depends on index's values (Op::value_shape), so it runs
// imperatively and a bind refuses it, as MXNet 1.9.1's bind does (whose
// shape inference cannot finish); MXNet supports axis 0 only, symx any axis.
// It has no gradient in symx: only MXNet's autograd reaches its gradient, and
// symx's Python front has no autograd.
//
// Registers batch_take, _ravel_multi_index (ravel_multi_index), _unravel_index
// (unravel_index) and _contrib_index_array, none differentiable (MXNet
// registers no gradient for batch_take and a zero one for the others):
// - batch_take(a, indices): out[i] = a's row i at column indices[i], a seen
//   as (prod(shape[:-1]), shape[-1]) rows; the column is clipped to the row.
//   indices are int32, as MXNet requires. (MXNet's kernel strides rows by
//   prod(shape[1:]), which reads out of bounds beyond 2-D data; 2-D is the
//   same either way.)
// - _ravel_multi_index(data (ndim, N), shape): the flat index of each column,
//   r = r * shape[j] + data[j, i] truncated at each step, in data's dtype;
//   _unravel_index(data (N,), shape): the coordinates (ndim, N) of each flat
//   (truncated) index, the last ones modulo their dims (C++'s remainder) and
//   the first the quotient left, as MXNet computes them; neither checks range.
// - _contrib_index_array(data, axes): int64 coordinates, out[..., j] =
//   the index along axes[j] (every axis by default).
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

namespace {

// ----------------------------------------------------------------------------- batch_take

absl::Status BatchTakeShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[1], "output"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, (*out)[0], "input indices"));
  const Shape& a = (*in)[0];
  const Shape& idx = (*in)[1];
  if (a.ndim_known() && a.ndim() < 2) return ShapeError("input a", a, "at least 2 dims");
  if (!a.fully_known() || !idx.fully_known()) return absl::OkStatus();
  const int64_t last = a[a.ndim() - 1];
  const int64_t rows = last > 0 ? a.Size() / last : 0;
  if (rows != idx.Size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_take: indices ", idx.ToString(), " must have one entry per row of a ",
                     a.ToString(), " (", rows, " rows of ", last, ")"));
  }
  return absl::OkStatus();
}

absl::Status BatchTakeType(const NodeAttrs& attrs, std::vector<DType>* in,
                           std::vector<DType>* out) {
  SYMX_RETURN_IF_ERROR(DataTypeFirstInput(attrs, in, out));
  return AssignType(in, 1, DType::kInt32, "input indices");
}

SYMX_REGISTER_OP("batch_take")
    .SetIndexInputs({1})
    .Describe(
        "out[i] = a[i, indices[i]] for a seen as rows of its last axis; indices (int32) are "
        "clipped to the row.")
    .SetInputNames({"a", "indices"})
    .SetInferShape(BatchTakeShape)
    .SetInferType(BatchTakeType)
    .SetNonDifferentiable();

// ----------------------------------------------------------------------------- ravel / unravel

absl::StatusOr<OpParamPtr> ParseRavel(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<RavelParam>();
  std::optional<std::vector<int64_t>> shape = r.OptionalTuple("shape");
  if (!shape || shape->empty()) {
    r.Fail("shape", "must be given, with at least 1 dim");
  } else {
    p->shape = *shape;
    for (int64_t d : p->shape) {
      if (d < 1) {
        r.Fail("shape", "dims must be >= 1");
        break;
      }
    }
  }
  return r.Finish(std::move(p));
}

absl::Status RavelShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const int64_t k = static_cast<int64_t>(Param<RavelParam>(attrs).shape.size());
  const Shape& data = (*in)[0];
  if (data.ndim_known()) {
    if (data.ndim() != 2 || (data.dim_known(0) && data[0] != k)) {
      return ShapeError("input data", data,
                        absl::StrCat("2 dims (", k,
                                     ", N), one row per dim "
                                     "of shape"));
    }
    return AssignShape(out, 0, Shape{data[1]}, "output");
  }
  if ((*out)[0].ndim_known()) {
    if ((*out)[0].ndim() != 1) return ShapeError("output", (*out)[0], "1 dim");
    return AssignShape(in, 0, Shape{k, (*out)[0][0]}, "input data");
  }
  return absl::OkStatus();
}

absl::Status UnravelShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const int64_t k = static_cast<int64_t>(Param<RavelParam>(attrs).shape.size());
  const Shape& data = (*in)[0];
  if (data.ndim_known()) {
    if (data.ndim() != 1) return ShapeError("input data", data, "1 dim (N,)");
    return AssignShape(out, 0, Shape{k, data[0]}, "output");
  }
  const Shape& o = (*out)[0];
  if (o.ndim_known()) {
    if (o.ndim() != 2 || (o.dim_known(0) && o[0] != k)) {
      return ShapeError("output", o, absl::StrCat("2 dims (", k, ", N)"));
    }
    return AssignShape(in, 0, Shape{o[1]}, "input data");
  }
  return absl::OkStatus();
}

SYMX_REGISTER_OP("_ravel_multi_index")
    .SetIndexInputs({0})
    .Describe("The flat index in `shape` of each column of the (ndim, N) multi-indices.")
    .AddAlias("ravel_multi_index")
    .SetParse(ParseRavel)
    .SetInputNames({"data"})
    .SetInferShape(RavelShape)
    .SetInferType(DataTypeFirstInput)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_unravel_index")
    .SetIndexInputs({0})
    .Describe("The (ndim, N) coordinates in `shape` of each of the N flat indices.")
    .AddAlias("unravel_index")
    .SetParse(ParseRavel)
    .SetInputNames({"data"})
    .SetInferShape(UnravelShape)
    .SetInferType(DataTypeFirstInput)
    .SetNonDifferentiable();

// ----------------------------------------------------------------------------- index_array

absl::StatusOr<OpParamPtr> ParseIndexArray(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<IndexArrayParam>();
  p->axes = r.OptionalTuple("axes");
  return r.Finish(std::move(p));
}

absl::Status IndexArrayShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                             std::vector<Shape>* out) {
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  std::vector<int> axes;
  SYMX_RETURN_IF_ERROR(IndexArrayAxes(Param<IndexArrayParam>(attrs), data.ndim(), &axes));
  std::vector<int64_t> dims = data.dims();
  dims.push_back(static_cast<int64_t>(axes.size()));
  return AssignShape(out, 0, Shape(dims), "output");
}

absl::StatusOr<OpParamPtr> ParseBooleanMask(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BooleanMaskParam>();
  p->axis = r.Int("axis", 0);
  return r.Finish(std::move(p));
}

// The output is data with the axis' length unknown until index's values are
// read (BooleanMaskRows).
absl::Status BooleanMaskShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  int axis = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(Param<BooleanMaskParam>(attrs).axis, data.ndim(),
                                     "_contrib_boolean_mask axis", &axis));
  const Shape& index = (*in)[1];
  if (index.ndim_known() &&
      (index.ndim() != 1 ||
       (index[0] != kUnknownDim && data[axis] != kUnknownDim && index[0] != data[axis]))) {
    return absl::InvalidArgumentError(
        absl::StrCat("_contrib_boolean_mask: index of shape ", index.ToString(), " must be (",
                     data[axis] == kUnknownDim ? std::string("n") : absl::StrCat(data[axis]),
                     ",), one value per entry of data ", data.ToString(), " along axis ", axis));
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{data[axis]}, "index"));
  Shape o = data;
  o[axis] = kUnknownDim;
  if ((*out)[0].ndim_known() && (*out)[0].ndim() == o.ndim()) o[axis] = (*out)[0][axis];
  return AssignShape(out, 0, o, "output");
}

absl::Status BooleanMaskRows(const NodeAttrs& attrs, const std::vector<Shape>& in_shapes,
                             const std::vector<std::vector<double>>& values,
                             std::vector<Shape>* out) {
  int axis = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(Param<BooleanMaskParam>(attrs).axis, in_shapes[0].ndim(),
                                     "_contrib_boolean_mask axis", &axis));
  int64_t kept = 0;
  for (double v : values[1]) kept += v != 0.0 ? 1 : 0;
  Shape o = in_shapes[0];
  o[axis] = kept;
  (*out)[0] = o;
  return absl::OkStatus();
}

absl::Status BooleanMaskType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  const DType t = (*in)[0] != DType::kUnknown ? (*in)[0] : (*out)[0];
  if (t == DType::kUnknown) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(AssignType(in, 0, t, "data"));
  return AssignType(out, 0, t, "output");
}

SYMX_REGISTER_OP("_contrib_boolean_mask")
    .Describe(
        "The entries of data along axis where index is nonzero, in order (an output length "
        "that depends on index's values: imperative calls only).")
    .SetParse(ParseBooleanMask)
    .SetInputNames({"data", "index"})
    .SetInferShape(BooleanMaskShape)
    .SetInferType(BooleanMaskType)
    .SetValueDependentShape({1}, BooleanMaskRows)
    .SetIndexInputs({1})
    .SetGradient([](const NodePtr& node, const std::vector<NodeEntry>& og) {
      if (!og[0].node) return std::vector<NodeEntry>(2);
      std::vector<NodeEntry> g = MakeBackwardNode("_backward_contrib_boolean_mask", node,
                                                  {og[0], node->inputs[0], node->inputs[1]});
      g.push_back(NodeEntry{});
      return g;
    });

// Inputs: ograd, data (for its shape), index. Output: data's gradient.
Op& backward_boolean_mask_registration =
    RegisterBackwardOp("_backward_contrib_boolean_mask", ParseBooleanMask,
                       {"ograd", "data", "index"}, [](const NodeAttrs&) { return 1; });

SYMX_REGISTER_OP("_contrib_index_array")
    .Describe("The int64 coordinates of every element: out[..., j] = its index along axes[j].")
    .SetParse(ParseIndexArray)
    .SetInputNames({"data"})
    .SetInferShape(IndexArrayShape)
    .SetInferType([](const NodeAttrs&, std::vector<DType>*, std::vector<DType>* out) {
      return AssignType(out, 0, DType::kInt64, "output");
    })
    .SetNonDifferentiable();

}  // namespace

absl::Status IndexArrayAxes(const IndexArrayParam& p, int ndim, std::vector<int>* axes) {
  axes->clear();
  if (!p.axes) {
    for (int d = 0; d < ndim; ++d) axes->push_back(d);
    return absl::OkStatus();
  }
  for (int64_t a : *p.axes) {
    int ax = 0;
    SYMX_RETURN_IF_ERROR(NormalizeAxis(a, ndim, "_contrib_index_array: axes", &ax));
    axes->push_back(ax);
  }
  return absl::OkStatus();
}

}  // namespace symx
