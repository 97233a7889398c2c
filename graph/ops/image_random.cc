// The image family's random augmenters (mx.nd.image.random_*, what Gluon's
// transforms.RandomBrightness & co. call): _image_random_brightness,
// _contrast, _saturation, _hue, _color_jitter, _lighting and the random
// flips. Each call draws its factors from the device's generator
// (devices/geometry/image_draws.h), so a seeded device repeats them; the
// transform itself is deterministic (devices/geometry/image_color.h).
//
// Facts checked against MXNet 1.9.1 (src/operator/image/image_random-inl.h):
// - data is one (H, W, C) image with C 1 or 3, of MXNet's image dtypes; the
//   output has its shape and dtype. Values are computed in float (double for
//   float64 data here) and stored as uint8 clamped to [0, 255] and truncated,
//   other integers truncated (saturating here), floats rounded.
// - brightness: x * a; contrast: x * a + (1 - a) * mean gray (0.299 R +
//   0.587 G + 0.114 B, or the plain mean of a 1-channel image); saturation:
//   gray * (1 - a) + x * a per pixel; hue: a * 360 degrees added to the hue
//   in HLS space. a ~ U[min_factor, max_factor); the factors must be >= 0.
// - color_jitter applies brightness (1 + U(-b, b)), contrast, saturation (the
//   same form) and hue (U(-h, h)) in a random order, each only when its
//   parameter is > 0.
// - lighting adds _image_adjust_lighting's offsets for alphas drawn from
//   N(0, alpha_std).
// - the random flips flip with probability 1/2.
// - gradients: MXNet passes the head gradient through unchanged for all of
//   them; symx keeps that for the color augmenters (their factors are random
//   draws, not a function to differentiate) and flips the gradient the way
//   the forward flipped the data, which the flips' hidden second output
//   ("flipped", one uint8) remembers.
// Where MXNet is wrong (saturation's gray, outputs it leaves unwritten) symx
// departs: docs/numerics.md, erratum 25.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/image.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

// One (H, W, C) image with C 1 or 3, out = in (both directions).
InferShapeFn OneImageShape(std::string op) {
  return [op](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) -> absl::Status {
    const Shape s = (*in)[0].ndim_known() ? (*in)[0] : (*out)[0];
    if (!s.ndim_known()) return absl::OkStatus();
    if (s.ndim() != 3) return ShapeError("data", s, absl::StrCat("(H, W, C) (", op, ")"));
    if (s[2] != kUnknownDim && s[2] != 1 && s[2] != 3) {
      return ShapeError("data", s, absl::StrCat("1 or 3 channels last (", op, ")"));
    }
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, s, "data"));
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, s, "output"));
    if (out->size() > 1) return AssignShape(out, 1, Shape{1}, "flipped");
    return absl::OkStatus();
  };
}

InferTypeFn OneImageType(std::string op) {
  return [op](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) -> absl::Status {
    if (out->size() > 1) SYMX_RETURN_IF_ERROR(AssignType(out, 1, DType::kUint8, "flipped"));
    const DType t = (*in)[0] != DType::kUnknown ? (*in)[0] : (*out)[0];
    SYMX_RETURN_IF_ERROR(ImageDType(op, t));
    if (t == DType::kUnknown) return absl::OkStatus();
    SYMX_RETURN_IF_ERROR(AssignType(in, 0, t, "data"));
    return AssignType(out, 0, t, "output");
  };
}

// ---------------------------------------------------------------- enhance

absl::StatusOr<OpParamPtr> ParseEnhance(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ImageEnhanceParam>();
  p->min_factor = static_cast<float>(r.Float("min_factor"));
  p->max_factor = static_cast<float>(r.Float("max_factor"));
  if (!(p->min_factor >= 0)) {
    r.Fail("min_factor", absl::StrCat("must be >= 0, got ", p->min_factor));
  }
  if (!(p->max_factor >= 0)) {
    r.Fail("max_factor", absl::StrCat("must be >= 0, got ", p->max_factor));
  }
  if (p->max_factor < p->min_factor) {
    r.Fail("max_factor",
           absl::StrCat("must be >= min_factor (", p->min_factor, "), got ", p->max_factor));
  }
  return r.Finish(std::move(p));
}

void RegisterEnhance(const std::string& op, const std::string& what) {
  OpRegistry::Global()
      .Register(op)
      .Describe(absl::StrCat(what, " of one (H, W, C) image by a factor drawn from U[min_factor, ",
                             "max_factor) per call."))
      .SetParse(ParseEnhance)
      .SetInputNames({"data"})
      .SetInferShape(OneImageShape(op))
      .SetInferType(OneImageType(op))
      .SetInplace({{0, 0}})
      .SetGradient(PassThroughGradient);
}

const bool enhance_registered = [] {
  RegisterEnhance("_image_random_brightness", "Scales the brightness");
  RegisterEnhance("_image_random_contrast", "Scales the contrast (around the mean gray)");
  RegisterEnhance("_image_random_saturation", "Scales the saturation (around each pixel's gray)");
  RegisterEnhance("_image_random_hue", "Rotates the hue (by factor * 360 degrees)");
  return true;
}();

// ---------------------------------------------------------------- color_jitter

absl::StatusOr<OpParamPtr> ParseJitter(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ImageJitterParam>();
  p->brightness = static_cast<float>(r.Float("brightness"));
  p->contrast = static_cast<float>(r.Float("contrast"));
  p->saturation = static_cast<float>(r.Float("saturation"));
  p->hue = static_cast<float>(r.Float("hue"));
  return r.Finish(std::move(p));
}

SYMX_REGISTER_OP("_image_random_color_jitter")
    .Describe(
        "Brightness, contrast, saturation (factors 1 + U(-x, x)) and hue (U(-hue, hue)) "
        "jitter of one (H, W, C) image, in a random order; a parameter <= 0 skips its step.")
    .SetParse(ParseJitter)
    .SetInputNames({"data"})
    .SetInferShape(OneImageShape("_image_random_color_jitter"))
    .SetInferType(OneImageType("_image_random_color_jitter"))
    .SetInplace({{0, 0}})
    .SetGradient(PassThroughGradient);

// ---------------------------------------------------------------- lighting

absl::StatusOr<OpParamPtr> ParseRandomLighting(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ImageRandomLightingParam>();
  // MXNet's default is the float 0.05 (0.0500000007 printed as double).
  p->alpha_std = static_cast<float>(r.Float("alpha_std", 0.05f));
  if (!(p->alpha_std >= 0)) r.Fail("alpha_std", absl::StrCat("must be >= 0, got ", p->alpha_std));
  return r.Finish(std::move(p));
}

SYMX_REGISTER_OP("_image_random_lighting")
    .Describe(
        "AlexNet's PCA lighting noise on one (H, W, C) image: _image_adjust_lighting with "
        "alphas drawn from N(0, alpha_std) per call.")
    .SetParse(ParseRandomLighting)
    .SetInputNames({"data"})
    .SetInferShape(OneImageShape("_image_random_lighting"))
    .SetInferType(OneImageType("_image_random_lighting"))
    .SetInplace({{0, 0}})
    .SetGradient(PassThroughGradient);

// ---------------------------------------------------------------- flips

// The head gradient flipped where the forward flipped (its hidden output 1).
GradientFn RandomFlipGradient(std::string backward_op) {
  return [backward_op](const NodePtr& node,
                       const std::vector<NodeEntry>& og) -> std::vector<NodeEntry> {
    if (!og[0].node) return {NodeEntry{}};
    return MakeBackwardNode(backward_op, node, {og[0], Out(node, 1)});
  };
}

void RegisterRandomFlip(const std::string& op, const std::string& axis) {
  const std::string backward = absl::StrCat("_backward", op);
  OpRegistry::Global()
      .Register(op)
      .Describe(absl::StrCat("Reverses the ", axis,
                             " of one (H, W, C) image with probability 1/2; the hidden output "
                             "`flipped` (uint8) says whether it did."))
      .SetParse(ParseNoParams)
      .SetInputNames({"data"})
      .SetOutputNames({"output", "flipped"})
      .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
      .SetInferShape(OneImageShape(op))
      .SetInferType(OneImageType(op))
      .SetGradient(RandomFlipGradient(backward));
  RegisterBackwardOp(backward, ParseNoParams, {"ograd", "flipped"},
                     [](const NodeAttrs&) { return 1; });
}

const bool flips_registered = [] {
  RegisterRandomFlip("_image_random_flip_left_right", "width");
  RegisterRandomFlip("_image_random_flip_top_bottom", "height");
  return true;
}();

}  // namespace
}  // namespace symx
