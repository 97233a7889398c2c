// RunState (executor/run_state.h): per phase a copy of every step's context,
// transfer steps pointed at the run's channel (with its pending sends and
// cancel flag), the plan's contexts left as Bind made them.
#include "executor/run_state.h"

#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::symx::testing::RunOnRanks;

TEST(RunState, CopiesEveryStepContextPerPhase) {
  PassBind b(testing::SmallMlp(), {{"data", Shape{2, 4}}});
  ASSERT_TRUE(BuildPlan(b.symbol, &b.bind, &b.plan, &b.outputs, &b.pools).ok());
  RunState run(b.plan);
  ASSERT_EQ(run.forward.size(), b.plan.forward.steps.size());
  ASSERT_EQ(run.backward.size(), b.plan.backward.steps.size());
  EXPECT_EQ(&run.contexts(b.plan.forward, b.plan), &run.forward);
  EXPECT_EQ(&run.contexts(b.plan.backward, b.plan), &run.backward);
  for (size_t i = 0; i < run.forward.size(); ++i) {
    const KernelContext& plan_ctx = b.plan.forward.steps[i].ctx;
    EXPECT_EQ(run.forward[i].attrs, plan_ctx.attrs) << i;
    EXPECT_EQ(run.forward[i].outputs[0].read_raw_data(), plan_ctx.outputs[0].read_raw_data());
    EXPECT_EQ(run.forward[i].state, plan_ctx.state) << i;
    EXPECT_EQ(run.forward[i].rank_channel, nullptr) << i;
  }
  // A run's is_train is the run's.
  run.forward[0].is_train = true;
  EXPECT_FALSE(b.plan.forward.steps[0].ctx.is_train);
}

TEST(RunState, TransferStepsUseTheRunsChannel) {
  RunOnRanks(2, [&](int r, std::shared_ptr<Communicator> comm) {
    PassBind b(testing::TwoGroups(), {{"a", Shape{4}}, {"b", Shape{4}}}, GradReq::kNull);
    Rendezvous rendezvous(*comm, "bind", absl::Seconds(30));
    testing::MakeCrossRank(&b, r, comm, &rendezvous);
    b.bind.group2ctx = testing::TwoGroupsOverTwoRanks();
    ASSERT_TRUE(BuildPlan(b.symbol, &b.bind, &b.plan, &b.outputs, &b.pools).ok());
    RunState run(b.plan);
    EXPECT_EQ(run.channel.comm, comm.get());
    EXPECT_EQ(run.channel.pending, &run.pending);
    EXPECT_EQ(run.channel.cancel, &run.cancel);
    int transfers = 0;
    for (size_t i = 0; i < run.forward.size(); ++i) {
      const Step& step = b.plan.forward.steps[i];
      const std::string& op = b.plan.graph->operator[](step.node_id).node->op()->name();
      if (op != "_send" && op != "_recv") {
        EXPECT_EQ(run.forward[i].rank_channel, nullptr);
        continue;
      }
      ++transfers;
      EXPECT_EQ(step.ctx.rank_channel, &b.plan.channel);
      EXPECT_EQ(run.forward[i].rank_channel, &run.channel);
    }
    EXPECT_EQ(transfers, 2);  // rank 0 sends prod and a; rank 1 receives both
  });
}

}  // namespace
}  // namespace symx
