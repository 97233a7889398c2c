// The control-flow family: _foreach loaded from MXNet's JSON (its body in the
// node's "subgraphs"), shape/dtype inference through the body, the forward
// against a plain loop, gradients against central finite differences in
// float64, and the errors for malformed bodies.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"
#include "tests/expect_contains.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace {

using testing::DevicesPresent;
using testing::ErrorOf;
using testing::Values;

// h_t = tanh(x_t * w + h_{t-1}); outputs (stacked h_t, h_T). The body's
// inputs in DFS order are x-0, w, h-0: data at 0, state at 2, remain at 1.
constexpr char kForeachJson[] = R"({
  "nodes": [
    {"op": "null", "name": "x", "inputs": []},
    {"op": "null", "name": "h0", "inputs": []},
    {"op": "null", "name": "w", "inputs": []},
    {
      "op": "_foreach",
      "name": "loop",
      "attrs": {"in_data_locs": "[0]", "in_state_locs": "[STATE]", "num_args": "NUM_ARGS",
                "num_out_data": "1", "num_outputs": "NUM_OUTPUTS", "remain_locs": "[REMAIN]"},
      "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
      "subgraphs": [
        {
          "nodes": [
            {"op": "null", "name": "x-0", "inputs": []},
            {"op": "null", "name": "w", "inputs": []},
            {"op": "elemwise_mul", "name": "mul", "inputs": [[0, 0, 0], [1, 0, 0]]},
            {"op": "null", "name": "h-0", "inputs": []},
            {"op": "elemwise_add", "name": "add", "inputs": [[2, 0, 0], [3, 0, 0]]},
            {"op": "tanh", "name": "out", "inputs": [[4, 0, 0]]},
            {"op": "_copy", "name": "next", "inputs": [[5, 0, 0]]}
          ],
          "arg_nodes": [0, 1, 3],
          "node_row_ptr": [0, 1, 2, 3, 4, 5, 6, 7],
          "heads": [HEADS]
        }
      ]
    }
  ],
  "arg_nodes": [0, 1, 2],
  "node_row_ptr": [0, 1, 2, 3, 5],
  "heads": [[3, 0, 0], [3, 1, 0]],
  "attrs": {"mxnet_version": ["int", 10901]}
})";

struct Edits {
  std::string state = "2", remain = "1", num_args = "4", num_outputs = "2";
  std::string heads = "[5, 0, 0], [6, 0, 0]";
};

std::string ForeachJson(const Edits& e = {}) {
  return absl::StrReplaceAll(kForeachJson, {{"STATE", e.state},
                                            {"REMAIN", e.remain},
                                            {"NUM_ARGS", e.num_args},
                                            {"NUM_OUTPUTS", e.num_outputs},
                                            {"HEADS", e.heads}});
}

// The plain loop: outputs (T*N stacked, N last).
std::vector<Values> Reference(const Values& x, const Values& h0, const Values& w, int T, int N) {
  Values stacked(T * N), h = h0;
  for (int t = 0; t < T; ++t) {
    for (int n = 0; n < N; ++n) {
      h[n] = std::tanh(x[t * N + n] * w[n] + h[n]);
      stacked[t * N + n] = h[n];
    }
  }
  return {stacked, h};
}

Values Uniform(int n, uint64_t seed) {
  Values v(n);
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (double& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<double>(s >> 11) / static_cast<double>(1ULL << 53) * 2 - 1;
  }
  return v;
}

void ExpectNear(const Values& got, const Values& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << what << " element " << i;
  }
}

std::unique_ptr<Executor> BindLoop(const Symbol& net, Context ctx, DType dtype, int T, int N) {
  return Executor::SimpleBind(
      net, {.ctx = ctx,
            .shapes = {{"x", Shape{T, N}}, {"h0", Shape{N}}, {"w", Shape{N}}},
            .type_dict = std::map<std::string, DType>{{"x", dtype}, {"h0", dtype}, {"w", dtype}}});
}

TEST(ControlFlowTest, ForeachLoadsWithItsBodyAndListsTheNodeInputs) {
  Symbol net = Symbol::FromJson(ForeachJson());
  EXPECT_EQ(net.ListArguments(), (std::vector<std::string>{"x", "h0", "w"}));
  EXPECT_EQ(net.ListOutputs(), (std::vector<std::string>{"loop_output0", "loop_output1"}));
  ASSERT_EQ(net.outputs()[0].node->attrs.subgraphs.size(), 1u);
}

TEST(ControlFlowTest, ForeachInfersShapesThroughTheBody) {
  Symbol net = Symbol::FromJson(ForeachJson());
  ShapeInference r = net.InferShape(std::map<std::string, Shape>{{"x", Shape{5, 3}}});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg_shapes, (std::vector<Shape>{Shape{5, 3}, Shape{3}, Shape{3}}));
  EXPECT_EQ(r.out_shapes, (std::vector<Shape>{Shape{5, 3}, Shape{3}}));
  TypeInference types = net.InferType({{"x", DType::kFloat64}});
  EXPECT_EQ(types.out_types, (std::vector<DType>{DType::kFloat64, DType::kFloat64}));
  EXPECT_EQ(types.arg_types[2], DType::kFloat64);
}

TEST(ControlFlowTest, ForeachForwardMatchesALoop) {
  const int T = 4, N = 3;
  Symbol net = Symbol::FromJson(ForeachJson());
  for (Context ctx : DevicesPresent()) {
    for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
      auto exe = BindLoop(net, ctx, dtype, T, N);
      Values x = Uniform(T * N, 1), h0 = Uniform(N, 2), w = Uniform(N, 3);
      exe->Forward(false, {{"x", Tensor::FromVector(Shape{T, N}, x, dtype)},
                           {"h0", Tensor::FromVector(Shape{N}, h0, dtype)},
                           {"w", Tensor::FromVector(Shape{N}, w, dtype)}});
      std::vector<Values> want = Reference(x, h0, w, T, N);
      const double tol = dtype == DType::kFloat32 ? 1e-5 : 1e-12;
      ExpectNear(exe->outputs()[0].ToDoubles(), want[0], tol, "stacked " + ctx.ToString());
      ExpectNear(exe->outputs()[1].ToDoubles(), want[1], tol, "last state " + ctx.ToString());
    }
  }
}

// Backward against central differences of L = <y0, g0> + <y1, g1>.
TEST(ControlFlowTest, ForeachGradientsMatchFiniteDifferences) {
  const int T = 4, N = 3;
  Symbol net = Symbol::FromJson(ForeachJson());
  std::map<std::string, Values> in = {
      {"x", Uniform(T * N, 1)}, {"h0", Uniform(N, 2)}, {"w", Uniform(N, 3)}};
  std::map<std::string, Shape> shapes = {{"x", Shape{T, N}}, {"h0", Shape{N}}, {"w", Shape{N}}};
  Values g0 = Uniform(T * N, 4), g1 = Uniform(N, 5);
  auto loss = [&](const std::map<std::string, Values>& v) {
    std::vector<Values> y = Reference(v.at("x"), v.at("h0"), v.at("w"), T, N);
    double l = 0;
    for (size_t i = 0; i < y[0].size(); ++i) l += y[0][i] * g0[i];
    for (size_t i = 0; i < y[1].size(); ++i) l += y[1][i] * g1[i];
    return l;
  };
  for (Context ctx : DevicesPresent()) {
    auto exe = BindLoop(net, ctx, DType::kFloat64, T, N);
    std::map<std::string, Tensor> feed;
    for (const auto& [name, v] : in) {
      feed[name] = Tensor::FromVector(shapes[name], v, DType::kFloat64);
    }
    exe->Forward(true, feed);
    exe->Backward(std::vector<Tensor>{Tensor::FromVector(Shape{T, N}, g0, DType::kFloat64),
                                      Tensor::FromVector(Shape{N}, g1, DType::kFloat64)});
    for (const auto& [name, v] : in) {
      Values fd(v.size());
      for (size_t i = 0; i < v.size(); ++i) {
        auto plus = in, minus = in;
        plus[name][i] += 1e-6;
        minus[name][i] -= 1e-6;
        fd[i] = (loss(plus) - loss(minus)) / 2e-6;
      }
      ExpectNear(exe->grad_dict().at(name).ToDoubles(), fd, 1e-6,
                 "gradient of " + name + " on " + ctx.ToString());
    }
  }
}

TEST(ControlFlowTest, ForeachRoundTripsThroughJson) {
  Symbol net = Symbol::FromJson(ForeachJson());
  std::string saved = net.ToJson();
  EXPECT_CONTAINS(saved, "\"subgraphs\": [");
  Symbol again = Symbol::FromJson(saved);
  EXPECT_EQ(again.ToJson(), saved);
  EXPECT_EQ(again.ListArguments(), net.ListArguments());
}

TEST(ControlFlowTest, MalformedBodiesAreNamed) {
  auto error = [](const Edits& e) { return ErrorOf([&] { Symbol::FromJson(ForeachJson(e)); }); };
  Edits wrong_args;
  wrong_args.num_args = "5";
  EXPECT_CONTAINS(error(wrong_args), "num_args");
  Edits out_of_range;
  out_of_range.state = "7";
  EXPECT_CONTAINS(error(out_of_range), "in_state_locs");
  EXPECT_CONTAINS(error(out_of_range), "location 7 is out of range");
  Edits twice;
  twice.state = "1";
  EXPECT_CONTAINS(error(twice), "body input 1 is named twice");
  Edits outputs;
  outputs.heads = "[5, 0, 0], [6, 0, 0], [2, 0, 0]";
  EXPECT_CONTAINS(error(outputs), "the body has 3 outputs but num_outputs = 2");
  Edits states;
  states.num_outputs = "3";
  EXPECT_CONTAINS(error(states), "in_state_locs");
  // A body without the node's inputs: the JSON loses its subgraph.
  std::string json = ForeachJson();
  const size_t at = json.find(",\n      \"subgraphs\"");
  const size_t end = json.rfind("]\n    }\n  ],\n  \"arg_nodes\"");
  std::string no_body = json.substr(0, at) + json.substr(end + 1);
  EXPECT_CONTAINS(ErrorOf([&] { Symbol::FromJson(no_body); }), "expects 1 subgraph(s) but got 0");
}

TEST(ControlFlowTest, BodyShapeConflictsNameTheBody) {
  Symbol net = Symbol::FromJson(ForeachJson());
  std::string msg = ErrorOf([&] {
    net.InferShape(std::map<std::string, Shape>{{"x", Shape{5, 3}}, {"h0", Shape{4}}});
  });
  EXPECT_CONTAINS(msg, "loop (_foreach)");
  EXPECT_CONTAINS(msg, "in the body's shape inference");
}

}  // namespace
}  // namespace symx
