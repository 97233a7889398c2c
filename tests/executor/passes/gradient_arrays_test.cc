// AllocateGradients: SimpleBind's gradient arrays are zeros of the gradient's
// shape on the device computing it, and counted as allocated there.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;

TEST(AllocateGradients, ZerosWhereComputed) {
  PassBind b(testing::TwoGroups(), {{"a", Shape{4}}, {"b", Shape{4}}}, GradReq::kWrite,
             /*allocate_grads=*/true);
  b.bind.group2ctx = {{"dev1", Context::CPU(0)}, {"dev2", Context::CPU(1)}};
  ASSERT_TRUE(b.RunBefore("allocate gradients").ok());
  ASSERT_TRUE(b.Run("allocate gradients").ok());
  const BindState& s = b.state();
  ASSERT_EQ(s.grads.size(), 2u);
  for (const Tensor& g : s.grads) {
    ASSERT_TRUE(g.defined());
    EXPECT_EQ(g.shape(), (Shape{4}));
    for (double v : g.ToDoubles()) EXPECT_EQ(v, 0.0);
  }
  EXPECT_EQ(s.grads[1].ctx(), Context::CPU(0));  // b's gradient: prod's backward
  size_t allocated = 0;
  for (const auto& [c, m] : s.stats) allocated += m.allocated_bytes;
  EXPECT_EQ(allocated, 2 * 4 * sizeof(float));
}

TEST(AllocateGradients, BoundArraysAreKept) {
  PassBind b(testing::TwoGroups(), {{"a", Shape{4}}, {"b", Shape{4}}});
  const Tensor bound = b.bind.grads[0];
  ASSERT_TRUE(b.RunThrough("allocate gradients").ok());
  EXPECT_EQ(b.state().grads[0].raw_data(), bound.raw_data());
  size_t allocated = 0;
  for (const auto& [c, m] : b.state().stats) allocated += m.allocated_bytes;
  EXPECT_EQ(allocated, 0u);
}

}  // namespace
}  // namespace symx
