// Loading real MXNet files: every unknown operator reported in one error (with
// the reason for MXNet-only ones), and the tolerance MXNet's loader has that
// files written by other people rely on.
#include <filesystem>
#include <string>

#include "graph/error.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

// A symbol file with the given node objects (JSON text), every node a head.
std::string Model(const std::vector<std::string>& nodes, int heads_from = 0) {
  std::string out = "{\"nodes\": [";
  for (size_t i = 0; i < nodes.size(); ++i) out += (i ? "," : "") + nodes[i];
  out += "], \"arg_nodes\": [], \"heads\": [";
  for (size_t i = heads_from; i < nodes.size(); ++i) {
    out += (i > static_cast<size_t>(heads_from) ? "," : "") + ("[" + std::to_string(i) + ", 0, 0]");
  }
  return out + "], \"attrs\": {\"mxnet_version\": [\"int\", 10901]}}";
}

std::string Op(const std::string& op, const std::string& name, const std::string& attrs = "{}",
               const std::string& inputs = "[[0, 0, 0]]") {
  return "{\"op\": \"" + op + "\", \"name\": \"" + name + "\", \"attrs\": " + attrs +
         ", \"inputs\": " + inputs + "}";
}

std::string Var(const std::string& name, const std::string& attrs = "{}") {
  return "{\"op\": \"null\", \"name\": \"" + name + "\", \"attrs\": " + attrs + ", \"inputs\": []}";
}

std::string LoadError(const std::string& json) {
  try {
    Symbol::FromJson(json);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(JsonCompatTest, EveryUnknownOperatorIsListedOnceWithItsCount) {
  const std::string err =
      LoadError(Model({Var("data"), Op("_contrib_NoSuchOperator", "anchors0"),
                       Op("_contrib_NoSuchOperator", "anchors1"),
                       Op("Custom", "proposal", "{\"op_type\": \"rpn_proposal\"}"),
                       Op("_sg_mkldnn_conv", "sg_conv0"), Op("_contrib_quantize_v2", "quantize0"),
                       Op("relu", "fine"), Op("_contrib_NoSuchOperator", "anchors2"),
                       Op("_contrib_NoSuchOperator", "anchors3"), Op("_npi_add", "np_add")},
                      1));
  EXPECT_NE(err.find("the model uses 5 operators symx does not have, in 8 nodes"), std::string::npos)
      << err;
  EXPECT_NE(err.find("unknown op '_contrib_NoSuchOperator': 4 nodes (node 1 (\"anchors0\"), node 2 "
                     "(\"anchors1\"), node 7 (\"anchors2\"), ...)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("operator 'Custom' cannot run outside MXNet: a Python operator (op_type "
                     "'rpn_proposal')"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("operator '_sg_mkldnn_conv' cannot run outside MXNet: a fused subgraph"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("operator '_contrib_quantize_v2' cannot run outside MXNet: part of MXNet's "
                     "INT8 quantization flow"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("operator '_npi_add' cannot run outside MXNet: an operator of MXNet's NumPy "
                     "interface"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("'relu'"), std::string::npos) << err;
}

TEST(JsonCompatTest, OneCustomNodeNamesItsOpType) {
  const std::string err =
      LoadError(Model({Var("data"), Op("Custom", "loss", "{\"op_type\": \"focal_loss\"}")}, 1));
  EXPECT_NE(err.find("node 1 (\"loss\"): operator 'Custom' cannot run outside MXNet: a Python "
                     "operator (op_type 'focal_loss')"),
            std::string::npos)
      << err;
}

// Each kind of operator that exists only inside MXNet gets its reason.
TEST(JsonCompatTest, MxnetInternalSparseAndImageOpsNameTheirReason) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"_contrib_backward_hawkesll", "MXNet's own machinery inserts"},
      {"_grad_add", "MXNet's own machinery inserts"},
      {"_CustomFunction", "Python callback operator"},
      {"_cvimdecode", "image file decoding"},
      {"cast_storage", "sparse (CSR / row_sparse) storage"},
      {"_contrib_dgl_subgraph", "DGL graphs"},
      {"_contrib_calibrate_entropy", "calibration step"},
  };
  for (const auto& [op, reason] : cases) {
    const std::string err = LoadError(Model({Var("data"), Op(op, "node")}, 1));
    EXPECT_NE(err.find("operator '" + op + "' cannot run outside MXNet: "), std::string::npos)
        << err;
    EXPECT_NE(err.find(reason), std::string::npos) << op << ": " << err;
  }
}

TEST(JsonCompatTest, PythonTwoLongShapesAreRead) {
  Symbol s = Symbol::FromJson(
      Model({Var("data", "{\"__shape__\": \"(1L, 3L, 224L, 224L)\"}"), Op("relu", "r")}, 1));
  ShapeInference inf = s.InferShape(std::map<std::string, Shape>{});
  ASSERT_TRUE(inf.complete) << inf.missing;
  EXPECT_EQ(inf.out_shapes[0], (Shape{1, 3, 224, 224}));
}

TEST(JsonCompatTest, OperatorAttributesOnVariablesAreIgnored) {
  // Old exporters copied an op's attributes onto its weight variables.
  Symbol s = Symbol::FromJson(Model(
      {Var("data"), Var("fc_weight", "{\"num_hidden\": \"4\", \"no_bias\": \"True\"}"),
       Op("FullyConnected", "fc", "{\"num_hidden\": \"4\", \"no_bias\": \"True\"}",
          "[[0, 0, 0], [1, 0, 0]]")},
      2));
  ShapeInference inf = s.InferShape(std::map<std::string, Shape>{{"data", Shape{2, 5}}});
  ASSERT_TRUE(inf.complete) << inf.missing;
  EXPECT_EQ(inf.arg_shapes[1], (Shape{4, 5}));
  EXPECT_EQ(inf.out_shapes[0], (Shape{2, 4}));
}

TEST(JsonCompatTest, AStaleNodeRowPtrIsIgnored) {
  // MXNet recomputes node_row_ptr; files edited by hand often carry an old one.
  std::string json = Model({Var("data"), Op("relu", "r")}, 1);
  json.replace(json.find("\"heads\""), 0, "\"node_row_ptr\": [0, 5, 17, 99], ");
  Symbol s = Symbol::FromJson(json);
  EXPECT_EQ(s.ListOutputs(), std::vector<std::string>{"r_output"});
}

TEST(JsonCompatTest, FullyConnectedTakesAOneDimensionalInputAsMxnetDoes) {
  // flatten=True reads (5,) as 5 rows of one feature; flatten=False as one row.
  for (const auto& [flatten, weight, out] :
       {std::tuple<std::string, Shape, Shape>{"True", Shape{3, 1}, Shape{5, 3}},
        std::tuple<std::string, Shape, Shape>{"False", Shape{3, 5}, Shape{3}}}) {
    Symbol s = Symbol::FromJson(Model(
        {Var("data"), Var("fc_weight"), Var("fc_bias"),
         Op("FullyConnected", "fc", "{\"num_hidden\": \"3\", \"flatten\": \"" + flatten + "\"}",
            "[[0, 0, 0], [1, 0, 0], [2, 0, 0]]")},
        3));
    ShapeInference inf = s.InferShape(std::map<std::string, Shape>{{"data", Shape{5}}});
    ASSERT_TRUE(inf.complete) << "flatten=" << flatten << ": " << inf.missing;
    EXPECT_EQ(inf.arg_shapes[1], weight) << "flatten=" << flatten;
    EXPECT_EQ(inf.out_shapes[0], out) << "flatten=" << flatten;
  }
}

TEST(JsonCompatTest, ArgmaxAxisMinusOneBefore095MeansAllAxes) {
  // MXNet's 0.9.5 upgrade: in older files axis=-1 was the flattened argmax.
  for (const auto& [version, out] : {std::pair<std::string, Shape>{"904", Shape{1}},
                                     std::pair<std::string, Shape>{"905", Shape{2}}}) {
    std::string json = Model({Var("data"), Op("argmax", "am", "{\"axis\": \"-1\"}")}, 1);
    json.replace(json.find("10901"), 5, version);
    Symbol s = Symbol::FromJson(json);
    ShapeInference inf = s.InferShape(std::map<std::string, Shape>{{"data", Shape{2, 3}}});
    ASSERT_TRUE(inf.complete) << inf.missing;
    EXPECT_EQ(inf.out_shapes[0], out) << "version " << version;
  }
}

TEST(JsonCompatTest, ADirectoryGivenAsTheSymbolFileIsNamed) {
  const std::string dir = ::testing::TempDir() + "/a-directory-symbol.json";
  std::filesystem::create_directories(dir);
  try {
    Symbol::Load(dir);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir + ": cannot open file (it is a directory, not a file)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace symx
