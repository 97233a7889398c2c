// PlaceAndPartition: nodes go to their group's device, a copy joins two
// devices, forward nodes stay the prefix of the full graph, and a gradient
// array on the wrong device is MXNet's error.
#include <algorithm>

#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::testing::HasSubstr;

TEST(PlaceAndPartition, GroupsGoToTheirDevicesWithACopyBetween) {
  PassBind b(testing::TwoGroups(), {{"a", Shape{4}}, {"b", Shape{4}}}, GradReq::kNull);
  b.bind.group2ctx = {{"dev1", Context::CPU(0)}, {"dev2", Context::CPU(1)}};
  ASSERT_TRUE(b.RunBefore("place and partition").ok());
  ASSERT_TRUE(b.Run("place and partition").ok());
  EXPECT_EQ(b.plan.node_ctx[b.NodeId("prod")], Context::CPU(0));
  EXPECT_EQ(b.plan.node_ctx[b.NodeId("sum")], Context::CPU(1));
  // prod's output and a both cross to cpu(1).
  EXPECT_EQ(b.plan.num_copies, 2u);
  const std::vector<std::string> ops = b.Ops();
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "_CrossDeviceCopy"), 2);
  EXPECT_EQ(b.plan.num_forward_nodes, b.plan.graph->num_nodes());
  EXPECT_EQ(b.state().arg_nodes.size(), 2u);
  EXPECT_EQ(b.plan.optimized.ListOutputs(), std::vector<std::string>{"sum_output"});
}

TEST(PlaceAndPartition, BackwardNodesFollowTheirForwardNode) {
  PassBind b(testing::TwoGroups(), {{"a", Shape{4}}, {"b", Shape{4}}}, GradReq::kWrite,
             /*allocate_grads=*/true);
  b.bind.group2ctx = {{"dev1", Context::CPU(0)}, {"dev2", Context::CPU(1)}};
  ASSERT_TRUE(b.RunThrough("place and partition").ok());
  EXPECT_LT(b.plan.num_forward_nodes, b.plan.graph->num_nodes());
  // The gradient of b comes from prod's backward, on prod's device.
  const BindState& s = b.state();
  const uint32_t grad_b = b.plan.graph->node_id(s.gradient(1).node.get());
  EXPECT_EQ(b.plan.node_ctx[grad_b], Context::CPU(0));
}

TEST(PlaceAndPartition, GradientArrayOnTheWrongDeviceIsAnError) {
  PassBind b(testing::TwoGroups(), {{"a", Shape{4}}, {"b", Shape{4}}});
  b.bind.group2ctx = {{"dev1", Context::CPU(0)}, {"dev2", Context::CPU(1)}};
  b.bind.grads[1] = ValueOrThrow(Tensor::Zeros(Shape{4}, DType::kFloat32, Context::CPU(1)));
  absl::Status s = b.RunThrough("place and partition");
  EXPECT_THAT(std::string(s.message()), HasSubstr("Trying to save gradient to cpu(1)")) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("argument b must be on cpu(0)")) << s;
}

}  // namespace
}  // namespace symx
