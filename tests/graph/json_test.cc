// Symbol JSON: MXNet 1.9's exact layout, round trips, the legacy upgrade and the
// corpus of malformed files (tests/testdata/bad_json, expectations in EXPECTED).
#include "graph/json.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/error.h"
#include "graph/op.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using Names = std::vector<std::string>;

// dmlc's writer ends each line inside a multi-line scope with ", ".
std::string Lines(const std::vector<std::string>& lines) { return absl::StrJoin(lines, "\n"); }

TEST(JsonTest, WritesMxnetLayoutExactly) {
  Symbol data = Symbol::Variable("data");
  Symbol fc = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", 4).Input(data);
  Symbol net = OpCall("SoftmaxOutput").Name("softmax").Input(fc);
  std::string expected = Lines({
      "{",
      "  \"nodes\": [",
      "    {",
      "      \"op\": \"null\", ",
      "      \"name\": \"data\", ",
      "      \"inputs\": []",
      "    }, ",
      "    {",
      "      \"op\": \"null\", ",
      "      \"name\": \"fc1_weight\", ",
      "      \"attrs\": {\"num_hidden\": \"4\"}, ",
      "      \"inputs\": []",
      "    }, ",
      "    {",
      "      \"op\": \"null\", ",
      "      \"name\": \"fc1_bias\", ",
      "      \"attrs\": {\"num_hidden\": \"4\"}, ",
      "      \"inputs\": []",
      "    }, ",
      "    {",
      "      \"op\": \"FullyConnected\", ",
      "      \"name\": \"fc1\", ",
      "      \"attrs\": {\"num_hidden\": \"4\"}, ",
      "      \"inputs\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]",
      "    }, ",
      "    {",
      "      \"op\": \"null\", ",
      "      \"name\": \"softmax_label\", ",
      "      \"inputs\": []",
      "    }, ",
      "    {",
      "      \"op\": \"SoftmaxOutput\", ",
      "      \"name\": \"softmax\", ",
      "      \"inputs\": [[3, 0, 0], [4, 0, 0]]",
      "    }",
      "  ], ",
      "  \"arg_nodes\": [0, 1, 2, 4], ",
      "  \"node_row_ptr\": [0, 1, 2, 3, 4, 5, 6], ",
      "  \"heads\": [[5, 0, 0]], ",
      "  \"attrs\": {\"mxnet_version\": [\"int\", 10901]}",
      "}",
  });
  EXPECT_EQ(net.ToJson(), expected);
}

TEST(JsonTest, MultiEntryMapsAndLongArraysGoMultiLine) {
  Symbol x = Symbol::Variable("x");
  Symbol conv =
      OpCall("Convolution").Name("conv").Attr("kernel", {3, 3}).Attr("num_filter", 8).Input(x);
  std::string json = conv.ToJson();
  EXPECT_NE(json.find(Lines({"      \"attrs\": {", "        \"kernel\": \"(3, 3)\", ",
                             "        \"num_filter\": \"8\"", "      }, "})),
            std::string::npos)
      << json;
  std::vector<Symbol> parts;
  for (int i = 0; i < 11; ++i) parts.push_back(Symbol::Variable("v" + std::to_string(i)));
  OpCall cat("Concat");
  cat.Name("cat");
  for (const Symbol& p : parts) cat.Input(p);
  std::string cat_json = cat.Build().ToJson();
  EXPECT_NE(cat_json.find(Lines({"      \"inputs\": [", "        [0, 0, 0], "})), std::string::npos)
      << cat_json;
  EXPECT_NE(cat_json.find(Lines({"  \"arg_nodes\": [", "    0, ", "    1, "})), std::string::npos);
}

TEST(JsonTest, AuxInputsAreWrittenWithVersionOne) {
  Symbol bn = OpCall("BatchNorm").Name("bn").Input(Symbol::Variable("data"));
  EXPECT_NE(bn.ToJson().find("[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 1], [4, 0, 1]]"),
            std::string::npos);
}

Symbol ResidualBlock() {
  NameScope names;  // the same automatic names on every call
  Symbol data = Symbol::Variable("data");
  AttrScope scope(AttrMap{{"ctx_group", "dev1"}});
  Symbol conv = OpCall("Convolution")
                    .Name("conv1")
                    .Attr("kernel", {3, 3})
                    .Attr("pad", {1, 1})
                    .Attr("num_filter", 4)
                    .Attr("no_bias", true)
                    .Input(data);
  Symbol bn = OpCall("BatchNorm").Name("bn1").Attr("fix_gamma", false).Input(conv);
  Symbol act = OpCall("Activation").Name("relu1").Attr("act_type", "relu").Input(bn);
  return Symbol::Group(
      {act + data, OpCall("SliceChannel").Name("split").Attr("num_outputs", 2).Input(act).Build()});
}

TEST(JsonTest, RoundTripGivesTheSameText) {
  Symbol s = ResidualBlock();
  std::string once = s.ToJson();
  Symbol loaded = Symbol::FromJson(once);
  EXPECT_EQ(loaded.ToJson(), once);
  EXPECT_EQ(loaded.ListArguments(), s.ListArguments());
  EXPECT_EQ(loaded.ListAuxiliaryStates(), s.ListAuxiliaryStates());
  EXPECT_EQ(loaded.ListOutputs(), s.ListOutputs());
  EXPECT_EQ(loaded.AttrDict(), s.AttrDict());
}

TEST(JsonTest, StringsWithSpecialCharactersRoundTrip) {
  VariableOptions opts;
  opts.attrs = {{"__note__", "quote \" backslash \\ tab \t newline \n bell \x07"}};
  Symbol v = Symbol::Variable("odd \"name\"", opts);
  Symbol loaded = Symbol::FromJson(v.ToJson());
  EXPECT_EQ(loaded.name(), "odd \"name\"");
  EXPECT_EQ(loaded.ListAttr(), v.ListAttr());
  EXPECT_EQ(loaded.ToJson(), v.ToJson());
}

TEST(JsonTest, SaveAndLoadFiles) {
  std::string path = ::testing::TempDir() + "/block-symbol.json";
  ResidualBlock().Save(path);
  EXPECT_EQ(Symbol::Load(path).ToJson(), ResidualBlock().ToJson());
  try {
    Symbol::Load(::testing::TempDir() + "/missing-symbol.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing-symbol.json: cannot open file"),
              std::string::npos);
  }
}

TEST(JsonTest, LegacyFileIsUpgraded) {
  Symbol s = Symbol::Load("tools/examples/legacy_mlp-symbol.json");
  EXPECT_EQ(s.ListArguments(), (Names{"data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias",
                                      "bn_gamma", "bn_beta", "softmax_label"}));
  EXPECT_EQ(s.ListAuxiliaryStates(), (Names{"bn_moving_mean", "bn_moving_var"}));
  std::map<std::string, AttrMap> d = s.AttrDict();
  // Exact hidden keys are lifted on every node.
  EXPECT_EQ(d["data"]["__ctx_group__"], "stage1");
  EXPECT_EQ(d["data"]["__lr_mult__"], "0.2");
  EXPECT_EQ(d["fc1"]["__ctx_group__"], "stage1");
  EXPECT_EQ(d["fc1"]["__wd_mult__"], "0.3");
  // "<arg>_<key>" on an op moves to that input variable ...
  EXPECT_EQ(d["fc1_weight"]["__lr_mult__"], "1.2");
  EXPECT_EQ(d["fc1"].count("weight_lr_mult"), 0u);
  // ... but stays as it is on a variable.
  EXPECT_EQ(d["fc1_bias"]["weight_lr_mult"], "1.2");
  // Missing BatchNorm aux inputs are added, copying the op's attributes.
  EXPECT_EQ(d["bn_moving_var"]["__init__"], "[\"one\", {}]");
  EXPECT_EQ(d["bn_moving_mean"]["__ctx_group__"], "stage2");
  ShapeInference r = s.InferShape({{"data", Shape{4, 10}}});
  ASSERT_TRUE(r.complete) << r.missing;
  EXPECT_EQ(r.out_shapes[0], Shape({4, 8}));
  // Written back in the current format, it reads back identically.
  EXPECT_EQ(Symbol::FromJson(s.ToJson()).ToJson(), s.ToJson());
}

TEST(JsonTest, MalformedCorpusGivesErrorsNamingFileAndField) {
  const std::string dir = "tests/testdata/bad_json/";
  std::ifstream manifest(dir + "EXPECTED");
  ASSERT_TRUE(manifest) << "missing manifest";
  std::string line;
  int cases = 0;
  while (std::getline(manifest, line)) {
    if (line.empty()) continue;
    std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits('\t', 1));
    ASSERT_EQ(parts.size(), 2u) << line;
    absl::StatusOr<std::vector<NodeEntry>> r = LoadJsonFile(dir + parts[0]);
    ++cases;
    ASSERT_FALSE(r.ok()) << parts[0] << " loaded";
    std::string message(r.status().message());
    EXPECT_NE(message.find(parts[0]), std::string::npos) << message;
    EXPECT_NE(message.find(parts[1]), std::string::npos)
        << parts[0] << ": expected \"" << parts[1] << "\" in: " << message;
  }
  EXPECT_GE(cases, 25);
}

TEST(JsonTest, DeepChainsLoad) {
  Symbol x = Symbol::Variable("x");
  for (int i = 0; i < 20000; ++i) x = OpCall("relu").Input(x);
  std::string json = x.ToJson();
  EXPECT_EQ(Symbol::FromJson(json).ToJson(), json);
}

}  // namespace
}  // namespace symx
