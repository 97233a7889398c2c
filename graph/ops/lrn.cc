// The lrn family: LRN (local response normalization across channels) and
// _backward_LRN.
//
// Facts checked against a live MXNet 1.9.1:
// - LRN: 4-D data; tmp_norm = knorm + alpha / nsize * sum of x^2 over the
//   channels [c - nsize/2, c + nsize/2] (clipped); out = x * tmp_norm^-beta.
//   nsize must be odd (MXNet's reference kernel requires it; its oneDNN path
//   accepts even sizes with a different window). tmp_norm is a hidden output.
// Head gradients on hidden or statistics outputs are ignored, as in MXNet.
#include "graph/ops/lrn.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/ops/softmax.h"

namespace symx {
namespace {

// ------------------------------------------------------------------ LRN

absl::StatusOr<OpParamPtr> ParseLRN(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<LRNParam>();
  p->alpha = r.Float("alpha", 1e-4);
  p->beta = r.Float("beta", 0.75);
  p->knorm = r.Float("knorm", 2);
  p->nsize = r.Int("nsize");
  if (p->nsize < 1 || p->nsize % 2 == 0) {
    r.Fail("nsize", "must be an odd number >= 1 (MXNet's LRN supports only odd local sizes)");
  }
  if (!std::isfinite(p->alpha)) r.Fail("alpha", "must be finite");
  if (!std::isfinite(p->beta)) r.Fail("beta", "must be finite");
  if (!std::isfinite(p->knorm)) r.Fail("knorm", "must be finite");
  return r.Finish(std::move(p));
}

absl::Status InferLRNShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(InferSameShape(in, out));
  const Shape& d = (*in)[0];
  if (d.ndim_known() && d.ndim() != 4) {
    return ShapeError("input data", d, "4 dims (batch, channel, height, width)");
  }
  return absl::OkStatus();
}

std::vector<NodeEntry> LRNGradient(const NodePtr& node, const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_LRN", node, {ograds[0], node->inputs[0], Out(node, 1)});
}

}  // namespace

SYMX_REGISTER_OP("LRN")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe(
        "Local response normalization across channels: x * (knorm + alpha / nsize * "
        "sum_window x^2)^-beta; hidden output tmp_norm (the bracket).")
    .SetParse(ParseLRN)
    .SetOutputNames({"output", "tmp_norm"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    .SetInferShape(InferLRNShape)
    .SetGradient(LRNGradient);

static Op& symx_backward_lrn_registration =
    RegisterBackwardOp("_backward_LRN", ParseLRN, {"ograd", "data", "tmp_norm"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of LRN from the data and tmp_norm.");

}  // namespace symx
