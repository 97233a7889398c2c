#include "devices/half_widening.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/op.h"

namespace symx {
namespace {

bool IsHalf(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

// The float32 kernel's context, and per slot whether it is a widened copy.
struct WideningState : KernelState {
  const KernelInfo* inner = nullptr;
  KernelContext wide;
  std::vector<bool> wide_in, wide_out;
  std::vector<int> aux;
};

void Convert(const Tensor& src, const Tensor& dst) {
  ConvertElements(src.read_raw_data(), src.dtype(), dst.raw_data(), dst.dtype(), src.size());
}

absl::Status Prepare(KernelContext* ctx, size_t* workspace_bytes) {
  const std::string& op = ctx->attrs->op->name();
  auto state = std::make_shared<WideningState>();
  state->inner = KernelRegistry::Find(op, DeviceType::kCPU);
  if (state->inner == nullptr) {
    return absl::InternalError(absl::StrCat(ctx->Where(), " has no CPU kernel to widen"));
  }
  KernelContext& wide = state->wide;
  wide.attrs = ctx->attrs;
  wide.device = ctx->device;
  wide.is_train = ctx->is_train;
  wide.num_threads = ctx->num_threads;
  wide.rank_channel = ctx->rank_channel;
  wide.inference = ctx->inference;
  wide.options = ctx->options;
  for (const Tensor& t : ctx->inputs) {
    state->wide_in.push_back(IsHalf(t.dtype()));
    if (state->wide_in.back()) {
      SYMX_ASSIGN_OR_RETURN(Tensor w, Tensor::Empty(t.shape(), DType::kFloat32, t.ctx()));
      wide.inputs.push_back(std::move(w));
    } else {
      wide.inputs.push_back(t);
    }
  }
  for (size_t j = 0; j < ctx->outputs.size(); ++j) {
    const Tensor& t = ctx->outputs[j];
    const OpReq req = j < ctx->req.size() ? ctx->req[j] : OpReq::kWrite;
    // An output the float32 kernel cannot add into is added on the way back
    // too, whatever its dtype.
    state->wide_out.push_back(IsHalf(t.dtype()) ||
                              (req == OpReq::kAdd && !state->inner->supports_add));
    if (state->wide_out.back()) {
      const DType dt = IsHalf(t.dtype()) ? DType::kFloat32 : t.dtype();
      SYMX_ASSIGN_OR_RETURN(Tensor w, Tensor::Empty(t.shape(), dt, t.ctx()));
      wide.outputs.push_back(std::move(w));
      // The float32 buffer never aliases an input; adding happens on the
      // way back (Run).
      wide.req.push_back(req == OpReq::kNull ? OpReq::kNull : OpReq::kWrite);
    } else {
      wide.outputs.push_back(t);
      wide.req.push_back(req);
    }
  }
  state->aux = ctx->attrs->op->AuxInputs(*ctx->attrs);

  SYMX_RETURN_IF_ERROR(PrepareNested(*state->inner, &wide));
  ctx->state = std::move(state);
  *workspace_bytes = 0;
  return absl::OkStatus();
}

absl::Status Run(const KernelContext& ctx) {
  auto* state = dynamic_cast<WideningState*>(ctx.state.get());
  if (state == nullptr) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": half widening was not prepared"));
  }
  KernelContext& wide = state->wide;
  // As the run has it (the executor's RunState), not as Prepare saw it.
  wide.is_train = ctx.is_train;
  wide.rank_channel = ctx.rank_channel;
  // Slots that are not widened are the step's own tensors this call.
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (state->wide_in[i]) {
      Convert(ctx.inputs[i], wide.inputs[i]);
    } else {
      wide.inputs[i] = ctx.inputs[i];
    }
  }
  for (size_t j = 0; j < ctx.outputs.size(); ++j) {
    if (!state->wide_out[j]) wide.outputs[j] = ctx.outputs[j];
  }
  absl::Status s = state->inner->fn(wide);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), " (", ctx.Where(),
                                               " computes in float32 for half precision)"));
  }
  for (size_t j = 0; j < ctx.outputs.size(); ++j) {
    const OpReq req = j < ctx.req.size() ? ctx.req[j] : OpReq::kWrite;
    if (!state->wide_out[j] || req == OpReq::kNull) continue;
    const Tensor& out = ctx.outputs[j];
    if (req == OpReq::kAdd) {
      // out + result, added in the wide dtype and rounded once.
      const Tensor& w = wide.outputs[j];
      const char* old = static_cast<const char*>(out.read_raw_data());
      char* sum = static_cast<char*>(w.raw_data());
      const size_t old_size = DTypeSize(out.dtype()), sum_size = DTypeSize(w.dtype());
      for (int64_t k = 0; k < out.size(); ++k) {
        double a, b;
        ConvertElements(old + k * old_size, out.dtype(), &a, DType::kFloat64, 1);
        ConvertElements(sum + k * sum_size, w.dtype(), &b, DType::kFloat64, 1);
        b += a;
        ConvertElements(&b, DType::kFloat64, sum + k * sum_size, w.dtype(), 1);
      }
    }
    Convert(wide.outputs[j], out);
  }
  if (ctx.is_train) {
    for (int i : state->aux) {
      if (state->wide_in[i]) Convert(wide.inputs[i], ctx.inputs[i]);
    }
  }
  return absl::OkStatus();
}

// Adds into every output itself (Run), so the plan may ask it to.
const KernelInfo kWidening{Run, nullptr, /*supports_add=*/true, Prepare};

}  // namespace

const KernelInfo* HalfWideningKernel(absl::string_view op_name, const std::vector<DType>& dtypes) {
  const bool bf16 = std::count(dtypes.begin(), dtypes.end(), DType::kBFloat16) > 0;
  const bool f16 = std::count(dtypes.begin(), dtypes.end(), DType::kFloat16) > 0;
  const KernelInfo* cpu = KernelRegistry::Find(op_name, DeviceType::kCPU);
  if (cpu == nullptr || cpu->widening == HalfWidening::kNever) return nullptr;
  const bool widen = bf16 || (f16 && cpu->widening == HalfWidening::kFloat16AndBFloat16);
  return widen ? &kWidening : nullptr;
}

std::vector<std::string> HalfWidenedOps() {
  std::vector<std::string> ops;
  for (const std::string& op : KernelRegistry::List(DeviceType::kCPU)) {
    if (KernelRegistry::Find(op, DeviceType::kCPU)->widening == HalfWidening::kFloat16AndBFloat16) {
      ops.push_back(op);
    }
  }
  return ops;
}

}  // namespace symx
