// OrderGradients: each gradient is finished by one backward step, and
// gradient_order lists the arguments in the order their steps run.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::testing::UnorderedElementsAre;

TEST(OrderGradients, InBackwardStepOrder) {
  Symbol fc1 =
      OpCall("FullyConnected").Name("fc1").Attr("num_hidden", "3").Input(Symbol::Variable("data"));
  Symbol fc2 = OpCall("FullyConnected").Name("fc2").Attr("num_hidden", "2").Input(fc1);
  PassBind b(fc2, {{"data", Shape{2, 4}}});
  b.bind.reqs[0] = GradReq::kNull;  // data
  ASSERT_TRUE(b.RunBefore("order gradients").ok());
  ASSERT_TRUE(b.Run("order gradients").ok());
  // fc2's parameters first: its backward runs before fc1's.
  const std::vector<std::string> names = b.symbol.ListArguments();
  std::vector<std::string> order;
  for (size_t arg : b.plan.gradient_order) order.push_back(names[arg]);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_THAT(std::vector<std::string>(order.begin(), order.begin() + 2),
              UnorderedElementsAre("fc2_weight", "fc2_bias"));
  EXPECT_THAT(std::vector<std::string>(order.begin() + 2, order.end()),
              UnorderedElementsAre("fc1_weight", "fc1_bias"));
  size_t finishing = 0;
  for (const Step& step : b.plan.backward.steps) finishing += step.finishes_gradients.size();
  EXPECT_EQ(finishing, 4u);
}

}  // namespace
}  // namespace symx
