// CountMemory: per device the planned bytes (intermediates and workspace)
// and the bound arrays' bytes; the bind context's device first.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;

TEST(CountMemory, PlannedAndArrayBytes) {
  Symbol y = OpCall("exp").Name("e").Input(OpCall("sqrt").Name("s").Input(Symbol::Variable("x")));
  PassBind b(y, {{"x", Shape{256}}}, GradReq::kNull);
  ASSERT_TRUE(b.RunBefore("count memory").ok());
  ASSERT_TRUE(b.Run("count memory").ok());
  ASSERT_EQ(b.plan.stats.size(), 1u);
  const MemoryStats& m = b.plan.stats[0];
  EXPECT_EQ(m.ctx, Context::CPU(0));
  EXPECT_EQ(m.planned_bytes, b.plan.memory[0].total_bytes + b.state().workspace_bytes[0]);
  EXPECT_EQ(m.no_reuse_bytes, b.plan.memory[0].no_reuse_bytes);
  EXPECT_EQ(m.array_bytes, 256 * sizeof(float));  // x
}

TEST(CountMemory, DevicesHoldingOnlyArraysComeLast) {
  PassBind b(testing::TwoGroups(), {{"a", Shape{4}}, {"b", Shape{4}}}, GradReq::kNull);
  b.bind.ctx = Context::CPU(2);
  b.bind.group2ctx = {{"dev1", Context::CPU(1)}, {"dev2", Context::CPU(1)}};
  ASSERT_TRUE(b.RunThrough("count memory").ok());
  ASSERT_EQ(b.plan.stats.size(), 2u);
  EXPECT_EQ(b.plan.stats[0].ctx, Context::CPU(1));  // runs the steps
  EXPECT_EQ(b.plan.stats[1].ctx, Context::CPU(0));  // holds a and b
  EXPECT_EQ(b.plan.stats[1].array_bytes, 2 * 4 * sizeof(float));
  EXPECT_EQ(b.plan.stats[1].planned_bytes, 0u);
}

}  // namespace
}  // namespace symx
