// FuseForInference: convolution chains of an inference bind become fused
// nodes (executor/inference_fusion.h).
#include "devices/cpu/fused_conv_kernels.h"
#include "executor/inference_fusion.h"
#include "executor/passes/passes.h"

namespace symx {
namespace {

// The fused ops have CPU kernels only, and pay only with oneDNN.
bool FusionApplies(const BindState& s) {
  const ResolvedBind& bind = s.bind;
  if (!bind.engine.fusion || !cpu::CpuFusionPays(bind.engine)) return false;
  if (s.bind_ctx.type != DeviceType::kCPU) return false;
  for (const auto& [group, c] : bind.group2ctx) {
    if (c.type != DeviceType::kCPU) return false;
  }
  return true;
}

}  // namespace

absl::Status FuseForInference(BindState* s) {
  if (!s->inference() || !FusionApplies(*s)) return absl::OkStatus();
  int fused = 0;
  SYMX_ASSIGN_OR_RETURN(s->full_outputs, FuseConvChains(s->full_outputs, &fused));
  return absl::OkStatus();
}

}  // namespace symx
