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

// _cond(p, a, b): then (a * b, a + 1), else (a - b, b * 2), as MXNet writes
// mx.sym.contrib.cond with the predicate computed outside.
constexpr char kCondJson[] = R"({
  "nodes": [
    {"op": "null", "name": "p", "inputs": []},
    {"op": "null", "name": "a", "inputs": []},
    {"op": "null", "name": "b", "inputs": []},
    {
      "op": "_cond",
      "name": "branch",
      "attrs": {"cond_input_locs": "[0]", "else_input_locs": "[1, 2]", "num_args": "NUM_ARGS",
                "num_outputs": "2", "then_input_locs": "[1, 2]"},
      "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
      "subgraphs": [
        {"nodes": [{"op": "null", "name": "p", "inputs": []},
                   {"op": "_copy", "name": "pred", "inputs": [[0, 0, 0]]}],
         "arg_nodes": [0], "node_row_ptr": [0, 1, 2], "heads": [[1, 0, 0]]},
        {"nodes": [{"op": "null", "name": "a", "inputs": []},
                   {"op": "null", "name": "b", "inputs": []},
                   {"op": "elemwise_mul", "name": "mul", "inputs": [[0, 0, 0], [1, 0, 0]]},
                   {"op": "_plus_scalar", "name": "inc", "attrs": {"scalar": "1"},
                    "inputs": [[0, 0, 0]]}],
         "arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 3, 4], "heads": [[2, 0, 0], [3, 0, 0]]},
        {"nodes": [{"op": "null", "name": "a", "inputs": []},
                   {"op": "null", "name": "b", "inputs": []},
                   {"op": "elemwise_sub", "name": "sub", "inputs": [[0, 0, 0], [1, 0, 0]]},
                   {"op": "_mul_scalar", "name": "twice", "attrs": {"scalar": "2"},
                    "inputs": [[1, 0, 0]]}],
         "arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 3, 4], "heads": [ELSE_HEADS]}
      ]
    }
  ],
  "arg_nodes": [0, 1, 2],
  "node_row_ptr": [0, 1, 2, 3, 5],
  "heads": [[3, 0, 0], [3, 1, 0]],
  "attrs": {"mxnet_version": ["int", 10901]}
})";

std::string CondJson(const std::string& num_args = "6",
                     const std::string& else_heads = "[2, 0, 0], [3, 0, 0]") {
  return absl::StrReplaceAll(kCondJson, {{"NUM_ARGS", num_args}, {"ELSE_HEADS", else_heads}});
}

TEST(ControlFlowTest, CondInfersShapesFromBothBranches) {
  Symbol net = Symbol::FromJson(CondJson());
  EXPECT_EQ(net.ListArguments(), (std::vector<std::string>{"p", "a", "b"}));
  ShapeInference r =
      net.InferShape(std::map<std::string, Shape>{{"p", Shape{1}}, {"a", Shape{2, 3}}});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.arg_shapes[2], (Shape{2, 3}));
  EXPECT_EQ(r.out_shapes, (std::vector<Shape>{Shape{2, 3}, Shape{2, 3}}));
}

// Each branch's outputs, and gradients against finite differences of
// L = <y0, g0> + <y1, g1>; the predicate's gradient is zero.
TEST(ControlFlowTest, CondRunsTheTakenBranchForwardAndBackward) {
  Symbol net = Symbol::FromJson(CondJson());
  const Shape s{2, 3};
  Values a = Uniform(6, 1), b = Uniform(6, 2), g0 = Uniform(6, 3), g1 = Uniform(6, 4);
  for (Context ctx : DevicesPresent()) {
    for (double pred : {1.0, 0.0, -0.5}) {
      auto exe = Executor::SimpleBind(
          net, {.ctx = ctx,
                .shapes = {{"p", Shape{1}}, {"a", s}, {"b", s}},
                .type_dict = std::map<std::string, DType>{
                    {"p", DType::kFloat64}, {"a", DType::kFloat64}, {"b", DType::kFloat64}}});
      exe->Forward(true, {{"p", Tensor::FromVector(Shape{1}, {pred}, DType::kFloat64)},
                          {"a", Tensor::FromVector(s, a, DType::kFloat64)},
                          {"b", Tensor::FromVector(s, b, DType::kFloat64)}});
      const bool then = pred != 0;
      Values y0(6), y1(6), ga(6), gb(6);
      for (int i = 0; i < 6; ++i) {
        y0[i] = then ? a[i] * b[i] : a[i] - b[i];
        y1[i] = then ? a[i] + 1 : b[i] * 2;
        ga[i] = then ? g0[i] * b[i] + g1[i] : g0[i];
        gb[i] = then ? g0[i] * a[i] : -g0[i] + 2 * g1[i];
      }
      const std::string what = (then ? "then on " : "else on ") + ctx.ToString();
      ExpectNear(exe->outputs()[0].ToDoubles(), y0, 1e-12, "output 0, " + what);
      ExpectNear(exe->outputs()[1].ToDoubles(), y1, 1e-12, "output 1, " + what);
      exe->Backward(std::vector<Tensor>{Tensor::FromVector(s, g0, DType::kFloat64),
                                        Tensor::FromVector(s, g1, DType::kFloat64)});
      ExpectNear(exe->grad_dict().at("a").ToDoubles(), ga, 1e-12, "gradient of a, " + what);
      ExpectNear(exe->grad_dict().at("b").ToDoubles(), gb, 1e-12, "gradient of b, " + what);
      ExpectNear(exe->grad_dict().at("p").ToDoubles(), {0.0}, 0, "gradient of p, " + what);
    }
  }
}

TEST(ControlFlowTest, CondRoundTripsAndNamesMalformedBodies) {
  Symbol net = Symbol::FromJson(CondJson());
  EXPECT_EQ(Symbol::FromJson(net.ToJson()).ToJson(), net.ToJson());
  EXPECT_CONTAINS(ErrorOf([] { Symbol::FromJson(CondJson("7")); }),
                  "expects 4 inputs (data0, data1, data2, data3) but got 3");
  EXPECT_CONTAINS(ErrorOf([] { Symbol::FromJson(CondJson("6", "[2, 0, 0]")); }),
                  "the else body has 1 outputs but num_outputs = 2");
  std::string bad_loc = absl::StrReplaceAll(CondJson(), {{"\"[1, 2]\"", "\"[1, 5]\""}});
  EXPECT_CONTAINS(ErrorOf([&] { Symbol::FromJson(bad_loc); }),
                  "location 5 is out of range for 3 inputs");
  // Branches whose outputs disagree are refused at inference (MXNet 1.9.1
  // leaves cond's shapes to run time).
  std::string disagree =
      absl::StrReplaceAll(CondJson(), {{R"("name": "twice", "attrs": {"scalar": "2"},
                    "inputs": [[1, 0, 0]])",
                                        R"("name": "twice", "attrs": {"axis": "0"},
                    "inputs": [[1, 0, 0]])"},
                                       {"\"_mul_scalar\"", "\"sum\""}});
  Symbol mismatched = Symbol::FromJson(disagree);
  EXPECT_CONTAINS(ErrorOf([&] {
                    mismatched.InferShape(std::map<std::string, Shape>{
                        {"p", Shape{1}}, {"a", Shape{2, 3}}, {"b", Shape{2, 3}}});
                  }),
                  "the else body: in the body's shape inference");
}

// while i < 3: rows (s * w, i + 0.5); (i, s) <- (i + 1, s + i), as MXNet
// writes mx.sym.contrib.while_loop: func's inputs are (s-0, w, i-0), its
// loop variables func inputs 2 (i) and 0 (s).
constexpr char kWhileJson[] = R"({
  "nodes": [
    {"op": "null", "name": "i", "inputs": []},
    {"op": "null", "name": "s", "inputs": []},
    {"op": "null", "name": "w", "inputs": []},
    {
      "op": "_while_loop",
      "name": "loop",
      "attrs": {"cond_input_locs": "[0]", "func_input_locs": "[1, 2, 0]",
                "func_var_locs": "VAR_LOCS", "max_iterations": "MAX", "num_args": "5",
                "num_out_data": "2", "num_outputs": "4"},
      "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
      "subgraphs": [
        {"nodes": [{"op": "null", "name": "i-0", "inputs": []},
                   {"op": "_lesser_scalar", "name": "lt", "attrs": {"scalar": "3"},
                    "inputs": [[0, 0, 0]]}],
         "arg_nodes": [0], "node_row_ptr": [0, 1, 2], "heads": [[1, 0, 0]]},
        {"nodes": [{"op": "null", "name": "s-0", "inputs": []},
                   {"op": "null", "name": "w", "inputs": []},
                   {"op": "elemwise_mul", "name": "mul", "inputs": [[0, 0, 0], [1, 0, 0]]},
                   {"op": "null", "name": "i-0", "inputs": []},
                   {"op": "_plus_scalar", "name": "half", "attrs": {"scalar": "0.5"},
                    "inputs": [[3, 0, 0]]},
                   {"op": "_plus_scalar", "name": "inc", "attrs": {"scalar": "1"},
                    "inputs": [[3, 0, 0]]},
                   {"op": "broadcast_add", "name": "acc", "inputs": [[0, 0, 0], [3, 0, 0]]}],
         "arg_nodes": [0, 1, 3], "node_row_ptr": [0, 1, 2, 3, 4, 5, 6, 7],
         "heads": [[2, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0]]}
      ]
    }
  ],
  "arg_nodes": [0, 1, 2],
  "node_row_ptr": [0, 1, 2, 3, 7],
  "heads": [[3, 0, 0], [3, 1, 0], [3, 2, 0], [3, 3, 0]],
  "attrs": {"mxnet_version": ["int", 10901]}
})";

std::string WhileJson(int max_iterations, const std::string& var_locs = "[2, 0]") {
  return absl::StrReplaceAll(kWhileJson,
                             {{"MAX", std::to_string(max_iterations)}, {"VAR_LOCS", var_locs}});
}

// The plain loop: (rows of s * w, rows of i + 0.5, i, s), rows beyond the
// steps taken zero.
std::vector<Values> WhileReference(double i, Values s, const Values& w, int max_iterations) {
  Values r0(2 * max_iterations, 0.0), r1(max_iterations, 0.0);
  for (int t = 0; t < max_iterations && i < 3; ++t) {
    for (int k = 0; k < 2; ++k) r0[2 * t + k] = s[k] * w[k];
    r1[t] = i + 0.5;
    for (int k = 0; k < 2; ++k) s[k] += i;
    i += 1;
  }
  return {r0, r1, {i}, s};
}

TEST(ControlFlowTest, WhileLoopInfersPaddedRowsAndLoopVariables) {
  Symbol net = Symbol::FromJson(WhileJson(4));
  ShapeInference r = net.InferShape(
      std::map<std::string, Shape>{{"i", Shape{1}}, {"s", Shape{2}}, {"w", Shape{2}}});
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.out_shapes, (std::vector<Shape>{Shape{4, 2}, Shape{4, 1}, Shape{1}, Shape{2}}));
}

// Forward (stopping on cond, or at max_iterations as MXNet does) and the
// gradients of L = sum_k <y_k, g_k> against finite differences.
TEST(ControlFlowTest, WhileLoopForwardAndBackward) {
  const double i0 = 0.25;
  Values s0 = Uniform(2, 1), w = Uniform(2, 2);
  for (Context ctx : DevicesPresent()) {
    for (int max_iterations : {5, 2}) {
      Symbol net = Symbol::FromJson(WhileJson(max_iterations));
      auto exe = Executor::SimpleBind(
          net, {.ctx = ctx,
                .shapes = {{"i", Shape{1}}, {"s", Shape{2}}, {"w", Shape{2}}},
                .type_dict = std::map<std::string, DType>{
                    {"i", DType::kFloat64}, {"s", DType::kFloat64}, {"w", DType::kFloat64}}});
      const std::string what =
          "max_iterations " + std::to_string(max_iterations) + " on " + ctx.ToString();
      std::vector<Values> want = WhileReference(i0, s0, w, max_iterations);
      std::vector<Values> heads;
      for (size_t k = 0; k < want.size(); ++k) heads.push_back(Uniform(want[k].size(), 10 + k));
      exe->Forward(true, {{"i", Tensor::FromVector(Shape{1}, {i0}, DType::kFloat64)},
                          {"s", Tensor::FromVector(Shape{2}, s0, DType::kFloat64)},
                          {"w", Tensor::FromVector(Shape{2}, w, DType::kFloat64)}});
      for (size_t k = 0; k < want.size(); ++k) {
        ExpectNear(exe->outputs()[k].ToDoubles(), want[k], 1e-12,
                   "output " + std::to_string(k) + ", " + what);
      }
      std::vector<Tensor> head_tensors;
      for (size_t k = 0; k < heads.size(); ++k) {
        head_tensors.push_back(
            Tensor::FromVector(exe->outputs()[k].shape(), heads[k], DType::kFloat64));
      }
      exe->Backward(head_tensors);
      auto loss = [&](double i, const Values& s, const Values& ww) {
        std::vector<Values> y = WhileReference(i, s, ww, max_iterations);
        double l = 0;
        for (size_t k = 0; k < y.size(); ++k) {
          for (size_t e = 0; e < y[k].size(); ++e) l += y[k][e] * heads[k][e];
        }
        return l;
      };
      const double eps = 1e-6;
      Values gi = {(loss(i0 + eps, s0, w) - loss(i0 - eps, s0, w)) / (2 * eps)};
      Values gs(2), gw(2);
      for (int k = 0; k < 2; ++k) {
        Values sp = s0, sm = s0, wp = w, wm = w;
        sp[k] += eps;
        sm[k] -= eps;
        wp[k] += eps;
        wm[k] -= eps;
        gs[k] = (loss(i0, sp, w) - loss(i0, sm, w)) / (2 * eps);
        gw[k] = (loss(i0, s0, wp) - loss(i0, s0, wm)) / (2 * eps);
      }
      ExpectNear(exe->grad_dict().at("i").ToDoubles(), gi, 1e-6, "gradient of i, " + what);
      ExpectNear(exe->grad_dict().at("s").ToDoubles(), gs, 1e-6, "gradient of s, " + what);
      ExpectNear(exe->grad_dict().at("w").ToDoubles(), gw, 1e-6, "gradient of w, " + what);
    }
  }
}

TEST(ControlFlowTest, WhileLoopRoundTripsAndNamesMalformedBodies) {
  Symbol net = Symbol::FromJson(WhileJson(4));
  EXPECT_EQ(Symbol::FromJson(net.ToJson()).ToJson(), net.ToJson());
  EXPECT_CONTAINS(ErrorOf([] { Symbol::FromJson(WhileJson(0)); }), "max_iterations");
  EXPECT_CONTAINS(ErrorOf([] { Symbol::FromJson(WhileJson(4, "[2]")); }),
                  "names 1 loop variables but num_outputs - num_out_data = 2");
  EXPECT_CONTAINS(ErrorOf([] { Symbol::FromJson(WhileJson(4, "[2, 3]")); }),
                  "location 3 is out of range for func's 3 inputs");
  EXPECT_CONTAINS(ErrorOf([] { Symbol::FromJson(WhileJson(4, "[2, 2]")); }),
                  "names func input 2 twice");
}

TEST(ControlFlowTest, SubgraphsOnOtherOpsAndUnknownBodyOpsAreRefused) {
  // An op that takes no bodies refuses them.
  std::string relu = R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "relu", "name": "r", "inputs": [[0, 0, 0]],
       "subgraphs": [{"nodes": [{"op": "null", "name": "y", "inputs": []}],
                      "arg_nodes": [0], "heads": [[0, 0, 0]]}]}],
    "arg_nodes": [0], "heads": [[1, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}})";
  EXPECT_CONTAINS(ErrorOf([&] { Symbol::FromJson(relu); }),
                  "operator 'r' (relu): this operator takes no subgraphs but 1 are given");
  // A body's unknown operator is named with where it sits.
  std::string json =
      absl::StrReplaceAll(ForeachJson(), {{"\"op\": \"tanh\"", "\"op\": \"tanhh\""}});
  std::string msg = ErrorOf([&] { Symbol::FromJson(json); });
  EXPECT_CONTAINS(msg, "node 3 (\"loop\") subgraph 0: node 5 (\"out\")");
  EXPECT_CONTAINS(msg, "tanhh");
}

// Gradients of L = sum_k <y_k, heads_k> by central differences of the
// executor's own forward (float64), for bodies without a plain reference.
void ExpectGradientsMatchDifferences(const Symbol& net, const std::map<std::string, Shape>& shapes,
                                     const std::string& what) {
  std::map<std::string, DType> types;
  for (const auto& [name, shape] : shapes) types[name] = DType::kFloat64;
  auto exe = Executor::SimpleBind(net, {.shapes = shapes, .type_dict = types});
  std::map<std::string, Values> in;
  uint64_t seed = 1;
  for (const auto& [name, shape] : shapes) in[name] = Uniform(shape.Size(), seed++);
  auto feed = [&](const std::map<std::string, Values>& v) {
    std::map<std::string, Tensor> out;
    for (const auto& [name, values] : v) {
      out[name] = Tensor::FromVector(shapes.at(name), values, DType::kFloat64);
    }
    return out;
  };
  exe->Forward(true, feed(in));
  std::vector<Values> heads;
  std::vector<Tensor> head_tensors;
  for (const Tensor& out : exe->outputs()) {
    heads.push_back(Uniform(out.size(), seed++));
    head_tensors.push_back(Tensor::FromVector(out.shape(), heads.back(), DType::kFloat64));
  }
  exe->Backward(head_tensors);
  std::map<std::string, Values> grads;
  for (const auto& [name, g] : exe->grad_dict()) grads[name] = g.ToDoubles();
  auto loss = [&](const std::map<std::string, Values>& v) {
    exe->Forward(false, feed(v));
    double l = 0;
    for (size_t k = 0; k < heads.size(); ++k) {
      Values y = exe->outputs()[k].ToDoubles();
      for (size_t e = 0; e < y.size(); ++e) l += y[e] * heads[k][e];
    }
    return l;
  };
  for (const auto& [name, values] : in) {
    Values fd(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      auto plus = in, minus = in;
      plus[name][i] += 1e-6;
      minus[name][i] -= 1e-6;
      fd[i] = (loss(plus) - loss(minus)) / 2e-6;
    }
    ExpectNear(grads.at(name), fd, 1e-6, "gradient of " + name + ", " + what);
  }
}

// The state leaves the body unchanged: the body's output is its input
// variable, which the inner executor returns as its bound array.
TEST(ControlFlowTest, ForeachStatePassingThroughTheBody) {
  Edits pass;
  pass.heads = "[5, 0, 0], [3, 0, 0]";
  Symbol net = Symbol::FromJson(ForeachJson(pass));
  auto exe = BindLoop(net, Context::CPU(), DType::kFloat64, 3, 2);
  Values x = Uniform(6, 1), h0 = Uniform(2, 2), w = Uniform(2, 3);
  exe->Forward(false, {{"x", Tensor::FromVector(Shape{3, 2}, x, DType::kFloat64)},
                       {"h0", Tensor::FromVector(Shape{2}, h0, DType::kFloat64)},
                       {"w", Tensor::FromVector(Shape{2}, w, DType::kFloat64)}});
  Values rows(6);
  for (int t = 0; t < 3; ++t) {
    for (int n = 0; n < 2; ++n) rows[t * 2 + n] = std::tanh(x[t * 2 + n] * w[n] + h0[n]);
  }
  ExpectNear(exe->outputs()[0].ToDoubles(), rows, 1e-12, "rows");
  ExpectNear(exe->outputs()[1].ToDoubles(), h0, 0, "last state");
  ExpectGradientsMatchDifferences(net, {{"x", Shape{3, 2}}, {"h0", Shape{2}}, {"w", Shape{2}}},
                                  "a state passing through");
}

// A condition false from the start: no step runs, the rows are zero, the
// loop variables come out as they went in and so do their gradients (MXNet
// 1.9.1 cannot give such outputs a shape: reading them fails).
TEST(ControlFlowTest, WhileLoopWithoutSteps) {
  Symbol net = Symbol::FromJson(WhileJson(3));
  auto exe = Executor::SimpleBind(
      net, {.shapes = {{"i", Shape{1}}, {"s", Shape{2}}, {"w", Shape{2}}},
            .type_dict = std::map<std::string, DType>{
                {"i", DType::kFloat64}, {"s", DType::kFloat64}, {"w", DType::kFloat64}}});
  exe->Forward(true, {{"i", Tensor::FromVector(Shape{1}, {7.0}, DType::kFloat64)},
                      {"s", Tensor::FromVector(Shape{2}, {1.5, -2}, DType::kFloat64)},
                      {"w", Tensor::FromVector(Shape{2}, {3, 4}, DType::kFloat64)}});
  ExpectNear(exe->outputs()[0].ToDoubles(), Values(6, 0.0), 0, "rows of s * w");
  ExpectNear(exe->outputs()[1].ToDoubles(), Values(3, 0.0), 0, "rows of i + 0.5");
  ExpectNear(exe->outputs()[2].ToDoubles(), {7.0}, 0, "i");
  ExpectNear(exe->outputs()[3].ToDoubles(), {1.5, -2}, 0, "s");
  std::vector<Tensor> heads;
  for (const Tensor& out : exe->outputs()) {
    heads.push_back(Tensor::FromVector(out.shape(), Values(out.size(), 0.5), DType::kFloat64));
  }
  exe->Backward(heads);
  ExpectNear(exe->grad_dict().at("i").ToDoubles(), {0.5}, 0, "gradient of i");
  ExpectNear(exe->grad_dict().at("s").ToDoubles(), {0.5, 0.5}, 0, "gradient of s");
  ExpectNear(exe->grad_dict().at("w").ToDoubles(), {0, 0}, 0, "gradient of w");
}

}  // namespace
}  // namespace symx
