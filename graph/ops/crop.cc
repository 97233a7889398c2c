// Registers the legacy Crop op (MXNet 1.x's capital-C Crop, not `slice`) and
// _backward_Crop.
//
// Crop takes 4-D NCHW data and cuts a window out of its last two dims:
// - num_args=1: the window is h_w = (h, w);
// - num_args=2: the window has the H and W of the second input, crop_like,
//   which only lends its shape (its gradient is zero, as in MXNet; h_w is ignored).
// The window's top-left corner is `offset` = (y, x), or with center_crop
// floor((H - h) / 2), floor((W - w) / 2) (offset then ignored).
//
// symx checks at shape inference what MXNet checks at forward time: the window
// must fit (offset + size <= input size); and it requires offset and h_w to have
// exactly two entries (MXNet reads the first two of longer tuples).
#include "graph/ops/crop.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

std::string TupleText(const std::vector<int64_t>& v) {
  return absl::StrCat("(", absl::StrJoin(v, ", "), ")");
}

absl::StatusOr<OpParamPtr> ParseCrop(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<CropParam>();
  p->num_args = r.Int("num_args");
  p->offset = r.Tuple("offset", {0, 0});
  p->h_w = r.Tuple("h_w", {0, 0});
  p->center_crop = r.Bool("center_crop", false);
  if (p->num_args != 1 && p->num_args != 2) {
    r.Fail("num_args", "must be 1 (crop to h_w) or 2 (crop to the second input's H and W)");
  }
  if (p->offset.size() != 2 || p->offset[0] < 0 || p->offset[1] < 0) {
    r.Fail("offset", "must be two non-negative integers (y, x)");
  }
  if (p->h_w.size() != 2 || p->h_w[0] < 0 || p->h_w[1] < 0) {
    r.Fail("h_w", "must be two non-negative integers (h, w)");
  } else if (p->num_args == 1 && (p->h_w[0] < 1 || p->h_w[1] < 1)) {
    r.Fail("h_w", "the crop height and width must be at least 1 when num_args=1");
  }
  return r.Finish(std::move(p));
}

int CropCount(const NodeAttrs& attrs) {
  if (attrs.parsed) return static_cast<int>(Param<CropParam>(attrs).num_args);
  absl::StatusOr<OpParamPtr> p = ParseCrop(attrs.dict);
  if (!p.ok()) return 1;
  return static_cast<int>(static_cast<const CropParam&>(**p).num_args);
}

absl::Status InferCropShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const auto& p = Param<CropParam>(attrs);
  const Shape& data = (*in)[0];
  if (data.ndim_known() && data.ndim() != 4) {
    return ShapeError("input data", data, "4 dims (batch, channel, height, width)");
  }
  if (p.num_args == 2 && (*in)[1].ndim_known() && (*in)[1].ndim() != 4) {
    return ShapeError("input crop_like", (*in)[1], "4 dims (batch, channel, height, width)");
  }
  const Shape& o = (*out)[0];
  if (o.ndim_known() && o.ndim() != 4) return ShapeError("output", o, "4 dims");
  // N and C pass through in both directions.
  Shape nc = Shape::UnknownDims(4);
  if (data.ndim_known()) {
    nc[0] = data[0];
    nc[1] = data[1];
  } else if (o.ndim_known()) {
    nc[0] = o[0];
    nc[1] = o[1];
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, nc, "input data"));
  Shape result = nc;
  if (p.num_args == 1) {
    result[2] = p.h_w[0];
    result[3] = p.h_w[1];
  } else if ((*in)[1].ndim_known()) {
    result[2] = (*in)[1][2];
    result[3] = (*in)[1][3];
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, result, "output"));
  const Shape& d = (*in)[0];
  const Shape& r = (*out)[0];
  if (!d.ndim_known() || !r.ndim_known()) return absl::OkStatus();
  for (int k : {2, 3}) {
    if (d[k] == kUnknownDim || r[k] == kUnknownDim) continue;
    const char* what = k == 2 ? "height" : "width";
    if (r[k] > d[k]) {
      return absl::InvalidArgumentError(
          absl::StrCat("Crop: the crop ", what, " ", r[k], " is larger than the input data's ",
                       what, " ", d[k], " (data ", d.ToString(), ", output ", r.ToString(), ")"));
    }
    if (!p.center_crop && p.offset[k - 2] + r[k] > d[k]) {
      return absl::InvalidArgumentError(
          absl::StrCat("Crop: offset ", TupleText(p.offset), " puts the ", what, " window [",
                       p.offset[k - 2], ", ", p.offset[k - 2] + r[k], ") outside the input data ",
                       d.ToString(), " (output ", r.ToString(), ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status InferCropType(const NodeAttrs& attrs, std::vector<DType>* in,
                           std::vector<DType>* out) {
  // crop_like only lends its shape: it takes the data's dtype when it has none, but
  // another one is accepted.
  SYMX_RETURN_IF_ERROR(AssignType(out, 0, (*in)[0], "output"));
  SYMX_RETURN_IF_ERROR(AssignType(in, 0, (*out)[0], "input data"));
  if (in->size() > 1 && (*in)[1] == DType::kUnknown) (*in)[1] = (*in)[0];
  return absl::OkStatus();
}

std::vector<NodeEntry> CropGradient(const NodePtr& node, const std::vector<NodeEntry>& ograds) {
  std::vector<NodeEntry> grads(node->inputs.size());  // crop_like: zero
  if (!ograds[0].node) return grads;
  grads[0] = MakeBackwardNode("_backward_Crop", node, {ograds[0]})[0];
  return grads;
}

}  // namespace

SYMX_REGISTER_OP("Crop")
    .Describe(
        "Legacy 4-D crop: the (h, w) window of data at `offset` (or centered), (h, w) being h_w "
        "or, with num_args=2, the second input's height and width.")
    .SetParse(ParseCrop)
    .SetVariadic("num_args")
    .SetInputNames([](const NodeAttrs& attrs) {
      return CropCount(attrs) == 2 ? std::vector<std::string>{"data", "crop_like"}
                                   : std::vector<std::string>{"data"};
    })
    .SetInferShape(InferCropShape)
    .SetInferType(InferCropType)
    .SetGradient(CropGradient);

static Op& symx_backward_crop_registration =
    RegisterBackwardOp("_backward_Crop", ParseCrop, {"ograd"}, [](const NodeAttrs&) {
      return 1;
    }).Describe("Gradient of Crop for data: ograd placed in the window, zeros elsewhere.");

}  // namespace symx
