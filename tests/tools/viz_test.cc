// `symx viz`'s DOT text for hand-built placed graphs: node kinds, device
// colors and legend, edge labels, and quoting of odd names.
#include "tools/symx/viz.h"

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace symx::cli {
namespace {

PlacedNode Var(const std::string& name, const Context& ctx, const Shape& shape) {
  PlacedNode n;
  n.name = name;
  n.ctx = ctx;
  n.output_shapes = {shape};
  return n;
}

PlacedNode OpNode(const std::string& name, const std::string& op, const Context& ctx,
                  std::vector<std::pair<uint32_t, uint32_t>> inputs, const Shape& shape) {
  PlacedNode n = Var(name, ctx, shape);
  n.op = op;
  n.is_copy = op == "_CrossDeviceCopy";
  n.inputs = std::move(inputs);
  return n;
}

// The line declaring node `id` ("  n3 [...]").
std::string NodeLine(const std::string& dot, int id) {
  const std::string prefix = "  n" + std::to_string(id) + " [";
  for (absl::string_view line : absl::StrSplit(dot, '\n')) {
    if (line.substr(0, prefix.size()) == prefix) return std::string(line);
  }
  return "";
}

std::string FillOf(const std::string& line) {
  size_t at = line.find("fillcolor=\"");
  return at == std::string::npos ? "" : line.substr(at + 11, 7);
}

TEST(VizDot, DrawsNodesByKindColoredByDevice) {
  const Context c1 = Context::CPU(1), c2 = Context::CPU(2);
  // Listed with cpu(2) first: colors follow sorted device order all the same.
  std::vector<PlacedNode> nodes = {
      Var("d3", c2, Shape{4, 5}),
      Var("d1", c1, Shape{4, 5}),
      OpNode("times3", "_mul_scalar", c1, {{1, 0}}, Shape{4, 5}),
      OpNode("times3_copy", "_CrossDeviceCopy", c2, {{2, 0}}, Shape{4, 5}),
      OpNode("out", "elemwise_add", c2, {{3, 0}, {0, 0}}, Shape{4, 5}),
  };
  const std::string dot = PlacedGraphToDot(nodes);
  EXPECT_EQ(dot.rfind("digraph symx {\n", 0), 0u) << dot;
  EXPECT_NE(NodeLine(dot, 0).find("label=\"d3\", shape=ellipse"), std::string::npos) << dot;
  EXPECT_NE(NodeLine(dot, 2).find("label=\"times3\\n_mul_scalar\", shape=box"), std::string::npos)
      << dot;
  const std::string copy = NodeLine(dot, 3);
  EXPECT_NE(copy.find("label=\"copy to cpu(2)\", shape=hexagon"), std::string::npos) << dot;
  EXPECT_NE(copy.find("dashed"), std::string::npos) << dot;

  EXPECT_EQ(FillOf(NodeLine(dot, 1)), FillOf(NodeLine(dot, 2)));  // both on cpu(1)
  EXPECT_EQ(FillOf(NodeLine(dot, 0)), FillOf(NodeLine(dot, 3)));  // both on cpu(2)
  EXPECT_NE(FillOf(NodeLine(dot, 0)), FillOf(NodeLine(dot, 1)));
  // The legend: cpu(1) first, in cpu(1)'s color.
  EXPECT_NE(dot.find("device0 [label=\"cpu(1)\", shape=box, fillcolor=\"" +
                     FillOf(NodeLine(dot, 1)) + "\"]"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("device1 [label=\"cpu(2)\""), std::string::npos) << dot;

  EXPECT_NE(dot.find("  n3 -> n4 [label=\"4x5\"];"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  n0 -> n4 [label=\"4x5\"];"), std::string::npos) << dot;
}

TEST(VizDot, EdgeLabelsShowUnknownDimsAndScalars) {
  const Context c = Context::CPU(0);
  std::vector<PlacedNode> nodes = {
      Var("a", c, Shape{8, kUnknownDim}),
      Var("b", c, Shape()),                        // rank unknown
      Var("s", c, Shape(std::vector<int64_t>{})),  // a scalar
      OpNode("f", "_foo", c, {{0, 0}, {1, 0}, {2, 0}}, Shape()),
  };
  const std::string dot = PlacedGraphToDot(nodes);
  EXPECT_NE(dot.find("n0 -> n3 [label=\"8x?\"]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n1 -> n3 [label=\"?\"]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n2 -> n3 [label=\"scalar\"]"), std::string::npos) << dot;
  // One device: one color and one legend entry.
  std::set<std::string> fills;
  for (int i = 0; i < 4; ++i) fills.insert(FillOf(NodeLine(dot, i)));
  EXPECT_EQ(fills.size(), 1u);
  EXPECT_EQ(dot.find("device1"), std::string::npos) << dot;
}

TEST(VizDot, QuotesNamesSoTheyCannotBreakTheFile) {
  std::vector<PlacedNode> nodes = {Var("a\"b\\c\nd", Context::CPU(0), Shape{1})};
  const std::string dot = PlacedGraphToDot(nodes);
  EXPECT_NE(NodeLine(dot, 0).find("label=\"a\\\"b\\\\c\\nd\""), std::string::npos) << dot;
}

TEST(VizMain, ExitCodes) {
  std::ostringstream out, err;
  EXPECT_EQ(VizMain({"--help"}, out, err), 0);
  EXPECT_EQ(VizMain({"m-symbol.json"}, out, err), 2);  // no -o
  EXPECT_EQ(VizMain({"m-symbol.json", "-o", "m.jpg"}, out, err), 2);
  EXPECT_EQ(VizMain({"m-symbol.json", "--iters", "3", "-o", "m.dot"}, out, err), 2);
  err.str("");
  EXPECT_EQ(VizMain({"/nonexistent-symbol.json", "-o", "m.dot"}, out, err), 1);
  EXPECT_NE(err.str().find("symx viz: "), std::string::npos) << err.str();
}

}  // namespace
}  // namespace symx::cli
