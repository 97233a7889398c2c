// RunState and gradient accumulation.
#include "executor/run_state.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "devices/device.h"

namespace symx {

RunState::RunState(const ExecPlan& plan)
    : channel{plan.comm.get(), plan.device_comm.get(), plan.comm_timeout, &pending, &cancel} {
  for (const auto& [phase, contexts] :
       {std::pair{&plan.forward, &forward}, std::pair{&plan.backward, &backward}}) {
    contexts->reserve(phase->steps.size());
    for (const Step& step : phase->steps) {
      contexts->push_back(step.ctx);
      if (step.ctx.rank_channel != nullptr) contexts->back().rank_channel = &channel;
    }
  }
}

absl::Status AccumulateInto(const Tensor& src, const Tensor& dst) {
  if (src.size() != dst.size() || src.dtype() != dst.dtype()) {
    return absl::InternalError(
        absl::StrCat("accumulate ", src.DebugString(), " into ", dst.DebugString()));
  }
  SYMX_ASSIGN_OR_RETURN(Device * device, GetDevice(dst.ctx()));
  if (device->host_memory()) {
    ReduceInto(ReduceOp::kSum, dst.dtype(), src.raw_data(), dst.raw_data(), src.size());
    return absl::OkStatus();
  }
  // Device memory: the device's own elemwise_add, in place into dst.
  const KernelInfo* add = KernelRegistry::Find("elemwise_add", dst.ctx().type);
  if (add == nullptr) {
    return absl::InternalError(absl::StrCat("no elemwise_add kernel on ", dst.ctx().ToString(),
                                            " to accumulate a gradient with"));
  }
  static const NodeAttrs* attrs = new NodeAttrs{};
  KernelContext ctx;
  ctx.attrs = attrs;
  ctx.device = device;
  ctx.inputs = {dst, src};
  ctx.outputs = {dst};
  ctx.req = {OpReq::kInplace};
  return add->fn(ctx);
}

}  // namespace symx
