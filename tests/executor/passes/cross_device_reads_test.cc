// FindCrossDeviceReads: a value another device copies is read elsewhere (kept
// for the whole run); values read on their own device are not.
#include "executor/passes/passes.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::PassBind;
using ::symx::testing::RunOnRanks;

TEST(FindCrossDeviceReads, CopiedValuesAreReadElsewhere) {
  Symbol a = Symbol::Variable("a");
  Symbol first, second;
  {
    AttrScope scope(AttrMap{{"ctx_group", "dev1"}});
    first = OpCall("sqrt").Name("first").Input(a);
    first = OpCall("square").Name("local").Input(first);
  }
  {
    AttrScope scope(AttrMap{{"ctx_group", "dev2"}});
    second = OpCall("exp").Name("second").Input(first);
  }
  PassBind b(second, {{"a", Shape{4}}}, GradReq::kNull);
  b.bind.group2ctx = {{"dev1", Context::CPU(0)}, {"dev2", Context::CPU(1)}};
  ASSERT_TRUE(b.RunBefore("find cross-device reads").ok());
  ASSERT_TRUE(b.Run("find cross-device reads").ok());
  const BindState& s = b.state();
  const IndexedGraph& g = *b.plan.graph;
  EXPECT_TRUE(s.read_elsewhere[g.entry_id(b.NodeId("local"), 0)]);
  EXPECT_FALSE(s.read_elsewhere[g.entry_id(b.NodeId("first"), 0)]);
  for (int64_t alias : s.alias_of) EXPECT_EQ(alias, -1);  // no _send in one process
}

// Across ranks: what a _send sends is kept (the send completes in the
// background), and the _send's output is its input itself.
TEST(FindCrossDeviceReads, SendsKeepTheirInputAndAliasIt) {
  RunOnRanks(2, [&](int r, std::shared_ptr<Communicator> comm) {
    PassBind b(testing::TwoGroups(), {{"a", Shape{4}}, {"b", Shape{4}}}, GradReq::kNull);
    Rendezvous rendezvous(*comm, "bind", absl::Seconds(30));
    testing::MakeCrossRank(&b, r, comm, &rendezvous);
    b.bind.group2ctx = testing::TwoGroupsOverTwoRanks();
    ASSERT_TRUE(b.RunThrough("find cross-device reads").ok());
    if (r != 0) return;
    const BindState& s = b.state();
    const IndexedGraph& g = *b.plan.graph;
    int sends = 0;
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
      const Node& n = *g[nid].node;
      if (n.is_variable() || n.op()->name() != "_send") continue;
      ++sends;
      const uint32_t in = g.entry_id(g[nid].inputs[0]), out = g.entry_id(nid, 0);
      EXPECT_TRUE(s.external[out]) << n.name();
      EXPECT_EQ(s.alias_of[out], static_cast<int64_t>(in)) << n.name();
      if (s.producer_slot[in] >= 0) {
        EXPECT_TRUE(s.read_elsewhere[in]) << n.name();
      }
    }
    EXPECT_EQ(sends, 2);  // prod's output and a
    EXPECT_TRUE(s.read_elsewhere[g.entry_id(b.NodeId("prod"), 0)]);
  });
}

}  // namespace
}  // namespace symx
