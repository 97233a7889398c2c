// InferShapesAndTypes: every entry known, head gradients shaped like their
// output; what stays unknown is an error naming the node.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::testing::HasSubstr;

TEST(InferShapesAndTypes, EveryEntryAndTheHeadGradient) {
  Symbol y =
      OpCall("FullyConnected").Name("fc").Attr("num_hidden", "5").Input(Symbol::Variable("x"));
  PassBind b(y, {{"x", Shape{2, 3}}});
  ASSERT_TRUE(b.RunBefore("infer shapes and types").ok());
  ASSERT_TRUE(b.Run("infer shapes and types").ok());
  const IndexedGraph& g = *b.plan.graph;
  for (size_t e = 0; e < g.num_entries(); ++e) {
    EXPECT_TRUE(b.plan.shapes[e].fully_known()) << e;
    EXPECT_EQ(b.plan.types[e], DType::kFloat32) << e;
  }
  const uint32_t head = g.entry_id(b.NodeId("_head_grad_0"), 0);
  EXPECT_EQ(b.plan.shapes[head], (Shape{2, 5}));
  EXPECT_EQ(b.plan.shapes[g.entry_id(b.NodeId("fc_weight"), 0)], (Shape{5, 3}));
}

TEST(InferShapesAndTypes, UnknownShapeNamesTheNode) {
  Symbol y =
      OpCall("FullyConnected").Name("fc").Attr("num_hidden", "5").Input(Symbol::Variable("x"));
  PassBind b(y, {{"x", Shape{2, 3}}}, GradReq::kNull);
  ASSERT_TRUE(b.RunBefore("infer shapes and types").ok());
  b.state().homes.args[0].shape = Shape();  // as if x's shape were unknown
  absl::Status s = b.Run("infer shapes and types");
  EXPECT_THAT(std::string(s.message()), HasSubstr("stay unknown after inference")) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("variable x output 0")) << s;
}

}  // namespace
}  // namespace symx
