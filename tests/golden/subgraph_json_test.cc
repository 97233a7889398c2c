// Control-flow symbols as MXNet 1.9.1 wrote them (the control_flow golden
// cases: _foreach nodes with their bodies in "subgraphs") load and save back
// byte for byte, so MXNet reads what symx writes as it reads its own files.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace
}  // namespace symx
