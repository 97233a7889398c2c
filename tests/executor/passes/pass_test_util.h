// A bind state to run single bind passes on (executor/passes/passes.h): the
// symbol, one array per argument and aux state, and what the passes before
// the one under test made of them.
#ifndef SYMX_TESTS_EXECUTOR_PASSES_PASS_TEST_UTIL_H_
#define SYMX_TESTS_EXECUTOR_PASSES_PASS_TEST_UTIL_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "devices/tensor.h"
#include "distributed/agreement.h"
#include "distributed/inprocess_communicator.h"
#include "executor/passes/passes.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "graph/op.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace testing {

struct PassBind {
  // Arrays of `dtype` on cpu(0); `req` for every argument (a gradient array
  // of the argument's shape when not null, or allocate_grad when
  // `allocate_grads`).
  PassBind(const Symbol& symbol, const std::map<std::string, Shape>& shapes,
           GradReq req = GradReq::kWrite, bool allocate_grads = false,
           DType dtype = DType::kFloat32)
      : symbol(symbol) {
    bind.ctx = Context::CPU(0);
    ShapeInference inferred = symbol.InferShape(shapes);
    std::vector<std::string> args = symbol.ListArguments();
    for (size_t i = 0; i < args.size(); ++i) {
      bind.args.push_back(
          ValueOrThrow(Tensor::Zeros(inferred.arg_shapes[i], dtype, Context::CPU(0))));
      bind.reqs.push_back(req);
      const bool grad = req != GradReq::kNull && !allocate_grads;
      bind.grads.push_back(
          grad ? ValueOrThrow(Tensor::Zeros(inferred.arg_shapes[i], dtype, Context::CPU(0)))
               : Tensor());
      bind.allocate_grad.push_back(req != GradReq::kNull && allocate_grads);
    }
    for (const Shape& s : inferred.aux_shapes) {
      bind.aux.push_back(ValueOrThrow(Tensor::Zeros(s, dtype, Context::CPU(0))));
    }
  }
  PassBind(const PassBind&) = delete;

  // The state, made on first use (after the test has adjusted `bind`).
  BindState& state() {
    if (state_ == nullptr) {
      state_ = std::make_unique<BindState>(symbol, &bind, &plan, &outputs, &pools);
    }
    return *state_;
  }
  // Runs the passes before `pass` (ASSERT_TRUE(b.RunBefore(...).ok())).
  absl::Status RunBefore(const std::string& pass) { return RunPassesBefore(pass, &state()); }
  // Runs the pass named `pass` alone.
  absl::Status Run(const std::string& pass) {
    for (const BindPass& p : BindPasses()) {
      if (p.name == pass) return p.run(&state());
    }
    return absl::NotFoundError("no pass " + pass);
  }
  // The passes before `pass`, then `pass`.
  absl::Status RunThrough(const std::string& pass) {
    SYMX_RETURN_IF_ERROR(RunPassesBefore(pass, &state()));
    return Run(pass);
  }

  // The id in plan.graph of the node named `name`.
  uint32_t NodeId(const std::string& name) const {
    const IndexedGraph& g = *plan.graph;
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
      if (g[nid].node->name() == name) return nid;
    }
    ADD_FAILURE() << "no node " << name;
    return 0;
  }
  // The op names of plan.graph's nodes (variables as "var").
  std::vector<std::string> Ops() const {
    std::vector<std::string> ops;
    const IndexedGraph& g = *plan.graph;
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
      const Node& n = *g[nid].node;
      ops.push_back(n.is_variable() ? "var" : n.op()->name());
    }
    return ops;
  }

  Symbol symbol;
  ResolvedBind bind;
  ExecPlan plan;
  std::vector<Tensor> outputs;
  PoolMap pools;

 private:
  std::unique_ptr<BindState> state_;
};

// Runs `body(rank, comm)` for ranks 0..n-1 of an in-process group, each on
// its own thread, and waits for all.
inline void RunOnRanks(int n, const std::function<void(int, std::shared_ptr<Communicator>)>& body) {
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) threads.emplace_back([&, r] { body(r, group[r]); });
  for (std::thread& t : threads) t.join();
}

// Makes `b` rank `r` of a cross-rank bind over `comm`, with `rendezvous`
// (which must outlive the passes) for its collective steps. The arrays are
// rank 0's: other ranks bind none.
inline void MakeCrossRank(PassBind* b, int r, const std::shared_ptr<Communicator>& comm,
                          Rendezvous* rendezvous) {
  if (r != 0) {
    for (Tensor& t : b->bind.args) t = Tensor();
  }
  b->bind.ranks.self = r;
  b->bind.ranks.size = comm->size();
  b->bind.comm = comm;
  b->bind.rendezvous = rendezvous;
}

// data -> FullyConnected(fc, 3 hidden) -> relu -> SoftmaxOutput(out).
inline Symbol SmallMlp() {
  Symbol fc =
      OpCall("FullyConnected").Name("fc").Attr("num_hidden", "3").Input(Symbol::Variable("data"));
  Symbol act = OpCall("Activation").Name("relu").Attr("act_type", "relu").Input(fc);
  return OpCall("SoftmaxOutput").Name("out").Input(act).Input(Symbol::Variable("label"));
}

// a * b + a, with the product on ctx_group "dev1" and the sum on "dev2".
inline Symbol TwoGroups() {
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b");
  Symbol prod, sum;
  {
    AttrScope scope(AttrMap{{"ctx_group", "dev1"}});
    prod = OpCall("elemwise_mul").Name("prod").Input(a).Input(b);
  }
  {
    AttrScope scope(AttrMap{{"ctx_group", "dev2"}});
    sum = OpCall("elemwise_add").Name("sum").Input(prod).Input(a);
  }
  return sum;
}

// TwoGroups' group2ctx across ranks: dev1 on rank 0's cpu(0), dev2 on rank 1's.
inline std::map<std::string, Context> TwoGroupsOverTwoRanks() {
  Context rank1 = Context::CPU(0);
  rank1.rank = 1;
  return {{"dev1", Context::CPU(0)}, {"dev2", rank1}};
}

}  // namespace testing
}  // namespace symx

#endif  // SYMX_TESTS_EXECUTOR_PASSES_PASS_TEST_UTIL_H_
