// Data-parallel gradient reduction: replicas on several CPU devices of one
// process, and ranks as threads (in-process communicator). The reduced
// gradients must equal those of one executor on the whole batch (up to float
// summation order), be identical on every replica, and be bitwise the same
// run after run. Runs under TSan.
#include "data_parallel/gradient_reducer.h"

#include <cstring>
#include <random>
#include <thread>

#include "distributed/inprocess_communicator.h"
#include "executor/device_workers.h"
#include "gmock/gmock.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kBatch = 12;

Symbol Mlp(int hidden = 16) {
  NameScope names;
  Symbol h = Symbol::Variable("data");
  h = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", hidden).Input(h);
  h = OpCall("Activation").Name("relu1").Attr("act_type", "relu").Input(h);
  h = OpCall("FullyConnected").Name("fc2").Attr("num_hidden", 8).Input(h);
  return OpCall("SoftmaxOutput").Name("softmax").Input(h);
}

const std::vector<std::string> kParams = {"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"};

std::map<std::string, GradReq> ParamReqs() {
  std::map<std::string, GradReq> reqs;
  for (const std::string& p : kParams) reqs[p] = GradReq::kWrite;
  return reqs;
}

// The same values for every executor: parameters from a fixed seed, the
// batch's rows [begin, end).
void Fill(Executor& exe, int64_t begin, int64_t end) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  std::map<std::string, Tensor> values;
  std::vector<double> data(kBatch * 10), label(kBatch);
  for (double& x : data) x = u(rng);
  for (double& x : label) x = rng() % 8;
  values["data"] =
      Tensor::FromVector(Shape{end - begin, 10},
                         std::vector<double>(data.begin() + begin * 10, data.begin() + end * 10));
  values["softmax_label"] = Tensor::FromVector(
      Shape{end - begin}, std::vector<double>(label.begin() + begin, label.begin() + end));
  for (const std::string& p : kParams) {
    const Tensor t = exe.arg_dict().at(p);
    std::vector<double> v(t.size());
    for (double& x : v) x = u(rng);
    values[p] = Tensor::FromVector(t.shape(), v);
  }
  exe.CopyParamsFrom(values);
}

std::unique_ptr<Executor> BindRows(const Symbol& net, Context ctx, int64_t begin, int64_t end) {
  auto exe = Executor::SimpleBind(
      net, {.ctx = ctx, .shapes = {{"data", Shape{end - begin, 10}}}, .grad_req = ParamReqs()});
  Fill(*exe, begin, end);
  return exe;
}

// One executor on the whole batch: the gradients data parallelism must give.
std::map<std::string, std::vector<double>> Reference(const Symbol& net) {
  auto exe = BindRows(net, Context::CPU(0), 0, kBatch);
  exe->Forward(true);
  exe->Backward();
  std::map<std::string, std::vector<double>> out;
  for (const std::string& p : kParams) out[p] = exe->grad_dict().at(p).ToDoubles();
  return out;
}

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::abs(want[i]))) << what << " element " << i;
  }
}

// Runs every replica's Forward/Backward concurrently between Start and Finish.
absl::Status Step(GradientReducer& reducer, const std::vector<Executor*>& replicas) {
  reducer.Start();
  DeviceWorkers workers(replicas.size());
  workers.RunAll([&](size_t k) {
    replicas[k]->Forward(true);
    replicas[k]->Backward();
  });
  return reducer.Finish();
}

TEST(GradientReducer, BackwardFinishesTheLastLayerFirst) {
  auto exe = BindRows(Mlp(), Context::CPU(0), 0, 4);
  std::vector<size_t> order = exe->GradientReadyOrder();
  std::vector<std::string> args = exe->symbol().ListArguments();
  std::vector<std::string> names;
  for (size_t a : order) names.push_back(args[a]);
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[3].substr(0, 3), "fc1");  // the first layer's gradients come last
  EXPECT_EQ(names[0].substr(0, 3), "fc2");
}

TEST(GradientReducer, TwoDevicesOfOneProcessSumToTheWholeBatch) {
  Symbol net = Mlp();
  auto want = Reference(net);
  auto a = BindRows(net, Context::CPU(1), 0, 5);
  auto b = BindRows(net, Context::CPU(2), 5, kBatch);  // uneven shares
  std::vector<Executor*> replicas = {a.get(), b.get()};
  auto reducer = *GradientReducer::Create(replicas, kParams, nullptr, {});
  EXPECT_EQ(reducer->total_replicas(), 2);
  EXPECT_EQ(reducer->buckets().size(), 1u);  // 25 MB holds them all
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(Step(*reducer, replicas).ok());
    for (const std::string& p : kParams) {
      ExpectClose(a->grad_dict().at(p).ToDoubles(), want[p], p);
      const Tensor ga = a->grad_dict().at(p);
      const Tensor gb = b->grad_dict().at(p);
      EXPECT_EQ(std::memcmp(ga.raw_data(), gb.raw_data(), ga.nbytes()), 0) << p;
    }
  }
}

TEST(GradientReducer, RanksAndDevicesTogetherAndReproducible) {
  Symbol net = Mlp();
  auto want = Reference(net);
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(2);
  std::vector<std::vector<std::vector<char>>> bits(2);
  auto rank_body = [&](int rank) {
    // Rank r holds rows [6r, 6r+6), split over two devices of its own.
    const int64_t begin = rank * 6;
    auto a = BindRows(net, Context::CPU(1 + 2 * rank), begin, begin + 2);
    auto b = BindRows(net, Context::CPU(2 + 2 * rank), begin + 2, begin + 6);
    std::vector<Executor*> replicas = {a.get(), b.get()};
    ReducerOptions o;
    o.bucket_bytes = 200;  // several buckets
    auto reducer = GradientReducer::Create(replicas, kParams, group[rank], o);
    ASSERT_TRUE(reducer.ok()) << reducer.status();
    EXPECT_EQ((*reducer)->total_replicas(), 4);
    EXPECT_GE((*reducer)->buckets().size(), 3u);
    for (int round = 0; round < 3; ++round) {
      absl::Status s = Step(**reducer, replicas);
      ASSERT_TRUE(s.ok()) << s;
      std::vector<char> all;
      for (const std::string& p : kParams) {
        const Tensor g = a->grad_dict().at(p);
        ExpectClose(g.ToDoubles(), want[p], p);
        all.insert(all.end(), static_cast<const char*>(g.raw_data()),
                   static_cast<const char*>(g.raw_data()) + g.nbytes());
      }
      bits[rank].push_back(all);
    }
  };
  std::thread t([&] { rank_body(1); });
  rank_body(0);
  t.join();
  // Every round, every rank: the same bits.
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(bits[0][round], bits[0][0]);
    EXPECT_EQ(bits[1][round], bits[0][0]);
  }
}

TEST(GradientReducer, AverageDividesByEveryReplica) {
  Symbol net = Mlp();
  auto want = Reference(net);
  auto a = BindRows(net, Context::CPU(1), 0, 6);
  auto b = BindRows(net, Context::CPU(2), 6, kBatch);
  std::vector<Executor*> replicas = {a.get(), b.get()};
  ReducerOptions o;
  o.average = true;
  auto reducer = *GradientReducer::Create(replicas, kParams, nullptr, o);
  ASSERT_TRUE(Step(*reducer, replicas).ok());
  for (const std::string& p : kParams) {
    std::vector<double> half = want[p];
    for (double& x : half) x /= 2;
    ExpectClose(b->grad_dict().at(p).ToDoubles(), half, p);
  }
}

TEST(GradientReducer, RanksWithAnotherModelFailTogether) {
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(2);
  auto rank_body = [&](int rank) {
    Symbol net = Mlp(rank == 0 ? 16 : 12);
    auto exe = BindRows(net, Context::CPU(1 + rank), 0, 4);
    auto reducer = GradientReducer::Create({exe.get()}, kParams, group[rank], {});
    ASSERT_FALSE(reducer.ok());
    EXPECT_THAT(reducer.status().message(),
                HasSubstr("gradient reducer: ranks 0 and 1 differ at line 1"));
    EXPECT_THAT(reducer.status().message(), HasSubstr("fc1_weight [16,10]"));
    EXPECT_THAT(reducer.status().message(), HasSubstr("fc1_weight [12,10]"));
  };
  std::thread t([&] { rank_body(1); });
  rank_body(0);
  t.join();
}

TEST(GradientReducer, BadReplicasAreNamed) {
  Symbol net = Mlp();
  auto exe = BindRows(net, Context::CPU(1), 0, 4);
  EXPECT_THAT(GradientReducer::Create({exe.get()}, {"fc9_weight"}, nullptr, {}).status().message(),
              HasSubstr("'fc9_weight' is not an argument of the model"));
  EXPECT_THAT(GradientReducer::Create({exe.get()}, {"data"}, nullptr, {}).status().message(),
              HasSubstr("replica 0 computes no gradient for data"));
  EXPECT_THAT(GradientReducer::Create({}, kParams, nullptr, {}).status().message(),
              HasSubstr("no replicas"));
}

TEST(GradientReducer, FinishWithoutBackwardTimesOut) {
  Symbol net = Mlp();
  auto a = BindRows(net, Context::CPU(1), 0, 6);
  auto b = BindRows(net, Context::CPU(2), 6, kBatch);
  ReducerOptions o;
  o.timeout = absl::Milliseconds(200);
  auto reducer = *GradientReducer::Create({a.get(), b.get()}, kParams, nullptr, o);
  reducer->Start();
  a->Forward(true);
  a->Backward();  // b never runs
  absl::Status s = reducer->Finish();
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(s.message(), HasSubstr("were not all finished within 200ms"));
}

}  // namespace
}  // namespace symx
