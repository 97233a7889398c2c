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
#include "graph/ops/image_resize.h"
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

// ---------------------------------------------------------------- resize
//
// _image_resize (alias _npx__image_resize): (H, W, C) or (N, H, W, C) images
// resized as MXNet 1.9.1 resizes them, with OpenCV's cv::resize
// (devices/geometry/image_resize.h has the pixel rules).
//
// Facts checked against a live MXNet 1.9.1 (src/operator/image/resize-inl.h):
// - size (width, height) or (s,): s x s, or with keep_ratio the short edge s
//   and the long one long * s / short in integers; keep_ratio is ignored with
//   two values. size must have 1 or 2 values, each > 0.
// - dtypes: uint8, float32 and float64 for every interp; int32 only for
//   nearest (OpenCV has no other int32 resize). MXNet refuses float16, and
//   indexes past its type table for int8 and int64 (garbage or a crash):
//   symx refuses them (docs/numerics.md, erratum 26).
// - interp 0-4; OpenCV refuses other codes at run time, symx when parsing
//   (5, OpenCV's INTER_LINEAR_EXACT, runs in MXNet but is undocumented there:
//   tools/registry/param_differences.txt).
// - gradient: MXNet's is a copy of the head gradient into the data gradient,
//   right when the size is unchanged (the resize is then a copy) and a shape
//   error otherwise. symx keeps the copy and refuses a size change when the
//   backward graph is inferred, naming both shapes (erratum 26).
void ImageResizeOutSize(const ImageResizeParam& p, int64_t h, int64_t w, int64_t* out_h,
                        int64_t* out_w) {
  if (p.size.size() == 2) {
    *out_w = p.size[0];
    *out_h = p.size[1];
  } else if (!p.keep_ratio) {
    *out_h = *out_w = p.size[0];
  } else if (h > w) {
    *out_w = p.size[0];
    *out_h = h * p.size[0] / w;
  } else {
    *out_h = p.size[0];
    *out_w = w * p.size[0] / h;
  }
}

namespace {

constexpr char kResizeOp[] = "_image_resize";

absl::StatusOr<OpParamPtr> ParseImageResize(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ImageResizeParam>();
  p->size = r.Tuple("size", {});
  p->keep_ratio = r.Bool("keep_ratio", false);
  p->interp = static_cast<int>(r.Int("interp", 1));
  if (p->size.size() != 1 && p->size.size() != 2) {
    r.Fail("size", absl::StrCat("needs 1 value (s) or 2 (width, height), got ", p->size.size()));
  }
  for (size_t i = 0; i < p->size.size() && i < 2; ++i) {
    if (p->size[i] <= 0) {
      r.Fail("size", absl::StrCat(p->size.size() == 1 ? "size" : (i == 0 ? "width" : "height"),
                                  " must be > 0, got ", p->size[i]));
    }
  }
  if (p->interp < 0 || p->interp > 4) {
    r.Fail("interp", absl::StrCat("must be 0 (nearest), 1 (linear), 2 (cubic), 3 (area) or 4 "
                                  "(lanczos4), got ",
                                  p->interp));
  }
  return r.Finish(std::move(p));
}

absl::Status ResizeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto& p = Param<ImageResizeParam>(attrs);
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return absl::OkStatus();
  if (s.ndim() != 3 && s.ndim() != 4) {
    return ShapeError("data", s, "(H, W, C) or (N, H, W, C) (_image_resize)");
  }
  const int hd = s.ndim() - 3, wd = s.ndim() - 2;
  if (s[hd] == kUnknownDim || s[wd] == kUnknownDim) return absl::OkStatus();
  if (s[hd] == 0 || s[wd] == 0) {
    // OpenCV refuses an empty image (and keep_ratio would divide by 0).
    return ShapeError("data", s, "images of height and width > 0 (_image_resize)");
  }
  Shape o = s;
  ImageResizeOutSize(p, s[hd], s[wd], &o[hd], &o[wd]);
  return AssignShape(out, 0, o, "output");
}

absl::Status ResizeType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const auto& p = Param<ImageResizeParam>(attrs);
  const DType t = (*in)[0] != DType::kUnknown ? (*in)[0] : (*out)[0];
  switch (t) {
    case DType::kUnknown:
      return absl::OkStatus();
    case DType::kUint8:
    case DType::kFloat32:
    case DType::kFloat64:
      break;
    case DType::kInt32:
      if (p.interp == 0) break;
      return absl::InvalidArgumentError(absl::StrCat(
          kResizeOp, ": data of dtype int32 takes only interp 0 (nearest), got interp ", p.interp,
          " (OpenCV has no other int32 resize)"));
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(kResizeOp, ": data of dtype ", DTypeName(t),
                       " is not supported (uint8, float32, float64; int32 with interp 0)"));
  }
  SYMX_RETURN_IF_ERROR(AssignType(in, 0, t, "data"));
  return AssignType(out, 0, t, "output");
}

// The head gradient copied into the data gradient: only when the resize kept
// the size (then it is a copy); see the file comment.
std::vector<NodeEntry> ResizeGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_image_resize", node, {og[0]});
}

absl::Status ResizeBackwardShape(const NodeAttrs&, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  const Shape& g = (*in)[0];
  const Shape& d = (*out)[0];
  if (g.fully_known() && d.fully_known() && g != d) {
    return absl::InvalidArgumentError(absl::StrCat(
        kResizeOp, ": no gradient when the size changes: head gradient ", g.ToString(), ", data ",
        d.ToString(), " (MXNet's gradient copies one into the other and fails too)"));
  }
  return absl::OkStatus();
}

SYMX_REGISTER_OP("_image_resize")
    .AddAlias("_npx__image_resize")
    .Describe(
        "Resizes (H, W, C) or (N, H, W, C) images to size (width, height) with OpenCV's "
        "nearest, linear, cubic, area or lanczos4 interpolation, as MXNet's CPU kernel.")
    .SetParse(ParseImageResize)
    .SetInputNames({"data"})
    .SetInferShape(ResizeShape)
    .SetInferType(ResizeType)
    .SetGradient(ResizeGradient);

Op& backward_resize_registration =
    RegisterBackwardOp("_backward_image_resize", ParseImageResize, {"ograd"}, [](const NodeAttrs&) {
      return 1;
    }).SetInferShape(ResizeBackwardShape);

}  // namespace
}  // namespace symx
