// MarkExternalEntries: bound arrays and write gradients are external, the
// forward outputs kept, add gradients planned and accumulated; a gradient
// array of the wrong shape is an error naming the argument.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::testing::HasSubstr;

Symbol Product() { return Symbol::Variable("x") * Symbol::Variable("w"); }

TEST(MarkExternalEntries, WriteAndAddGradients) {
  PassBind b(Product(), {{"x", Shape{3}}, {"w", Shape{3}}});
  b.bind.reqs[1] = GradReq::kAdd;  // w
  ASSERT_TRUE(b.RunBefore("mark external entries").ok());
  ASSERT_TRUE(b.Run("mark external entries").ok());
  const BindState& s = b.state();
  const IndexedGraph& g = *b.plan.graph;
  const uint32_t x = g.entry_id(b.NodeId("x"), 0);
  EXPECT_TRUE(s.external[x]);
  EXPECT_EQ(s.entry[x].raw_data(), b.bind.args[0].raw_data());
  const uint32_t gx = g.entry_id(s.gradient(0));
  EXPECT_TRUE(s.external[gx]);
  EXPECT_EQ(s.entry[gx].raw_data(), b.bind.grads[0].raw_data());
  const uint32_t gw = g.entry_id(s.gradient(1));
  EXPECT_FALSE(s.external[gw]);
  ASSERT_EQ(s.add_grads.count(gw), 1u);
  EXPECT_EQ(s.add_grads.at(gw), 1u);
  EXPECT_TRUE(s.keep[g.entry_id(s.placed_fwd[0])]);
  // The head gradient: an array of the output's shape, counted.
  ASSERT_TRUE(b.plan.head_grads[0].defined());
  EXPECT_EQ(b.plan.head_grads[0].shape(), (Shape{3}));
  EXPECT_EQ(s.stats.at(Context::CPU(0)).array_bytes, 3 * sizeof(float));
}

TEST(MarkExternalEntries, WrongGradientShapeNamesTheArgument) {
  PassBind b(Product(), {{"x", Shape{3}}, {"w", Shape{3}}});
  b.bind.grads[1] = ValueOrThrow(Tensor::Zeros(Shape{4}, DType::kFloat32, Context::CPU(0)));
  absl::Status s = b.RunThrough("mark external entries");
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("the gradient array for argument w is float32 [4] but its gradient is "
                        "float32 [3]"))
      << s;
}

}  // namespace
}  // namespace symx
