// The spectral family: _contrib_fft and _contrib_ifft, MXNet's 1-D discrete
// Fourier transforms along the last axis, with complex values stored as
// interleaved (real, imaginary) pairs; and _contrib_count_sketch, the random
// projection compact bilinear pooling applies before its transforms.
//
// MXNet 1.9.1 runs them on the GPU only (its CPU kernel is a fatal error), so
// their facts come from its source (src/operator/contrib/fft-inl.h, ifft-inl.h):
// - fft: real data (..., d) -> (..., 2d), y_k = sum_j x_j exp(-2 pi i jk / d).
// - ifft: interleaved complex data (..., 2d) -> (..., d), the real part of the
//   unnormalized inverse transform (no division by d).
// - Each one's gradient is the other applied to the head gradient: fft's is the
//   real part of the unnormalized inverse transform of the gradient pairs,
//   ifft's the forward transform of the real gradient. Both are exact.
// - MXNet accepts 2-D and 4-D data (other ranks get no output shape); symx takes
//   any rank >= 1. float32 as MXNet (cuFFT's single-precision transform), and
//   float64 too.
// _contrib_count_sketch (src/operator/contrib/count_sketch-inl.h, also GPU-only
// in MXNet): out[r, h[i]] += s[i] * data[r, i] over the rows r of data (the
// last axis is i) with out_dim columns; h holds float indices (truncated), s
// the signs (any values). data's gradient is s[i] * ograd[r, h[i]]; MXNet
// leaves h's and s's gradients unwritten, symx gives them zero. An index
// outside [0, out_dim) is an error naming it (MXNet writes out of bounds).
#include "graph/ops/spectral.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseFft(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<FftParam>();
  p->compute_size = r.Int("compute_size", 128);
  if (p->compute_size < 1) {
    r.Fail("compute_size", absl::StrCat("must be >= 1, got ", p->compute_size));
  }
  return r.Finish(std::move(p));
}

// fft doubles the last dim (inverse: ifft halves it); unknown dims stay unknown.
absl::Status SpectralShape(const char* op, bool forward, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  Shape data = (*in)[0];
  const Shape& result = (*out)[0];
  if (!data.ndim_known() && result.ndim_known()) {
    data = result;
    int64_t& last = data[data.ndim() - 1];
    if (last != kUnknownDim) {
      if (forward && last % 2 != 0) {
        return ShapeError("output", result, absl::StrCat("an even last dim (", op, ")"));
      }
      last = forward ? last / 2 : last * 2;
    }
  }
  if (!data.ndim_known()) return absl::OkStatus();
  if (data.ndim() < 1) return ShapeError("data", data, absl::StrCat("1 or more dims (", op, ")"));
  const int64_t last = data[data.ndim() - 1];
  if (!forward && last != kUnknownDim && last % 2 != 0) {
    return ShapeError("data", data,
                      "an even last dim: interleaved (real, imaginary) pairs (_contrib_ifft)");
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, data, "data"));
  Shape o = data;
  if (last != kUnknownDim) o[o.ndim() - 1] = forward ? last * 2 : last / 2;
  return AssignShape(out, 0, o, "output");
}

absl::Status FftShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  return SpectralShape("_contrib_fft", true, in, out);
}

absl::Status IfftShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  return SpectralShape("_contrib_ifft", false, in, out);
}

absl::Status SpectralType(const char* op, std::vector<DType>* in, std::vector<DType>* out) {
  const DType t = (*in)[0] != DType::kUnknown ? (*in)[0] : (*out)[0];
  if (t == DType::kUnknown) return absl::OkStatus();
  if (t != DType::kFloat32 && t != DType::kFloat64) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": data of dtype ", DTypeName(t), " is not supported (float32, float64)"));
  }
  SYMX_RETURN_IF_ERROR(AssignType(in, 0, t, "data"));
  return AssignType(out, 0, t, "output");
}

absl::Status FftType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  return SpectralType("_contrib_fft", in, out);
}

absl::Status IfftType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  return SpectralType("_contrib_ifft", in, out);
}

// The gradient of each transform is the other one applied to the head
// gradient (see the file comment).
std::vector<NodeEntry> TransformOf(const char* op, const NodePtr& node,
                                   const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}};
  return {MakeInternalEntry(op, node->name() + "_backward", {og[0]}, node->attrs.dict)};
}

SYMX_REGISTER_OP("_contrib_fft")
    .Describe(
        "1-D discrete Fourier transform of real data along the last axis: (..., d) -> (..., 2d) "
        "interleaved (real, imaginary) pairs.")
    .SetParse(ParseFft)
    .SetInputNames({"data"})
    .SetInferShape(FftShape)
    .SetInferType(FftType)
    .SetGradient([](const NodePtr& node, const std::vector<NodeEntry>& og) {
      return TransformOf("_contrib_ifft", node, og);
    });

SYMX_REGISTER_OP("_contrib_ifft")
    .Describe(
        "Real part of the unnormalized 1-D inverse Fourier transform along the last axis of "
        "interleaved (real, imaginary) pairs: (..., 2d) -> (..., d).")
    .SetParse(ParseFft)
    .SetInputNames({"data"})
    .SetInferShape(IfftShape)
    .SetInferType(IfftType)
    .SetGradient([](const NodePtr& node, const std::vector<NodeEntry>& og) {
      return TransformOf("_contrib_fft", node, og);
    });

absl::StatusOr<OpParamPtr> ParseCountSketch(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<CountSketchParam>();
  p->out_dim = r.Int("out_dim");
  if (p->out_dim < 1) r.Fail("out_dim", absl::StrCat("must be >= 1, got ", p->out_dim));
  p->processing_batch_size = r.Int("processing_batch_size", 32);
  if (p->processing_batch_size < 1) {
    r.Fail("processing_batch_size", absl::StrCat("must be >= 1, got ", p->processing_batch_size));
  }
  return r.Finish(std::move(p));
}

absl::Status CountSketchShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  const auto& p = Param<CountSketchParam>(attrs);
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  if (data.ndim() < 1) return ShapeError("data", data, "1 or more dims (_contrib_count_sketch)");
  const int64_t d = data[data.ndim() - 1];
  // h and s: one entry per input column, as (1, d) (MXNet's layout) or (d).
  for (size_t i : {1, 2}) {
    const char* what = i == 1 ? "h" : "s";
    const Shape& v = (*in)[i];
    if (!v.ndim_known()) {
      SYMX_RETURN_IF_ERROR(AssignShape(in, i, Shape{1, d}, what));
    } else if (v.ndim() < 1 || v.ndim() > 2 || (v.ndim() == 2 && v[0] != 1) ||
               (d != kUnknownDim && v[v.ndim() - 1] != kUnknownDim && v[v.ndim() - 1] != d)) {
      return absl::InvalidArgumentError(
          absl::StrCat("_contrib_count_sketch: ", what, " of shape ", v.ToString(), " must be (1, ",
                       d == kUnknownDim ? std::string("d") : absl::StrCat(d),
                       ") for data of shape ", data.ToString()));
    }
  }
  Shape o = data;
  o[o.ndim() - 1] = p.out_dim;
  return AssignShape(out, 0, o, "output");
}

absl::Status CountSketchType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = DType::kUnknown;
  for (DType x : *in) {
    if (t == DType::kUnknown) t = x;
  }
  if (t == DType::kUnknown) t = (*out)[0];
  if (t == DType::kUnknown) return absl::OkStatus();
  if (t != DType::kFloat32 && t != DType::kFloat64) {
    return absl::InvalidArgumentError(absl::StrCat("_contrib_count_sketch: dtype ", DTypeName(t),
                                                   " is not supported (float32, float64)"));
  }
  const char* names[] = {"data", "h", "s"};
  for (size_t i = 0; i < in->size(); ++i) SYMX_RETURN_IF_ERROR(AssignType(in, i, t, names[i]));
  return AssignType(out, 0, t, "output");
}

std::vector<NodeEntry> CountSketchGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return std::vector<NodeEntry>(3);
  std::vector<NodeEntry> grads = MakeBackwardNode("_backward_contrib_count_sketch", node,
                                                  {og[0], node->inputs[1], node->inputs[2]});
  grads.push_back(MakeZerosLike(node->inputs[1], node->name() + "_h"));
  grads.push_back(MakeZerosLike(node->inputs[2], node->name() + "_s"));
  return grads;
}

SYMX_REGISTER_OP("_contrib_count_sketch")
    .Describe(
        "Count sketch of data's last axis: out[..., h[i]] += s[i] * data[..., i], out_dim "
        "columns.")
    .SetParse(ParseCountSketch)
    .SetInputNames({"data", "h", "s"})
    .SetInferShape(CountSketchShape)
    .SetInferType(CountSketchType)
    .SetGradient(CountSketchGradient);

// Inputs: ograd, h, s. Output: data's gradient (its shape is ograd's with
// h's length last).
Op& backward_count_sketch_registration =
    RegisterBackwardOp("_backward_contrib_count_sketch", ParseCountSketch, {"ograd", "h", "s"},
                       [](const NodeAttrs&) { return 1; });

}  // namespace
}  // namespace symx
