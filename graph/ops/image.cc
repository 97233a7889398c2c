// The image family: the deterministic operators of MXNet's mx.nd.image (what
// Gluon's data transforms call): _image_to_tensor, _image_normalize,
// _image_flip_left_right, _image_flip_top_bottom, _image_adjust_lighting and
// _image_crop.
//
// Facts checked against a live MXNet 1.9.1 (src/operator/image/):
// - to_tensor: (H, W, C) -> (C, H, W) or (N, H, W, C) -> (N, C, H, W), float32,
//   divided by 255 (in double for float64 data). Any input dtype MXNet takes.
// - normalize: (C, H, W) or (N, C, H, W) with C 1 or 3; mean and std hold one
//   value or one per channel (MXNet's 4-value defaults fit neither, so a call
//   must give them, as in MXNet); (x - mean[c]) / std[c] in float (double for
//   float64), stored in the data's dtype. Gradient: ograd / std[c].
// - the flips reverse W or H of (H, W, C) images with C 1 or 3 (symx also
//   takes (N, H, W, C)). MXNet leaves the middle column/row of an odd size
//   unwritten and passes the head gradient through unflipped; symx copies the
//   middle and flips the gradient (docs/numerics.md, erratum 23).
// - adjust_lighting adds MXNet's fixed PCA offsets times alpha (float) to R, G,
//   B of (H, W, 3) images (uint8 saturated to [0, 255]); gradient: the head
//   gradient. A 1-channel image is returned unchanged (MXNet leaves the output
//   unwritten). MXNet adds in float for float64 data too; symx in double.
// - crop takes the window of (H, W, C) or (N, H, W, C) images with C 1 or 3;
//   its gradient scatters the head gradient into zeros.
// - to_tensor has no gradient in symx: MXNet's is a copy of the (C, H, W) head
//   gradient into an (H, W, C) input, which fails unless the shapes agree.
#include "graph/ops/image.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {

void LightingOffsets(const float alpha[3], float out[3]) {
  // MXNet's table: eigenvalues times eigenvectors, computed in double and
  // stored as float.
  static const float eig[3][3] = {
      {static_cast<float>(55.46 * -0.5675), static_cast<float>(4.794 * 0.7192),
       static_cast<float>(1.148 * 0.4009)},
      {static_cast<float>(55.46 * -0.5808), static_cast<float>(4.794 * -0.0045),
       static_cast<float>(1.148 * -0.8140)},
      {static_cast<float>(55.46 * -0.5836), static_cast<float>(4.794 * -0.6948),
       static_cast<float>(1.148 * 0.4203)}};
  for (int c = 0; c < 3; ++c) {
    out[c] = eig[c][0] * alpha[0] + eig[c][1] * alpha[1] + eig[c][2] * alpha[2];
  }
}

absl::Status ImageDType(absl::string_view op, DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kUnknown:
      return absl::OkStatus();
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": data of dtype ", DTypeName(t),
                       " is not supported (float16/32/64, uint8, int8, int32, int64)"));
  }
}

namespace {

// Output dtype = input dtype, checked against the image dtypes.
InferTypeFn SameImageType(const char* op) {
  return [op](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) -> absl::Status {
    const DType t = (*in)[0] != DType::kUnknown ? (*in)[0] : (*out)[0];
    SYMX_RETURN_IF_ERROR(ImageDType(op, t));
    if (t == DType::kUnknown) return absl::OkStatus();
    SYMX_RETURN_IF_ERROR(AssignType(in, 0, t, "data"));
    return AssignType(out, 0, t, "output");
  };
}

// (H, W, C) (or also (N, H, W, C) when `batched`) with C 1 or 3.
absl::Status CheckHwc(const char* op, const Shape& s, bool batched) {
  if (!s.ndim_known()) return absl::OkStatus();
  if (s.ndim() != 3 && !(batched && s.ndim() == 4)) {
    return ShapeError(
        "data", s,
        absl::StrCat(batched ? "(H, W, C) or (N, H, W, C)" : "(H, W, C)", " (", op, ")"));
  }
  const int64_t c = s[s.ndim() - 1];
  if (c != kUnknownDim && c != 1 && c != 3) {
    return ShapeError("data", s, absl::StrCat("1 or 3 channels last (", op, ")"));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- to_tensor

absl::Status ToTensorShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return absl::OkStatus();
  if (s.ndim() == 3) return AssignShape(out, 0, Shape{s[2], s[0], s[1]}, "output");
  if (s.ndim() == 4) return AssignShape(out, 0, Shape{s[0], s[3], s[1], s[2]}, "output");
  return ShapeError("data", s, "(H, W, C) or (N, H, W, C) (_image_to_tensor)");
}

absl::Status ToTensorType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  SYMX_RETURN_IF_ERROR(ImageDType("_image_to_tensor", (*in)[0]));
  return AssignType(out, 0, DType::kFloat32, "output");
}

SYMX_REGISTER_OP("_image_to_tensor")
    .Describe(
        "(H, W, C) or (N, H, W, C) images of any dtype to float32 (C, H, W) or (N, C, H, W) "
        "divided by 255.")
    .SetParse(ParseNoParams)
    .SetInputNames({"data"})
    .SetInferShape(ToTensorShape)
    .SetInferType(ToTensorType)
    .SetNonDifferentiable();

// ---------------------------------------------------------------- normalize

absl::StatusOr<OpParamPtr> ParseNormalize(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ImageNormalizeParam>();
  for (double v : r.FloatTuple("mean", {0, 0, 0, 0})) p->mean.push_back(static_cast<float>(v));
  for (double v : r.FloatTuple("std", {1, 1, 1, 1})) p->std.push_back(static_cast<float>(v));
  if (p->mean.empty()) r.Fail("mean", "needs 1 value or one per channel");
  if (p->std.empty()) r.Fail("std", "needs 1 value or one per channel");
  for (float s : p->std) {
    if (s == 0.0f) r.Fail("std", "must not be 0");
  }
  return r.Finish(std::move(p));
}

absl::Status NormalizeShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const auto& p = Param<ImageNormalizeParam>(attrs);
  Shape s = (*in)[0];
  if (!s.ndim_known()) s = (*out)[0];
  if (!s.ndim_known()) return absl::OkStatus();
  if (s.ndim() != 3 && s.ndim() != 4) {
    return ShapeError("data", s, "(C, H, W) or (N, C, H, W) (_image_normalize)");
  }
  const int64_t c = s[s.ndim() - 3];
  if (c != kUnknownDim) {
    if (c != 1 && c != 3) {
      return ShapeError("data", s, "1 or 3 channels (_image_normalize)");
    }
    const std::pair<const char*, size_t> keys[] = {{"mean", p.mean.size()}, {"std", p.std.size()}};
    for (const auto& [key, n] : keys) {
      if (n != 1 && static_cast<int64_t>(n) != c) {
        return absl::InvalidArgumentError(absl::StrCat("_image_normalize: ", key, " has ", n,
                                                       " values; data ", s.ToString(),
                                                       " needs 1 or ", c, " (one per channel)"));
      }
    }
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, s, "data"));
  return AssignShape(out, 0, s, "output");
}

std::vector<NodeEntry> NormalizeGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_image_normalize", node, {og[0]});
}

SYMX_REGISTER_OP("_image_normalize")
    .Describe("(x - mean[c]) / std[c] over the channels of (C, H, W) or (N, C, H, W) tensors.")
    .SetParse(ParseNormalize)
    .SetInputNames({"data"})
    .SetInferShape(NormalizeShape)
    .SetInferType(SameImageType("_image_normalize"))
    .SetInplace({{0, 0}})
    .SetGradient(NormalizeGradient);

Op& backward_normalize_registration = RegisterBackwardOp(
    "_backward_image_normalize", ParseNormalize, {"ograd"}, [](const NodeAttrs&) { return 1; });

// ---------------------------------------------------------------- flips

InferShapeFn HwcSameShape(const char* op, bool batched) {
  return [op, batched](const NodeAttrs&, std::vector<Shape>* in,
                       std::vector<Shape>* out) -> absl::Status {
    Shape s = (*in)[0].ndim_known() ? (*in)[0] : (*out)[0];
    SYMX_RETURN_IF_ERROR(CheckHwc(op, s, batched));
    if (!s.ndim_known()) return absl::OkStatus();
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, s, "data"));
    return AssignShape(out, 0, s, "output");
  };
}

// A flip's gradient is the same flip of the head gradient.
GradientFn SelfGradient(const char* op) {
  return [op](const NodePtr& node, const std::vector<NodeEntry>& og) -> std::vector<NodeEntry> {
    if (!og[0].node) return {NodeEntry{}};
    return {MakeInternalEntry(op, node->name() + "_backward", {og[0]}, node->attrs.dict)};
  };
}

SYMX_REGISTER_OP("_image_flip_left_right")
    .Describe("Reverses the width of (H, W, C) or (N, H, W, C) images.")
    .SetParse(ParseNoParams)
    .SetInputNames({"data"})
    .SetInferShape(HwcSameShape("_image_flip_left_right", true))
    .SetInferType(SameImageType("_image_flip_left_right"))
    .SetGradient(SelfGradient("_image_flip_left_right"));

SYMX_REGISTER_OP("_image_flip_top_bottom")
    .Describe("Reverses the height of (H, W, C) or (N, H, W, C) images.")
    .SetParse(ParseNoParams)
    .SetInputNames({"data"})
    .SetInferShape(HwcSameShape("_image_flip_top_bottom", true))
    .SetInferType(SameImageType("_image_flip_top_bottom"))
    .SetGradient(SelfGradient("_image_flip_top_bottom"));

// ---------------------------------------------------------------- adjust_lighting

absl::StatusOr<OpParamPtr> ParseLighting(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ImageLightingParam>();
  const std::vector<double> alpha = r.FloatTuple("alpha");
  if (alpha.size() != 3) {
    r.Fail("alpha", absl::StrCat("needs 3 values (R, G, B), got ", alpha.size()));
  } else {
    for (int c = 0; c < 3; ++c) p->alpha[c] = static_cast<float>(alpha[c]);
  }
  return r.Finish(std::move(p));
}

SYMX_REGISTER_OP("_image_adjust_lighting")
    .Describe(
        "Adds AlexNet's PCA lighting offsets (MXNet's eigen table) times alpha to the R, G, B "
        "of (H, W, C) images.")
    .SetParse(ParseLighting)
    .SetInputNames({"data"})
    .SetInferShape(HwcSameShape("_image_adjust_lighting", false))
    .SetInferType(SameImageType("_image_adjust_lighting"))
    .SetInplace({{0, 0}})
    .SetGradient(PassThroughGradient);

// ---------------------------------------------------------------- crop

absl::StatusOr<OpParamPtr> ParseImageCrop(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ImageCropParam>();
  p->x = r.Int("x");
  p->y = r.Int("y");
  p->width = r.Int("width");
  p->height = r.Int("height");
  if (p->x < 0) r.Fail("x", absl::StrCat("must be >= 0, got ", p->x));
  if (p->y < 0) r.Fail("y", absl::StrCat("must be >= 0, got ", p->y));
  if (p->width < 1) r.Fail("width", absl::StrCat("must be > 0, got ", p->width));
  if (p->height < 1) r.Fail("height", absl::StrCat("must be > 0, got ", p->height));
  return r.Finish(std::move(p));
}

absl::Status ImageCropShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const auto& p = Param<ImageCropParam>(attrs);
  const Shape& s = (*in)[0];
  SYMX_RETURN_IF_ERROR(CheckHwc("_image_crop", s, true));
  if (!s.ndim_known()) return absl::OkStatus();
  const int h = s.ndim() - 3, w = s.ndim() - 2;
  if (s[w] != kUnknownDim && p.x + p.width > s[w]) {
    return absl::InvalidArgumentError(absl::StrCat("_image_crop: x + width = ", p.x + p.width,
                                                   " exceeds the width of data ", s.ToString()));
  }
  if (s[h] != kUnknownDim && p.y + p.height > s[h]) {
    return absl::InvalidArgumentError(absl::StrCat("_image_crop: y + height = ", p.y + p.height,
                                                   " exceeds the height of data ", s.ToString()));
  }
  Shape o = s;
  o[h] = p.height;
  o[w] = p.width;
  return AssignShape(out, 0, o, "output");
}

std::vector<NodeEntry> ImageCropGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_image_crop", node, {og[0]});
}

SYMX_REGISTER_OP("_image_crop")
    .Describe("The window [y, y + height) x [x, x + width) of (H, W, C) or (N, H, W, C) images.")
    .SetParse(ParseImageCrop)
    .SetInputNames({"data"})
    .SetInferShape(ImageCropShape)
    .SetInferType(SameImageType("_image_crop"))
    .SetGradient(ImageCropGradient);

Op& backward_image_crop_registration = RegisterBackwardOp(
    "_backward_image_crop", ParseImageCrop, {"ograd"}, [](const NodeAttrs&) { return 1; });

}  // namespace
}  // namespace symx
