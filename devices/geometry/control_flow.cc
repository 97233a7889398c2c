#include "devices/geometry/control_flow.h"

#include <algorithm>
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

// A control-flow kernel's prepared state (its bound bodies); `what` names them
// in the error when Prepare did not run.
template <typename S>
absl::StatusOr<S*> PreparedState(const KernelContext& ctx, const char* what) {
  auto* s = static_cast<S*>(ctx.state.get());
  if (s == nullptr) {
    return Fail(ctx, absl::StrCat("runs without its bound ", what, " (Prepare was not called)"));
  }
  return s;
}

// A control-flow backward op's inputs: the output gradients, then the forward
// inputs.
struct BackwardInputs {
  std::vector<Tensor> ograds, forward;
};

BackwardInputs SplitBackwardInputs(const std::vector<Tensor>& inputs, int64_t num_outputs) {
  return {std::vector<Tensor>(inputs.begin(), inputs.begin() + num_outputs),
          std::vector<Tensor>(inputs.begin() + num_outputs, inputs.end())};
}

Context spec_ctx(const KernelContext& ctx) { return ctx.device->ctx(); }

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
  SYMX_ASSIGN_OR_RETURN(ForeachState * s, PreparedState<ForeachState>(ctx, "body"));
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
  std::vector<Tensor> fwd_in = SplitBackwardInputs(ctx->inputs, p.num_outputs).forward;
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
  SYMX_ASSIGN_OR_RETURN(ForeachState * s, PreparedState<ForeachState>(ctx, "body"));
  std::lock_guard<std::mutex> lock(s->mu);
  const auto& p = ctx.param<ForeachParam>();
  auto [ograds, in] = SplitBackwardInputs(ctx.inputs, p.num_outputs);
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

// ------------------------------------------------------------------ _cond

namespace {

// What a _cond (or _backward_cond) node bound at Prepare: its three bodies.
struct CondState : KernelState {
  std::mutex mu;
  std::unique_ptr<BoundBody> bodies[3];
};

const char* const kBodyNames[] = {"cond", "then", "else"};

absl::StatusOr<std::shared_ptr<CondState>> BindCond(const KernelContext& ctx,
                                                    const std::vector<Tensor>& in,
                                                    bool with_grads) {
  if (ctx.attrs->subgraphs.size() != 3) {
    return Fail(ctx, "has no cond, then and else bodies (MXNet's JSON carries them)");
  }
  const auto& p = ctx.param<CondParam>();
  auto state = std::make_shared<CondState>();
  for (int b = 0; b < 3; ++b) {
    BodyBindSpec spec;
    spec.body = ctx.attrs->subgraphs[b];
    spec.ctx = ctx.device->ctx();
    spec.options = ctx.options;
    for (int64_t loc : p.LocsOf(b)) {
      spec.in_shapes.push_back(in[loc].shape());
      spec.in_types.push_back(in[loc].dtype());
      if (with_grads && b > 0) {
        spec.grads.push_back(IsFloat(in[loc].dtype()) ? BodyGrad::kWrite : BodyGrad::kNone);
      }
    }
    absl::StatusOr<std::unique_ptr<BoundBody>> body = BindBody(spec);
    if (!body.ok()) {
      return Annotate(body.status(),
                      absl::StrCat(ctx.Where(), ": binding its ", kBodyNames[b], " body"));
    }
    state->bodies[b] = *std::move(body);
  }
  if (state->bodies[0]->outputs()[0].size() != 1) {
    return Fail(ctx, absl::StrCat("its cond body's output has shape ",
                                  state->bodies[0]->outputs()[0].shape().ToString(),
                                  "; a condition has one element"));
  }
  return state;
}

// Runs body b on the node inputs its locations name.
absl::Status RunBody(const CondParam& p, int b, const std::vector<Tensor>& in, bool is_train,
                     BoundBody* body) {
  const std::vector<int64_t>& locs = p.LocsOf(b);
  for (size_t k = 0; k < locs.size(); ++k) {
    SYMX_RETURN_IF_ERROR(Copy(in[locs[k]], body->inputs()[k]));
  }
  return body->Forward(is_train);
}

// 1 (then) or 2 (else), from the cond body's value.
absl::StatusOr<int> TakenBranch(const CondParam& p, const std::vector<Tensor>& in, bool is_train,
                                CondState* s) {
  SYMX_RETURN_IF_ERROR(RunBody(p, 0, in, is_train, s->bodies[0].get()));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> value, HostDoubles(s->bodies[0]->outputs()[0]));
  return value[0] != 0 ? 1 : 2;
}

}  // namespace

absl::Status PrepareCond(KernelContext* ctx, size_t* workspace_bytes) {
  *workspace_bytes = 0;
  SYMX_ASSIGN_OR_RETURN(ctx->state, BindCond(*ctx, ctx->inputs, /*with_grads=*/false));
  return absl::OkStatus();
}

absl::Status CondForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CondState * s, PreparedState<CondState>(ctx, "bodies"));
  std::lock_guard<std::mutex> lock(s->mu);
  const auto& p = ctx.param<CondParam>();
  SYMX_ASSIGN_OR_RETURN(int b, TakenBranch(p, ctx.inputs, ctx.is_train, s));
  BoundBody& body = *s->bodies[b];
  SYMX_RETURN_IF_ERROR(RunBody(p, b, ctx.inputs, ctx.is_train, &body));
  for (size_t j = 0; j < ctx.outputs.size(); ++j) {
    if (!OutputWanted(ctx.req, j)) continue;
    if (body.outputs()[j].shape() != ctx.outputs[j].shape()) {
      return Fail(ctx, absl::StrCat("the ", kBodyNames[b], " body's output ", j, " has shape ",
                                    body.outputs()[j].shape().ToString(), " but the op's is ",
                                    ctx.outputs[j].shape().ToString()));
    }
    SYMX_RETURN_IF_ERROR(Copy(body.outputs()[j], ctx.outputs[j]));
  }
  return absl::OkStatus();
}

// _backward_cond's inputs: the output gradients, then the forward inputs. The
// condition is computed again (the forward kept nothing).
absl::Status PrepareCondBackward(KernelContext* ctx, size_t* workspace_bytes) {
  *workspace_bytes = 0;
  const auto& p = ctx->param<CondParam>();
  std::vector<Tensor> fwd_in = SplitBackwardInputs(ctx->inputs, p.num_outputs).forward;
  SYMX_ASSIGN_OR_RETURN(ctx->state, BindCond(*ctx, fwd_in, /*with_grads=*/true));
  return absl::OkStatus();
}

absl::Status CondBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CondState * s, PreparedState<CondState>(ctx, "bodies"));
  std::lock_guard<std::mutex> lock(s->mu);
  const auto& p = ctx.param<CondParam>();
  auto [ograds, in] = SplitBackwardInputs(ctx.inputs, p.num_outputs);
  SYMX_ASSIGN_OR_RETURN(int b, TakenBranch(p, in, ctx.is_train, s));
  BoundBody& body = *s->bodies[b];
  SYMX_RETURN_IF_ERROR(RunBody(p, b, in, ctx.is_train, &body));
  SYMX_RETURN_IF_ERROR(body.Backward(ograds));
  std::vector<int> grad_of(p.num_inputs(), -1);  // body input whose gradient input i gets
  for (size_t k = 0; k < p.LocsOf(b).size(); ++k) grad_of[p.LocsOf(b)[k]] = static_cast<int>(k);
  for (int i = 0; i < p.num_inputs(); ++i) {
    if (!OutputWanted(ctx.req, i)) continue;
    const Tensor* g = grad_of[i] >= 0 ? &body.input_grads()[grad_of[i]] : nullptr;
    SYMX_RETURN_IF_ERROR(g != nullptr && g->defined() ? Copy(*g, ctx.outputs[i])
                                                      : Zero(ctx.device, ctx.outputs[i]));
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------------ _while_loop

namespace {

// What a _while_loop (or _backward_while_loop) node bound at Prepare.
struct WhileLoopState : KernelState {
  std::mutex mu;
  std::unique_ptr<BoundBody> cond, func;
  std::vector<Tensor> vars;    // the loop variables' current values
  std::vector<Tensor> staged;  // their next values (func may swap them)
  // Backward only: the loop variables entering each step, and their gradients.
  std::vector<std::vector<Tensor>> history;
  std::vector<Tensor> var_grads;
};

absl::StatusOr<std::shared_ptr<WhileLoopState>> BindWhileLoop(const KernelContext& ctx,
                                                              const std::vector<Tensor>& in,
                                                              bool with_grads) {
  if (ctx.attrs->subgraphs.size() != 2) {
    return Fail(ctx, "has no cond and func bodies (MXNet's JSON carries them)");
  }
  const auto& p = ctx.param<WhileLoopParam>();
  auto state = std::make_shared<WhileLoopState>();
  for (int b = 0; b < 2; ++b) {
    BodyBindSpec spec;
    spec.body = ctx.attrs->subgraphs[b];
    spec.ctx = ctx.device->ctx();
    spec.options = ctx.options;
    for (int64_t loc : p.LocsOf(b)) {
      spec.in_shapes.push_back(in[loc].shape());
      spec.in_types.push_back(in[loc].dtype());
    }
    if (with_grads && b == 1) {
      for (size_t k = 0; k < p.func_input_locs.size(); ++k) {
        const bool is_var = std::find(p.func_var_locs.begin(), p.func_var_locs.end(),
                                      static_cast<int64_t>(k)) != p.func_var_locs.end();
        spec.grads.push_back(!IsFloat(spec.in_types[k]) ? BodyGrad::kNone
                             : is_var                   ? BodyGrad::kWrite
                                                        : BodyGrad::kAdd);
      }
    }
    absl::StatusOr<std::unique_ptr<BoundBody>> body = BindBody(spec);
    if (!body.ok()) {
      return Annotate(body.status(), absl::StrCat(ctx.Where(), ": binding its ",
                                                  b == 0 ? "cond" : "func", " body"));
    }
    (b == 0 ? state->cond : state->func) = *std::move(body);
  }
  if (state->cond->outputs()[0].size() != 1) {
    return Fail(ctx, absl::StrCat("its cond body's output has shape ",
                                  state->cond->outputs()[0].shape().ToString(),
                                  "; a condition has one element"));
  }
  std::vector<Tensor> init;
  for (int v = 0; v < p.num_vars(); ++v) {
    const Tensor& x = in[p.VarInput(v)];
    const Tensor& next = state->func->outputs()[p.num_out_data + v];
    if (next.shape() != x.shape() || next.dtype() != x.dtype()) {
      return Fail(ctx, absl::StrCat("loop variable ", v, " enters func as ", x.shape().ToString(),
                                    " ", DTypeName(x.dtype()), " but leaves it as ",
                                    next.shape().ToString(), " ", DTypeName(next.dtype())));
    }
    init.push_back(x);
  }
  SYMX_ASSIGN_OR_RETURN(state->vars, EmptyLike(init, spec_ctx(ctx)));
  SYMX_ASSIGN_OR_RETURN(state->staged, EmptyLike(init, spec_ctx(ctx)));
  if (with_grads) {
    for (int64_t t = 0; t < p.max_iterations; ++t) {
      SYMX_ASSIGN_OR_RETURN(std::vector<Tensor> step, EmptyLike(init, spec_ctx(ctx)));
      state->history.push_back(std::move(step));
    }
    SYMX_ASSIGN_OR_RETURN(state->var_grads, EmptyLike(init, spec_ctx(ctx)));
  }
  return state;
}

// Feeds body b the node inputs its locations name, loop variables at their
// current values.
absl::Status FeedLoopBody(const WhileLoopParam& p, int b, const std::vector<Tensor>& in,
                          const WhileLoopState& s, BoundBody* body) {
  const std::vector<int64_t>& locs = p.LocsOf(b);
  for (size_t k = 0; k < locs.size(); ++k) {
    const Tensor* value = &in[locs[k]];
    for (int v = 0; v < p.num_vars(); ++v) {
      if (p.VarInput(v) == locs[k]) value = &s.vars[v];
    }
    SYMX_RETURN_IF_ERROR(Copy(*value, body->inputs()[k]));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> KeepGoing(const WhileLoopParam& p, const std::vector<Tensor>& in,
                               bool is_train, WhileLoopState* s) {
  SYMX_RETURN_IF_ERROR(FeedLoopBody(p, 0, in, *s, s->cond.get()));
  SYMX_RETURN_IF_ERROR(s->cond->Forward(is_train));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> value, HostDoubles(s->cond->outputs()[0]));
  return value[0] != 0;
}

// func's new loop variables become the current ones.
absl::Status NextVars(const WhileLoopParam& p, WhileLoopState* s) {
  for (int v = 0; v < p.num_vars(); ++v) {
    SYMX_RETURN_IF_ERROR(Copy(s->func->outputs()[p.num_out_data + v], s->staged[v]));
  }
  for (int v = 0; v < p.num_vars(); ++v) SYMX_RETURN_IF_ERROR(Copy(s->staged[v], s->vars[v]));
  return absl::OkStatus();
}

// Runs the loop from the node inputs; `record` gets the loop variables
// entering each step, `step_out` each step's func outputs. Returns the steps run.
absl::StatusOr<int64_t> RunLoop(const KernelContext& ctx, const WhileLoopParam& p,
                                const std::vector<Tensor>& in, WhileLoopState* s, bool record,
                                const std::vector<Tensor>* outputs) {
  for (int v = 0; v < p.num_vars(); ++v) SYMX_RETURN_IF_ERROR(Copy(in[p.VarInput(v)], s->vars[v]));
  int64_t step = 0;
  for (; step < p.max_iterations; ++step) {
    SYMX_ASSIGN_OR_RETURN(bool go, KeepGoing(p, in, ctx.is_train, s));
    if (!go) break;
    if (record) {
      for (int v = 0; v < p.num_vars(); ++v) {
        SYMX_RETURN_IF_ERROR(Copy(s->vars[v], s->history[step][v]));
      }
    }
    SYMX_RETURN_IF_ERROR(FeedLoopBody(p, 1, in, *s, s->func.get()));
    SYMX_RETURN_IF_ERROR(s->func->Forward(ctx.is_train));
    for (int j = 0; outputs != nullptr && j < p.num_out_data; ++j) {
      if (!OutputWanted(ctx.req, j)) continue;
      SYMX_ASSIGN_OR_RETURN(Tensor row, Row((*outputs)[j], step));
      SYMX_RETURN_IF_ERROR(Copy(s->func->outputs()[j], row));
    }
    SYMX_RETURN_IF_ERROR(NextVars(p, s));
  }
  return step;
}

}  // namespace

absl::Status PrepareWhileLoop(KernelContext* ctx, size_t* workspace_bytes) {
  *workspace_bytes = 0;
  SYMX_ASSIGN_OR_RETURN(ctx->state, BindWhileLoop(*ctx, ctx->inputs, /*with_grads=*/false));
  return absl::OkStatus();
}

// Rows of steps not taken are zero (MXNet leaves them uninitialized); a loop
// still running after max_iterations steps stops there, as MXNet's does.
absl::Status WhileLoopForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(WhileLoopState * s, PreparedState<WhileLoopState>(ctx, "bodies"));
  std::lock_guard<std::mutex> lock(s->mu);
  const auto& p = ctx.param<WhileLoopParam>();
  SYMX_ASSIGN_OR_RETURN(int64_t steps, RunLoop(ctx, p, ctx.inputs, s, false, &ctx.outputs));
  for (int j = 0; j < p.num_out_data; ++j) {
    if (!OutputWanted(ctx.req, j) || steps == p.max_iterations) continue;
    SYMX_ASSIGN_OR_RETURN(Tensor rest, ctx.outputs[j].Slice(steps, p.max_iterations));
    SYMX_RETURN_IF_ERROR(Zero(ctx.device, rest));
  }
  for (int v = 0; v < p.num_vars(); ++v) {
    SYMX_RETURN_IF_ERROR(Copy(s->vars[v], ctx.outputs[p.num_out_data + v]));
  }
  return absl::OkStatus();
}

absl::Status PrepareWhileLoopBackward(KernelContext* ctx, size_t* workspace_bytes) {
  *workspace_bytes = 0;
  const auto& p = ctx->param<WhileLoopParam>();
  std::vector<Tensor> fwd_in = SplitBackwardInputs(ctx->inputs, p.num_outputs).forward;
  SYMX_ASSIGN_OR_RETURN(ctx->state, BindWhileLoop(*ctx, fwd_in, /*with_grads=*/true));
  return absl::OkStatus();
}

// Runs the loop again recording the loop variables entering each step, then
// func's backward from the last step taken to the first: a loop variable's
// gradient flows into the step before, the other func inputs' add up; inputs
// only cond reads get zero (cond has no gradient, as in MXNet).
absl::Status WhileLoopBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(WhileLoopState * s, PreparedState<WhileLoopState>(ctx, "bodies"));
  std::lock_guard<std::mutex> lock(s->mu);
  const auto& p = ctx.param<WhileLoopParam>();
  auto [ograds, in] = SplitBackwardInputs(ctx.inputs, p.num_outputs);
  BoundBody& func = *s->func;
  const std::vector<Tensor>& igrads = func.input_grads();
  for (const Tensor& g : igrads) {
    if (g.defined()) SYMX_RETURN_IF_ERROR(Zero(ctx.device, g));
  }
  SYMX_ASSIGN_OR_RETURN(int64_t steps, RunLoop(ctx, p, in, s, true, nullptr));
  for (int v = 0; v < p.num_vars(); ++v) {
    SYMX_RETURN_IF_ERROR(Copy(ograds[p.num_out_data + v], s->var_grads[v]));
  }
  std::vector<Tensor> heads(p.num_outputs);
  for (int64_t t = steps - 1; t >= 0; --t) {
    for (int v = 0; v < p.num_vars(); ++v) SYMX_RETURN_IF_ERROR(Copy(s->history[t][v], s->vars[v]));
    SYMX_RETURN_IF_ERROR(FeedLoopBody(p, 1, in, *s, &func));
    SYMX_RETURN_IF_ERROR(func.Forward(ctx.is_train));
    for (int j = 0; j < p.num_out_data; ++j) {
      SYMX_ASSIGN_OR_RETURN(Tensor row, Row(ograds[j], t));
      SYMX_ASSIGN_OR_RETURN(heads[j], row.View(func.outputs()[j].shape()));
    }
    for (int v = 0; v < p.num_vars(); ++v) heads[p.num_out_data + v] = s->var_grads[v];
    SYMX_RETURN_IF_ERROR(func.Backward(heads));
    for (int v = 0; v < p.num_vars(); ++v) {
      const Tensor& g = igrads[p.func_var_locs[v]];
      SYMX_RETURN_IF_ERROR(g.defined() ? Copy(g, s->var_grads[v])
                                       : Zero(ctx.device, s->var_grads[v]));
    }
  }
  for (int i = 0; i < p.num_inputs(); ++i) {
    if (!OutputWanted(ctx.req, i)) continue;
    int var = -1, func_in = -1;
    for (int v = 0; v < p.num_vars(); ++v) {
      if (p.VarInput(v) == i) var = v;
    }
    for (size_t k = 0; k < p.func_input_locs.size(); ++k) {
      if (p.func_input_locs[k] == i) func_in = static_cast<int>(k);
    }
    if (var >= 0) {
      SYMX_RETURN_IF_ERROR(Copy(s->var_grads[var], ctx.outputs[i]));
    } else if (func_in >= 0 && igrads[func_in].defined() && steps > 0) {
      SYMX_RETURN_IF_ERROR(Copy(igrads[func_in], ctx.outputs[i]));
    } else {
      SYMX_RETURN_IF_ERROR(Zero(ctx.device, ctx.outputs[i]));
    }
  }
  return absl::OkStatus();
}

}  // namespace symx
