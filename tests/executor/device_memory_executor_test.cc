// The executor on a device whose memory host code must not touch (what a GPU
// is), without a GPU: a fake device under the cpu_shared context type that
// runs the CPU kernels on host memory, but to the rest of the engine is
// "not host memory". Binding on it, and splitting a graph between it and
// cpu(0), must give cpu(0)'s results bit for bit, with every transfer going
// through the device's byte movers and every value another device reads
// waited for (Synchronize).
#include <atomic>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "data_parallel/gradient_reducer.h"
#include "devices/cpu/cpu_device.h"
#include "devices/device.h"
#include "devices/host_fallback.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "distributed/communicator.h"
#include "distributed/inprocess_communicator.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

std::atomic<int> transfers{0}, syncs{0};

class FakeGpu : public CpuDevice {
 public:
  FakeGpu(Context ctx, int threads) : CpuDevice(ctx, threads) {}
  bool host_memory() const override { return false; }
  absl::Status CopyToHost(const void* src, void* dst, size_t bytes) override {
    ++transfers;
    if (bytes > 0) std::memcpy(dst, src, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyFromHost(const void* src, void* dst, size_t bytes) override {
    ++transfers;
    if (bytes > 0 && src != dst) std::memmove(dst, src, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyFromDevice(Device& from, const void* src, void* dst, size_t bytes) override {
    ++transfers;
    if (bytes > 0 && src != dst) std::memmove(dst, src, bytes);
    return absl::OkStatus();
  }
  absl::Status Memset(void* dst, int byte, size_t bytes) override {
    if (bytes > 0) std::memset(dst, byte, bytes);
    return absl::OkStatus();
  }
  absl::Status Synchronize() override {
    ++syncs;
    return absl::OkStatus();
  }
};

const Context kFake{DeviceType::kCPUShared, 0, -1};

// Ops the fake device has no kernel for, so binds there take the host
// fallback (devices/host_fallback.h): BatchNorm mutates aux states, LayerNorm
// does not; _send/_recv run on host copies over the bind's communicator, as
// on a GPU that two ranks share.
const std::set<std::string> kNoDeviceKernel = {
    "BatchNorm", "_backward_BatchNorm", "LayerNorm", "_backward_LayerNorm", "_send", "_recv"};

// The fake device runs the CPU kernels, with cpu(0)'s thread count (the CPU
// GEMMs' blocking, and so their bits, depend on it).
bool RegisterFakeGpu() {
  static const bool done = [] {
    const int threads = ValueOrThrow(GetDevice(Context::CPU(0)))->num_threads();
    RegisterDeviceFactory(DeviceType::kCPUShared,
                          [threads](const Context& c) -> absl::StatusOr<std::unique_ptr<Device>> {
                            return std::unique_ptr<Device>(new FakeGpu(c, threads));
                          });
    for (const std::string& op : KernelRegistry::List(DeviceType::kCPU)) {
      if (kNoDeviceKernel.count(op) > 0) continue;
      KernelRegistry::Register(op, DeviceType::kCPUShared,
                               *KernelRegistry::Find(op, DeviceType::kCPU));
    }
    return true;
  }();
  return done;
}

Symbol Net() {
  Symbol data = Symbol::Variable("data");
  Symbol h;
  {
    AttrScope scope(AttrMap{{"ctx_group", "a"}});
    h = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", 16).Input(data).Build();
    h = OpCall("Activation").Name("act").Attr("act_type", "tanh").Input(h).Build();
  }
  AttrScope scope(AttrMap{{"ctx_group", "b"}});
  h = OpCall("FullyConnected").Name("fc2").Attr("num_hidden", 5).Input(h).Build();
  return OpCall("SoftmaxOutput").Name("sm").Input("data", h).Build();
}

struct Result {
  std::vector<double> out;
  std::map<std::string, std::vector<double>> grads;
};

Result Train(SimpleBindOptions o) {
  o.shapes = {{"data", Shape{6, 10}}, {"sm_label", Shape{6}}};
  auto exe = Executor::SimpleBind(Net(), o);
  int k = 0;
  for (auto& [name, arr] : exe->arg_dict()) {
    std::vector<double> v(arr.size());
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = name == "sm_label" ? static_cast<double>(i % 5) : ((i * 31 + k * 7) % 17) / 17.0 - 0.5;
    }
    ++k;
    ThrowIfError(CopyTensor(Tensor::FromVector(arr.shape(), v, DType::kFloat64), arr));
  }
  for (int step = 0; step < 2; ++step) {
    exe->Forward(true);
    exe->Backward();
  }
  Result r;
  r.out = exe->outputs()[0].ToDoubles();
  for (auto& [name, g] : exe->grad_dict()) r.grads[name] = g.ToDoubles();
  return r;
}

void ExpectSame(const Result& got, const Result& want, const std::string& what) {
  EXPECT_EQ(got.out, want.out) << what;
  ASSERT_EQ(got.grads.size(), want.grads.size()) << what;
  for (const auto& [name, w] : want.grads) EXPECT_EQ(got.grads.at(name), w) << what << ": " << name;
}

TEST(DeviceMemoryExecutorTest, ABindOnTheDeviceMatchesCpu) {
  ASSERT_TRUE(RegisterFakeGpu());
  for (GradReq req : {GradReq::kWrite, GradReq::kAdd}) {
    Result cpu = Train({.ctx = Context::CPU(0), .grad_req = req});
    transfers = 0;
    Result dev = Train({.ctx = kFake, .grad_req = req});
    ExpectSame(dev, cpu, req == GradReq::kAdd ? "add" : "write");
    EXPECT_GT(transfers.load(), 0);  // inputs in, outputs and gradients out
  }
}

TEST(DeviceMemoryExecutorTest, SplittingBetweenCpuAndTheDeviceMatchesCpu) {
  ASSERT_TRUE(RegisterFakeGpu());
  Result cpu = Train({.ctx = Context::CPU(0)});
  for (auto [a, b] : {std::pair{Context::CPU(0), kFake}, std::pair{kFake, Context::CPU(0)}}) {
    syncs = 0;
    Result split = Train({.ctx = Context::CPU(0), .group2ctx = {{"a", a}, {"b", b}}});
    ExpectSame(split, cpu, "split " + a.ToString() + " -> " + b.ToString());
    // Values crossing devices were waited for on the device side.
    EXPECT_GT(syncs.load(), 0);
  }
}


// A net whose BatchNorm and LayerNorm have no kernel on the fake device;
// group "a" (fc1, bn) may be placed elsewhere.
Symbol FallbackNet() {
  Symbol data = Symbol::Variable("data");
  Symbol h;
  {
    AttrScope scope(AttrMap{{"ctx_group", "a"}});
    h = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", 8).Input(data).Build();
    h = OpCall("BatchNorm").Name("bn").Attr("fix_gamma", "False").Input(h).Build();
  }
  h = OpCall("Activation").Name("act").Attr("act_type", "tanh").Input(h).Build();
  h = OpCall("LayerNorm").Name("ln").Input(h).Build();
  h = OpCall("FullyConnected").Name("fc2").Attr("num_hidden", 5).Input(h).Build();
  return OpCall("SoftmaxOutput").Name("sm").Input("data", h).Build();
}

struct FallbackResult {
  Result r;
  std::map<std::string, std::vector<double>> aux;
};

FallbackResult TrainFallback(SimpleBindOptions o) {
  o.shapes = {{"data", Shape{6, 10}}, {"sm_label", Shape{6}}};
  auto exe = Executor::SimpleBind(FallbackNet(), o);
  int k = 0;
  for (auto& [name, arr] : exe->arg_dict()) {
    std::vector<double> v(arr.size());
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = name == "sm_label" ? static_cast<double>(i % 5) : ((i * 13 + k * 5) % 19) / 19.0 - 0.4;
    }
    ++k;
    ThrowIfError(CopyTensor(Tensor::FromVector(arr.shape(), v, DType::kFloat64), arr));
  }
  for (int step = 0; step < 2; ++step) {
    exe->Forward(true);
    exe->Backward();
  }
  exe->Forward(false);  // inference reads the moving statistics
  FallbackResult f;
  f.r.out = exe->outputs()[0].ToDoubles();
  for (auto& [name, g] : exe->grad_dict()) f.r.grads[name] = g.ToDoubles();
  for (auto& [name, a] : exe->aux_dict()) f.aux[name] = a.ToDoubles();
  return f;
}

TEST(DeviceMemoryExecutorTest, OpsWithoutADeviceKernelRunTheirCpuKernelOnHostCopies) {
  ASSERT_TRUE(RegisterFakeGpu());
  ASSERT_TRUE(EngineOptions{}.host_fallback);
  for (GradReq req : {GradReq::kWrite, GradReq::kAdd}) {
    const std::string what = req == GradReq::kAdd ? "add" : "write";
    FallbackResult cpu = TrainFallback({.ctx = Context::CPU(0), .grad_req = req});
    FallbackResult dev = TrainFallback({.ctx = kFake, .grad_req = req});
    ExpectSame(dev.r, cpu.r, what);
    // BatchNorm's moving statistics, updated on host copies, reached the device.
    ASSERT_EQ(dev.aux.size(), 2u);
    EXPECT_EQ(dev.aux, cpu.aux) << what;
    EXPECT_NE(dev.aux.at("bn_moving_mean"), std::vector<double>(8, 0.0));
    // And split between cpu(0) and the device.
    FallbackResult split =
        TrainFallback({.ctx = kFake, .grad_req = req, .group2ctx = {{"a", Context::CPU(0)}}});
    ExpectSame(split.r, cpu.r, what + " split");
  }
}

TEST(DeviceMemoryExecutorTest, WithTheFallbackOffAMissingKernelFailsTheBindNamingOpAndDevice) {
  ASSERT_TRUE(RegisterFakeGpu());
  EngineOptions no_fallback;
  no_fallback.host_fallback = false;
  try {
    TrainFallback({.ctx = kFake, .engine = no_fallback});
    ADD_FAILURE() << "bind succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("operator bn (BatchNorm) has no kernel for cpu_shared(0)"),
              std::string::npos)
        << e.what();
  }
}

// The GradientReducer hands device gradients to the summer registered for
// their device type (NCCL's for GPUs); without one it says what is missing.
// This summer adds in host memory, which the fake device's is.
class HostMemorySum : public DeviceBucketSum {
 public:
  explicit HostMemorySum(int* calls) : calls_(calls) {}
  absl::Status Sum(const std::vector<std::vector<Tensor>>& grads, bool average,
                   absl::Time deadline) override {
    ++*calls_;
    for (size_t i = 0; i < grads[0].size(); ++i) {
      const Tensor& g0 = grads[0][i];
      for (size_t k = 1; k < grads.size(); ++k) {
        ReduceInto(ReduceOp::kSum, g0.dtype(), grads[k][i].read_raw_data(), g0.raw_data(),
                   g0.size());
      }
      if (average) DivideInPlace(g0.dtype(), g0.raw_data(), g0.size(), grads.size());
      for (size_t k = 1; k < grads.size(); ++k) {
        std::memcpy(grads[k][i].raw_data(), g0.read_raw_data(), g0.nbytes());
      }
    }
    return absl::OkStatus();
  }

 private:
  int* calls_;
};

TEST(DeviceMemoryExecutorTest, GradientReducerSumsDeviceGradientsThroughTheRegisteredSum) {
  ASSERT_TRUE(RegisterFakeGpu());
  Symbol net = OpCall("SoftmaxOutput")
                   .Name("sm")
                   .Input("data", OpCall("FullyConnected")
                                      .Name("fc")
                                      .Attr("num_hidden", 4)
                                      .Input(Symbol::Variable("data"))
                                      .Build())
                   .Build();
  std::vector<std::unique_ptr<Executor>> replicas;
  for (int k = 0; k < 2; ++k) {
    SimpleBindOptions o;
    o.ctx = kFake;
    o.shapes = {{"data", Shape{3, 5}}};
    o.grad_req = std::map<std::string, GradReq>{{"fc_weight", GradReq::kWrite},
                                                {"fc_bias", GradReq::kWrite}};
    replicas.push_back(Executor::SimpleBind(net, o));
    for (auto& [name, t] : replicas.back()->arg_dict()) {
      std::vector<double> v(t.size());
      for (size_t i = 0; i < v.size(); ++i) v[i] = name == "sm_label" ? i % 4 : 0.1 * i - 0.3;
      ThrowIfError(CopyTensor(Tensor::FromVector(t.shape(), v, t.dtype()), t));
    }
  }
  std::vector<Executor*> raw = {replicas[0].get(), replicas[1].get()};
  auto made = GradientReducer::Create(raw, {"fc_weight", "fc_bias"}, nullptr, {});
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.status().message().find("this build sums no such gradients"), std::string::npos)
      << made.status();

  static int calls = 0;
  static const bool registered = RegisterDeviceBucketSum(
      kFake.type,
      [](const std::vector<Context>& devices, std::shared_ptr<Communicator>,
         absl::Duration) -> absl::StatusOr<std::unique_ptr<DeviceBucketSum>> {
        EXPECT_EQ(devices.size(), 2u);
        return std::unique_ptr<DeviceBucketSum>(new HostMemorySum(&calls));
      });
  ASSERT_TRUE(registered);
  auto reducer = ValueOrThrow(GradientReducer::Create(raw, {"fc_weight", "fc_bias"}, nullptr, {}));
  // One replica alone, for the expected value: equal inputs, so the sum is
  // twice its gradient.
  replicas[0]->Forward(true);
  replicas[0]->Backward();
  const std::vector<double> single = replicas[0]->grad_dict().at("fc_weight").ToDoubles();
  reducer->Start();
  for (auto& r : replicas) {
    r->Forward(true);
    r->Backward();
  }
  ASSERT_TRUE(reducer->Finish().ok());
  EXPECT_EQ(calls, static_cast<int>(reducer->buckets().size()));
  for (auto& r : replicas) {
    std::vector<double> got = r->grad_dict().at("fc_weight").ToDoubles();
    ASSERT_EQ(got.size(), single.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], 2 * single[i]) << i;
  }
}

// A graph split over two ranks (threads on in-process communicators), each
// on its own fake device: the _send/_recv steps run through the host
// fallback, whose prepared state must take each run's channel (the
// executor's RunState, with its pending sends and cancel flag), not the one
// it was prepared with. Forward and Backward twice, against one process.
TEST(DeviceMemoryExecutorTest, CrossRankTransfersRunThroughTheHostFallback) {
  ASSERT_TRUE(RegisterFakeGpu());
  Symbol data = Symbol::Variable("data");
  Symbol net;
  {
    AttrScope scope(AttrMap{{"ctx_group", "dev1"}});
    net = OpCall("tanh").Name("t").Input(data * 3.0).Build();
  }
  {
    AttrScope scope(AttrMap{{"ctx_group", "dev2"}});
    net = OpCall("exp").Name("e").Input(net).Build();
  }
  const Shape shape{2, 3};
  const Tensor value = Tensor::FromVector(shape, {0.1, -0.2, 0.3, -0.4, 0.5, -0.6});
  const Tensor head = Tensor::FromVector(shape, std::vector<double>(6, 1.0));
  auto single = Executor::Bind(
      net, {}, {value}, std::vector<Tensor>{ValueOrThrow(Tensor::Zeros(shape, DType::kFloat32))});
  single->Forward(true);
  single->Backward({head});
  const std::vector<double> want_out = single->outputs()[0].ToDoubles();
  const std::vector<double> want_grad = single->grad_arrays()[0].ToDoubles();

  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(2);
  std::vector<std::string> failures(2);
  auto rank = [&](int r) {
    try {
      const Context dev1{DeviceType::kCPUShared, 0, 0}, dev2{DeviceType::kCPUShared, 1, 1};
      std::vector<Tensor> args(1), grads(1);
      if (r == 0) {
        args[0] = ValueOrThrow(CopyToNew(value, kFake, DType::kFloat32));
        grads[0] = ValueOrThrow(Tensor::Zeros(shape, DType::kFloat32, kFake));
      }
      BindOptions o{.ctx = dev1, .group2ctx = {{"dev1", dev1}, {"dev2", dev2}}};
      o.comm = group[r];
      o.comm_timeout = absl::Seconds(10);
      auto exe = Executor::Bind(net, o, args, grads);
      for (int step = 0; step < 2; ++step) {
        exe->Forward(true);
        // The head gradient is copied on the rank that holds the output.
        exe->Backward({head});
        if (r == 1) {
          EXPECT_EQ(exe->outputs()[0].ToDoubles(), want_out) << "step " << step;
        } else {
          EXPECT_EQ(exe->grad_arrays()[0].ToDoubles(), want_grad) << "step " << step;
        }
      }
    } catch (const std::exception& e) {
      failures[r] = e.what();
    }
  };
  std::thread other(rank, 1);
  rank(0);
  other.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

}  // namespace
}  // namespace symx
