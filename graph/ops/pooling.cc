// Registers Pooling (max/avg/sum/lp over 1-D, 2-D and 3-D windows, channel-first data, plus
// global pooling), the legacy Pooling_v1 (2-D windows, MXNet's first rules), and their
// backward ops.
#include "graph/ops/pooling.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/ops/window.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

namespace {

absl::StatusOr<OpParamPtr> ParsePooling(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<PoolParam>();
  p->global_pool = r.Bool("global_pool", false);
  // Global pooling ignores the window, so MXNet lets it be omitted.
  p->kernel = nn_internal::ReadKernel(&r, /*required=*/!p->global_pool);
  const size_t n = p->kernel.size();
  p->pool_type = r.Enum("pool_type", {"max", "avg", "sum", "lp"}, "max");
  p->convention = r.Enum("pooling_convention", {"valid", "full", "same"}, "valid");
  if (n > 0) {
    p->stride = nn_internal::ReadWindowTuple(&r, "stride", n, 1, 1);
    p->pad = nn_internal::ReadWindowTuple(&r, "pad", n, 0, 0);
  } else {
    // Without a kernel there is nothing to check them against; they only need to parse.
    r.Tuple("stride", {});
    r.Tuple("pad", {});
  }
  p->p_value = r.OptionalInt("p_value");
  if (p->pool_type == "lp" && !p->p_value) {
    r.Fail("p_value", "required when pool_type is lp");
  } else if (p->p_value && *p->p_value < 1) {
    r.Fail("p_value", "must be >= 1");
  }
  if (r.String("count_include_pad", "None") != "None") {
    p->count_include_pad = r.Bool("count_include_pad", true);
  }
  p->cudnn_off = r.Bool("cudnn_off", false);
  p->layout = nn_internal::ReadLayout(&r, n);
  if (p->convention == "same" && !p->global_pool) {
    if (n > 1) r.Fail("pooling_convention", "'same' supports only 1-D pooling");
    for (int64_t x : p->pad) {
      if (x != 0) r.Fail("pad", "must be 0 with pooling_convention 'same'");
    }
  }
  return r.Finish(std::move(p));
}

absl::Status PoolingInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out) {
  const PoolParam& p = Param<PoolParam>(attrs);
  const int n = static_cast<int>(p.kernel.size());
  // Global pooling accepts any 1-D to 3-D data unless the layout pins the rank.
  int nd = 0;
  if (!p.global_pool) {
    nd = n + 2;
  } else if (nn_internal::LayoutSpatialDims(p.layout) > 0) {
    nd = nn_internal::LayoutSpatialDims(p.layout) + 2;
  }
  const std::pair<const Shape*, const char*> slots[] = {{&(*in)[0], "input data"},
                                                        {&(*out)[0], "output"}};
  for (const auto& [shape, what] : slots) {
    if (nd > 0) {
      SYMX_RETURN_IF_ERROR(nn_internal::CheckWindowInputNdim(*shape, nd, what));
    } else if (shape->ndim_known() && (shape->ndim() < 3 || shape->ndim() > 5)) {
      return ShapeError(what, *shape, "3 to 5 dims (batch, channel, spatial...)");
    }
  }
  if (!(*in)[0].ndim_known() && !(*out)[0].ndim_known()) return absl::OkStatus();
  const int ndim = (*in)[0].ndim_known() ? (*in)[0].ndim() : (*out)[0].ndim();

  // Batch and channels pass through unchanged in both directions. Only unknown data dims
  // are filled, so that a conflict is reported on the output.
  Shape from_back = (*in)[0].ndim_known() ? (*in)[0] : Shape::UnknownDims(ndim);
  if ((*out)[0].ndim() == ndim) {
    for (int d : {0, 1}) {
      if (from_back[d] == kUnknownDim) from_back[d] = (*out)[0][d];
    }
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, from_back, "input data"));
  const Shape data = (*in)[0];

  Shape result = Shape::UnknownDims(ndim);
  result[0] = data[0];
  result[1] = data[1];
  for (int i = 0; i + 2 < ndim; ++i) {
    if (p.global_pool) {
      result[2 + i] = 1;
      continue;
    }
    int64_t x = data[2 + i];
    if (x == kUnknownDim) continue;
    if (x < 0) return ShapeError("input data", data, "non-negative dims");
    absl::StatusOr<int64_t> size = nn_internal::SlidingWindowOutput(
        x, p.kernel[i], p.pad[i], p.stride[i], p.convention == "full", i, data, "Pooling");
    if (!size.ok()) return size.status();
    if (p.convention == "same") {
      // The output covers the input with ceil(x / stride) windows (pad is 0 here).
      *size = static_cast<int64_t>((absl::int128(x) + p.stride[i] - 1) / p.stride[i]);
    }
    result[2 + i] = *size;
  }
  return AssignShape(out, 0, result, "output");
}

std::vector<NodeEntry> PoolingGradient(const NodePtr& node, const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  return MakeBackwardNode("_backward_Pooling", node, {ograds[0], node->inputs[0], Out(node)});
}

SYMX_REGISTER_OP("Pooling")
    .Describe(
        "Max, average, sum or Lp pooling over the spatial dims of (batch, channel, "
        "spatial...) data; global_pool pools each whole feature map to size 1.")
    .SetParse(ParsePooling)
    .SetInferShape(PoolingInferShape)
    .SetGradient(PoolingGradient);

Op& backward_pooling_registration =
    RegisterBackwardOp("_backward_Pooling", ParsePooling, {"ograd", "data", "output"},
                       [](const NodeAttrs&) { return 1; });

absl::StatusOr<OpParamPtr> ParsePoolingV1(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<PoolV1Param>();
  p->global_pool = r.Bool("global_pool", false);
  const std::vector<int64_t> kernel = nn_internal::ReadKernel(&r, /*required=*/false);
  p->pool_type = r.Enum("pool_type", {"max", "avg", "sum"}, "max");
  p->full = r.Enum("pooling_convention", {"valid", "full"}, "valid") == "full";
  // MXNet 1.9.1 runs Pooling_v1 on 2-D windows only (its 1-D and 3-D paths fail
  // inside the operator); global pooling may omit the kernel.
  if (!kernel.empty() && kernel.size() != 2) {
    r.Fail("kernel", "Pooling_v1 takes a 2-D kernel (h, w)");
  } else if (kernel.empty() && !p->global_pool) {
    r.Fail("kernel", "required unless global_pool is true");
  }
  const std::vector<int64_t> stride = nn_internal::ReadWindowTuple(&r, "stride", 2, 1, 1);
  const std::vector<int64_t> pad = nn_internal::ReadWindowTuple(&r, "pad", 2, 0, 0);
  for (int d = 0; d < 2; ++d) {
    if (kernel.size() == 2) p->kernel[d] = kernel[d];
    if (stride.size() == 2) p->stride[d] = stride[d];
    if (pad.size() == 2) p->pad[d] = pad[d];
  }
  return r.Finish(std::move(p));
}

absl::Status PoolingV1InferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  const PoolV1Param& p = Param<PoolV1Param>(attrs);
  const Shape& data = (*in)[0];
  SYMX_RETURN_IF_ERROR(nn_internal::CheckWindowInputNdim(data, 4, "input data"));
  if (!data.ndim_known()) return absl::OkStatus();
  Shape result = data;
  for (int d = 0; d < 2; ++d) {
    const int64_t x = data[2 + d];
    if (p.global_pool) {
      result[2 + d] = 1;
    } else if (x != kUnknownDim) {
      SYMX_ASSIGN_OR_RETURN(result[2 + d],
                            nn_internal::SlidingWindowOutput(x, p.kernel[d], p.pad[d], p.stride[d],
                                                             p.full, d, data, "Pooling_v1"));
    }
  }
  return AssignShape(out, 0, result, "output");
}

std::vector<NodeEntry> PoolingV1Gradient(const NodePtr& node,
                                         const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  return MakeBackwardNode("_backward_Pooling_v1", node, {ograds[0], node->inputs[0], Out(node)});
}

SYMX_REGISTER_OP("Pooling_v1")
    .Describe(
        "MXNet's legacy 2-D pooling (max, avg, sum) of (batch, channel, h, w) data: max sees the "
        "zero padding and avg divides by the whole kernel.")
    .SetParse(ParsePoolingV1)
    .SetInferShape(PoolingV1InferShape)
    .SetGradient(PoolingV1Gradient);

Op& backward_pooling_v1_registration =
    RegisterBackwardOp("_backward_Pooling_v1", ParsePoolingV1, {"ograd", "data", "output"},
                       [](const NodeAttrs&) { return 1; });

}  // namespace
}  // namespace symx
