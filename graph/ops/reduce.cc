// Axis reductions: sum (sum_axis), mean, max (max_axis), min (min_axis), prod,
// nansum, nanprod, norm, moments and their backward ops.
//
// Output shapes follow MXNet 1.x's legacy (non-numpy) rules:
// - axis None or () reduces every axis, whatever `exclude` says, giving (1,)
//   or, with keepdims, all ones;
// - `exclude` reduces every axis NOT listed;
// - reducing all listed axes without keepdims still gives (1,), never ().
// Axes may be negative; out-of-range or repeated axes are errors. Dims that
// survive the reduction are also filled back from the output into the input.
#include "graph/ops/reduce.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {

absl::StatusOr<std::vector<bool>> ReducedAxes(const ReduceParam& p, int ndim) {
  if (!p.axis.has_value() || p.axis->empty()) return std::vector<bool>(ndim, true);
  std::vector<bool> listed(ndim, false);
  for (int64_t a : *p.axis) {
    int axis = 0;
    SYMX_RETURN_IF_ERROR(NormalizeAxis(a, ndim, "axis", &axis));
    if (listed[axis]) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis (", absl::StrJoin(*p.axis, ", "), ") names axis ", axis,
                       " more than once (input has ", ndim, " dimensions)"));
    }
    listed[axis] = true;
  }
  if (p.exclude) listed.flip();
  return listed;
}

namespace {

absl::StatusOr<OpParamPtr> ParseReduce(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ReduceParam>();
  p->axis = r.OptionalTuple("axis");
  p->keepdims = r.Bool("keepdims", false);
  p->exclude = r.Bool("exclude", false);
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseNorm(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<NormParam>();
  p->ord = static_cast<int>(r.Int("ord", 2));
  if (p->ord != 1 && p->ord != 2) {
    r.Fail("ord", "norm supports ord 1 and 2 only");
  }
  p->axis = r.OptionalTuple("axis");
  p->out_dtype = r.OptionalDtype("out_dtype");
  if (p->out_dtype) {
    switch (*p->out_dtype) {
      case DType::kFloat16:
      case DType::kFloat32:
      case DType::kFloat64:
      case DType::kInt32:
      case DType::kInt64:
      case DType::kInt8:
        break;
      default:
        r.Fail("out_dtype", "expected None, float16, float32, float64, int32, int64 or int8");
    }
  }
  p->keepdims = r.Bool("keepdims", false);
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseMoments(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<MomentsParam>();
  p->axis = r.OptionalTuple("axes");
  if (!p->axis || p->axis->empty()) {
    r.Fail("axes",
           "is empty or None; moments needs the axes to reduce (all of them for global "
           "moments)");
  }
  p->keepdims = r.Bool("keepdims", false);
  return r.Finish(std::move(p));
}

absl::Status ReduceShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ReduceParam& p = Param<ReduceParam>(attrs);
  const Shape& data = (*in)[0];
  // Without the input's ndim the reduced axes (negative ones, exclude) are
  // unknown, so nothing can be said in either direction.
  if (!data.ndim_known()) return absl::OkStatus();
  const int ndim = data.ndim();
  SYMX_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedAxes(p, ndim));

  // kept[k] = the input axis that output axis k carries.
  std::vector<int> kept;
  std::vector<int64_t> dims;
  for (int i = 0; i < ndim; ++i) {
    if (p.keepdims) {
      if (!reduced[i]) kept.push_back(i);
      dims.push_back(reduced[i] ? 1 : data[i]);
    } else if (!reduced[i]) {
      kept.push_back(i);
      dims.push_back(data[i]);
    }
  }
  if (!p.keepdims && dims.empty()) dims.push_back(1);
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape(dims), "output"));

  const Shape& result = (*out)[0];
  Shape filled = data;
  for (size_t k = 0; k < kept.size(); ++k) {
    int out_axis = p.keepdims ? kept[k] : static_cast<int>(k);
    filled[kept[k]] = result[out_axis];
  }
  return AssignShape(in, 0, filled, "input data");
}

// max and min have no identity element, so a known-empty input is rejected as
// MXNet does.
absl::Status RejectEmpty(const Shape& filled, const char* op) {
  for (int i = 0; i < filled.ndim(); ++i) {
    if (filled[i] == 0) {
      return ShapeError("input data", filled,
                        absl::StrCat("a non-empty array to take ", op, " of"));
    }
  }
  return absl::OkStatus();
}

absl::Status ReduceMaxShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(ReduceShape(attrs, in, out));
  return RejectEmpty((*in)[0], "max");
}

absl::Status ReduceMinShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(ReduceShape(attrs, in, out));
  return RejectEmpty((*in)[0], "min");
}

// mean and var have the reduced shape.
absl::Status MomentsShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*out)[1], "mean"));
  SYMX_RETURN_IF_ERROR(ReduceShape(attrs, in, out));
  return AssignShape(out, 1, (*out)[0], "var");
}

// The output is out_dtype when given, else the input's dtype (both ways).
absl::Status NormType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const NormParam& p = Param<NormParam>(attrs);
  if (p.out_dtype) return AssignType(out, 0, *p.out_dtype, "output");
  SYMX_RETURN_IF_ERROR(AssignType(out, 0, (*in)[0], "output"));
  return AssignType(in, 0, (*out)[0], "input data");
}

int OneGrad(const NodeAttrs&) { return 1; }

std::vector<NodeEntry> SumGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode("_backward_sum", n, {og[0]});
}

std::vector<NodeEntry> MeanGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode("_backward_mean", n, {og[0]});
}

// Gradients that read the input and the (un-broadcast) output: max and min
// (the positions equal to the result), prod and nanprod (out / x), nansum (the
// non-NaN positions), norm (sign(x) or x / out).
template <const char* kBackward>
std::vector<NodeEntry> InOutGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode(kBackward, n, {og[0], n->inputs[0], Out(n)});
}

constexpr char kBackwardMax[] = "_backward_max";
constexpr char kBackwardMin[] = "_backward_min";
constexpr char kBackwardProd[] = "_backward_prod";
constexpr char kBackwardNansum[] = "_backward_nansum";
constexpr char kBackwardNanprod[] = "_backward_nanprod";
constexpr char kBackwardNorm[] = "_backward_norm";

SYMX_REGISTER_OP("sum")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Sum over the given axes.")
    .AddAlias("sum_axis")
    .SetParse(ParseReduce)
    .SetInputNames({"data"})
    .SetInferShape(ReduceShape)
    .SetGradient(SumGradient);

SYMX_REGISTER_OP("mean")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Mean over the given axes.")
    .SetParse(ParseReduce)
    .SetInputNames({"data"})
    .SetInferShape(ReduceShape)
    .SetGradient(MeanGradient);

SYMX_REGISTER_OP("max")
    .Describe("Maximum over the given axes.")
    .AddAlias("max_axis")
    .SetParse(ParseReduce)
    .SetInputNames({"data"})
    .SetInferShape(ReduceMaxShape)
    .SetGradient(InOutGradient<kBackwardMax>);

SYMX_REGISTER_OP("min")
    .Describe("Minimum over the given axes.")
    .AddAlias("min_axis")
    .SetParse(ParseReduce)
    .SetInputNames({"data"})
    .SetInferShape(ReduceMinShape)
    .SetGradient(InOutGradient<kBackwardMin>);

// An empty reduction gives the identity (1 for the products, 0 for nansum).
// MXNet's prod gradient is out / x, so NaN (0 / 0) at a zero input of a
// product that is zero; nanprod's and nansum's skip the NaN inputs.
SYMX_REGISTER_OP("prod")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Product over the given axes.")
    .SetParse(ParseReduce)
    .SetInputNames({"data"})
    .SetInferShape(ReduceShape)
    .SetGradient(InOutGradient<kBackwardProd>);

SYMX_REGISTER_OP("nansum")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Sum over the given axes, NaN counted as zero.")
    .SetParse(ParseReduce)
    .SetInputNames({"data"})
    .SetInferShape(ReduceShape)
    .SetGradient(InOutGradient<kBackwardNansum>);

SYMX_REGISTER_OP("nanprod")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Product over the given axes, NaN counted as one.")
    .SetParse(ParseReduce)
    .SetInputNames({"data"})
    .SetInferShape(ReduceShape)
    .SetGradient(InOutGradient<kBackwardNanprod>);

// The 1-norm (sum of |x|) or 2-norm over the given axes; over all axes the
// output is (1,). The gradients are MXNet's: ograd * sign(x) for ord 1,
// ograd * x / norm for ord 2 (NaN where the norm is 0).
SYMX_REGISTER_OP("norm")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The 1- or 2-norm over the given axes.")
    .SetParse(ParseNorm)
    .SetInputNames({"data"})
    .SetInferShape(ReduceShape)
    .SetInferType(NormType)
    .SetGradient(InOutGradient<kBackwardNorm>);

// _backward_moments(ograd_mean, ograd_var, data, mean, var), a zero head
// gradient filled in as MXNet does.
std::vector<NodeEntry> MomentsGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node && !og[1].node) return ZeroGradient(n, og);
  std::vector<NodeEntry> g = FillZeroGrads(n, og);
  return MakeBackwardNode("_backward_moments", n, {g[0], g[1], n->inputs[0], Out(n, 0), Out(n, 1)});
}

// The mean and the (population) variance over `axes`.
SYMX_REGISTER_OP("moments")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The mean and variance over the given axes.")
    .SetParse(ParseMoments)
    .SetInputNames({"data"})
    .SetOutputNames({"output0", "output1"})
    .SetInferShape(MomentsShape)
    .SetGradient(MomentsGradient);

[[maybe_unused]] const bool kBackwardOpsRegistered = [] {
  RegisterBackwardOp("_backward_sum", ParseReduce, {"ograd"}, OneGrad);
  RegisterBackwardOp("_backward_mean", ParseReduce, {"ograd"}, OneGrad);
  for (const char* name :
       {kBackwardMax, kBackwardMin, kBackwardProd, kBackwardNansum, kBackwardNanprod}) {
    RegisterBackwardOp(name, ParseReduce, {"ograd", "data", "output"}, OneGrad);
  }
  RegisterBackwardOp(kBackwardNorm, ParseNorm, {"ograd", "data", "output"}, OneGrad);
  RegisterBackwardOp("_backward_moments", ParseMoments,
                     {"ograd_mean", "ograd_var", "data", "mean", "var"}, OneGrad);
  return true;
}();

}  // namespace
}  // namespace symx
