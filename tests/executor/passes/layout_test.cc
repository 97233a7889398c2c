// PlanLayout: values that leave the plan (outputs, bound arrays) are never
// channels-last; with the switch off no value is.
#include <algorithm>

#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;

Symbol ConvPool() {
  Symbol conv = OpCall("Convolution")
                    .Name("conv")
                    .Attr("kernel", "(3,3)")
                    .Attr("num_filter", "8")
                    .Attr("no_bias", "true")
                    .Input(Symbol::Variable("data"));
  Symbol act = OpCall("Activation").Name("relu").Attr("act_type", "relu").Input(conv);
  return OpCall("Pooling")
      .Name("pool")
      .Attr("kernel", "(2,2)")
      .Attr("pool_type", "max")
      .Attr("stride", "(2,2)")
      .Input(act);
}

TEST(PlanLayout, OutputsAndArraysStayPlain) {
  PassBind b(ConvPool(), {{"data", Shape{2, 8, 16, 16}}});
  ASSERT_TRUE(b.RunBefore("plan layout").ok());
  ASSERT_TRUE(b.Run("plan layout").ok());
  const BindState& s = b.state();
  const IndexedGraph& g = *b.plan.graph;
  ASSERT_FALSE(s.channels_last.empty());
  ASSERT_EQ(s.channels_last.size(), g.num_entries());
  for (size_t e = 0; e < g.num_entries(); ++e) {
    if (s.external[e] || s.keep[e] || s.producer_slot[e] < 0) {
      EXPECT_FALSE(s.channels_last[e]) << e;
    }
  }
  EXPECT_FALSE(s.channels_last[g.entry_id(s.placed_fwd[0])]);
  // oneDNN's convolution and pooling take channels-last values between
  // them; the reference kernels take none.
#ifdef SYMX_WITH_ONEDNN
  const bool onednn = b.bind.engine.onednn;
#else
  const bool onednn = false;
#endif
  EXPECT_EQ(std::count(s.channels_last.begin(), s.channels_last.end(), true) > 0, onednn);
}

TEST(PlanLayout, SwitchedOffNothingIsChannelsLast) {
  PassBind b(ConvPool(), {{"data", Shape{2, 8, 16, 16}}});
  b.bind.engine.channels_last = false;
  ASSERT_TRUE(b.RunThrough("plan layout").ok());
  for (bool cl : b.state().channels_last) EXPECT_FALSE(cl);
}

}  // namespace
}  // namespace symx
