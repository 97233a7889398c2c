// Registers MXNet's fused RNN operator and _backward_RNN. Facts checked against
// a live MXNet 1.9.1:
// - Inputs data (seq_len, batch, input_size) (TNC), parameters (one packed
//   vector), state (layers*directions, batch, state_size) and, for lstm only,
//   state_cell of the same shape. Outputs output (seq_len, batch,
//   directions*state_size), then state_output and (lstm) statecell_output,
//   both (layers*directions, batch, state_size), visible with state_outputs.
// - The packed layout (RNNParam::ParamSize in rnn.h): every (layer, direction)'s
//   i2h then h2h weight matrices, then every (layer, direction)'s i2h then h2h
//   biases. Gates: lstm i, f, g, o; gru r, z, n with n = tanh(x_n + r * (W_hn h +
//   b_hn)) (the cuDNN form); rnn_relu / rnn_tanh one gate. The backward direction
//   runs over reversed time; a layer's output is both directions' hidden states
//   concatenated, the next layer's input.
// - The parameters' length is inferred from data and state_size.
// - Dropout p applies between layers; only inference, one layer or p = 0 is
//   deterministic, and symx rejects p > 0 with several layers in training.
// Not supported (parse errors naming the attribute): projection_size,
// lstm_state_clip_min/max and use_sequence_length=True. MXNet 1.9.1's CPU
// operator rejects clipping and (in training) sequence lengths as cuDNN-only,
// and LSTM projection has no CPU training support there.
// Gradient: _backward_RNN recomputes the forward pass, then runs backpropagation
// through time for data, parameters, state and state_cell; head gradients of
// the hidden state outputs are used when given.
#include "graph/ops/rnn.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseRNN(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<RNNParam>();
  p->state_size = r.Int("state_size");
  p->num_layers = r.Int("num_layers");
  p->bidirectional = r.Bool("bidirectional", false);
  const std::string mode = r.Enum("mode", {"gru", "lstm", "rnn_relu", "rnn_tanh"});
  p->mode = mode == "gru"        ? RNNMode::kGru
            : mode == "rnn_relu" ? RNNMode::kRnnRelu
            : mode == "rnn_tanh" ? RNNMode::kRnnTanh
                                 : RNNMode::kLstm;
  p->p = r.Float("p", 0);
  p->state_outputs = r.Bool("state_outputs", false);
  const std::optional<int64_t> projection = r.OptionalInt("projection_size");
  const std::optional<double> clip_min = r.OptionalFloat("lstm_state_clip_min");
  const std::optional<double> clip_max = r.OptionalFloat("lstm_state_clip_max");
  r.Bool("lstm_state_clip_nan", false);  // no effect without clipping
  const bool use_sequence_length = r.Bool("use_sequence_length", false);
  if (p->state_size < 1) r.Fail("state_size", "must be >= 1");
  if (p->num_layers < 1) r.Fail("num_layers", "must be >= 1");
  if (!(p->p >= 0 && p->p <= 1)) r.Fail("p", "must be in [0, 1]");
  if (projection) r.Fail("projection_size", "RNN projection is not supported by symx");
  if (clip_min) r.Fail("lstm_state_clip_min", "LSTM state clipping is not supported by symx");
  if (clip_max) r.Fail("lstm_state_clip_max", "LSTM state clipping is not supported by symx");
  if (use_sequence_length) {
    r.Fail("use_sequence_length", "variable sequence lengths are not supported by symx");
  }
  return r.Finish(std::move(p));
}

std::vector<std::string> RNNInputNames(const NodeAttrs& attrs) {
  if (Param<RNNParam>(attrs).lstm()) return {"data", "parameters", "state", "state_cell"};
  return {"data", "parameters", "state"};
}

std::vector<std::string> RNNOutputNames(const NodeAttrs& attrs) {
  if (Param<RNNParam>(attrs).lstm()) return {"output", "state_output", "statecell_output"};
  return {"output", "state_output"};
}

absl::Status RNNInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  const RNNParam& p = Param<RNNParam>(attrs);
  const int64_t states = p.num_layers * p.directions();
  const char* kStateNames[] = {"input state", "input state_cell"};
  const char* kStateOutNames[] = {"output state_output", "output statecell_output"};
  const size_t num_states = p.lstm() ? 2 : 1;
  // Checks ranks first, so that errors name the slot.
  const Shape& data0 = (*in)[0];
  if (data0.ndim_known() && data0.ndim() != 3) {
    return ShapeError("input data", data0, "3 dims (seq_len, batch, input_size)");
  }
  const Shape& out0 = (*out)[0];
  if (out0.ndim_known() && out0.ndim() != 3) {
    return ShapeError("output", out0, "3 dims (seq_len, batch, directions*state_size)");
  }
  if ((*in)[1].ndim_known() && (*in)[1].ndim() != 1) {
    return ShapeError("input parameters", (*in)[1], "1 dim");
  }
  for (size_t s = 0; s < num_states; ++s) {
    for (const Shape* sh : {&(*in)[2 + s], &(*out)[1 + s]}) {
      if (sh->ndim_known() && sh->ndim() != 3) {
        return ShapeError(sh == &(*in)[2 + s] ? kStateNames[s] : kStateOutNames[s], *sh,
                          "3 dims (layers*directions, batch, state_size)");
      }
    }
  }
  // Gathers seq_len and batch from data, output and the states.
  int64_t seq = kUnknownDim, batch = kUnknownDim, input = kUnknownDim;
  if (data0.ndim_known()) seq = data0[0], batch = data0[1], input = data0[2];
  if (out0.ndim_known()) {
    if (seq == kUnknownDim) seq = out0[0];
    if (batch == kUnknownDim) batch = out0[1];
  }
  for (size_t s = 0; s < num_states && batch == kUnknownDim; ++s) {
    if ((*in)[2 + s].ndim_known()) batch = (*in)[2 + s][1];
    if (batch == kUnknownDim && (*out)[1 + s].ndim_known()) batch = (*out)[1 + s][1];
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, Shape{seq, batch, input}, "input data"));
  SYMX_RETURN_IF_ERROR(
      AssignShape(out, 0, Shape{seq, batch, p.directions() * p.state_size}, "output"));
  const Shape state{states, batch, p.state_size};
  for (size_t s = 0; s < num_states; ++s) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 2 + s, state, kStateNames[s]));
    SYMX_RETURN_IF_ERROR(AssignShape(out, 1 + s, state, kStateOutNames[s]));
  }
  if (input != kUnknownDim) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{p.ParamSize(input)}, "input parameters"));
  }
  return absl::OkStatus();
}

absl::Status RNNInferType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = DType::kUnknown;
  for (DType d : *in) {
    if (d != DType::kUnknown) {
      t = d;
      break;
    }
  }
  if (t == DType::kUnknown) {
    for (DType d : *out) {
      if (d != DType::kUnknown) {
        t = d;
        break;
      }
    }
  }
  if (t == DType::kUnknown) return absl::OkStatus();
  const std::vector<std::string> names = {"input data", "input parameters", "input state",
                                          "input state_cell"};
  for (size_t i = 0; i < in->size(); ++i) SYMX_RETURN_IF_ERROR(AssignType(in, i, t, names[i]));
  for (size_t i = 0; i < out->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignType(out, i, t, absl::StrCat("output ", i)));
  }
  return absl::OkStatus();
}

// _backward_RNN(data, parameters, state, [state_cell], ograd output, ograd
// state_output, [ograd statecell_output]) -> a gradient per forward input.
std::vector<NodeEntry> RNNGradient(const NodePtr& node, const std::vector<NodeEntry>& ograds) {
  bool any = false;
  for (const NodeEntry& g : ograds) any = any || g.node != nullptr;
  if (!any) return std::vector<NodeEntry>(node->inputs.size());
  std::vector<NodeEntry> inputs = node->inputs;
  for (const NodeEntry& g : FillZeroGrads(node, ograds)) inputs.push_back(g);
  return MakeBackwardNode("_backward_RNN", node, std::move(inputs));
}

SYMX_REGISTER_OP("RNN")
    .Describe(
        "MXNet's fused multi-layer (optionally bidirectional) rnn_relu, rnn_tanh, lstm or gru "
        "over TNC data with one packed parameter vector; state outputs visible with "
        "state_outputs.")
    .SetParse(ParseRNN)
    .SetInputNames(RNNInputNames)
    .SetOutputNames(RNNOutputNames)
    .SetNumVisibleOutputs([](const NodeAttrs& attrs) {
      const RNNParam& p = Param<RNNParam>(attrs);
      return p.state_outputs ? (p.lstm() ? 3 : 2) : 1;
    })
    .SetInferShape(RNNInferShape)
    .SetInferType(RNNInferType)
    .SetGradient(RNNGradient);

static Op& symx_backward_rnn_registration =
    RegisterBackwardOp(
        "_backward_RNN", ParseRNN,
        [](const NodeAttrs& attrs) {
          if (Param<RNNParam>(attrs).lstm()) {
            return std::vector<std::string>{"data",         "parameters",   "state",
                                            "state_cell",   "ograd_output", "ograd_state",
                                            "ograd_statecell"};
          }
          return std::vector<std::string>{"data", "parameters", "state", "ograd_output",
                                          "ograd_state"};
        },
        [](const NodeAttrs& attrs) { return Param<RNNParam>(attrs).lstm() ? 4 : 3; })
        .Describe("Gradient of RNN (recomputes the forward pass, then backpropagates through "
                  "time) for data, parameters, state and state_cell.");

}  // namespace
}  // namespace symx
