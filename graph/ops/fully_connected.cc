// Registers FullyConnected (y = x W^T + b, optionally flattening x to 2-D first) and
// _backward_FullyConnected.
#include "graph/ops/fully_connected.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseFullyConnected(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<FullyConnectedParam>();
  p->num_hidden = r.Int("num_hidden");
  if (p->num_hidden < 1) r.Fail("num_hidden", "must be > 0");
  p->no_bias = r.Bool("no_bias", false);
  p->flatten = r.Bool("flatten", true);
  return r.Finish(std::move(p));
}

std::vector<std::string> FullyConnectedInputNames(const NodeAttrs& attrs) {
  if (Param<FullyConnectedParam>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

int FullyConnectedNumGrads(const NodeAttrs& attrs) {
  return Param<FullyConnectedParam>(attrs).no_bias ? 2 : 3;
}

// Product of dims [begin, ndim), unknown if any is unknown.
absl::StatusOr<int64_t> TrailingSize(const Shape& s, int begin) {
  int64_t size = 1;
  for (int d = begin; d < s.ndim(); ++d) {
    if (s[d] == kUnknownDim) return kUnknownDim;
    if (s[d] < 0) return ShapeError("input data", s, "non-negative dims");
    if (__builtin_mul_overflow(size, s[d], &size)) {
      return ShapeError("input data", s, "a flattened size that fits in 64 bits");
    }
  }
  return size;
}

absl::Status FullyConnectedInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                      std::vector<Shape>* out) {
  const FullyConnectedParam& p = Param<FullyConnectedParam>(attrs);
  // As in MXNet nothing is inferred before the data's rank is known, so an unknown input
  // leaves the weight unknown rather than half-filled.
  if (!(*in)[0].ndim_known()) return absl::OkStatus();
  Shape data = (*in)[0];
  const int nd = data.ndim();
  if (nd == 0) return ShapeError("input data", data, "at least 1 dim");
  const Shape& o = (*out)[0];
  if (o.ndim_known() && o.ndim() != (p.flatten ? 2 : nd)) {
    return ShapeError("output", o,
                      p.flatten ? "2 dims (batch, num_hidden)"
                                : absl::StrCat(nd, " dims like the data, last = num_hidden"));
  }

  // Backward: the output holds the data's leading dims; the weight its input width where
  // that is a single data dim.
  if (o.ndim_known()) {
    int lead = p.flatten ? 1 : nd - 1;
    for (int d = 0; d < lead; ++d) {
      if (data[d] == kUnknownDim) data[d] = o[d];
    }
  }
  const Shape& w = (*in)[1];
  const int k_dim = p.flatten ? (nd == 2 ? 1 : -1) : nd - 1;
  if (w.ndim() == 2 && k_dim >= 0 && data[k_dim] == kUnknownDim) data[k_dim] = w[1];
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, data, "input data"));

  absl::StatusOr<int64_t> k = p.flatten ? TrailingSize(data, 1) : data[nd - 1];
  if (!k.ok()) return k.status();
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{p.num_hidden, *k}, "input weight"));
  if (!p.no_bias) {
    // MXNet also accepts a column-shaped bias.
    const Shape& b = (*in)[2];
    if (!(b.ndim() == 2 && b[0] == p.num_hidden && b[1] == 1)) {
      SYMX_RETURN_IF_ERROR(AssignShape(in, 2, Shape{p.num_hidden}, "input bias"));
    }
  }
  Shape result;
  if (p.flatten) {
    result = Shape{data[0], p.num_hidden};
  } else {
    result = data;
    result[nd - 1] = p.num_hidden;
  }
  return AssignShape(out, 0, result, "output");
}

std::vector<NodeEntry> FullyConnectedGradient(const NodePtr& node,
                                              const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  return MakeBackwardNode("_backward_FullyConnected", node,
                          {ograds[0], node->inputs[0], node->inputs[1]});
}

SYMX_REGISTER_OP("FullyConnected")
    .Describe(
        "Fully connected layer: out = data W^T + bias with weight (num_hidden, K); "
        "flatten folds all but the first data dim into K, else K is the last dim.")
    .SetParse(ParseFullyConnected)
    .SetInputNames(FullyConnectedInputNames)
    .SetInferShape(FullyConnectedInferShape)
    .SetGradient(FullyConnectedGradient);

Op& backward_fully_connected_registration =
    RegisterBackwardOp("_backward_FullyConnected", ParseFullyConnected, {"ograd", "data", "weight"},
                       FullyConnectedNumGrads);

}  // namespace
}  // namespace symx
