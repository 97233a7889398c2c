// CollectVariables: arguments and aux states in the symbol's order; a
// cross-rank executor's optimized symbol is refused.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CollectVariables, ArgumentsAndAuxStatesInOrder) {
  Symbol bn = OpCall("BatchNorm").Name("bn").Input(Symbol::Variable("data"));
  PassBind b(bn, {{"data", Shape{2, 3}}});
  ASSERT_TRUE(b.Run("collect variables").ok());
  EXPECT_THAT(b.state().arg_names, ElementsAre("data", "bn_gamma", "bn_beta"));
  EXPECT_THAT(b.state().aux_names, ElementsAre("bn_moving_mean", "bn_moving_var"));
  EXPECT_EQ(b.bind.allocate_grad.size(), 3u);
  EXPECT_EQ(b.state().full_outputs.size(), 1u);
}

TEST(CollectVariables, ArrayCountsMustMatch) {
  PassBind b(testing::SmallMlp(), {{"data", Shape{2, 4}}});
  b.bind.args.pop_back();
  absl::Status s = b.Run("collect variables");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
}

TEST(CollectVariables, RefusesTransferNodes) {
  Symbol send = OpCall("_send")
                    .Name("to_rank1")
                    .Attr("peer", "1")
                    .Attr("tag", "0")
                    .Input(Symbol::Variable("x"));
  PassBind b(send, {{"x", Shape{2}}});
  absl::Status s = b.Run("collect variables");
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("cannot bind a symbol with _send node 'to_rank1'"));
}

}  // namespace
}  // namespace symx
