// Control-flow symbols as MXNet 1.9.1 wrote them (the control_flow golden
// cases: _foreach nodes with their bodies in "subgraphs") load and save back
// byte for byte, so MXNet reads what symx writes as it reads its own files.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

TEST(SubgraphJsonTest, ControlFlowSymbolsRoundTripByteForByte) {
  int checked = 0;
  for (const auto& dir : std::filesystem::directory_iterator("tests/golden/cases")) {
    const std::string name = dir.path().filename().string();
    if (!absl::StartsWith(name, "control_flow_")) continue;
    std::ifstream in(dir.path() / "symbol.json");
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_TRUE(absl::StrContains(text.str(), "\"subgraphs\"")) << name;
    EXPECT_EQ(Symbol::FromJson(text.str()).ToJson(), text.str()) << name;
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

std::string ReadCase(const std::string& name) {
  std::ifstream in("tests/golden/cases/" + name + "/symbol.json");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// What MXNet 1.9.1's list_arguments and list_outputs give for these files:
// a control-flow node's inputs are its bodies' free variables, and its
// outputs are named as any multi-output op's.
TEST(SubgraphJsonTest, InspectionSeesTheNodeInputsAsMxnetDoes) {
  using Names = std::vector<std::string>;
  Symbol loop = Symbol::FromJson(ReadCase("control_flow_while_loop_counting"));
  EXPECT_EQ(loop.ListArguments(), (Names{"i", "s", "w"}));
  EXPECT_EQ(loop.ListOutputs(), (Names{"_while_loop0_output0", "_while_loop0_output1",
                                       "_while_loop0_output2", "_while_loop0_output3"}));
  Symbol cond = Symbol::FromJson(ReadCase("control_flow_cond_then"));
  EXPECT_EQ(cond.ListArguments(), (Names{"a", "w", "b"}));
  EXPECT_EQ(cond.ListOutputs(), (Names{"_cond0_output0", "_cond0_output1"}));
  Symbol rnn = Symbol::FromJson(ReadCase("control_flow_foreach_gluon_rnn_cell"));
  EXPECT_EQ(rnn.ListArguments(),
            (Names{"data0", "data1", "unrolled_rnn0_i2h_weight", "unrolled_rnn0_i2h_bias",
                   "unrolled_rnn0_h2h_weight", "unrolled_rnn0_h2h_bias"}));
  EXPECT_EQ(rnn.ListOutputs(), (Names{"unrolled__foreach0_output0", "unrolled__foreach0_output1"}));
  // Internals stop at the node, as MXNet's get_internals does.
  Names internals = rnn.GetInternals().ListOutputs();
  EXPECT_EQ(Names(internals.end() - 2, internals.end()),
            (Names{"unrolled__foreach0_output0", "unrolled__foreach0_output1"}));
  EXPECT_EQ(internals.size(), 8u);
}

}  // namespace
}  // namespace symx
