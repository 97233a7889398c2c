// MXNet 1.9.1's registry against symx's (tools/registry/op_table.h): every
// MXNet operator is implemented, refused with a reason, or listed as still to
// come; implemented ones accept MXNet's parameter names with MXNet's defaults;
// docs/operators.md says so.
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "graph/file_io.h"
#include "graph/op.h"
#include "gtest/gtest.h"
#include "tools/registry/op_table.h"

namespace symx {
namespace {

class OpCoverageTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<CoverageReport> r = BuildCoverageReport(".");
    ASSERT_TRUE(r.ok()) << r.status();
    report_ = new CoverageReport(*std::move(r));
  }
  static CoverageReport* report_;
};
CoverageReport* OpCoverageTest::report_ = nullptr;

TEST_F(OpCoverageTest, TheDumpIsMxnet191sWholeRegistry) {
  // 621 operators (backward ones left out), 426 outside the NumPy interface.
  size_t legacy = 0;
  for (const MxnetOp& op : report_->mxnet) legacy += !op.numpy_interface;
  EXPECT_EQ(report_->mxnet.size(), 621u);
  EXPECT_EQ(legacy, 426u);
}

TEST_F(OpCoverageTest, EveryMxnetOperatorIsAccountedFor) {
  std::vector<std::string> unaccounted;
  for (const OpCoverage& c : report_->coverage) {
    if (c.state == OpState::kUnaccounted) unaccounted.push_back(c.op->name);
  }
  EXPECT_TRUE(unaccounted.empty())
      << "MXNet operators symx neither implements, refuses (graph/mxnet_only_ops.cc) nor lists "
         "in tools/registry/pending_ops.txt: "
      << absl::StrJoin(unaccounted, ", ");
}

TEST_F(OpCoverageTest, PendingOperatorsAreMxnetsAndNotImplemented) {
  std::map<std::string, OpState> state;
  for (const OpCoverage& c : report_->coverage) state[c.op->name] = c.state;
  for (const auto& [name, plan] : report_->pending) {
    auto it = state.find(name);
    ASSERT_NE(it, state.end()) << name << " (pending_ops.txt) is not an MXNet 1.9.1 operator";
    EXPECT_NE(it->second, OpState::kImplemented)
        << name << " is implemented now: remove it from tools/registry/pending_ops.txt";
    EXPECT_NE(it->second, OpState::kRefused)
        << name << " is refused (graph/mxnet_only_ops.cc) and listed as pending";
  }
}

TEST_F(OpCoverageTest, ImplementedOperatorsAnswerToEveryMxnetName) {
  for (const OpCoverage& c : report_->coverage) {
    if (c.state != OpState::kImplemented) continue;
    EXPECT_TRUE(c.alias_gaps.empty())
        << c.op->name << ": symx's '" << c.symx_op->name() << "' does not answer to "
        << absl::StrJoin(c.alias_gaps, ", ");
  }
}

TEST_F(OpCoverageTest, ParametersMatchMxnetsOrTheDifferenceIsExplained) {
  for (const auto& [key, why] : report_->found_differences) {
    EXPECT_TRUE(report_->allowed_differences.count(key))
        << key << ": " << why << " (fix it, or explain it in tools/registry/param_differences.txt)";
  }
  for (const auto& [key, reason] : report_->allowed_differences) {
    EXPECT_TRUE(report_->found_differences.count(key))
        << key << " is listed in tools/registry/param_differences.txt but matches MXNet now";
  }
}

TEST_F(OpCoverageTest, TheDocIsCurrent) {
  absl::StatusOr<std::string> doc = ReadFileBytes(kOperatorsDocPath);
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_EQ(*doc, report_->doc) << "docs/operators.md is stale: run "
                                   "bazel run //tools/registry:update_op_table -- $PWD";
}

// The comparison itself: a parameter symx lacks, a different default, an
// extra one and a refused spelling are each found.
struct FakeParam : OpParam {};

TEST(ParamDifferencesTest, FindsEachKindOfDifference) {
  Op op("_fake_for_param_differences");
  op.SetParse([](const AttrMap& attrs) -> absl::StatusOr<OpParamPtr> {
    ParamReader r(attrs);
    r.Int("k", 3);
    r.Bool("flag", false);
    r.Float("extra", 1.0);
    r.Int("count", 0);
    return r.Finish(std::make_shared<FakeParam>());
  });
  MxnetOp m;
  m.name = "fake";
  m.params = {{"k", "int", false, "2"},
              {"flag", "boolean", false, "0"},
              {"missing", "float", false, "0.5"},
              {"count", "int", false, "many"}};
  std::map<std::string, std::string> d = ParamDifferences(m, op);
  EXPECT_EQ(d.size(), 4u) << absl::StrJoin(d, "; ", absl::PairFormatter(": "));
  EXPECT_TRUE(d.count("fake.k"));        // default 3 against 2
  EXPECT_TRUE(d.count("fake.extra"));    // MXNet has no 'extra'
  EXPECT_TRUE(d.count("fake.missing"));  // symx does not accept it
  EXPECT_TRUE(d.count("fake.count"));    // "many" is refused
  EXPECT_FALSE(d.count("fake.flag"));    // 0 and False agree
}

TEST(ParamDifferencesTest, DefaultsCompareByValue) {
  Op op("_fake_for_param_defaults");
  op.SetParse([](const AttrMap& attrs) -> absl::StatusOr<OpParamPtr> {
    ParamReader r(attrs);
    r.Float("momentum", 0.9);
    r.Tuple("stride", std::vector<int64_t>{1, 1});
    r.Bool("fix_gamma", true);
    r.OptionalInt("axis");
    return r.Finish(std::make_shared<FakeParam>());
  });
  MxnetOp m;
  m.name = "fake";
  m.params = {{"momentum", "float", false, "0.899999976"},
              {"stride", "Shape(tuple)", false, "[1,1]"},
              {"fix_gamma", "boolean", false, "True"},
              {"axis", "int or None", false, "None"}};
  EXPECT_TRUE(ParamDifferences(m, op).empty());
}

TEST(PendingOpsTest, ParsesPlansAndRejectsDuplicates) {
  absl::StatusOr<std::map<std::string, std::string>> p =
      ParsePendingOps("# plan a\nop1\n\n# plan b\nop2\n");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)["op1"], "plan a");
  EXPECT_EQ((*p)["op2"], "plan b");
  EXPECT_FALSE(ParsePendingOps("op1\nop1\n").ok());
  EXPECT_FALSE(ParsePendingOps("op1 op2\n").ok());
  EXPECT_FALSE(ParseParamDifferences("no colon here\n").ok());
  EXPECT_TRUE(ParseParamDifferences("# c\nop.key: why\n").ok());
}

}  // namespace
}  // namespace symx
