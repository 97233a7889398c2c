// Registers Convolution and Deconvolution (1-D, 2-D and 3-D windows over channel-first data)
// and their backward ops. Window-parameter helpers are in window.h (shared with Pooling).
#include "graph/ops/convolution.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/ops/window.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

namespace {

using nn_internal::ReadWindowTuple;

absl::StatusOr<OpParamPtr> ParseConvCommon(const AttrMap& attrs, bool deconv) {
  ParamReader r(attrs);
  auto p = std::make_shared<ConvParam>();
  p->deconv = deconv;
  p->kernel = nn_internal::ReadKernel(&r, /*required=*/true);
  const size_t n = p->kernel.size();
  p->stride = ReadWindowTuple(&r, "stride", n, 1, 1);
  p->dilate = ReadWindowTuple(&r, "dilate", n, 1, 1);
  p->pad = ReadWindowTuple(&r, "pad", n, 0, 0);
  const int64_t max_value = nn_internal::MaxWindowValue();
  if (deconv) {
    p->adj = ReadWindowTuple(&r, "adj", n, 0, 0);
    std::vector<int64_t> target = r.Tuple("target_shape", {});
    bool any_set = false, all_set = !target.empty();
    for (int64_t t : target) {
      any_set |= t != 0;
      all_set &= t > 0 && t <= max_value;
    }
    // All zeros means "no target", as in MXNet.
    if (any_set) {
      if (!all_set || target.size() != n) {
        r.Fail("target_shape", absl::StrCat("expected ", n, " values in [1, ", max_value,
                                            "], one per kernel dimension, or all zeros for none"));
      } else {
        p->target_shape = target;
      }
    }
    if (p->target_shape.empty()) {
      for (size_t i = 0; i < n; ++i) {
        if (p->adj[i] >= p->stride[i]) {
          r.Fail("adj", "each value must be smaller than the stride in that dimension");
          break;
        }
      }
    }
  }
  p->num_filter = r.Int("num_filter");
  if (p->num_filter < 1 || p->num_filter > max_value) {
    r.Fail("num_filter", absl::StrCat("must be in [1, ", max_value, "]"));
    p->num_filter = 1;
  }
  p->num_group = r.Int("num_group", 1);
  if (p->num_group < 1 || p->num_group > max_value) {
    r.Fail("num_group", absl::StrCat("must be in [1, ", max_value, "]"));
    p->num_group = 1;
  } else if (p->num_filter % p->num_group != 0) {
    r.Fail("num_group",
           absl::StrCat("num_filter (", p->num_filter, ") must be divisible by num_group"));
  }
  p->workspace = r.Int("workspace", deconv ? 512 : 1024);
  if (p->workspace < 0 || p->workspace > 8192) r.Fail("workspace", "must be in [0, 8192] (MB)");
  p->no_bias = r.Bool("no_bias", deconv);
  p->cudnn_tune = r.Enum("cudnn_tune", {"None", "off", "limited_workspace", "fastest"}, "None");
  p->cudnn_off = r.Bool("cudnn_off", false);
  p->layout = nn_internal::ReadLayout(&r, n);
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseConvolution(const AttrMap& attrs) {
  return ParseConvCommon(attrs, false);
}
// MXNet's legacy Convolution_v1: Convolution's parameters, 2-D only (MXNet's
// kernel stops at "Volume convolution is not implemented" for 3-D).
absl::StatusOr<OpParamPtr> ParseConvolutionV1(const AttrMap& attrs) {
  SYMX_ASSIGN_OR_RETURN(OpParamPtr p, ParseConvCommon(attrs, false));
  const auto& conv = static_cast<const ConvParam&>(*p);
  if (conv.kernel.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid value for attribute 'kernel': \"", attrs.at("kernel"),
                     "\" (Convolution_v1 supports 2-D kernels only, as MXNet's; use Convolution)"));
  }
  return p;
}
absl::StatusOr<OpParamPtr> ParseDeconvolution(const AttrMap& attrs) {
  return ParseConvCommon(attrs, true);
}

std::vector<std::string> ConvInputNames(const NodeAttrs& attrs) {
  if (Param<ConvParam>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

int ConvNumGrads(const NodeAttrs& attrs) { return Param<ConvParam>(attrs).no_bias ? 2 : 3; }

// Largest value an int64 dim can take, for the int128 window arithmetic below.
constexpr int64_t kMaxDim = std::numeric_limits<int64_t>::max();

// Fills the unknown data dims recoverable from the output and the weight (batch, channels,
// and spatial sizes where the output size determines the input size exactly). Known dims are
// left alone so that a conflict is reported on the weight or output, not on the data.
absl::Status InferConvDataBackward(const ConvParam& p, const Shape& out, const Shape& weight,
                                   Shape* data) {
  const int n = static_cast<int>(p.kernel.size());
  if (weight.ndim() == n + 2) {
    int channel_dim = p.deconv ? 0 : 1;
    int64_t c = weight[channel_dim];
    // Convolution weights hold C/num_group input channels per filter.
    if (c != kUnknownDim && !p.deconv && __builtin_mul_overflow(c, p.num_group, &c)) {
      c = kUnknownDim;
    }
    if ((*data)[1] == kUnknownDim) (*data)[1] = c;
  }
  if (!out.ndim_known()) return absl::OkStatus();
  if ((*data)[0] == kUnknownDim) (*data)[0] = out[0];
  if (!p.target_shape.empty()) return absl::OkStatus();  // pad/adj depend on the input size
  for (int i = 0; i < n; ++i) {
    int64_t o = out[2 + i];
    if (o == kUnknownDim || (*data)[2 + i] != kUnknownDim) continue;
    absl::int128 x;
    if (!p.deconv) {
      if (p.stride[i] != 1) continue;  // a strided output size covers several input sizes
      x = absl::int128(o) - 1 + p.DilatedKernel(i) - 2 * absl::int128(p.pad[i]);
      if (x < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            p.op_name(), ": no input size produces output ", out.ToString(), " in spatial dim ", i,
            " (kernel ", p.kernel[i], ", dilate ", p.dilate[i], ", pad ", p.pad[i], ")"));
      }
    } else {
      absl::int128 num =
          absl::int128(o) - p.DilatedKernel(i) + 2 * absl::int128(p.pad[i]) - p.adj[i];
      if (num < 0 || num % p.stride[i] != 0) continue;
      x = num / p.stride[i] + 1;
    }
    if (x <= kMaxDim) (*data)[2 + i] = static_cast<int64_t>(x);
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> DeconvOutputSize(const ConvParam& p, int i, int64_t x, const Shape& data) {
  // Output length of the convolution whose gradient this is, before padding is removed.
  absl::int128 full = absl::int128(p.stride[i]) * (absl::int128(x) - 1) + p.DilatedKernel(i);
  absl::int128 result;
  if (!p.target_shape.empty()) {
    // MXNet's rule: pad/adj are chosen so that the output is exactly the target.
    int64_t target = p.target_shape[i];
    if (full < target) {
      return absl::InvalidArgumentError(
          absl::StrCat("Deconvolution: target_shape ", target, " in spatial dim ", i,
                       " is larger than the largest output ", static_cast<int64_t>(full),
                       " for data ", data.ToString()));
    }
    absl::int128 diff = full - target;
    if (diff % 2 >= p.stride[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("Deconvolution: target_shape ", target, " in spatial dim ", i,
                       " needs an output adjustment of 1, which stride ", p.stride[i],
                       " does not allow, for data ", data.ToString()));
    }
    result = target;
  } else {
    result = full - 2 * absl::int128(p.pad[i]) + p.adj[i];
  }
  if (result > kMaxDim) {
    return absl::InvalidArgumentError(absl::StrCat("Deconvolution: output size in spatial dim ", i,
                                                   " is too large for data ", data.ToString()));
  }
  if (result < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Deconvolution: output size ", static_cast<int64_t>(result), " in spatial dim ", i,
        " is invalid for data ", data.ToString(), " (kernel ", p.kernel[i], ", stride ",
        p.stride[i], ", dilate ", p.dilate[i], ", pad ", p.pad[i], ", adj ", p.adj[i], ")"));
  }
  return static_cast<int64_t>(result);
}

absl::Status ConvInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const ConvParam& p = Param<ConvParam>(attrs);
  const int n = static_cast<int>(p.kernel.size());
  const int nd = n + 2;
  SYMX_RETURN_IF_ERROR(nn_internal::CheckWindowInputNdim((*in)[0], nd, "input data"));
  SYMX_RETURN_IF_ERROR(nn_internal::CheckWindowInputNdim((*out)[0], nd, "output"));
  // Like MXNet, nothing is inferred until the data's rank is known from data or output.
  if (!(*in)[0].ndim_known() && !(*out)[0].ndim_known()) return absl::OkStatus();

  Shape from_back = (*in)[0].ndim_known() ? (*in)[0] : Shape::UnknownDims(nd);
  SYMX_RETURN_IF_ERROR(InferConvDataBackward(p, (*out)[0], (*in)[1], &from_back));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, from_back, "input data"));
  const Shape data = (*in)[0];

  const int64_t c = data[1];
  if (c != kUnknownDim && c % p.num_group != 0) {
    return absl::InvalidArgumentError(absl::StrCat(p.op_name(), ": data channels ", c,
                                                   " are not divisible by num_group ", p.num_group,
                                                   " (data ", data.ToString(), ")"));
  }
  Shape weight = Shape::UnknownDims(nd);
  if (p.deconv) {
    weight[0] = c;
    weight[1] = p.num_filter / p.num_group;
  } else {
    weight[0] = p.num_filter;
    weight[1] = c == kUnknownDim ? kUnknownDim : c / p.num_group;
  }
  for (int i = 0; i < n; ++i) weight[2 + i] = p.kernel[i];
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, weight, "input weight"));
  if (!p.no_bias) SYMX_RETURN_IF_ERROR(AssignShape(in, 2, Shape{p.num_filter}, "input bias"));

  Shape result = Shape::UnknownDims(nd);
  result[0] = data[0];
  result[1] = p.num_filter;
  for (int i = 0; i < n; ++i) {
    int64_t x = data[2 + i];
    if (p.deconv && !p.target_shape.empty()) {
      result[2 + i] = p.target_shape[i];  // the target holds whatever the input size is
    }
    if (x == kUnknownDim) continue;
    if (x < 0) return ShapeError("input data", data, "non-negative dims");
    absl::StatusOr<int64_t> size =
        p.deconv ? DeconvOutputSize(p, i, x, data)
                 : nn_internal::SlidingWindowOutput(x, p.DilatedKernel(i), p.pad[i], p.stride[i],
                                                    false, i, data, p.op_name());
    if (!size.ok()) return size.status();
    result[2 + i] = *size;
  }
  return AssignShape(out, 0, result, "output");
}

std::vector<NodeEntry> ConvGradient(const NodePtr& node, const std::vector<NodeEntry>& ograds) {
  // Every input gradient is linear in the output gradient.
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  const char* backward =
      Param<ConvParam>(node->attrs).deconv ? "_backward_Deconvolution" : "_backward_Convolution";
  return MakeBackwardNode(backward, node, {ograds[0], node->inputs[0], node->inputs[1]});
}

SYMX_REGISTER_OP("Convolution")
    .Describe(
        "N-D convolution over (batch, channel, spatial...) data: out = conv(data, "
        "weight) + bias, weight (num_filter, C/num_group, *kernel).")
    .SetParse(ParseConvolution)
    .SetInputNames(ConvInputNames)
    .SetInferShape(ConvInferShape)
    .SetGradient(ConvGradient);

SYMX_REGISTER_OP("Convolution_v1")
    .Describe("MXNet's legacy 2-D convolution: Convolution with a 2-D kernel.")
    .SetParse(ParseConvolutionV1)
    .SetInputNames(ConvInputNames)
    .SetInferShape(ConvInferShape)
    .SetGradient(ConvGradient);

SYMX_REGISTER_OP("Deconvolution")
    .Describe(
        "Transposed convolution (the gradient of Convolution with respect to its "
        "data), weight (C, num_filter/num_group, *kernel).")
    .SetParse(ParseDeconvolution)
    .SetInputNames(ConvInputNames)
    .SetInferShape(ConvInferShape)
    .SetGradient(ConvGradient);

Op& backward_convolution_registration = RegisterBackwardOp(
    "_backward_Convolution", ParseConvolution, {"ograd", "data", "weight"}, ConvNumGrads);
Op& backward_deconvolution_registration = RegisterBackwardOp(
    "_backward_Deconvolution", ParseDeconvolution, {"ograd", "data", "weight"}, ConvNumGrads);

}  // namespace
}  // namespace symx
