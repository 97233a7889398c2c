// BuildGradientGraph: a gradient per argument whose req is not null; head
// gradient variables only for outputs that are not loss heads.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::testing::ElementsAre;

TEST(BuildGradientGraph, LossHeadTakesNoHeadGradient) {
  PassBind b(testing::SmallMlp(), {{"data", Shape{2, 4}}});
  b.bind.reqs[3] = GradReq::kNull;  // label
  ASSERT_TRUE(b.RunBefore("build gradient graph").ok());
  ASSERT_TRUE(b.Run("build gradient graph").ok());
  const BindState& s = b.state();
  EXPECT_THAT(s.x_arg, ElementsAre(0, 1, 2));  // data, fc_weight, fc_bias
  EXPECT_EQ(s.full_outputs.size(), 1u + 3u);
  EXPECT_THAT(b.plan.head_is_loss, ElementsAre(true));
  EXPECT_EQ(s.head_vars[0], nullptr);
  EXPECT_FALSE(s.inference());
}

TEST(BuildGradientGraph, PlainOutputGetsHeadGradientVariable) {
  Symbol y = Symbol::Variable("x") * Symbol::Variable("w");
  PassBind b(y, {{"x", Shape{3}}, {"w", Shape{3}}});
  ASSERT_TRUE(b.RunThrough("build gradient graph").ok());
  const BindState& s = b.state();
  ASSERT_NE(s.head_vars[0], nullptr);
  EXPECT_EQ(s.head_vars[0]->name(), "_head_grad_0");
  EXPECT_THAT(b.plan.head_is_loss, ElementsAre(false));
  EXPECT_EQ(s.num_forward_outputs(), 1u);
}

TEST(BuildGradientGraph, NullReqsMakeAnInferenceBind) {
  PassBind b(testing::SmallMlp(), {{"data", Shape{2, 4}}}, GradReq::kNull);
  ASSERT_TRUE(b.RunThrough("build gradient graph").ok());
  EXPECT_TRUE(b.state().inference());
  EXPECT_EQ(b.state().full_outputs.size(), 1u);
}

}  // namespace
}  // namespace symx
