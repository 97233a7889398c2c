// PlanDeviceMemory: every planned entry gets a tensor in a block; blocks come
// from a shared pool when it has them, and new blocks wait for the commit.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;

Symbol Chain() {
  Symbol x = Symbol::Variable("x");
  Symbol y = OpCall("sqrt").Name("s1").Input(x);
  y = OpCall("exp").Name("s2").Input(y);
  return OpCall("square").Name("s3").Input(y);
}

TEST(PlanDeviceMemory, EveryPlannedEntryHasATensor) {
  PassBind b(Chain(), {{"x", Shape{16}}}, GradReq::kNull);
  ASSERT_TRUE(b.RunBefore("plan device memory").ok());
  ASSERT_TRUE(b.Run("plan device memory").ok());
  const BindState& s = b.state();
  for (size_t e = 0; e < s.entry.size(); ++e) EXPECT_TRUE(s.entry[e].defined()) << e;
  ASSERT_EQ(b.plan.memory.size(), 1u);
  EXPECT_FALSE(s.new_blocks[0].empty());
  EXPECT_GT(s.stats.at(Context::CPU(0)).allocated_bytes, 0u);
  // Nothing joins the pool before the commit.
  EXPECT_TRUE(s.pools.at(Context::CPU(0))->blocks.empty());
}

TEST(PlanDeviceMemory, SharedPoolBlocksAreReused) {
  auto pool = std::make_shared<MemoryPool>();
  pool->ctx = Context::CPU(0);
  for (int i = 0; i < 4; ++i) {
    pool->blocks.push_back(
        ValueOrThrow(GetDevice(Context::CPU(0)))->allocator().Allocate(1024).value());
  }
  PassBind b(Chain(), {{"x", Shape{16}}}, GradReq::kNull);
  b.bind.pools[Context::CPU(0)] = pool;
  ASSERT_TRUE(b.RunThrough("plan device memory").ok());
  EXPECT_TRUE(b.state().new_blocks[0].empty());
  EXPECT_EQ(b.state().stats.at(Context::CPU(0)).allocated_bytes, 0u);
  EXPECT_EQ(b.state().pools.at(Context::CPU(0)), pool);
}

}  // namespace
}  // namespace symx
