// Registers the deformable convolutions of MXNet 1.9.1 (2-D, NCHW) and their
// backward ops. Facts checked against MXNet 1.9.1's sources and a live MXNet:
// - _contrib_DeformableConvolution: data (N, C, H, W), offset
//   (N, 2 * kh * kw * dg, Ho, Wo), weight (F, C / G, kh, kw), bias (F), dg =
//   num_deformable_group, G = num_group; output (N, F, Ho, Wo) with the
//   convolution's sizes. Tap (i, j) of output pixel (y, x) for a channel of
//   deformable group d reads the data at
//     h = y * stride_h - pad_h + i * dilate_h + offset[d, 2 * (i * kw + j), y, x]
//     w = x * stride_w - pad_w + j * dilate_w + offset[d, 2 * (i * kw + j) + 1, y, x]
//   bilinearly, and 0 unless 0 <= h < H and 0 <= w < W; a sample in the last
//   row (column) reads that row (column) alone (MXNet clamps its far corner).
// - _contrib_ModulatedDeformableConvolution (DCNv2): the same plus a mask
//   (N, kh * kw * dg, Ho, Wo) multiplying each tap's sample; a sample counts
//   when -1 < h < H and -1 < w < W and its corners outside the image read 0.
//   A batch larger than im2col_step must be a multiple of it (MXNet's check;
//   the step does not change the results).
// - Gradients for data, offset, [mask], weight and [bias], as MXNet's: the
//   exact derivatives of the sampling above (zero where a sample reads 0).
//   MXNet's CPU runs no backward of the modulated op ("only implemented in
//   GPU"); symx runs its GPU semantics on both devices. float16, float32 and
//   float64, as MXNet's type inference (MXNet's CPU cannot multiply float16;
//   symx's CPU widens it to float32).
#include "graph/ops/deformable.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

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

using nn_internal::ReadWindowTuple;

absl::StatusOr<OpParamPtr> ParseDeformable(const AttrMap& attrs, bool modulated) {
  ParamReader r(attrs);
  auto p = std::make_shared<DeformableConvParam>();
  p->modulated = modulated;
  const std::vector<int64_t> kernel = nn_internal::ReadKernel(&r, /*required=*/true);
  if (kernel.size() == 2) {
    p->kernel_h = kernel[0];
    p->kernel_w = kernel[1];
  } else if (attrs.count("kernel")) {
    r.Fail("kernel", absl::StrCat("'", attrs.at("kernel"),
                                  "': must have 2 values (kernel height, kernel width); MXNet "
                                  "implements only 2-D deformable convolutions"));
  }
  const size_t n = 2;
  const std::vector<int64_t> stride = ReadWindowTuple(&r, "stride", n, 1, 1);
  const std::vector<int64_t> dilate = ReadWindowTuple(&r, "dilate", n, 1, 1);
  const std::vector<int64_t> pad = ReadWindowTuple(&r, "pad", n, 0, 0);
  if (stride.size() == 2) {
    p->stride_h = stride[0];
    p->stride_w = stride[1];
  }
  if (dilate.size() == 2) {
    p->dilate_h = dilate[0];
    p->dilate_w = dilate[1];
  }
  if (pad.size() == 2) {
    p->pad_h = pad[0];
    p->pad_w = pad[1];
  }
  const int64_t max_value = nn_internal::MaxWindowValue();
  p->num_filter = r.Int("num_filter");
  if (p->num_filter < 1 || p->num_filter > max_value) {
    r.Fail("num_filter", absl::StrCat(p->num_filter, ": must be in [1, ", max_value, "]"));
    p->num_filter = 1;
  }
  p->num_group = r.Int("num_group", 1);
  if (p->num_group < 1 || p->num_group > max_value) {
    r.Fail("num_group", absl::StrCat(p->num_group, ": must be in [1, ", max_value, "]"));
    p->num_group = 1;
  } else if (p->num_filter % p->num_group != 0) {
    r.Fail("num_group", absl::StrCat(p->num_group, ": num_filter (", p->num_filter,
                                     ") must be divisible by num_group"));
  }
  p->num_deformable_group = r.Int("num_deformable_group", 1);
  if (p->num_deformable_group < 1 || p->num_deformable_group > max_value) {
    r.Fail("num_deformable_group",
           absl::StrCat(p->num_deformable_group, ": must be in [1, ", max_value, "]"));
    p->num_deformable_group = 1;
  } else if (modulated && p->num_filter % p->num_deformable_group != 0) {
    r.Fail("num_deformable_group",
           absl::StrCat(p->num_deformable_group, ": num_filter (", p->num_filter,
                        ") must be divisible by num_deformable_group (MXNet's check)"));
  }
  p->workspace = r.Int("workspace", 1024);
  if (p->workspace < 0) r.Fail("workspace", absl::StrCat(p->workspace, ": must be >= 0 (MB)"));
  p->no_bias = r.Bool("no_bias", false);
  if (modulated) {
    p->im2col_step = r.Int("im2col_step", 64);
    if (p->im2col_step < 1) {
      r.Fail("im2col_step", absl::StrCat(p->im2col_step, ": must be >= 1"));
      p->im2col_step = 1;
    }
  }
  p->layout = nn_internal::ReadLayout(&r, 2);
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseDeformableConv(const AttrMap& attrs) {
  return ParseDeformable(attrs, false);
}
absl::StatusOr<OpParamPtr> ParseModulatedDeformableConv(const AttrMap& attrs) {
  return ParseDeformable(attrs, true);
}

std::vector<std::string> DeformableInputNames(const NodeAttrs& attrs) {
  const auto& p = Param<DeformableConvParam>(attrs);
  std::vector<std::string> names = {"data", "offset"};
  if (p.modulated) names.push_back("mask");
  names.push_back("weight");
  if (!p.no_bias) names.push_back("bias");
  return names;
}

int DeformableNumGrads(const NodeAttrs& attrs) {
  return Param<DeformableConvParam>(attrs).num_inputs();
}

// One spatial output size: (x + 2 pad - dilated kernel) / stride + 1, >= 1.
absl::StatusOr<int64_t> OutputSize(const DeformableConvParam& p, int dim, const Shape& data) {
  const int64_t x = data[2 + dim];
  const int64_t k = dim == 0 ? p.kernel_h : p.kernel_w;
  const int64_t pad = dim == 0 ? p.pad_h : p.pad_w;
  const int64_t dilate = dim == 0 ? p.dilate_h : p.dilate_w;
  const int64_t stride = dim == 0 ? p.stride_h : p.stride_w;
  const int64_t span = dilate * (k - 1) + 1;
  if (x + 2 * pad < span) {
    return absl::InvalidArgumentError(absl::StrCat(
        p.op_name(), ": kernel ", k, " (dilate ", dilate, ", pad ", pad, ") exceeds input size ", x,
        " in spatial dim ", dim, " of data ", data.ToString()));
  }
  return (x + 2 * pad - span) / stride + 1;
}

absl::Status DeformableInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                  std::vector<Shape>* out) {
  const auto& p = Param<DeformableConvParam>(attrs);
  const char* names[] = {"input data", "input offset", "input mask"};
  const int maps = p.modulated ? 3 : 2;
  for (int i = 0; i < maps; ++i) {
    const Shape& s = (*in)[i];
    if (s.ndim_known() && s.ndim() != 4) {
      return ShapeError(names[i], s, "4 dims (batch, channel, height, width)");
    }
  }
  if ((*out)[0].ndim_known() && (*out)[0].ndim() != 4) {
    return ShapeError("output", (*out)[0], "4 dims (batch, num_filter, height, width)");
  }
  // The batch comes from any of data, offset, mask and output.
  int64_t batch = kUnknownDim;
  for (int i = 0; i < maps; ++i) {
    if ((*in)[i].ndim_known() && (*in)[i][0] != kUnknownDim) batch = (*in)[i][0];
  }
  if ((*out)[0].ndim_known() && (*out)[0][0] != kUnknownDim) batch = (*out)[0][0];
  if (!(*in)[0].ndim_known()) {
    if (batch != kUnknownDim) {
      SYMX_RETURN_IF_ERROR(
          AssignShape(in, 0, Shape{batch, kUnknownDim, kUnknownDim, kUnknownDim}, "input data"));
    }
    return absl::OkStatus();
  }
  Shape data = (*in)[0];
  if (data[0] == kUnknownDim) data[0] = batch;
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, data, "input data"));
  data = (*in)[0];
  const int64_t c = data[1];
  if (c != kUnknownDim) {
    if (c % p.num_group != 0) {
      return ShapeError("input data", data,
                        absl::StrCat("channels divisible by num_group = ", p.num_group));
    }
    if (c % p.num_deformable_group != 0) {
      return ShapeError(
          "input data", data,
          absl::StrCat("channels divisible by num_deformable_group = ", p.num_deformable_group));
    }
  }
  if (p.modulated && data[0] != kUnknownDim && data[0] > p.im2col_step &&
      data[0] % p.im2col_step != 0) {
    return ShapeError("input data", data,
                      absl::StrCat("a batch of at most im2col_step = ", p.im2col_step,
                                   " or a multiple of it (MXNet's check)"));
  }
  SYMX_RETURN_IF_ERROR(AssignShape(
      in, p.weight_input(),
      Shape{p.num_filter, c == kUnknownDim ? kUnknownDim : c / p.num_group, p.kernel_h, p.kernel_w},
      "input weight"));
  if (!p.no_bias) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, p.weight_input() + 1, Shape{p.num_filter}, "input bias"));
  }
  Shape result{data[0], p.num_filter, kUnknownDim, kUnknownDim};
  for (int dim = 0; dim < 2; ++dim) {
    if (data[2 + dim] == kUnknownDim) continue;
    SYMX_ASSIGN_OR_RETURN(result[2 + dim], OutputSize(p, dim, data));
  }
  const int64_t dg = p.num_deformable_group;
  SYMX_RETURN_IF_ERROR(
      AssignShape(in, 1, Shape{data[0], 2 * p.taps() * dg, result[2], result[3]}, "input offset"));
  if (p.modulated) {
    SYMX_RETURN_IF_ERROR(
        AssignShape(in, 2, Shape{data[0], p.taps() * dg, result[2], result[3]}, "input mask"));
  }
  return AssignShape(out, 0, result, "output");
}

std::vector<NodeEntry> DeformableGradient(const NodePtr& node,
                                          const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  const auto& p = Param<DeformableConvParam>(node->attrs);
  std::vector<NodeEntry> inputs = {ograds[0]};
  for (int i = 0; i <= p.weight_input(); ++i) inputs.push_back(node->inputs[i]);
  return MakeBackwardNode(
      p.modulated ? "_backward_ModulatedDeformableConvolution" : "_backward_DeformableConvolution",
      node, inputs);
}

std::vector<std::string> BackwardInputNames(const NodeAttrs& attrs) {
  if (Param<DeformableConvParam>(attrs).modulated) {
    return {"ograd", "data", "offset", "mask", "weight"};
  }
  return {"ograd", "data", "offset", "weight"};
}

}  // namespace

SYMX_REGISTER_OP("_contrib_DeformableConvolution")
    .Describe(
        "2-D convolution whose taps read the data at positions moved by `offset` (bilinear "
        "samples, 0 outside the image); weight (num_filter, C/num_group, kh, kw).")
    .SetParse(ParseDeformableConv)
    .SetInputNames(DeformableInputNames)
    .SetInferShape(DeformableInferShape)
    .SetGradient(DeformableGradient);

SYMX_REGISTER_OP("_contrib_ModulatedDeformableConvolution")
    .Describe(
        "Deformable convolution (DCNv2) whose moved samples are also scaled by `mask`; samples "
        "read 0 beyond the image's edge.")
    .SetParse(ParseModulatedDeformableConv)
    .SetInputNames(DeformableInputNames)
    .SetInferShape(DeformableInferShape)
    .SetGradient(DeformableGradient);

static Op& symx_backward_deformable_conv_registration =
    RegisterBackwardOp("_backward_DeformableConvolution", ParseDeformableConv, BackwardInputNames,
                       DeformableNumGrads)
        .Describe("Gradients of _contrib_DeformableConvolution: data, offset, weight, [bias].");
static Op& symx_backward_modulated_deformable_conv_registration =
    RegisterBackwardOp("_backward_ModulatedDeformableConvolution", ParseModulatedDeformableConv,
                       BackwardInputNames, DeformableNumGrads)
        .Describe(
            "Gradients of _contrib_ModulatedDeformableConvolution: data, offset, mask, weight, "
            "[bias].");

}  // namespace symx
