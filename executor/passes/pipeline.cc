// BuildPlan: the bind passes, in order.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "executor/passes/passes.h"
#include "graph/error.h"

namespace symx {

const std::vector<BindPass>& BindPasses() {
  static const std::vector<BindPass>* passes = new std::vector<BindPass>{
      {"collect variables", CollectVariables},
      {"agree on request", AgreeOnRequest},
      {"locate array homes", LocateArrayHomes},
      {"build gradient graph", BuildGradientGraph},
      {"fuse for inference", FuseForInference},
      {"place and partition", PlaceAndPartition},
      {"infer shapes and types", InferShapesAndTypes},
      {"assign device slots", AssignDeviceSlots},
      {"choose kernels", ChooseKernels},
      {"agree on plan", AgreeOnPlan},
      {"allocate gradients", AllocateGradients},
      {"mark external entries", MarkExternalEntries},
      {"find cross-device reads", FindCrossDeviceReads},
      {"plan device memory", PlanDeviceMemory},
      {"plan layout", PlanLayout},
      {"connect device communicator", ConnectDeviceCommunicator},
      {"build steps", BuildSteps},
      {"allocate workspaces", AllocateWorkspaces},
      {"order gradients", OrderGradients},
      {"count memory", CountMemory},
      {"agree on completion", AgreeOnCompletion},
      {"commit pools", CommitPools},
  };
  return *passes;
}

absl::Status RunPassesBefore(std::string_view name, BindState* s) {
  const std::vector<BindPass>& passes = BindPasses();
  auto it =
      std::find_if(passes.begin(), passes.end(), [&](const BindPass& p) { return p.name == name; });
  if (it == passes.end()) {
    return absl::InvalidArgumentError(absl::StrCat("no bind pass named '", std::string(name), "'"));
  }
  for (auto pass = passes.begin(); pass != it; ++pass) SYMX_RETURN_IF_ERROR(pass->run(s));
  return absl::OkStatus();
}

absl::Status BuildPlan(const Symbol& symbol, ResolvedBind* bind, ExecPlan* plan,
                       std::vector<Tensor>* outputs, PoolMap* pools) {
  BindState state(symbol, bind, plan, outputs, pools);
  for (const BindPass& pass : BindPasses()) SYMX_RETURN_IF_ERROR(pass.run(&state));
  return absl::OkStatus();
}

}  // namespace symx
