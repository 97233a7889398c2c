// README.md lists exactly the registry's operators (tools/ops_doc).
#include "graph/file_io.h"
#include "gtest/gtest.h"
#include "tools/ops_doc/ops_markdown.h"

namespace symx {
namespace {

TEST(ReadmeOpsTest, TheOperatorListMatchesTheRegistry) {
  absl::StatusOr<std::string> readme = ReadFileBytes("README.md");
  ASSERT_TRUE(readme.ok()) << readme.status();
  std::optional<std::string> block = FindOperatorsBlock(*readme);
  ASSERT_TRUE(block.has_value()) << "README.md has no operator list";
  EXPECT_EQ(*block, OperatorsMarkdown())
      << "README.md's operator list is stale: run "
         "bazel run //tools/ops_doc:update_readme -- $PWD/README.md";
}

TEST(ReadmeOpsTest, ReplacingTheBlockKeepsTheRest) {
  const std::string text =
      std::string("before\n") + kOpsBegin + "\nold\n" + kOpsEnd + "\nafter\n";
  std::optional<std::string> out = ReplaceOperatorsBlock(text, "NEW\n");
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out, "before\nNEW\nafter\n");
  EXPECT_FALSE(ReplaceOperatorsBlock("no markers", "x").has_value());
}

}  // namespace
}  // namespace symx
