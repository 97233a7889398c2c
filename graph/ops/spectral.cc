// The spectral family: _contrib_fft and _contrib_ifft, MXNet's 1-D discrete
// Fourier transforms along the last axis, with complex values stored as
// interleaved (real, imaginary) pairs.
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

}  // namespace
}  // namespace symx
