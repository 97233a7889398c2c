// `symx inspect`: text and JSON reports and exit codes on bad input.
#include "tools/symx/inspect.h"

#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace symx::cli {
namespace {

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result Inspect(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = InspectMain(args, out, err);
  return {code, out.str(), err.str()};
}

std::vector<int64_t> ShapeOf(const nlohmann::json& list, const std::string& name) {
  for (const auto& item : list) {
    if (item["name"] == name) return item["shape"].get<std::vector<int64_t>>();
  }
  ADD_FAILURE() << "no entry " << name;
  return {};
}

TEST(InspectTest, ResNetBlockShapesMatchMxnet) {
  Result r =
      Inspect({"tools/examples/resnet_block-symbol.json", "--shape", "data=1,3,224,224", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(ShapeOf(doc["arguments"], "conv0_weight"), (std::vector<int64_t>{64, 3, 7, 7}));
  EXPECT_EQ(ShapeOf(doc["arguments"], "stage1_conv2_weight"), (std::vector<int64_t>{64, 64, 3, 3}));
  EXPECT_EQ(ShapeOf(doc["arguments"], "fc1_weight"), (std::vector<int64_t>{1000, 64}));
  EXPECT_EQ(ShapeOf(doc["arguments"], "softmax_label"), (std::vector<int64_t>{1}));
  EXPECT_EQ(ShapeOf(doc["auxiliary_states"], "bn0_moving_var"), (std::vector<int64_t>{64}));
  EXPECT_EQ(ShapeOf(doc["outputs"], "softmax_output"), (std::vector<int64_t>{1, 1000}));
  EXPECT_EQ(doc["outputs"][0]["dtype"], "float32");
  bool saw_pool = false;
  for (const auto& node : doc["nodes"]) {
    if (node["name"] == "pool0") {
      saw_pool = true;
      EXPECT_EQ(node["op"], "Pooling");
      EXPECT_EQ(node["output_shapes"][0].get<std::vector<int64_t>>(),
                (std::vector<int64_t>{1, 64, 56, 56}));
    }
    if (node["name"] == "bn0") {
      EXPECT_EQ(node["output_shapes"].size(), 3u);
    }
  }
  EXPECT_TRUE(saw_pool);
  // conv0 9408 + 3 BN x (64 gamma + 64 beta) + 2 convs x 36864 + fc 64000 + 1000
  EXPECT_EQ(doc["num_parameters"], 9408 + 3 * 128 + 2 * 36864 + 64000 + 1000);
}

TEST(InspectTest, UnknownShapesAreZerosAndEmptyLists) {
  Result r = Inspect({"tools/examples/mlp-symbol.json", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(ShapeOf(doc["arguments"], "data"), std::vector<int64_t>{});
  // FullyConnected needs its data's shape to say anything about its weight.
  EXPECT_EQ(ShapeOf(doc["arguments"], "fc1_weight"), std::vector<int64_t>{});
  Result partial = Inspect({"tools/examples/mlp-symbol.json", "--shape", "data=0,784", "--json"});
  nlohmann::json pdoc = nlohmann::json::parse(partial.out);
  EXPECT_EQ(ShapeOf(pdoc["outputs"], "softmax_output"), (std::vector<int64_t>{0, 10}));
}

TEST(InspectTest, TextReport) {
  Result r = Inspect({"tools/examples/lenet-symbol.json", "--shape", "data=64,1,28,28"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Arguments (10):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("conv2_weight"), std::string::npos);
  EXPECT_NE(r.out.find("(50,20,5,5)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(64,10)"), std::string::npos);
  EXPECT_NE(r.out.find("Parameters: 431080"), std::string::npos) << r.out;
}

TEST(InspectTest, DtypeFlag) {
  Result r = Inspect({"tools/examples/mlp-symbol.json", "--shape", "data=2,784", "--dtype",
                      "data=float64", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["arguments"][1]["dtype"], "float64");
}

TEST(InspectTest, LegacyFile) {
  Result r = Inspect({"tools/examples/legacy_mlp-symbol.json", "--shape", "data=4,10", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(ShapeOf(doc["auxiliary_states"], "bn_moving_mean"), (std::vector<int64_t>{8}));
}

TEST(InspectTest, BadInputExitsNonZeroWithOneLine) {
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string message;
  };
  std::vector<Case> cases = {
      {{}, 2, "expected one MODEL-symbol.json"},
      {{"a.json", "b.json"}, 2, "expected one"},
      {{"x.json", "--bogus"}, 2, "unknown option --bogus"},
      {{"x.json", "--shape"}, 2, "--shape needs a value"},
      {{"x.json", "--shape", "data"}, 2, "NAME=VALUE"},
      {{"x.json", "--shape", "data=1,x"}, 2, "non-negative integers"},
      {{"x.json", "--dtype", "data=float7"}, 2, "unknown dtype"},
      {{"tools/examples/mlp-symbol.json", "--shape", "d=1", "--shape", "d=2"}, 2, "given twice"},
      {{"no/such-symbol.json"}, 1, "no/such-symbol.json: cannot open file"},
      {{"tests/testdata/bad_json/unknown_op.json"}, 1, "unknown op 'FullyConected'"},
      {{"tools/examples/mlp-symbol.json", "--shape", "nope=1,2"}, 1, "'nope' is not an input"},
      {{"tools/examples/mlp-symbol.json", "--shape", "data=2,784", "--shape", "fc1_weight=3,3"},
       1,
       "Error in operator fc1"},
  };
  for (const Case& c : cases) {
    Result r = Inspect(c.args);
    EXPECT_EQ(r.code, c.code) << c.message;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    // The cause is the first line; only usage errors add the usage line.
    std::string first = r.err.substr(0, r.err.find('\n'));
    EXPECT_NE(first.find(c.message), std::string::npos) << r.err;
    EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), c.code == 2 ? 2 : 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

}  // namespace
}  // namespace symx::cli
