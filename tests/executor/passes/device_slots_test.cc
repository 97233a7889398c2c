// AssignDeviceSlots: the bind context first when it runs anything, then the
// other devices in order; variables get no slot.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::testing::ElementsAre;

TEST(AssignDeviceSlots, BindContextFirst) {
  PassBind b(testing::TwoGroups(), {{"a", Shape{4}}, {"b", Shape{4}}}, GradReq::kNull);
  b.bind.ctx = Context::CPU(2);
  b.bind.group2ctx = {{"dev1", Context::CPU(2)}, {"dev2", Context::CPU(1)}};
  ASSERT_TRUE(b.RunBefore("assign device slots").ok());
  ASSERT_TRUE(b.Run("assign device slots").ok());
  EXPECT_THAT(b.plan.devices, ElementsAre(Context::CPU(2), Context::CPU(1)));
  EXPECT_EQ(b.state().slot[b.NodeId("prod")], 0);
  EXPECT_EQ(b.state().slot[b.NodeId("sum")], 1);
  EXPECT_EQ(b.state().slot[b.NodeId("a")], -1);
}

TEST(AssignDeviceSlots, BindContextThatRunsNothingHasNoSlot) {
  PassBind b(testing::TwoGroups(), {{"a", Shape{4}}, {"b", Shape{4}}}, GradReq::kNull);
  b.bind.group2ctx = {{"dev1", Context::CPU(1)}, {"dev2", Context::CPU(1)}};
  ASSERT_TRUE(b.RunThrough("assign device slots").ok());
  EXPECT_THAT(b.plan.devices, ElementsAre(Context::CPU(1)));
}

}  // namespace
}  // namespace symx
