#include "devices/geometry/control_flow.h"

#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/ops/control_flow.h"

namespace symx {
namespace {

BodyBinder& Binder() {
  static BodyBinder binder = nullptr;
  return binder;
}

bool IsFloat(DType t) {
  return t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}

// Row t of `t` along axis 0 (as many elements as one step's value).
absl::StatusOr<Tensor> Row(const Tensor& t, int64_t row) { return t.Slice(row, row + 1); }

absl::Status Copy(const Tensor& src, const Tensor& dst) {
  if (src.storage() == dst.storage() && src.offset() == dst.offset()) return absl::OkStatus();
  return CopyTensor(src, dst);
}

absl::Status Zero(Device* device, const Tensor& t) {
  if (t.nbytes() == 0) return absl::OkStatus();
  return device->Memset(t.raw_data(), 0, t.nbytes());
}

absl::StatusOr<std::vector<Tensor>> EmptyLike(const std::vector<Tensor>& like, Context ctx) {
  std::vector<Tensor> out;
  for (const Tensor& t : like) {
    SYMX_ASSIGN_OR_RETURN(Tensor e, Tensor::Empty(t.shape(), t.dtype(), ctx));
    out.push_back(std::move(e));
  }
  return out;
}

// What a _foreach (or _backward_foreach) node bound at Prepare.
struct ForeachState : KernelState {
  std::mutex mu;  // a plan's copies may share the state; a body runs one step at a time
  std::unique_ptr<BoundBody> body;
  int64_t len = 0;
  std::vector<int64_t> state_locs;  // body input of each state
  std::vector<Tensor> staged;       // the next states, staged (a body may swap them)
  // Backward only: the states entering each step, and the running state gradients.
  std::vector<std::vector<Tensor>> history;
  std::vector<Tensor> state_grads;
};

// The body's bind for node inputs `in` (the forward node's inputs).
BodyBindSpec SpecFor(const KernelContext& ctx, const ForeachParam& p,
                     const std::vector<Tensor>& in) {
  BodyBindSpec spec;
  spec.body = ctx.attrs->subgraphs[0];
  spec.ctx = ctx.device->ctx();
  spec.options = ctx.options;
  spec.in_shapes.resize(p.num_inputs());
  spec.in_types.resize(p.num_inputs());
  for (int i = 0; i < p.num_inputs(); ++i) {
    int64_t loc = p.BodyInputOf(i);
    spec.in_shapes[loc] = i < p.num_data() ? StepShape(in[i].shape()) : in[i].shape();
    spec.in_types[loc] = in[i].dtype();
  }
  return spec;
}

absl::StatusOr<std::shared_ptr<ForeachState>> BindState(const KernelContext& ctx,
                                                        const std::vector<Tensor>& in,
                                                        bool with_grads) {
  if (ctx.attrs->subgraphs.size() != 1) {
    return Fail(ctx, "has no body graph (a _foreach node needs the subgraph MXNet's JSON carries)");
  }
  const auto& p = ctx.param<ForeachParam>();
  if (static_cast<int>(in.size()) != p.num_inputs()) {
    return Fail(ctx,
                absl::StrCat("has ", in.size(), " inputs but num_args - 1 = ", p.num_inputs()));
  }
  BodyBindSpec spec = SpecFor(ctx, p, in);
  if (with_grads) {
    spec.grads.assign(p.num_inputs(), BodyGrad::kWrite);
    for (int i = p.num_data() + p.num_states(); i < p.num_inputs(); ++i) {
      spec.grads[p.BodyInputOf(i)] = BodyGrad::kAdd;  // summed over the steps
    }
    for (int i = 0; i < p.num_inputs(); ++i) {
      if (!IsFloat(in[i].dtype())) spec.grads[p.BodyInputOf(i)] = BodyGrad::kNone;
    }
  }
  auto state = std::make_shared<ForeachState>();
  absl::StatusOr<std::unique_ptr<BoundBody>> body = BindBody(spec);
  if (!body.ok()) return Annotate(body.status(), absl::StrCat(ctx.Where(), ": binding its body"));
  state->body = *std::move(body);
  state->len = in[0].shape()[0];
  for (int k = 0; k < p.num_states(); ++k) state->state_locs.push_back(p.in_state_locs[k]);
  const std::vector<Tensor>& outs = state->body->outputs();
  if (static_cast<int64_t>(outs.size()) != p.num_outputs) {
    return Fail(ctx, absl::StrCat("its body has ", outs.size(),
                                  " outputs but num_outputs = ", p.num_outputs));
  }
  std::vector<Tensor> next(outs.begin() + p.num_out_data, outs.end());
  SYMX_ASSIGN_OR_RETURN(state->staged, EmptyLike(next, spec.ctx));
  for (int k = 0; k < p.num_states(); ++k) {
    const Tensor& init = in[p.num_data() + k];
    if (next[k].shape() != init.shape() || next[k].dtype() != init.dtype()) {
      return Fail(ctx, absl::StrCat("state ", k, " enters the body as ", init.shape().ToString(),
                                    " ", DTypeName(init.dtype()), " but leaves it as ",
                                    next[k].shape().ToString(), " ", DTypeName(next[k].dtype())));
    }
  }
  return state;
}

// Feeds step t's data rows to the body.
absl::Status FeedRows(const ForeachParam& p, const std::vector<Tensor>& data, int64_t t,
                      const BoundBody& body) {
  for (int i = 0; i < p.num_data(); ++i) {
    SYMX_ASSIGN_OR_RETURN(Tensor row, Row(data[i], t));
    SYMX_RETURN_IF_ERROR(Copy(row, body.inputs()[p.in_data_locs[i]]));
  }
  return absl::OkStatus();
}

absl::Status FeedRemains(const ForeachParam& p, const std::vector<Tensor>& in,
                         const BoundBody& body) {
  for (int i = p.num_data() + p.num_states(); i < p.num_inputs(); ++i) {
    SYMX_RETURN_IF_ERROR(Copy(in[i], body.inputs()[p.BodyInputOf(i)]));
  }
  return absl::OkStatus();
}

// The body's next states become its state inputs (staged: an output may be
// another state's input array).
absl::Status CarryStates(const ForeachParam& p, ForeachState* s) {
  const std::vector<Tensor>& outs = s->body->outputs();
  for (int k = 0; k < p.num_states(); ++k) {
    SYMX_RETURN_IF_ERROR(Copy(outs[p.num_out_data + k], s->staged[k]));
  }
  for (int k = 0; k < p.num_states(); ++k) {
    SYMX_RETURN_IF_ERROR(Copy(s->staged[k], s->body->inputs()[s->state_locs[k]]));
  }
  return absl::OkStatus();
}

}  // namespace

bool RegisterBodyBinder(BodyBinder binder) {
  Binder() = binder;
  return true;
}

absl::StatusOr<std::unique_ptr<BoundBody>> BindBody(const BodyBindSpec& spec) {
  if (Binder() == nullptr) {
    return absl::FailedPreconditionError(
        "no body binder is registered: control-flow ops run inside the executor "
        "(link //executor)");
  }
  return Binder()(spec);
}

absl::Status PrepareForeach(KernelContext* ctx, size_t* workspace_bytes) {
  *workspace_bytes = 0;
  SYMX_ASSIGN_OR_RETURN(std::shared_ptr<ForeachState> state,
                        BindState(*ctx, ctx->inputs, /*with_grads=*/false));
  ctx->state = std::move(state);
  return absl::OkStatus();
}

absl::Status ForeachForward(const KernelContext& ctx) {
  auto* s = static_cast<ForeachState*>(ctx.state.get());
  if (s == nullptr) return Fail(ctx, "runs without its bound body (Prepare was not called)");
  std::lock_guard<std::mutex> lock(s->mu);
  const auto& p = ctx.param<ForeachParam>();
  const BoundBody& body = *s->body;
  SYMX_RETURN_IF_ERROR(FeedRemains(p, ctx.inputs, body));
  for (int k = 0; k < p.num_states(); ++k) {
    const Tensor& init = ctx.inputs[p.num_data() + k];
    SYMX_RETURN_IF_ERROR(Copy(
        init, s->len == 0 ? ctx.outputs[p.num_out_data + k] : body.inputs()[s->state_locs[k]]));
  }
  for (int64_t t = 0; t < s->len; ++t) {
    SYMX_RETURN_IF_ERROR(FeedRows(p, ctx.inputs, t, body));
    SYMX_RETURN_IF_ERROR(s->body->Forward(ctx.is_train));
    for (int j = 0; j < p.num_out_data; ++j) {
      if (!OutputWanted(ctx.req, j)) continue;
      SYMX_ASSIGN_OR_RETURN(Tensor row, Row(ctx.outputs[j], t));
      SYMX_RETURN_IF_ERROR(Copy(body.outputs()[j], row));
    }
    if (t + 1 < s->len) {
      SYMX_RETURN_IF_ERROR(CarryStates(p, s));
    } else {
      for (int k = 0; k < p.num_states(); ++k) {
        SYMX_RETURN_IF_ERROR(
            Copy(body.outputs()[p.num_out_data + k], ctx.outputs[p.num_out_data + k]));
      }
    }
  }
  return absl::OkStatus();
}

// _backward_foreach's inputs: the output gradients, then the forward inputs.
absl::Status PrepareForeachBackward(KernelContext* ctx, size_t* workspace_bytes) {
  *workspace_bytes = 0;
  const auto& p = ctx->param<ForeachParam>();
  std::vector<Tensor> fwd_in(ctx->inputs.begin() + p.num_outputs, ctx->inputs.end());
  SYMX_ASSIGN_OR_RETURN(std::shared_ptr<ForeachState> state,
                        BindState(*ctx, fwd_in, /*with_grads=*/true));
  const Context where = ctx->device->ctx();
  std::vector<Tensor> init(fwd_in.begin() + p.num_data(),
                           fwd_in.begin() + p.num_data() + p.num_states());
  for (int64_t t = 0; t < state->len; ++t) {
    SYMX_ASSIGN_OR_RETURN(std::vector<Tensor> step, EmptyLike(init, where));
    state->history.push_back(std::move(step));
  }
  SYMX_ASSIGN_OR_RETURN(state->state_grads, EmptyLike(init, where));
  ctx->state = std::move(state);
  return absl::OkStatus();
}

// Recomputes the states entering each step (the forward kept none), then runs
// the body's backward from the last step to the first: a state's gradient
// flows into the step before, the remaining inputs' (weights') add up.
absl::Status ForeachBackward(const KernelContext& ctx) {
  auto* s = static_cast<ForeachState*>(ctx.state.get());
  if (s == nullptr) return Fail(ctx, "runs without its bound body (Prepare was not called)");
  std::lock_guard<std::mutex> lock(s->mu);
  const auto& p = ctx.param<ForeachParam>();
  std::vector<Tensor> ograds(ctx.inputs.begin(), ctx.inputs.begin() + p.num_outputs);
  std::vector<Tensor> in(ctx.inputs.begin() + p.num_outputs, ctx.inputs.end());
  BoundBody& body = *s->body;
  const std::vector<Tensor>& igrads = body.input_grads();
  SYMX_RETURN_IF_ERROR(FeedRemains(p, in, body));
  for (const Tensor& g : igrads) {
    if (g.defined()) SYMX_RETURN_IF_ERROR(Zero(ctx.device, g));
  }
  for (int k = 0; k < p.num_states(); ++k) {
    SYMX_RETURN_IF_ERROR(Copy(ograds[p.num_out_data + k], s->state_grads[k]));
  }
  if (s->len > 0) {
    for (int k = 0; k < p.num_states(); ++k) {
      SYMX_RETURN_IF_ERROR(Copy(in[p.num_data() + k], s->history[0][k]));
    }
  }
  for (int64_t t = 0; t + 1 < s->len; ++t) {
    SYMX_RETURN_IF_ERROR(FeedRows(p, in, t, body));
    for (int k = 0; k < p.num_states(); ++k) {
      SYMX_RETURN_IF_ERROR(Copy(s->history[t][k], body.inputs()[s->state_locs[k]]));
    }
    SYMX_RETURN_IF_ERROR(body.Forward(ctx.is_train));
    for (int k = 0; k < p.num_states(); ++k) {
      SYMX_RETURN_IF_ERROR(Copy(body.outputs()[p.num_out_data + k], s->history[t + 1][k]));
    }
  }
  std::vector<Tensor> heads(p.num_outputs);
  for (int64_t t = s->len - 1; t >= 0; --t) {
    SYMX_RETURN_IF_ERROR(FeedRows(p, in, t, body));
    for (int k = 0; k < p.num_states(); ++k) {
      SYMX_RETURN_IF_ERROR(Copy(s->history[t][k], body.inputs()[s->state_locs[k]]));
    }
    SYMX_RETURN_IF_ERROR(body.Forward(ctx.is_train));
    for (int j = 0; j < p.num_out_data; ++j) {
      SYMX_ASSIGN_OR_RETURN(Tensor row, Row(ograds[j], t));
      SYMX_ASSIGN_OR_RETURN(heads[j], row.View(body.outputs()[j].shape()));
    }
    for (int k = 0; k < p.num_states(); ++k) heads[p.num_out_data + k] = s->state_grads[k];
    SYMX_RETURN_IF_ERROR(body.Backward(heads));
    for (int i = 0; i < p.num_data(); ++i) {
      if (!OutputWanted(ctx.req, i)) continue;
      SYMX_ASSIGN_OR_RETURN(Tensor row, Row(ctx.outputs[i], t));
      const Tensor& g = igrads[p.in_data_locs[i]];
      SYMX_RETURN_IF_ERROR(g.defined() ? Copy(g, row) : Zero(ctx.device, row));
    }
    for (int k = 0; k < p.num_states(); ++k) {
      const Tensor& g = igrads[s->state_locs[k]];
      SYMX_RETURN_IF_ERROR(g.defined() ? Copy(g, s->state_grads[k])
                                       : Zero(ctx.device, s->state_grads[k]));
    }
  }
  for (int i = p.num_data(); i < p.num_inputs(); ++i) {
    if (!OutputWanted(ctx.req, i)) continue;
    const Tensor& out = ctx.outputs[i];
    if (i < p.num_data() + p.num_states()) {
      SYMX_RETURN_IF_ERROR(Copy(s->state_grads[i - p.num_data()], out));
      continue;
    }
    const Tensor& g = igrads[p.BodyInputOf(i)];
    SYMX_RETURN_IF_ERROR(g.defined() && s->len > 0 ? Copy(g, out) : Zero(ctx.device, out));
  }
  return absl::OkStatus();
}

}  // namespace symx
