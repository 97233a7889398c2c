// The scatter family: ops that write values into a copy of an array (or into
// zeros) at given positions, as MXNet 1.9.1 defines them (checked against it).
//
// - _slice_assign(lhs, rhs) (alias _crop_assign): lhs with the slice
//   begin/end/step (slice's rules, parsed by slice's own parser) replaced by
//   rhs, whose shape must be the slice's. _slice_assign_scalar(data)
//   (_crop_assign_scalar) writes `scalar` (converted to the dtype) there.
//   MXNet registers no gradient for either (binding one for a gradient is an
//   error there); here they are not differentiable. Both may run in place.
// - scatter_nd(data, indices, shape): zeros of `shape` with the slices
//   out[indices[:, y]] = data[y] (indices (M, Y...), data Y... + shape[M:]).
//   A value v along a dim of n is valid when -n <= v <= n - 1, negative ones
//   counting from the end, as gather_nd reads them (MXNet checks nothing and
//   writes out of bounds); others are an error naming the value. Where two
//   index columns coincide the last one wins on the CPU (MXNet's CPU order);
//   the GPU keeps one of them. The gradient of data is gather_nd(ograd,
//   indices).
// - _scatter_set_nd(lhs, rhs, indices, shape): lhs with the same writes of rhs
//   (scatter_nd without the zeros); not differentiable (MXNet has no
//   gradient), in place.
// - _contrib_index_copy(old_tensor, index_vector, new_tensor): old_tensor
//   with rows index_vector[i] (along axis 0, truncated; each must be in
//   [0, rows)) replaced by new_tensor's row i. Gradients: old_tensor's is the
//   output gradient with those rows zeroed (index_copy of zeros into it),
//   new_tensor's the gradient's rows at the indices (take).
// - fill_element_0index(lhs, mhs, rhs): lhs (N, M) with out[i, rhs[i]] =
//   mhs[i]; _onehot_encode(lhs, rhs): zeros of rhs's (N, M) shape with
//   out[i, lhs[i]] = 1. Indices are truncated; one outside [0, M) writes
//   nothing (MXNet's element comparison). Both are MXNet 1.9.1's legacy
//   NDArray functions: float32 only, not differentiable, and MXNet cannot
//   compose them into a symbol (mx.nd only).
#include "graph/ops/scatter.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/dtype.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {
namespace {

// ----------------------------------------------------------------------------- _slice_assign

// begin/end/step through slice's parser (its keys, spellings and checks);
// with_scalar adds _slice_assign_scalar's `scalar`.
absl::StatusOr<OpParamPtr> ParseSliceAssignImpl(const AttrMap& attrs, bool with_scalar) {
  auto p = std::make_shared<SliceAssignParam>();
  AttrMap slice_attrs = attrs;
  if (with_scalar) {
    AttrMap scalar_attrs;
    for (const char* key : {"scalar"}) {
      auto it = attrs.find(key);
      if (it != attrs.end()) scalar_attrs.insert(*it);
      slice_attrs.erase(key);
    }
    ParamReader r(scalar_attrs);
    p->scalar = r.FloatOrNan("scalar", 0.0);
    SYMX_RETURN_IF_ERROR(r.Finish(nullptr).status());
  }
  const Op* slice = OpRegistry::Global().Find("slice");
  absl::StatusOr<OpParamPtr> parsed = slice->Parse(slice_attrs);
  if (!parsed.ok()) return parsed.status();
  p->slice = static_cast<const SliceParam&>(**parsed);
  return OpParamPtr(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseSliceAssign(const AttrMap& attrs) {
  return ParseSliceAssignImpl(attrs, false);
}

absl::StatusOr<OpParamPtr> ParseSliceAssignScalar(const AttrMap& attrs) {
  return ParseSliceAssignImpl(attrs, true);
}

// The slice's shape in `whole` (dims of whole unknown stay unknown).
absl::Status SlicedShape(const SliceParam& p, const Shape& whole, Shape* out) {
  if (p.begin.size() > static_cast<size_t>(whole.ndim())) {
    return absl::InvalidArgumentError(absl::StrCat("begin has ", p.begin.size(),
                                                   " entries but input ", whole.ToString(),
                                                   " has only ", whole.ndim(), " dims"));
  }
  *out = whole;
  for (size_t d = 0; d < p.begin.size(); ++d) {
    if (!whole.dim_known(d)) continue;
    (*out)[d] =
        ResolveSlice(p.begin[d], p.end[d], p.step.empty() ? std::nullopt : p.step[d], whole[d])
            .count;
  }
  return absl::OkStatus();
}

// out <-> input 0; the slice's shape -> input 1 (when `rhs`).
absl::Status SliceAssignShapeImpl(const NodeAttrs& attrs, std::vector<Shape>* in,
                                  std::vector<Shape>* out, bool rhs) {
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*out)[0], "input lhs"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  const Shape& whole = (*in)[0];
  if (!rhs || !whole.ndim_known()) return absl::OkStatus();
  Shape part;
  SYMX_RETURN_IF_ERROR(SlicedShape(Param<SliceAssignParam>(attrs).slice, whole, &part));
  return AssignShape(in, 1, part, "input rhs");
}

absl::Status SliceAssignShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  return SliceAssignShapeImpl(attrs, in, out, true);
}

absl::Status SliceAssignScalarShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                    std::vector<Shape>* out) {
  return SliceAssignShapeImpl(attrs, in, out, false);
}

// Every input but the index inputs and the output share one dtype.
absl::Status SameTypeExcept(std::vector<DType>* in, std::vector<DType>* out,
                            const std::vector<int>& index_inputs) {
  auto is_index = [&](size_t i) {
    for (int k : index_inputs) {
      if (static_cast<size_t>(k) == i) return true;
    }
    return false;
  };
  DType t = (*out)[0];
  for (size_t i = 0; i < in->size(); ++i) {
    if (t == DType::kUnknown && !is_index(i)) t = (*in)[i];
  }
  if (t == DType::kUnknown) return absl::OkStatus();
  for (size_t i = 0; i < in->size(); ++i) {
    if (!is_index(i)) SYMX_RETURN_IF_ERROR(AssignType(in, i, t, absl::StrCat("input ", i)));
  }
  return AssignType(out, 0, t, "output");
}

SYMX_REGISTER_OP("_slice_assign")
    .Describe("lhs with its slice begin/end/step (slice's rules) replaced by rhs.")
    .AddAlias("_crop_assign")
    .SetParse(ParseSliceAssign)
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(SliceAssignShape)
    .SetInferType([](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
      return SameTypeExcept(in, out, {});
    })
    .SetInplace({{0, 0}})
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_slice_assign_scalar")
    .Describe("data with its slice begin/end/step (slice's rules) set to `scalar`.")
    .AddAlias("_crop_assign_scalar")
    .SetParse(ParseSliceAssignScalar)
    .SetInputNames({"data"})
    .SetInferShape(SliceAssignScalarShape)
    .SetInferType([](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
      return SameTypeExcept(in, out, {});
    })
    .SetInplace({{0, 0}})
    .SetNonDifferentiable();

// ----------------------------------------------------------------------------- scatter_nd

absl::StatusOr<OpParamPtr> ParseScatterNd(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ScatterNdParam>();
  p->shape = r.Tuple("shape");
  if (p->shape.empty()) r.Fail("shape", "must have at least 1 dim");
  for (int64_t d : p->shape) {
    if (d < 0) {
      r.Fail("shape", "dims must be >= 0");
      break;
    }
  }
  return r.Finish(std::move(p));
}

// The output is `shape`; data (input `data_in`) is indices.shape[1:] +
// shape[M:] for indices (input `index_in`) of shape (M, Y...).
absl::Status ScatterNdShapes(const NodeAttrs& attrs, std::vector<Shape>* in,
                             std::vector<Shape>* out, size_t data_in, size_t index_in) {
  const Shape target(Param<ScatterNdParam>(attrs).shape);
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, target, "output"));
  const Shape& idx = (*in)[index_in];
  if (!idx.ndim_known()) return absl::OkStatus();
  if (idx.ndim() < 2) return ShapeError("input indices", idx, "at least 2 dims (M, Y0, ...)");
  if (!idx.dim_known(0)) return absl::OkStatus();
  if (idx[0] < 1 || idx[0] > target.ndim()) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices ", idx.ToString(), " index ", idx[0], " dims but shape ",
                     target.ToString(), " has ", target.ndim(),
                     " (indices must have shape (M, ...) with 1 <= M <= ndim of shape)"));
  }
  std::vector<int64_t> dims(idx.dims().begin() + 1, idx.dims().end());
  dims.insert(dims.end(), target.dims().begin() + idx[0], target.dims().end());
  return AssignShape(in, data_in, Shape(dims), data_in == 0 ? "input data" : "input rhs");
}

std::vector<NodeEntry> ScatterNdGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}, NodeEntry{}};
  return {MakeInternalEntry("gather_nd", node->attrs.name + "_backward", {og[0], node->inputs[1]}),
          NodeEntry{}};
}

SYMX_REGISTER_OP("scatter_nd")
    .Describe(
        "Zeros of `shape` with the slices at the M-dim coordinates of indices (M, Y...) set from "
        "data (Y... + shape[M:]).")
    .SetIndexInputs({1})
    .SetParse(ParseScatterNd)
    .SetInputNames({"data", "indices"})
    .SetInferShape([](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
      return ScatterNdShapes(attrs, in, out, 0, 1);
    })
    .SetInferType([](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
      return SameTypeExcept(in, out, {1});
    })
    .SetGradient(ScatterNdGradient);

SYMX_REGISTER_OP("_scatter_set_nd")
    .Describe("lhs with the slices at the coordinates of indices set from rhs (scatter_nd's rule).")
    .SetIndexInputs({2})
    .SetParse(ParseScatterNd)
    .SetInputNames({"lhs", "rhs", "indices"})
    .SetInferShape([](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
      SYMX_RETURN_IF_ERROR(ScatterNdShapes(attrs, in, out, 1, 2));
      return AssignShape(in, 0, (*out)[0], "input lhs");
    })
    .SetInferType([](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
      return SameTypeExcept(in, out, {2});
    })
    .SetInplace({{0, 0}})
    .SetNonDifferentiable();

// ----------------------------------------------------------------------------- _contrib_index_copy

absl::Status IndexCopyShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*out)[0], "input old_tensor"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  const Shape& old = (*in)[0];
  const Shape& idx = (*in)[1];
  const Shape& rows = (*in)[2];
  if (idx.ndim_known() && idx.ndim() != 1) {
    return ShapeError("input index_vector", idx, "1 dim");
  }
  if (!old.ndim_known() || !rows.ndim_known()) return absl::OkStatus();
  bool fits = old.ndim() == rows.ndim() && old.ndim() >= 1;
  for (int d = 1; fits && d < old.ndim(); ++d) {
    fits = !old.dim_known(d) || !rows.dim_known(d) || old[d] == rows[d];
  }
  if (fits && old.dim_known(0) && rows.dim_known(0)) fits = rows[0] <= old[0];
  if (!fits) {
    return absl::InvalidArgumentError(absl::StrCat(
        "new_tensor ", rows.ToString(), " does not fit old_tensor ", old.ToString(),
        ": it needs old_tensor's ndim and dims after the first, and at most its rows"));
  }
  if (rows.dim_known(0)) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{rows[0]}, "input index_vector"));
  }
  return absl::OkStatus();
}

std::vector<NodeEntry> IndexCopyGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}, NodeEntry{}, NodeEntry{}};
  const std::string& name = node->attrs.name;
  const NodeEntry& idx = node->inputs[1];
  NodeEntry zeros = MakeZerosLike(node->inputs[2], name + "_new_zeros");
  return {MakeInternalEntry("_contrib_index_copy", name + "_old_backward", {og[0], idx, zeros}),
          NodeEntry{}, MakeInternalEntry("take", name + "_new_backward", {og[0], idx})};
}

SYMX_REGISTER_OP("_contrib_index_copy")
    .Describe("old_tensor with rows index_vector[i] (axis 0) replaced by row i of new_tensor.")
    .SetIndexInputs({1})
    .SetInputNames({"old_tensor", "index_vector", "new_tensor"})
    .SetInferShape(IndexCopyShape)
    .SetInferType([](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
      return SameTypeExcept(in, out, {1});
    })
    .SetGradient(IndexCopyGradient);

// ----------------------------------------------------------------------------- legacy row fills

absl::Status AllFloat32(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  for (size_t i = 0; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignType(in, i, DType::kFloat32, absl::StrCat("input ", i)));
  }
  return AssignType(out, 0, DType::kFloat32, "output");
}

// matrix (N, M) and vectors (N,) at `vectors`; the output is the matrix's shape.
absl::Status RowFillShape(std::vector<Shape>* in, std::vector<Shape>* out, size_t matrix,
                          const std::vector<size_t>& vectors) {
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[matrix], "output"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, matrix, (*out)[0], absl::StrCat("input ", matrix)));
  const Shape& m = (*in)[matrix];
  if (m.ndim_known() && m.ndim() != 2) {
    return ShapeError(absl::StrCat("input ", matrix), m, "2 dims (N, M)");
  }
  for (size_t v : vectors) {
    const Shape& s = (*in)[v];
    if (s.ndim_known() && s.ndim() != 1) {
      return ShapeError(absl::StrCat("input ", v), s, "1 dim (N,)");
    }
    if (m.ndim_known()) {
      SYMX_RETURN_IF_ERROR(AssignShape(in, v, Shape{m[0]}, absl::StrCat("input ", v)));
    }
  }
  return absl::OkStatus();
}

SYMX_REGISTER_OP("fill_element_0index")
    .Describe("lhs (N, M) with out[i, rhs[i]] = mhs[i] (MXNet's legacy NDArray function).")
    .SetIndexInputs({2})
    .SetInputNames({"lhs", "mhs", "rhs"})
    .SetInferShape([](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
      return RowFillShape(in, out, 0, {1, 2});
    })
    .SetInferType(AllFloat32)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_onehot_encode")
    .Describe("Zeros of rhs's (N, M) shape with out[i, lhs[i]] = 1 (MXNet's legacy one-hot).")
    .SetIndexInputs({0})
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape([](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
      return RowFillShape(in, out, 1, {0});
    })
    .SetInferType(AllFloat32)
    .SetNonDifferentiable();

}  // namespace
}  // namespace symx
