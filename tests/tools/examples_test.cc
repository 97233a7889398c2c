// The committed example files are exactly what symx writes for tools/examples/models.cc.
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "tools/examples/models.h"

namespace symx {
namespace {

TEST(ExamplesTest, CommittedFilesMatchTheBuilders) {
  for (const auto& [file, symbol] : examples::AllExamples()) {
    std::ifstream in("tools/examples/" + file, std::ios::binary);
    ASSERT_TRUE(in) << file;
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str(), symbol.ToJson())
        << file << " is stale: bazel run //tools/examples:write_examples -- $PWD/tools/examples";
  }
}

}  // namespace
}  // namespace symx
