// The pass list: unique names, RunPassesBefore's contract, and BuildPlan as
// every pass in order.
#include <set>

#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::testing::HasSubstr;

TEST(BindPasses, NamesAreUniqueAndCommitIsLast) {
  std::set<std::string_view> names;
  for (const BindPass& p : BindPasses()) EXPECT_TRUE(names.insert(p.name).second) << p.name;
  EXPECT_EQ(BindPasses().front().name, "collect variables");
  EXPECT_EQ(BindPasses().back().name, "commit pools");
}

TEST(BindPasses, UnknownPassNameIsAnError) {
  PassBind b(testing::SmallMlp(), {{"data", Shape{2, 4}}});
  absl::Status s = RunPassesBefore("no such pass", &b.state());
  EXPECT_THAT(std::string(s.message()), HasSubstr("no bind pass named 'no such pass'"));
  // Before any pass ran.
  EXPECT_EQ(b.state().fwd, nullptr);
  EXPECT_EQ(b.plan.graph, nullptr);
}

TEST(BindPasses, BuildPlanRunsThemAll) {
  PassBind b(testing::SmallMlp(), {{"data", Shape{2, 4}}});
  ASSERT_TRUE(BuildPlan(b.symbol, &b.bind, &b.plan, &b.outputs, &b.pools).ok());
  EXPECT_EQ(b.outputs.size(), 1u);
  EXPECT_EQ(b.plan.forward.steps.size(), 3u);
  EXPECT_FALSE(b.plan.backward.steps.empty());
  EXPECT_FALSE(b.plan.stats.empty());
  EXPECT_EQ(b.pools.size(), 1u);
}

}  // namespace
}  // namespace symx
