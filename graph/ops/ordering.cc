// Registers the ordering ops: sort, argsort, topk, argmax, argmin,
// argmax_channel, cumsum (canonical name _np_cumsum, as MXNet 1.9.1 writes it
// into symbol files) and the backward ops _backward_sort, _backward_topk and
// _backward_np_cumsum. Semantics follow MXNet 1.9.1 (checked against it):
//
// - sort/argsort/topk work along `axis` (None: the flattened array). k <= 0
//   means every element; k larger than the axis (or an empty axis) is an error.
//   Order: MXNet's CPU sort is not stable. It sorts the positions 0..n-1 of each
//   row with std::sort (std::partial_sort for topk when 8 k <= n) comparing values
//   with < (ascending) or > (descending); the kernels do exactly that, so ties
//   and NaNs come out in MXNet's order with the same C++ library (libstdc++).
// - sort has a hidden second output (the int64 positions) and topk with
//   ret_typ=value a hidden index output, as in MXNet, used by the gradient:
//   the output gradient is scattered back to the selected positions
//   (_backward_sort, _backward_topk). argsort, topk indices and mask give a
//   zero gradient.
// - argmax/argmin return the first index of the extreme value (NaN counts as
//   the extreme, as in numpy), in the data's dtype (MXNet 1.x). axis None
//   reduces the flattened array to (1,) (keepdims: all ones); an empty reduced
//   axis is an error. argmax_channel is argmax along axis 1. Not differentiable.
// - cumsum: axis None flattens; negative axes are accepted (MXNet 1.9.1 fails on
//   them, a bug). The output dtype is `dtype`, else the input's (bool -> int64);
//   each element is converted to the output dtype before it is added. The
//   gradient is the reverse cumulative sum (_backward_np_cumsum).
#include "graph/ops/ordering.h"

#include <algorithm>
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

const std::vector<std::string> kIndexDTypes = {"float16", "float32", "float64",
                                               "int32",   "int64",   "uint8"};

DType DTypeOf(const std::string& name) {
  absl::StatusOr<DType> d = ParseDType(name);
  return d.ok() ? *d : DType::kFloat32;
}

// ----------------------------------------------------------------------------- sort/argsort/topk

absl::StatusOr<OpParamPtr> ParseSort(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<TopKParam>();
  p->axis = r.OptionalInt("axis", -1);  // -1 when absent, None when "None"
  p->is_ascend = r.Bool("is_ascend", true);
  p->k = 0;
  p->ret = TopKReturn::kValue;
  p->dtype = DType::kInt64;  // the hidden positions
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseArgsort(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<TopKParam>();
  p->axis = r.OptionalInt("axis", -1);
  p->is_ascend = r.Bool("is_ascend", true);
  p->dtype = DTypeOf(r.Enum("dtype", kIndexDTypes, "float32"));
  p->k = 0;
  p->ret = TopKReturn::kIndices;
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseTopK(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<TopKParam>();
  p->axis = r.OptionalInt("axis", -1);
  p->k = r.Int("k", 1);
  const std::string ret = r.Enum("ret_typ", {"both", "indices", "mask", "value"}, "indices");
  p->ret = ret == "both"    ? TopKReturn::kBoth
           : ret == "mask"  ? TopKReturn::kMask
           : ret == "value" ? TopKReturn::kValue
                            : TopKReturn::kIndices;
  p->is_ascend = r.Bool("is_ascend", false);
  p->dtype = DTypeOf(r.Enum("dtype", kIndexDTypes, "float32"));
  return r.Finish(std::move(p));
}

// Outputs: value ops have the values and the positions (hidden for sort and
// topk value); index and mask ops have one output.
std::vector<std::string> TopKOutputNames(const NodeAttrs& attrs) {
  TopKReturn ret = Param<TopKParam>(attrs).ret;
  if (ret == TopKReturn::kValue || ret == TopKReturn::kBoth) return {"output0", "output1"};
  return {"output"};
}

int TopKVisible(const NodeAttrs& attrs) {
  return Param<TopKParam>(attrs).ret == TopKReturn::kBoth ? 2 : 1;
}

absl::Status TopKShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const TopKParam& p = Param<TopKParam>(attrs);
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  int axis = 0;
  if (p.axis.has_value()) {
    if (data.ndim() == 0) return ShapeError("input data", data, "at least 1 dim");
    SYMX_RETURN_IF_ERROR(NormalizeAxis(*p.axis, data.ndim(), "axis", &axis));
    if (!data.dim_known(axis)) return absl::OkStatus();
  } else if (!data.fully_known()) {
    return absl::OkStatus();
  }
  const int64_t n = p.axis.has_value() ? data[axis] : data.Size();
  const int64_t k = p.k <= 0 ? n : p.k;
  if (k < 1 || k > n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "k = ", p.k, " selects ", k, " elements but the ",
        p.axis.has_value() ? absl::StrCat("axis ", axis) : std::string("array"), " of data ",
        data.ToString(), " has ", n, " (k must be in [1, n], or <= 0 for all)"));
  }
  if (p.ret == TopKReturn::kMask) return AssignShape(out, 0, data, "output");
  Shape o = p.axis.has_value() ? data : Shape{k};
  if (p.axis.has_value()) o[axis] = k;
  for (size_t i = 0; i < out->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, i, o, absl::StrCat("output ", i)));
  }
  return absl::OkStatus();
}

absl::Status TopKType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const TopKParam& p = Param<TopKParam>(attrs);
  if (p.ret == TopKReturn::kIndices) return AssignType(out, 0, p.dtype, "output");
  // Values and masks have the data's dtype.
  if ((*in)[0] != DType::kUnknown) {
    SYMX_RETURN_IF_ERROR(AssignType(out, 0, (*in)[0], "output 0"));
  } else if ((*out)[0] != DType::kUnknown) {
    SYMX_RETURN_IF_ERROR(AssignType(in, 0, (*out)[0], "input data"));
  }
  if (out->size() > 1) SYMX_RETURN_IF_ERROR(AssignType(out, 1, p.dtype, "output 1"));
  return absl::OkStatus();
}

GradientFn ScatterBackGradient(std::string backward_op) {
  return [backward_op](const NodePtr& node, const std::vector<NodeEntry>& og) {
    const TopKParam& p = Param<TopKParam>(node->attrs);
    if (p.ret == TopKReturn::kIndices || p.ret == TopKReturn::kMask || !og[0].node) {
      return std::vector<NodeEntry>(node->inputs.size());
    }
    return MakeBackwardNode(backward_op, node, {og[0], Out(node, 1)});
  };
}

SYMX_REGISTER_OP("sort")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Sorts along `axis` (None: the flattened array).")
    .SetParse(ParseSort)
    .SetOutputNames({"output0", "output1"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    .SetInferShape(TopKShape)
    .SetInferType(TopKType)
    .SetGradient(ScatterBackGradient("_backward_sort"));

SYMX_REGISTER_OP("argsort")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The positions that sort the data along `axis`, as `dtype`.")
    .SetParse(ParseArgsort)
    .SetInferShape(TopKShape)
    .SetInferType(TopKType)
    .SetGradient(ZeroGradient);

SYMX_REGISTER_OP("topk")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The k largest (or smallest) elements along `axis`: values, indices, both or a mask.")
    .SetParse(ParseTopK)
    .SetOutputNames(TopKOutputNames)
    .SetNumVisibleOutputs(TopKVisible)
    .SetInferShape(TopKShape)
    .SetInferType(TopKType)
    .SetGradient(ScatterBackGradient("_backward_topk"));

Op& backward_sort_registration = RegisterBackwardOp(
    "_backward_sort", ParseSort, {"ograd", "indices"}, [](const NodeAttrs&) { return 1; });
Op& backward_topk_registration = RegisterBackwardOp(
    "_backward_topk", ParseTopK, {"ograd", "indices"}, [](const NodeAttrs&) { return 1; });

// ----------------------------------------------------------------------------- argmax/argmin

absl::StatusOr<OpParamPtr> ParseArgReduce(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ArgReduceParam>();
  p->axis = r.OptionalInt("axis");
  p->keepdims = r.Bool("keepdims", false);
  return r.Finish(std::move(p));
}

absl::Status ArgReduceShapeFor(std::optional<int64_t> axis_attr, bool keepdims,
                               std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  if (!axis_attr.has_value()) {
    if (data.fully_known() && data.Size() == 0) {
      return ShapeError("input data", data, "at least one element");
    }
    Shape o = keepdims ? Shape(std::vector<int64_t>(std::max(data.ndim(), 1), 1)) : Shape{1};
    return AssignShape(out, 0, o, "output");
  }
  if (data.ndim() == 0) return ShapeError("input data", data, "at least 1 dim");
  int axis = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(*axis_attr, data.ndim(), "axis", &axis));
  if (data[axis] == 0) {
    return absl::InvalidArgumentError(absl::StrCat("cannot take the arg-extreme of data ",
                                                   data.ToString(), " along empty axis ", axis));
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < data.ndim(); ++d) {
    if (d != axis) {
      dims.push_back(data[d]);
    } else if (keepdims) {
      dims.push_back(1);
    }
  }
  if (dims.empty()) dims.push_back(1);
  return AssignShape(out, 0, Shape(dims), "output");
}

absl::Status ArgReduceShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const ArgReduceParam& p = Param<ArgReduceParam>(attrs);
  return ArgReduceShapeFor(p.axis, p.keepdims, in, out);
}

absl::Status ArgmaxChannelShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& data = (*in)[0];
  if (data.ndim_known() && data.ndim() < 2) {
    return ShapeError("input data", data, "at least 2 dims (argmax along axis 1)");
  }
  return ArgReduceShapeFor(1, false, in, out);
}

SYMX_REGISTER_OP("argmax")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The index of the largest element along `axis` (None: flattened), first on ties.")
    .SetParse(ParseArgReduce)
    .SetInferShape(ArgReduceShape)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("argmin")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The index of the smallest element along `axis` (None: flattened), first on ties.")
    .SetParse(ParseArgReduce)
    .SetInferShape(ArgReduceShape)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("argmax_channel")
    .Describe("argmax along axis 1.")
    .SetInferShape(ArgmaxChannelShape)
    .SetNonDifferentiable();

// ----------------------------------------------------------------------------- cumsum

absl::StatusOr<OpParamPtr> ParseCumsum(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<CumsumParam>();
  p->axis = r.OptionalInt("axis");
  const std::string dt =
      r.Enum("dtype", {"None", "float16", "float32", "float64", "int32", "int64", "int8"}, "None");
  if (dt != "None") p->dtype = DTypeOf(dt);
  return r.Finish(std::move(p));
}

absl::Status CumsumShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const CumsumParam& p = Param<CumsumParam>(attrs);
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  if (!p.axis.has_value()) {
    if (!data.fully_known()) return absl::OkStatus();
    return AssignShape(out, 0, Shape{data.Size()}, "output");
  }
  if (data.ndim() == 0) return ShapeError("input a", data, "at least 1 dim when axis is given");
  int axis = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(*p.axis, data.ndim(), "axis", &axis));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, data, "output"));
  return AssignShape(in, 0, (*out)[0], "input a");
}

absl::Status CumsumType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const CumsumParam& p = Param<CumsumParam>(attrs);
  if (p.dtype.has_value()) return AssignType(out, 0, *p.dtype, "output");
  const DType t = (*in)[0];
  if (t == DType::kUnknown) return absl::OkStatus();
  return AssignType(out, 0, t == DType::kBool ? DType::kInt64 : t, "output");
}

SYMX_REGISTER_OP("_np_cumsum")
    .Describe("Cumulative sum along `axis` (None: the flattened array).")
    .AddAlias("cumsum")
    .SetParse(ParseCumsum)
    .SetInputNames({"a"})
    .SetInferShape(CumsumShape)
    .SetInferType(CumsumType)
    .SetGradient([](const NodePtr& node, const std::vector<NodeEntry>& og) {
      if (!og[0].node) return std::vector<NodeEntry>(node->inputs.size());
      return MakeBackwardNode("_backward_np_cumsum", node, {og[0]});
    });

Op& backward_cumsum_registration = RegisterBackwardOp("_backward_np_cumsum", ParseCumsum, {"ograd"},
                                                      [](const NodeAttrs&) { return 1; });

}  // namespace
}  // namespace symx
