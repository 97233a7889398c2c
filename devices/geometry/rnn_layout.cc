#include "devices/geometry/rnn_layout.h"

#include "absl/strings/str_cat.h"
#include "devices/geometry/rnn_cell.h"
#include "graph/op.h"

namespace symx {
namespace {

// Saved activations of the forward, in elements.
int64_t ForwardElems(const RnnDims& d) {
  const int64_t per_cell = d.rows() * (d.gh() + d.hidden + (d.lstm || d.gru ? d.hidden : 0));
  return d.layers * d.dirs * per_cell + d.layers * d.rows() * d.dirs * d.hidden + d.batch * d.gh();
}

// The backward's own buffers, in elements (RnnBuffers' order).
int64_t BackwardElems(const RnnDims& d, int64_t param_size) {
  return 2 * d.rows() * d.gh() + 2 * d.rows() * d.max_width() + 4 * d.batch * d.hidden +
         param_size + 2 * d.layers * d.dirs * d.batch * d.hidden;
}

}  // namespace

RnnDims MakeRnnDims(const RNNParam& p, const Shape& data) {
  RnnDims d;
  d.seq = data[0];
  d.batch = data[1];
  d.input = data[2];
  d.hidden = p.state_size;
  d.gates = p.gates();
  d.dirs = p.directions();
  d.layers = p.num_layers;
  d.lstm = p.lstm();
  d.gru = p.mode == RNNMode::kGru;
  return d;
}

RnnRecurrentPairs RecurrentPairs(const RnnDims& d, bool reverse) {
  RnnRecurrentPairs p;
  p.first_row = reverse ? (d.seq - 1) * d.batch : 0;
  p.steps = d.seq > 0 ? d.seq - 1 : 0;
  p.grad_row = reverse ? 0 : d.batch;
  p.state_row = reverse ? d.batch : 0;
  return p;
}

int RnnCellKindOf(RNNMode mode) {
  switch (mode) {
    case RNNMode::kRnnRelu:
      return kRnnCellRelu;
    case RNNMode::kRnnTanh:
      return kRnnCellTanh;
    case RNNMode::kLstm:
      return kRnnCellLstm;
    case RNNMode::kGru:
      return kRnnCellGru;
  }
  return kRnnCellRelu;
}

size_t RnnWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                    const std::vector<Shape>& out, DType dtype) {
  if (!in[0].fully_known() || in[0].ndim() != 3) return 0;
  const RNNParam& p = Param<RNNParam>(attrs);
  const RnnDims d = MakeRnnDims(p, in[0]);
  int64_t elems = ForwardElems(d);
  if (attrs.op != nullptr && attrs.op->is_backward()) {
    elems += BackwardElems(d, p.ParamSize(d.input));
  }
  return static_cast<size_t>(elems) * std::max<size_t>(DTypeSize(dtype), 1) + 64;
}

absl::Status CheckRnnCall(const KernelContext& ctx, const RNNParam& p, bool train) {
  const DType dt = ctx.inputs[0].dtype();
  for (const Tensor& t : ctx.inputs) {
    if (t.dtype() != dt) return UnsupportedDType(ctx, t.dtype());
  }
  if (train && p.p > 0 && p.num_layers > 1) {
    return absl::UnimplementedError(
        absl::StrCat(ctx.Where(), ": dropout between layers (p=", p.p,
                     ") in training is not supported by symx; use p=0 or inference"));
  }
  if (ctx.workspace.nbytes() < RnnWorkspace(*ctx.attrs, {ctx.inputs[0].shape()}, {}, dt)) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": workspace too small"));
  }
  return absl::OkStatus();
}

}  // namespace symx
