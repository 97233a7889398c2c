// LocateArrayHomes: dtypes per argument and aux state; an argument without a
// gradient array (and none to allocate) has its req turned null.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;

TEST(LocateArrayHomes, GradientWithoutArrayIsNotComputed) {
  PassBind b(testing::SmallMlp(), {{"data", Shape{2, 4}}});
  b.bind.grads[0] = Tensor();  // data: no gradient array
  ASSERT_TRUE(b.RunBefore("locate array homes").ok());
  ASSERT_TRUE(b.Run("locate array homes").ok());
  EXPECT_EQ(b.bind.reqs[0], GradReq::kNull);
  EXPECT_EQ(b.bind.reqs[1], GradReq::kWrite);
  ASSERT_EQ(b.plan.arg_dtypes.size(), b.bind.args.size());
  EXPECT_EQ(b.plan.arg_dtypes[0], DType::kFloat32);
  EXPECT_EQ(b.state().homes.args[0].shape, (Shape{2, 4}));
  EXPECT_EQ(b.state().homes.args[0].ctx, Context::CPU(0));
}

TEST(LocateArrayHomes, AllocatedGradientKeepsItsReq) {
  PassBind b(testing::SmallMlp(), {{"data", Shape{2, 4}}}, GradReq::kWrite,
             /*allocate_grads=*/true);
  ASSERT_TRUE(b.RunThrough("locate array homes").ok());
  for (GradReq r : b.bind.reqs) EXPECT_EQ(r, GradReq::kWrite);
}

}  // namespace
}  // namespace symx
