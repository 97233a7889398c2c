// CommitPools: new blocks join the pools only at the end, so a bind that
// fails earlier leaves a shared pool as it was; the outputs and gradient
// arrays reach the bind.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;

TEST(CommitPools, NewBlocksJoinThePoolAtTheEnd) {
  PassBind b(testing::SmallMlp(), {{"data", Shape{2, 4}}}, GradReq::kWrite,
             /*allocate_grads=*/true);
  auto shared = std::make_shared<MemoryPool>();
  shared->ctx = Context::CPU(0);
  auto other = std::make_shared<MemoryPool>();
  other->ctx = Context::CPU(3);
  b.bind.pools = {{Context::CPU(0), shared}, {Context::CPU(3), other}};
  ASSERT_TRUE(b.RunBefore("commit pools").ok());
  const size_t new_blocks = b.state().new_blocks[0].size();
  ASSERT_GT(new_blocks, 0u);
  EXPECT_TRUE(shared->blocks.empty());  // not before the commit
  ASSERT_TRUE(b.Run("commit pools").ok());
  EXPECT_EQ(shared->blocks.size(), new_blocks);
  EXPECT_EQ(b.pools.at(Context::CPU(0)), shared);
  EXPECT_EQ(b.pools.at(Context::CPU(3)), other);  // passed on unchanged
  ASSERT_EQ(b.outputs.size(), 1u);
  EXPECT_EQ(b.outputs[0].shape(), (Shape{2, 3}));
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(b.bind.grads[i].defined()) << i;
}

}  // namespace
}  // namespace symx
