// ConnectDeviceCommunicator: a single-process plan has no device
// communicator; its channel carries the bind's communicator and no per-run
// state (RunState adds that).
#include "distributed/inprocess_communicator.h"
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;

TEST(ConnectDeviceCommunicator, SingleProcessHasNone) {
  PassBind b(testing::SmallMlp(), {{"data", Shape{2, 4}}});
  b.bind.comm = CreateInProcessGroup(1)[0];
  b.bind.comm_timeout = absl::Seconds(7);
  ASSERT_TRUE(b.RunBefore("connect device communicator").ok());
  ASSERT_TRUE(b.Run("connect device communicator").ok());
  EXPECT_EQ(b.plan.device_comm, nullptr);
  EXPECT_EQ(b.plan.comm, b.bind.comm);
  EXPECT_EQ(b.plan.channel.comm, b.bind.comm.get());
  EXPECT_EQ(b.plan.channel.device_comm, nullptr);
  EXPECT_EQ(b.plan.channel.timeout, absl::Seconds(7));
  EXPECT_EQ(b.plan.channel.pending, nullptr);
  EXPECT_EQ(b.plan.channel.cancel, nullptr);
}

}  // namespace
}  // namespace symx
