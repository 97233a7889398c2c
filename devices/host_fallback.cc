#include "devices/host_fallback.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/op.h"

namespace symx {
namespace {

// The CPU kernel's context on host buffers, and which inputs the op mutates.
struct FallbackState : KernelState {
  const KernelInfo* cpu = nullptr;
  KernelContext host;
  std::vector<int> aux;
  // Per output: copied back to the device after the call (not when the
  // output is one of the inputs itself, as a _send's is: the host buffer
  // would overwrite the value on the device with what the kernel never wrote).
  std::vector<bool> copy_back;
};

// The input whose memory output `out` is (same bytes, same place), or -1.
int AliasedInput(const KernelContext& ctx, const Tensor& out) {
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    const Tensor& in = ctx.inputs[i];
    if (in.defined() && out.defined() && in.nbytes() == out.nbytes() &&
        in.read_raw_data() == out.read_raw_data()) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

absl::Status Annotated(const absl::Status& s, const KernelContext& ctx) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(s.message(), " (", ctx.Where(),
                                             " runs its CPU kernel on host copies for ",
                                             ctx.device->ctx().ToString(), ")"));
}

absl::Status Prepare(KernelContext* ctx, size_t* workspace_bytes) {
  const std::string& op = ctx->attrs->op->name();
  auto state = std::make_shared<FallbackState>();
  state->cpu = KernelRegistry::Find(op, DeviceType::kCPU);
  if (state->cpu == nullptr) {
    return absl::InternalError(absl::StrCat(ctx->Where(), " has no CPU kernel to fall back on"));
  }
  SYMX_ASSIGN_OR_RETURN(Device * cpu, GetDevice(Context::CPU(0)));
  KernelContext& host = state->host;
  host.attrs = ctx->attrs;
  host.device = cpu;
  host.is_train = ctx->is_train;
  host.options = ctx->options;
  host.num_threads = cpu->num_threads();
  // _send/_recv on host copies talk over the bind's host communicator.
  host.rank_channel = ctx->rank_channel;
  for (const Tensor& t : ctx->inputs) {
    // A _recv's input stands for its _send's value on another rank: there is
    // nothing here to copy.
    if (!t.defined()) {
      host.inputs.emplace_back();
      continue;
    }
    SYMX_ASSIGN_OR_RETURN(Tensor h, Tensor::Empty(t.shape(), t.dtype(), cpu->ctx()));
    host.inputs.push_back(std::move(h));
  }
  for (size_t j = 0; j < ctx->outputs.size(); ++j) {
    const Tensor& t = ctx->outputs[j];
    const int alias = AliasedInput(*ctx, t);
    if (alias >= 0) {
      // The output is that input (a _send's): so on the host too.
      host.outputs.push_back(host.inputs[alias]);
      host.req.push_back(OpReq::kInplace);
      state->copy_back.push_back(false);
      continue;
    }
    SYMX_ASSIGN_OR_RETURN(Tensor h, Tensor::Empty(t.shape(), t.dtype(), cpu->ctx()));
    host.outputs.push_back(std::move(h));
    // Host buffers never alias, and the device output is written by a copy.
    host.req.push_back(OutputWanted(ctx->req, j) ? OpReq::kWrite : OpReq::kNull);
    state->copy_back.push_back(host.req.back() != OpReq::kNull);
  }
  state->aux = ctx->attrs->op->AuxInputs(*ctx->attrs);

  SYMX_RETURN_IF_ERROR(PrepareNested(*state->cpu, &host));
  ctx->state = std::move(state);
  *workspace_bytes = 0;  // the device itself needs no scratch
  return absl::OkStatus();
}

absl::Status Run(const KernelContext& ctx) {
  auto* state = dynamic_cast<FallbackState*>(ctx.state.get());
  if (state == nullptr) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": host fallback was not prepared"));
  }
  KernelContext& host = state->host;
  // What the run decides: the executor's RunState gives each run its own
  // channel (pending sends, cancel flag), not the one Prepare saw.
  host.is_train = ctx.is_train;
  host.rank_channel = ctx.rank_channel;
  Device& device = *ctx.device;
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (!ctx.inputs[i].defined()) continue;
    const size_t bytes = ctx.inputs[i].nbytes();
    if (bytes == 0) continue;
    // raw_data counts a write, so the CPU kernel rebuilds anything it
    // derived from the previous contents.
    SYMX_RETURN_IF_ERROR(Annotated(
        device.CopyToHost(ctx.inputs[i].read_raw_data(), host.inputs[i].raw_data(), bytes), ctx));
  }
  SYMX_RETURN_IF_ERROR(Annotated(state->cpu->fn(host), ctx));
  for (size_t j = 0; j < ctx.outputs.size(); ++j) {
    const size_t bytes = ctx.outputs[j].nbytes();
    if (!state->copy_back[j] || bytes == 0) continue;
    SYMX_RETURN_IF_ERROR(Annotated(
        device.CopyFromHost(host.outputs[j].read_raw_data(), ctx.outputs[j].raw_data(), bytes),
        ctx));
  }
  if (ctx.is_train) {
    for (int i : state->aux) {
      const size_t bytes = ctx.inputs[i].nbytes();
      if (bytes == 0) continue;
      SYMX_RETURN_IF_ERROR(Annotated(
          device.CopyFromHost(host.inputs[i].read_raw_data(), ctx.inputs[i].raw_data(), bytes),
          ctx));
    }
  }
  return absl::OkStatus();
}

const KernelInfo kFallback{Run, nullptr, /*supports_add=*/false, Prepare};

}  // namespace

const KernelInfo* HostFallbackKernel(absl::string_view op_name) {
  return KernelRegistry::Find(op_name, DeviceType::kCPU) != nullptr ? &kFallback : nullptr;
}

}  // namespace symx
