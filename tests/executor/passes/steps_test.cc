// BuildSteps: one step per op node in its phase and device list, a copy that
// waits for its producer on another device, and req null for a backward
// output nothing reads.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::testing::ElementsAre;

TEST(BuildSteps, PhasesDevicesAndWaits) {
  PassBind b(testing::TwoGroups(), {{"a", Shape{4}}, {"b", Shape{4}}}, GradReq::kNull);
  b.bind.group2ctx = {{"dev1", Context::CPU(0)}, {"dev2", Context::CPU(1)}};
  ASSERT_TRUE(b.RunBefore("build steps").ok());
  ASSERT_TRUE(b.Run("build steps").ok());
  const Phase& fwd = b.plan.forward;
  // prod on cpu(0); two copies and sum on cpu(1).
  ASSERT_EQ(fwd.steps.size(), 4u);
  EXPECT_TRUE(b.plan.backward.steps.empty());
  ASSERT_EQ(fwd.per_device.size(), 2u);
  EXPECT_EQ(fwd.per_device[0].size(), 1u);
  EXPECT_EQ(fwd.per_device[1].size(), 3u);
  const Step& prod = fwd.steps[fwd.per_device[0][0]];
  EXPECT_EQ(prod.node_id, b.NodeId("prod"));
  EXPECT_TRUE(prod.signals);
  int waiting = 0;
  for (uint32_t i : fwd.per_device[1]) {
    const Step& st = fwd.steps[i];
    if (!st.waits.empty()) {
      ++waiting;
      EXPECT_THAT(st.waits, ElementsAre(fwd.per_device[0][0]));
    }
    EXPECT_EQ(st.ctx.device, b.state().devices[1]);
  }
  EXPECT_EQ(waiting, 1);  // the copy of prod (a's copy reads a variable)
  EXPECT_EQ(b.state().step_of[b.NodeId("a")], -1);
}

TEST(BuildSteps, UnreadBackwardOutputGetsReqNull) {
  Symbol fc =
      OpCall("FullyConnected").Name("fc").Attr("num_hidden", "2").Input(Symbol::Variable("x"));
  PassBind b(fc, {{"x", Shape{2, 3}}});
  b.bind.reqs[0] = GradReq::kNull;  // x: its gradient is unread
  ASSERT_TRUE(b.RunThrough("build steps").ok());
  const Phase& bwd = b.plan.backward;
  ASSERT_EQ(bwd.steps.size(), 1u);
  const Step& step = bwd.steps[0];
  ASSERT_EQ(step.ctx.req.size(), 3u);  // d x, d weight, d bias
  EXPECT_EQ(step.ctx.req[0], OpReq::kNull);
  EXPECT_NE(step.ctx.req[1], OpReq::kNull);
  EXPECT_TRUE(b.plan.forward.steps[0].ctx.inference == false);
}

}  // namespace
}  // namespace symx
