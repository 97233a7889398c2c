// Cross-rank graphs: each function is one rank's body of a test, run by the
// in-process communicator (ranks as threads) and under mpirun (ranks as
// processes). Every split run is compared bitwise with the same graph bound
// in this one process without a communicator (the reference each rank
// computes for itself).
#ifndef SYMX_TESTS_DISTRIBUTED_CROSS_RANK_CASES_H_
#define SYMX_TESTS_DISTRIBUTED_CROSS_RANK_CASES_H_

#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "distributed/communicator.h"
#include "executor/executor.h"
#include "gmock/gmock.h"
#include "graph/indexed_graph.h"
#include "graph/op.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"

namespace symx::cross_rank {

using ::testing::AllOf;
using ::testing::HasSubstr;

inline Context OnRank(Context c, int rank) {
  c.rank = rank;
  return c;
}

using ::symx::testing::ErrorOf;

inline void ExpectBitwiseEqual(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_TRUE(a.defined() && b.defined()) << what;
  ASSERT_EQ(a.shape(), b.shape()) << what;
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  EXPECT_EQ(std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()), 0) << what << " differs";
}

// Every array of `split` defined on this rank equals the reference's, and
// the ranks together hold every array once (counted by the caller).
inline int ExpectLocalArraysEqual(const std::map<std::string, Tensor>& split,
                                  const std::map<std::string, Tensor>& single,
                                  const std::string& what) {
  int defined = 0;
  for (const auto& [name, t] : split) {
    if (!t.defined()) continue;
    ++defined;
    EXPECT_EQ(t.ctx().rank, -1) << what << " " << name << " is a local array";
    ExpectBitwiseEqual(t, single.at(name), what + " " + name);
  }
  return defined;
}

inline int CountOps(const Symbol& s, const std::string& op) {
  int n = 0;
  PostOrderVisit(s.outputs(), [&](const NodePtr& node) {
    n += !node->is_variable() && node->op()->name() == op;
  });
  return n;
}

// Sum of `n` over all ranks.
inline int64_t SumOverRanks(Communicator& comm, int64_t n) {
  Tensor t = Tensor::FromVector(Shape{1}, {double(n)}, DType::kInt64);
  EXPECT_TRUE(WaitFor(comm.Allreduce(t, ReduceOp::kSum), absl::Seconds(60)).ok());
  return static_cast<int64_t>(t.ToDoubles()[0]);
}

// (d1 + d2) * 3 in group dev1, + d3 in group dev2 (MXNet's test_chain).
// Names are made per thread (NameScope), so every rank, thread or process,
// builds the same names.
inline Symbol Chain() {
  NameScope names;
  Symbol d1 = Symbol::Variable("data1"), d2 = Symbol::Variable("data2");
  Symbol d3 = Symbol::Variable("data3");
  Symbol net;
  {
    AttrScope scope(AttrMap{{"ctx_group", "dev1"}});
    net = (d1 + d2) * 3.0;
  }
  AttrScope scope(AttrMap{{"ctx_group", "dev2"}});
  return net + d3;
}

// Bind with arrays: each array given only by the rank that holds it.
inline void ChainWithArrays(const std::shared_ptr<Communicator>& comm) {
  const int r = comm->rank(), last = comm->size() - 1;
  const Context dev1 = OnRank(Context::CPU(1), 0), dev2 = OnRank(Context::CPU(2), last);
  Symbol net = Chain();
  const Shape shape{4, 5};
  auto value = [&](int i) { return Tensor::FromVector(shape, std::vector<double>(20, i + 1.0)); };
  std::map<std::string, Tensor> args, grads;
  const char* names[] = {"data1", "data2", "data3"};
  for (int i = 0; i < 3; ++i) {
    const Context home = i < 2 ? dev1 : dev2;
    if (home.rank != r) continue;
    args[names[i]] = *CopyToNew(value(i), Context::CPU(home.id), DType::kFloat32);
    grads[names[i]] = *Tensor::Zeros(shape, DType::kFloat32, Context::CPU(home.id));
  }
  BindOptions o{.ctx = dev1, .group2ctx = {{"dev1", dev1}, {"dev2", dev2}}};
  o.comm = comm;
  auto split = Executor::Bind(net, o, args, grads);
  auto single = Executor::Bind(net, {}, {value(0), value(1), value(2)},
                               std::vector<Tensor>{*Tensor::Zeros(shape, DType::kFloat32),
                                                   *Tensor::Zeros(shape, DType::kFloat32),
                                                   *Tensor::Zeros(shape, DType::kFloat32)});
  Tensor head = Tensor::FromVector(shape, std::vector<double>(20, 1.0));
  for (int step = 0; step < 2; ++step) {
    for (Executor* exe : {split.get(), single.get()}) {
      exe->Forward(true);
      exe->Backward({head});
    }
    // The output lives on dev2's rank; data1/data2's gradients on dev1's.
    EXPECT_EQ(split->outputs()[0].defined(), r == last);
    int n = ExpectLocalArraysEqual(split->output_dict(), single->output_dict(), "output");
    n += ExpectLocalArraysEqual(split->grad_dict(), single->grad_dict(), "gradient");
    EXPECT_EQ(SumOverRanks(*comm, n), 4);
  }
  // One transfer forward (the product to dev2's rank): _send feeding _recv.
  Symbol opt = split->OptimizedSymbol();
  EXPECT_EQ(CountOps(opt, "_send"), 1);
  EXPECT_EQ(CountOps(opt, "_recv"), 1);
  EXPECT_EQ(CountOps(opt, "_CrossDeviceCopy"), 0);
  EXPECT_THAT(opt.ToJson(), HasSubstr("\"peer\": \"" + std::to_string(last) + "\""));
  // An optimized cross-rank symbol cannot be bound again.
  EXPECT_THAT(ErrorOf([&] {
                Executor::SimpleBind(opt, {.shapes = {{"data1", shape}}});
              }),
              HasSubstr("it is the optimized symbol of a cross-rank executor"));
  // Memory only for this rank's devices.
  for (const MemoryStats& m : split->memory_stats()) EXPECT_EQ(m.ctx.rank, -1);
}

// A bfloat16 model split across ranks: the transfers move the bfloat16
// bytes as they are (CPU kernels compute bfloat16 on float32 copies, the
// transfers are never widened), so the split run is bitwise one process's.
// relu's gradient reads relu's output, which its _send also sends.
inline void Bfloat16Split(const std::shared_ptr<Communicator>& comm) {
  NameScope names;
  VariableOptions bf16;
  bf16.dtype = DType::kBFloat16;
  Symbol h;
  {
    AttrScope scope(AttrMap{{"ctx_group", "a"}});
    h = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", 6).Input(
        Symbol::Variable("data", bf16));
    h = OpCall("Activation").Name("relu").Attr("act_type", "relu").Input(h).Build();
  }
  {
    AttrScope scope(AttrMap{{"ctx_group", "b"}});
    h = OpCall("FullyConnected").Name("fc2").Attr("num_hidden", 3).Input(h).Build();
  }
  SimpleBindOptions o{.shapes = {{"data", Shape{4, 5}}}};
  o.type_dict = std::map<std::string, DType>{{"data", DType::kBFloat16}};
  auto single = Executor::SimpleBind(h, o);
  o.group2ctx = {{"a", OnRank(Context::CPU(1), 0)}, {"b", OnRank(Context::CPU(2), 1)}};
  o.comm = comm;
  auto split = Executor::SimpleBind(h, o);
  testing::RandomParams p = testing::MakeRandomParams(*single, 5);
  for (auto* table : {&p.args, &p.aux}) {
    for (auto& [name, t] : *table) t = *CopyToNew(t, Context::CPU(), DType::kBFloat16);
  }
  single->CopyParamsFrom(p.args, p.aux);
  split->CopyParamsFrom(p.args, p.aux);
  Tensor head = *CopyToNew(Tensor::FromVector(Shape{4, 3}, std::vector<double>(12, 0.5)),
                           Context::CPU(), DType::kBFloat16);
  for (Executor* exe : {split.get(), single.get()}) {
    exe->Forward(true);
    exe->Backward({head});
  }
  int n = ExpectLocalArraysEqual(split->output_dict(), single->output_dict(), "output");
  n += ExpectLocalArraysEqual(split->grad_dict(), single->grad_dict(), "gradient");
  EXPECT_EQ(SumOverRanks(*comm, n), 1 + static_cast<int64_t>(single->grad_dict().size()));
}

// The legacy MXNet 0.8 file (fc1 + relu in stage1; fc2 + BatchNorm + softmax
// in stage2) split over the first and the last rank, three training steps
// with SGD on each rank's own parameters, then inference and a Reshape.
inline void LegacyMlpTraining(const std::shared_ptr<Communicator>& comm) {
  const int last = comm->size() - 1;
  Symbol net = Symbol::Load("tools/examples/legacy_mlp-symbol.json");
  SimpleBindOptions o{.ctx = Context::CPU(0), .shapes = {{"data", Shape{6, 10}}}};
  auto single = Executor::SimpleBind(net, o);
  o.group2ctx = {{"stage1", OnRank(Context::CPU(1), 0)}, {"stage2", OnRank(Context::CPU(2), last)}};
  o.comm = comm;
  auto split = Executor::SimpleBind(net, o);
  // Each rank allocated its own part only.
  EXPECT_EQ(split->arg_dict().at("fc1_weight").defined(), comm->rank() == 0);
  EXPECT_EQ(split->arg_dict().at("fc2_weight").defined(), comm->rank() == last);
  EXPECT_EQ(split->aux_dict().at("bn_moving_mean").defined(), comm->rank() == last);
  // The same random values everywhere; CopyParamsFrom skips other ranks' arrays.
  testing::RandomParams p = testing::MakeRandomParams(*single, 7, /*label_classes=*/3);
  split->CopyParamsFrom(p.args, p.aux);
  single->CopyParamsFrom(p.args, p.aux);
  auto sgd = [](Executor& exe) {
    std::map<std::string, Tensor> grads = exe.grad_dict(), params = exe.arg_dict();
    for (const auto& [name, g] : grads) {
      if (name == "data" || name.find("label") != std::string::npos) continue;
      Tensor w = params.at(name);
      std::vector<double> wv = w.ToDoubles(), gv = g.ToDoubles();
      for (size_t i = 0; i < wv.size(); ++i) wv[i] -= 0.05 * gv[i];
      ASSERT_TRUE(CopyTensor(Tensor::FromVector(w.shape(), wv, w.dtype()), w).ok());
    }
  };
  for (int step = 0; step < 3; ++step) {
    for (Executor* exe : {split.get(), single.get()}) {
      exe->Forward(true);
      exe->Backward();
      sgd(*exe);
    }
    int n = ExpectLocalArraysEqual(split->output_dict(), single->output_dict(), "output");
    n += ExpectLocalArraysEqual(split->grad_dict(), single->grad_dict(), "gradient");
    n += ExpectLocalArraysEqual(split->aux_dict(), single->aux_dict(), "aux state");
    n += ExpectLocalArraysEqual(split->arg_dict(), single->arg_dict(), "argument");
    EXPECT_EQ(SumOverRanks(*comm, n),
              static_cast<int64_t>(1 + single->grad_dict().size() + single->aux_dict().size() +
                                   single->arg_dict().size()))
        << "step " << step;
  }
  split->Forward(false);
  single->Forward(false);
  ExpectLocalArraysEqual(split->output_dict(), single->output_dict(), "inference output");
  // Reshape is collective too; parameters stay shared.
  auto small = split->Reshape({{"data", Shape{3, 10}}}, /*partial_shaping=*/true);
  auto small_single = single->Reshape({{"data", Shape{3, 10}}}, true);
  small->Forward(false);
  small_single->Forward(false);
  ExpectLocalArraysEqual(small->output_dict(), small_single->output_dict(), "reshaped output");
}

// Two branches on two ranks joined on rank 0's bind context; rank 0 runs two
// devices. grad_req write and add.
inline void TwoBranchesTwoDevicesPerRank(const std::shared_ptr<Communicator>& comm) {
  NameScope names;
  Symbol data = Symbol::Variable("data");
  auto branch = [&](const std::string& p) {
    AttrScope scope(AttrMap{{"ctx_group", p}});
    Symbol h = OpCall("FullyConnected").Name(p + "_fc1").Attr("num_hidden", 16).Input(data);
    h = OpCall("BatchNorm").Name(p + "_bn").Input(h);
    h = OpCall("Activation").Name(p + "_act").Attr("act_type", "tanh").Input(h);
    return OpCall("FullyConnected").Name(p + "_fc2").Attr("num_hidden", 8).Input(h).Build();
  };
  Symbol a = branch("a"), b = branch("b");
  Symbol net = a * b + a;
  for (GradReq req : {GradReq::kWrite, GradReq::kAdd}) {
    SimpleBindOptions o{
        .ctx = Context::CPU(3), .shapes = {{"data", Shape{5, 12}}}, .grad_req = req};
    auto single = Executor::SimpleBind(net, o);
    o.group2ctx = {{"a", OnRank(Context::CPU(1), 0)}, {"b", OnRank(Context::CPU(2), 1)}};
    o.comm = comm;
    auto split = Executor::SimpleBind(net, o);
    testing::RandomParams p = testing::MakeRandomParams(*single, 11);
    split->CopyParamsFrom(p.args, p.aux);
    single->CopyParamsFrom(p.args, p.aux);
    std::vector<double> hv(40);
    for (size_t i = 0; i < hv.size(); ++i) hv[i] = 0.1 * (i % 7) - 0.3;
    Tensor head = Tensor::FromVector(Shape{5, 8}, hv);
    for (int step = 0; step < 2; ++step) {
      for (Executor* exe : {split.get(), single.get()}) {
        exe->Forward(true);
        exe->Backward({head});
      }
      int n = ExpectLocalArraysEqual(split->output_dict(), single->output_dict(), "output");
      n += ExpectLocalArraysEqual(split->grad_dict(), single->grad_dict(), "gradient");
      n += ExpectLocalArraysEqual(split->aux_dict(), single->aux_dict(), "aux state");
      EXPECT_EQ(SumOverRanks(*comm, n),
                static_cast<int64_t>(1 + single->grad_dict().size() + single->aux_dict().size()));
    }
  }
}

// Rank 1 binds another batch size, then another grad_req: every rank fails,
// naming both ranks and the first line where what they bound differs.
inline void MismatchedGraphs(const std::shared_ptr<Communicator>& comm) {
  Symbol net = Symbol::Load("tools/examples/legacy_mlp-symbol.json");
  const int64_t batch = comm->rank() == 1 ? 7 : 6;
  SimpleBindOptions o{.shapes = {{"data", Shape{batch, 10}}}};
  o.group2ctx = {{"stage1", OnRank(Context::CPU(1), 0)}, {"stage2", OnRank(Context::CPU(2), 1)}};
  o.comm = comm;
  EXPECT_THAT(ErrorOf([&] { Executor::SimpleBind(net, o); }),
              AllOf(HasSubstr("bind: ranks 0 and 1 differ at line"),
                    HasSubstr("rank 0 has 'shape data=[6,10]'"),
                    HasSubstr("rank 1 has 'shape data=[7,10]'")));
  // The same request, but the plans differ (rank 1 computes no gradient for
  // fc1_weight, so its backward graph is another).
  o.shapes = {{"data", Shape{6, 10}}};
  if (comm->rank() == 1) {
    o.grad_req = std::map<std::string, GradReq>{{"fc1_weight", GradReq::kNull}};
  }
  EXPECT_THAT(ErrorOf([&] { Executor::SimpleBind(net, o); }),
              AllOf(HasSubstr("bind: ranks 0 and 1 differ at line"), HasSubstr("rank 0 has '"),
                    HasSubstr("rank 1 has '")));
}

// A rank that fails alone (here: a wrong number of arrays) makes every rank
// fail at once, with its error.
inline void OneRankFails(const std::shared_ptr<Communicator>& comm) {
  Symbol net = Chain();
  BindOptions o{
      .group2ctx = {{"dev1", OnRank(Context::CPU(1), 0)}, {"dev2", OnRank(Context::CPU(2), 1)}}};
  o.comm = comm;
  std::vector<Tensor> args(3);
  if (comm->rank() == 1) args.resize(2);  // a list must name every argument
  const auto start = std::chrono::steady_clock::now();
  std::string error = ErrorOf([&] { Executor::Bind(net, o, args, std::nullopt); });
  if (comm->rank() == 1) {
    EXPECT_THAT(error, HasSubstr("Length of args does not match"));
  } else {
    EXPECT_THAT(error, AllOf(HasSubstr("bind: rank 1 failed: "),
                             HasSubstr("Length of args does not match")));
  }
  // Not a deadline: the others learned of it at once.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

// Errors every rank finds alike.
inline void PlacementErrors(const std::shared_ptr<Communicator>& comm) {
  Symbol net = Chain();
  const int n = comm->size();
  SimpleBindOptions o{.shapes = {{"data1", Shape{2, 2}}}};
  o.comm = comm;
  o.group2ctx = {{"dev1", Context::CPU(1)}, {"dev2", OnRank(Context::CPU(2), n + 3)}};
  EXPECT_THAT(ErrorOf([&] { Executor::SimpleBind(net, o); }),
              HasSubstr(absl::StrCat("device cpu(2)@rank", n + 3, " belongs to rank ", n + 3,
                                     ", but this job has ", n, " ranks (0 to ", n - 1, ")")));
  // An array bound on two ranks.
  BindOptions bo{.group2ctx = {{"dev1", Context::CPU(1)}, {"dev2", OnRank(Context::CPU(2), 1)}}};
  bo.comm = comm;
  std::map<std::string, Tensor> args;
  args["data3"] = *Tensor::Zeros(Shape{2, 2}, DType::kFloat32);
  if (comm->rank() == 0) {
    args["data1"] = *Tensor::Zeros(Shape{2, 2}, DType::kFloat32, Context::CPU(1));
    args["data2"] = *Tensor::Zeros(Shape{2, 2}, DType::kFloat32, Context::CPU(1));
  }
  EXPECT_THAT(ErrorOf([&] { Executor::Bind(net, bo, args, std::nullopt); }),
              AllOf(HasSubstr("argument data3 is bound on rank 0 (cpu(0)@rank0) and on rank 1"),
                    HasSubstr("bind each array on the one rank whose device holds it")));
}

// Rank 1 (the first stage) stops taking part after the bind: rank 0's
// forward, waiting for the value rank 1 would send, fails after comm_timeout
// naming rank 1 and the transfer. Rank 1 then catches up, so no message is
// left in flight.
inline void HungPeerIsNamed(const std::shared_ptr<Communicator>& comm, Communicator& sync) {
  Symbol net = Chain();
  SimpleBindOptions o{.shapes = {{"data1", Shape{2, 2}}}};
  o.group2ctx = {{"dev1", OnRank(Context::CPU(1), 1)}, {"dev2", OnRank(Context::CPU(2), 0)}};
  o.grad_req = GradReq::kNull;
  o.comm = comm;
  o.comm_timeout = absl::Milliseconds(400);
  auto exe = Executor::SimpleBind(net, o);
  if (comm->rank() == 0) {
    const auto start = std::chrono::steady_clock::now();
    std::string error = ErrorOf([&] { exe->Forward(false); });
    EXPECT_THAT(error, AllOf(HasSubstr("_recv"), HasSubstr("rank 0: recv from rank 1 (tag "),
                             HasSubstr("did not complete within"),
                             HasSubstr("waiting for rank 1, which has not sent it")));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  }
  ASSERT_TRUE(WaitFor(sync.Barrier(), absl::Seconds(60)).ok());
  if (comm->rank() == 1) exe->Forward(false);
  ASSERT_TRUE(WaitFor(sync.Barrier(), absl::Seconds(60)).ok());
}

// A step that fails on rank 0's first device (FullyConnected has no int32
// kernel) must stop rank 0's second device, which waits for a value that
// would have come back through rank 1: rank 0 reports the failure at once,
// not after comm_timeout. Rank 1, waiting for rank 0's send, times out
// naming rank 0 (the command line would have ended the job sooner).
inline void FailingStepStopsAWaitingRecv(const std::shared_ptr<Communicator>& comm,
                                         Communicator& sync) {
  NameScope names;
  VariableOptions i32;
  i32.dtype = DType::kInt32;
  Symbol x = Symbol::Variable("x", i32);
  Symbol net;
  {
    AttrScope scope(AttrMap{{"ctx_group", "a"}});
    net = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 3).Input(x);
  }
  {
    AttrScope scope(AttrMap{{"ctx_group", "b"}});
    net = OpCall("Cast").Name("cast").Attr("dtype", "float16").Input(net).Build();
    net = OpCall("exp").Name("exp").Input(net).Build();
  }
  {
    AttrScope scope(AttrMap{{"ctx_group", "c"}});
    net = net + 1.0;
  }
  SimpleBindOptions o{.shapes = {{"x", Shape{2, 4}}}, .grad_req = GradReq::kNull};
  o.type_dict = std::map<std::string, DType>{{"x", DType::kInt32}};
  o.group2ctx = {{"a", OnRank(Context::CPU(1), 0)},
                 {"b", OnRank(Context::CPU(2), 1)},
                 {"c", OnRank(Context::CPU(3), 0)}};
  o.comm = comm;
  o.comm_timeout = absl::Seconds(3);
  auto exe = Executor::SimpleBind(net, o);
  const auto start = std::chrono::steady_clock::now();
  std::string error = ErrorOf([&] { exe->Forward(false); });
  const auto took = std::chrono::steady_clock::now() - start;
  if (comm->rank() == 0) {
    EXPECT_THAT(error, AllOf(HasSubstr("fc"), HasSubstr("int32")));
    EXPECT_LT(took, std::chrono::seconds(2)) << "rank 0 waited out its _recv";
  } else if (comm->rank() == 1) {
    EXPECT_THAT(error, HasSubstr("waiting for rank 0, which has not sent it"));
  }
  ASSERT_TRUE(WaitFor(sync.Barrier(), absl::Seconds(60)).ok());
}

}  // namespace symx::cross_rank

#endif  // SYMX_TESTS_DISTRIBUTED_CROSS_RANK_CASES_H_
