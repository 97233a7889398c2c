// AllocateWorkspaces: one workspace per device, as large as the largest
// step's need, shared by every step of that device.
#include <algorithm>

#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;

TEST(AllocateWorkspaces, LargestStepSizesTheDevicesWorkspace) {
  Symbol conv = OpCall("Convolution")
                    .Name("conv")
                    .Attr("kernel", "(3,3)")
                    .Attr("num_filter", "4")
                    .Input(Symbol::Variable("data"));
  PassBind b(conv, {{"data", Shape{2, 3, 10, 10}}});
  ASSERT_TRUE(b.RunBefore("allocate workspaces").ok());
  const BindState& s = b.state();
  size_t largest = 0;
  for (size_t bytes : s.prepared_bytes) largest = std::max(largest, bytes);
  ASSERT_TRUE(b.Run("allocate workspaces").ok());
  ASSERT_EQ(s.workspace_bytes.size(), 1u);
  EXPECT_GE(s.workspace_bytes[0], largest);
  ASSERT_EQ(b.plan.workspaces.size(), 1u);
  if (s.workspace_bytes[0] == 0) {
    EXPECT_FALSE(b.plan.workspaces[0].defined());
    return;
  }
  EXPECT_EQ(b.plan.workspaces[0].nbytes(), s.workspace_bytes[0]);
  for (const Phase* phase : {&b.plan.forward, &b.plan.backward}) {
    for (const Step& step : phase->steps) {
      EXPECT_EQ(step.ctx.workspace.raw_data(), b.plan.workspaces[0].raw_data());
    }
  }
}

// Each device its own: a device whose steps need no scratch gets none, while
// the other's is sized by its own steps.
TEST(AllocateWorkspaces, PerDevice) {
  Symbol conv;
  {
    AttrScope scope(AttrMap{{"ctx_group", "dev1"}});
    conv = OpCall("Convolution")
               .Name("conv")
               .Attr("kernel", "(3,3)")
               .Attr("num_filter", "4")
               .Input(Symbol::Variable("data"));
  }
  Symbol net;
  {
    AttrScope scope(AttrMap{{"ctx_group", "dev2"}});
    net = OpCall("exp").Name("e").Input(conv);
  }
  PassBind b(net, {{"data", Shape{2, 3, 10, 10}}}, GradReq::kNull);
  b.bind.group2ctx = {{"dev1", Context::CPU(0)}, {"dev2", Context::CPU(1)}};
  ASSERT_TRUE(b.RunThrough("allocate workspaces").ok());
  const BindState& s = b.state();
  ASSERT_EQ(s.workspace_bytes.size(), 2u);
  EXPECT_EQ(s.workspace_bytes[1], 0u);  // exp and the copy need no scratch
  EXPECT_FALSE(b.plan.workspaces[1].defined());
  for (const Step& step : b.plan.forward.steps) {
    if (s.slot[step.node_id] == 1) {
      EXPECT_FALSE(step.ctx.workspace.defined());
    }
  }
}

}  // namespace
}  // namespace symx
