// AgreeOnRequest / AgreeOnPlan / AgreeOnCompletion: nothing to do in one
// process; across ranks (in-process communicators, one thread per rank) the
// same request and plan agree, and a different request, a different plan or
// a rank that does not exist fails on every rank.
#include "executor/passes/passes.h"
#include "graph/scope.h"
#include "tests/executor/passes/pass_test_util.h"

namespace symx {
namespace {

using ::symx::testing::MakeCrossRank;
using ::symx::testing::PassBind;
using ::symx::testing::RunOnRanks;
using ::testing::HasSubstr;

TEST(RankAgreement, SingleProcessNeedsNoRendezvous) {
  for (const char* pass : {"agree on request", "agree on plan", "agree on completion"}) {
    PassBind b(testing::SmallMlp(), {{"data", Shape{2, 4}}});
    ASSERT_EQ(b.bind.rendezvous, nullptr);
    EXPECT_TRUE(b.RunThrough(pass).ok()) << pass;
  }
}

// x -> FullyConnected -> Activation(act) on every rank; arrays on rank 0.
// Runs the passes through `pass` on two ranks; returns each rank's status.
std::vector<absl::Status> TwoRanksThrough(const std::string& pass,
                                          const std::vector<std::string>& request,
                                          const std::vector<std::string>& act,
                                          const std::map<std::string, Context>& group2ctx = {}) {
  std::vector<absl::Status> status(2);
  RunOnRanks(2, [&](int r, std::shared_ptr<Communicator> comm) {
    Symbol fc =
        OpCall("FullyConnected").Name("fc").Attr("num_hidden", "3").Input(Symbol::Variable("x"));
    Symbol net = OpCall("Activation").Name("act").Attr("act_type", act[r]).Input(fc);
    PassBind b(net, {{"x", Shape{2, 4}}}, GradReq::kNull);
    Rendezvous rendezvous(*comm, "bind", absl::Seconds(30));
    MakeCrossRank(&b, r, comm, &rendezvous);
    b.bind.request = {request[r]};
    b.bind.group2ctx = group2ctx;
    status[r] = b.RunThrough(pass);
  });
  return status;
}

TEST(RankAgreement, SameRequestAndPlanAgreeThroughCompletion) {
  for (const absl::Status& s :
       TwoRanksThrough("agree on completion", {"a", "a"}, {"relu", "relu"})) {
    EXPECT_TRUE(s.ok()) << s;
  }
}

TEST(RankAgreement, DifferentRequestsFailOnEveryRank) {
  for (const absl::Status& s :
       TwoRanksThrough("agree on request", {"shape x=(2,4)", "shape x=(3,4)"}, {"relu", "relu"})) {
    EXPECT_THAT(std::string(s.message()), HasSubstr("ranks 0 and 1 differ")) << s;
  }
}

TEST(RankAgreement, DifferentPlansFailOnEveryRank) {
  for (const absl::Status& s : TwoRanksThrough("agree on plan", {"a", "a"}, {"relu", "tanh"})) {
    EXPECT_THAT(std::string(s.message()), HasSubstr("ranks 0 and 1 differ")) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("act")) << s;
  }
}

TEST(RankAgreement, AMissingRankFailsOnEveryRank) {
  Context far = Context::CPU(0);
  far.rank = 5;
  for (const absl::Status& s :
       TwoRanksThrough("agree on request", {"a", "a"}, {"relu", "relu"}, {{"g", far}})) {
    EXPECT_THAT(std::string(s.message()), HasSubstr("group2ctx maps ctx_group 'g'")) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("rank 5")) << s;
  }
}

}  // namespace
}  // namespace symx
