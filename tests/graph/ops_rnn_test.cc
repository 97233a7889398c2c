// Schema tests for MXNet's fused RNN operator: parsing (and the attributes symx
// rejects), input/output names, shape inference with the packed parameter
// length MXNet 1.9.1 infers, dtype inference and the gradient node.
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/dtype.h"
#include "graph/node.h"
#include "graph/op.h"
#include "graph/shape.h"
#include "gtest/gtest.h"
#include "tests/graph/op_test_util.h"

namespace symx {
namespace {

using ::symx::testing::Differentiate;
using ::symx::testing::ErrorContains;
using ::symx::testing::GradCase;
using ::symx::testing::InferOpShape;
using ::symx::testing::InferOpType;
using ::symx::testing::InputNames;
using ::symx::testing::ParseAttrs;
using ::symx::testing::ParseStatus;
using ::symx::testing::ShapeStatus;

constexpr int64_t X = kUnknownDim;
const Shape kUnknown;

AttrMap Attrs(const std::string& mode, int layers, bool bidir, bool state_outputs = false) {
  return {{"mode", mode},
          {"state_size", "4"},
          {"num_layers", std::to_string(layers)},
          {"bidirectional", bidir ? "True" : "False"},
          {"state_outputs", state_outputs ? "1" : "0"}};
}

TEST(RNNTest, Parse) {
  EXPECT_TRUE(ParseStatus("RNN", Attrs("lstm", 1, false)).ok());
  EXPECT_TRUE(ErrorContains(ParseStatus("RNN", {{"mode", "lstm"}, {"num_layers", "1"}}),
                            {"state_size"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("RNN", {{"mode", "lstm"}, {"state_size", "4"}}),
                            {"num_layers"}));
  AttrMap a = Attrs("lstm", 1, false);
  a["mode"] = "rnn_sigmoid";
  EXPECT_TRUE(ErrorContains(ParseStatus("RNN", a), {"mode", "rnn_sigmoid"}));
  a = Attrs("gru", 1, false);
  a["state_size"] = "0";
  EXPECT_TRUE(ErrorContains(ParseStatus("RNN", a), {"state_size", "0"}));
  a = Attrs("gru", 1, false);
  a["p"] = "1.5";
  EXPECT_TRUE(ErrorContains(ParseStatus("RNN", a), {"'p'", "1.5"}));
  a = Attrs("gru", 1, false);
  a["layout"] = "NTC";
  EXPECT_TRUE(ErrorContains(ParseStatus("RNN", a), {"layout"}));
  // Attributes symx does not implement are rejected by name; their defaults parse.
  a = Attrs("lstm", 1, false);
  a["projection_size"] = "2";
  EXPECT_TRUE(ErrorContains(ParseStatus("RNN", a), {"projection_size", "not supported"}));
  a = Attrs("lstm", 1, false);
  a["lstm_state_clip_min"] = "-1";
  EXPECT_TRUE(ErrorContains(ParseStatus("RNN", a), {"lstm_state_clip_min", "not supported"}));
  a = Attrs("lstm", 1, false);
  a["lstm_state_clip_max"] = "1";
  EXPECT_TRUE(ErrorContains(ParseStatus("RNN", a), {"lstm_state_clip_max", "not supported"}));
  a = Attrs("lstm", 1, false);
  a["use_sequence_length"] = "True";
  EXPECT_TRUE(ErrorContains(ParseStatus("RNN", a), {"use_sequence_length", "not supported"}));
  a = Attrs("lstm", 1, false);
  a["projection_size"] = "None";
  a["lstm_state_clip_min"] = "None";
  a["lstm_state_clip_nan"] = "False";
  a["use_sequence_length"] = "False";
  a["p"] = "0.2";
  EXPECT_TRUE(ParseStatus("RNN", a).ok());
}

TEST(RNNTest, Names) {
  EXPECT_EQ(InputNames("RNN", Attrs("lstm", 1, false)),
            (std::vector<std::string>{"data", "parameters", "state", "state_cell"}));
  EXPECT_EQ(InputNames("RNN", Attrs("gru", 1, false)),
            (std::vector<std::string>{"data", "parameters", "state"}));
  for (const auto& [mode, visible_with_states] :
       std::vector<std::pair<std::string, int>>{{"lstm", 3}, {"gru", 2}, {"rnn_relu", 2}}) {
    absl::StatusOr<NodeAttrs> off = ParseAttrs("RNN", Attrs(mode, 1, false, false));
    absl::StatusOr<NodeAttrs> on = ParseAttrs("RNN", Attrs(mode, 1, false, true));
    ASSERT_TRUE(off.ok() && on.ok());
    EXPECT_EQ(off->op->NumVisibleOutputs(*off), 1) << mode;
    EXPECT_EQ(on->op->NumVisibleOutputs(*on), visible_with_states) << mode;
    EXPECT_EQ(on->op->NumOutputs(*on), visible_with_states) << mode;
  }
  absl::StatusOr<NodeAttrs> l = ParseAttrs("RNN", Attrs("lstm", 1, false, true));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->op->OutputNames(*l),
            (std::vector<std::string>{"output", "state_output", "statecell_output"}));
}

TEST(RNNTest, InferShape) {
  // Parameter lengths as MXNet 1.9.1 infers them for data (3, 2, 3), state_size 4.
  struct Want {
    std::string mode;
    int layers;
    bool bidir;
    int64_t params;
  };
  for (const Want& w : std::vector<Want>{{"lstm", 1, false, 144},
                                         {"lstm", 2, true, 736},
                                         {"gru", 1, false, 108},
                                         {"gru", 2, true, 552},
                                         {"rnn_tanh", 1, false, 36},
                                         {"rnn_relu", 2, true, 184}}) {
    const bool lstm = w.mode == "lstm";
    std::vector<Shape> in = {Shape{3, 2, 3}, kUnknown, kUnknown};
    if (lstm) in.push_back(kUnknown);
    auto r = InferOpShape("RNN", Attrs(w.mode, w.layers, w.bidir, true), in);
    ASSERT_TRUE(r.ok()) << r.status();
    const int64_t states = w.layers * (w.bidir ? 2 : 1);
    EXPECT_EQ(r->in[1], (Shape{w.params})) << w.mode;
    EXPECT_EQ(r->in[2], (Shape{states, 2, 4})) << w.mode;
    if (lstm) {
      EXPECT_EQ(r->in[3], (Shape{states, 2, 4}));
    }
    EXPECT_EQ(r->out[0], (Shape{3, 2, (w.bidir ? 8 : 4)})) << w.mode;
    EXPECT_EQ(r->out[1], (Shape{states, 2, 4})) << w.mode;
  }
  // Backward: seq_len and batch from the output, batch from the state.
  auto r = InferOpShape("RNN", Attrs("gru", 1, false), {kUnknown, kUnknown, kUnknown},
                        {Shape{5, 7, 4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{5, 7, X}));
  EXPECT_EQ(r->in[2], (Shape{1, 7, 4}));
  EXPECT_FALSE(r->in[1].ndim_known());
  r = InferOpShape("RNN", Attrs("gru", 1, false), {Shape{X, X, 3}, kUnknown, Shape{1, 6, 4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{X, 6, 3}));
  EXPECT_EQ(r->in[1], (Shape{108}));
}

TEST(RNNTest, InferShapeErrors) {
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("RNN", Attrs("gru", 1, false), {Shape{3, 2}, kUnknown, kUnknown}),
      {"input data", "[3,2]", "3 dims"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("RNN", Attrs("gru", 1, false), {Shape{3, 2, 3}, Shape{100}, kUnknown}),
      {"input parameters", "[100]", "[108]"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("RNN", Attrs("gru", 2, false), {Shape{3, 2, 3}, kUnknown, Shape{1, 2, 4}}),
      {"input state", "[1,2,4]", "[2,2,4]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("RNN", Attrs("lstm", 1, false),
                                        {Shape{3, 2, 3}, kUnknown, kUnknown, Shape{1, 3, 4}}),
                            {"input state_cell", "[1,3,4]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("RNN", Attrs("lstm", 1, false),
                                        {Shape{3, 2, 3}, kUnknown, kUnknown, Shape{1, 2}}),
                            {"input state_cell", "3 dims"}));
}

TEST(RNNTest, InferType) {
  auto t = InferOpType("RNN", Attrs("lstm", 1, false, true),
                       {DType::kFloat64, DType::kUnknown, DType::kUnknown, DType::kUnknown});
  ASSERT_TRUE(t.ok()) << t.status();
  for (DType d : t->in) EXPECT_EQ(d, DType::kFloat64);
  for (DType d : t->out) EXPECT_EQ(d, DType::kFloat64);
  EXPECT_TRUE(ErrorContains(
      InferOpType("RNN", Attrs("gru", 1, false), {DType::kFloat32, DType::kFloat64, DType::kUnknown})
          .status(),
      {"parameters"}));
}

TEST(RNNTest, Gradient) {
  for (const std::string mode : {"lstm", "gru"}) {
    const int n = mode == "lstm" ? 4 : 3;
    GradCase c = Differentiate("RNN", Attrs(mode, 2, true, true), n);
    ASSERT_EQ(static_cast<int>(c.grads.size()), n);
    const NodePtr& bwd = c.grads[0].node;
    ASSERT_NE(bwd, nullptr);
    EXPECT_EQ(bwd->op()->name(), "_backward_RNN");
    // Forward inputs, then a head gradient per forward output (zeros where none).
    ASSERT_EQ(static_cast<int>(bwd->inputs.size()), n + (mode == "lstm" ? 3 : 2));
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(c.grads[i].node, bwd);
      EXPECT_EQ(static_cast<int>(c.grads[i].index), i);
      EXPECT_EQ(bwd->inputs[i].node, c.node->inputs[i].node);
    }
    EXPECT_EQ(bwd->inputs[n].node, c.head);
    ASSERT_EQ(bwd->control_deps.size(), 1u);
    EXPECT_EQ(bwd->control_deps[0], c.node);
  }
}

}  // namespace
}  // namespace symx
