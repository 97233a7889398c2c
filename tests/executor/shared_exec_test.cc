// shared_exec, shared_buffer and Reshape (notes/mxnet-semantics.md §5): what is
// shared, what is a view, what is reallocated, the bucketing memory bound, and
// the refusal to run executors that share a pool concurrently.
#include <condition_variable>
#include <mutex>
#include <thread>

#include "devices/device.h"
#include "executor/executor.h"
#include "gmock/gmock.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"

namespace symx {
namespace {

using ::symx::testing::ErrorOf;
using ::symx::testing::Full;
using ::testing::HasSubstr;

bool SameMemory(const Tensor& a, const Tensor& b) {
  return a.defined() && b.defined() && a.SharesStorageWith(b) && a.offset() == b.offset();
}

size_t InUse(const std::vector<Context>& ctxs) {
  size_t total = 0;
  for (const Context& c : ctxs) total += GetDevice(c).value()->allocator().bytes_in_use();
  return total;
}

size_t Allocated(const Executor& exe) {
  size_t total = 0;
  for (const MemoryStats& m : exe.memory_stats()) total += m.allocated_bytes;
  return total;
}

// A recurrent-style model unrolled over `steps`: h_t = tanh(W x_t + U h_{t-1} + b),
// the same parameters at every step, a softmax head on the last state. With
// `split`, the recurrence runs in group "rnn" and the head in group "head".
Symbol Unrolled(int steps, bool split = false) {
  Symbol data = Symbol::Variable("data");
  Symbol label = Symbol::Variable("softmax_label");
  Symbol wx = Symbol::Variable("i2h_weight"), bx = Symbol::Variable("i2h_bias");
  Symbol wh = Symbol::Variable("h2h_weight"), bh = Symbol::Variable("h2h_bias");
  Symbol h;
  {
    AttrScope scope(split ? AttrMap{{"ctx_group", "rnn"}} : AttrMap{});
    Symbol xs = OpCall("SliceChannel")
                    .Name("slice")
                    .Attr("num_outputs", steps)
                    .Attr("axis", 1)
                    .Attr("squeeze_axis", true)
                    .Input(data);
    for (int t = 0; t < steps; ++t) {
      Symbol in = OpCall("FullyConnected")
                      .Name("i2h" + std::to_string(t))
                      .Attr("num_hidden", 64)
                      .Input("data", xs[t])
                      .Input("weight", wx)
                      .Input("bias", bx);
      if (t > 0) {
        in = in + OpCall("FullyConnected")
                      .Name("h2h" + std::to_string(t))
                      .Attr("num_hidden", 64)
                      .Input("data", h)
                      .Input("weight", wh)
                      .Input("bias", bh)
                      .Build();
      }
      h = OpCall("Activation").Name("tanh" + std::to_string(t)).Attr("act_type", "tanh").Input(in);
    }
  }
  AttrScope scope(split ? AttrMap{{"ctx_group", "head"}} : AttrMap{});
  Symbol out = OpCall("FullyConnected").Name("cls").Attr("num_hidden", 10).Input(h);
  return OpCall("SoftmaxOutput").Name("softmax").Input("data", out).Input("label", label);
}

const std::vector<std::string> kParams = {"i2h_weight", "i2h_bias", "h2h_weight", "h2h_bias",
                                          "cls_weight", "cls_bias"};

SimpleBindOptions BucketOptions(int steps, const std::map<std::string, Context>& group2ctx) {
  SimpleBindOptions o;
  o.ctx = testing::TestDevice(4);
  o.shapes = {{"data", Shape{32, steps, 32}}};
  // A map leaves unnamed arguments (data, the label) at null.
  std::map<std::string, GradReq> reqs;
  for (const std::string& p : kParams) reqs[p] = GradReq::kWrite;
  o.grad_req = reqs;
  o.group2ctx = group2ctx;
  return o;
}

void TrainStep(Executor* exe) {
  exe->Forward(true);
  exe->Backward();
}

// BucketingModule's pattern: the largest bucket binds first; every other
// bucket shares its parameters, gradients, input buffers and memory pool.
// All buckets together must stay within 1.2x the largest alone.
void CheckBucketing(const std::map<std::string, Context>& group2ctx) {
  std::vector<Context> devices = {testing::TestDevice(4)};
  for (const auto& [g, c] : group2ctx) devices.push_back(c);
  const size_t base = InUse(devices);
  size_t alone;
  {
    auto largest = Executor::SimpleBind(Unrolled(50, !group2ctx.empty()),
                                        BucketOptions(50, group2ctx));
    TrainStep(largest.get());
    alone = InUse(devices) - base;
  }
  ASSERT_EQ(InUse(devices), base) << "the largest bucket's memory was not returned";

  std::map<std::string, Tensor> buffer;
  SimpleBindOptions o = BucketOptions(50, group2ctx);
  o.shared_buffer = &buffer;
  auto largest = Executor::SimpleBind(Unrolled(50, !group2ctx.empty()), o);
  std::vector<std::unique_ptr<Executor>> buckets;
  for (int steps : {10, 20, 30, 40}) {
    SimpleBindOptions b = BucketOptions(steps, group2ctx);
    b.shared_arg_names = kParams;
    b.shared_exec = largest.get();
    b.shared_buffer = &buffer;
    buckets.push_back(Executor::SimpleBind(Unrolled(steps, !group2ctx.empty()), b));
  }
  TrainStep(largest.get());
  for (auto& exe : buckets) {
    TrainStep(exe.get());
    for (const std::string& p : kParams) {
      EXPECT_TRUE(SameMemory(exe->arg_dict().at(p), largest->arg_dict().at(p))) << p;
      EXPECT_TRUE(SameMemory(exe->grad_dict().at(p), largest->grad_dict().at(p))) << p;
    }
    EXPECT_TRUE(exe->arg_dict().at("data").SharesStorageWith(largest->arg_dict().at("data")));
  }
  const size_t all = InUse(devices) - base;
  EXPECT_LE(static_cast<double>(all), 1.2 * static_cast<double>(alone))
      << "all buckets " << all << " bytes, the largest alone " << alone;
  // Sharing must not change results: bucket 20 against a fresh executor.
  auto fresh = Executor::SimpleBind(Unrolled(20, !group2ctx.empty()), BucketOptions(20, group2ctx));
  Executor* shared = buckets[1].get();
  std::map<std::string, Tensor> values;
  for (const auto& [name, t] : shared->arg_dict()) {
    values[name] = testing::Iota(t.shape(), [&](int64_t i) {
      return name == "softmax_label" ? (i % 10) : 0.01 * ((i * 7 + name.size()) % 13) - 0.06;
    });
  }
  shared->CopyParamsFrom(values);
  fresh->CopyParamsFrom(values);
  TrainStep(shared);
  TrainStep(fresh.get());
  testing::ExpectNear(shared->outputs()[0], fresh->outputs()[0].ToDoubles(), 0, "bucket output");
  testing::ExpectNear(shared->grad_dict().at("h2h_weight"),
                      fresh->grad_dict().at("h2h_weight").ToDoubles(), 0, "bucket gradient");
}

TEST(Bucketing, AllBucketsWithinOnePointTwoOfTheLargest) { CheckBucketing({}); }

TEST(Bucketing, AcrossTwoDevices) {
  CheckBucketing({{"rnn", testing::TestDevice(5)}, {"head", testing::TestDevice(6)}});
}

Symbol Mlp() {
  Symbol data = Symbol::Variable("data");
  Symbol h = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", 16).Input(data);
  h = OpCall("BatchNorm").Name("bn").Input(h);
  h = OpCall("Activation").Name("relu").Attr("act_type", "relu").Input(h);
  h = OpCall("FullyConnected").Name("fc2").Attr("num_hidden", 4).Input(h);
  return OpCall("SoftmaxOutput").Name("softmax").Input(h);
}

TEST(SharedBuffer, InputsAreViewsWhenLargeEnoughElseReallocated) {
  std::map<std::string, Tensor> buffer;
  SimpleBindOptions o{.ctx = testing::TestDevice(0), .shapes = {{"data", Shape{8, 5}}}};
  o.grad_req = std::map<std::string, GradReq>{
      {"data", GradReq::kWrite},     {"fc1_weight", GradReq::kWrite}, {"fc1_bias", GradReq::kWrite},
      {"fc2_weight", GradReq::kWrite}, {"fc2_bias", GradReq::kWrite},  {"bn_gamma", GradReq::kWrite},
      {"bn_beta", GradReq::kWrite}};
  o.shared_buffer = &buffer;
  auto big = Executor::SimpleBind(Mlp(), o);
  // Inputs (and the gradient of data) went into the buffer; parameters did not
  // (they are not in shared_arg_names, which is empty here).
  ASSERT_TRUE(buffer.count("data"));
  ASSERT_TRUE(buffer.count("softmax_label"));
  ASSERT_TRUE(buffer.count("grad of data"));
  ASSERT_TRUE(buffer.count("fc1_weight"));  // not shared by name: a buffer input like any other
  EXPECT_TRUE(SameMemory(big->arg_dict().at("data"), buffer.at("data")));

  SimpleBindOptions small = o;
  small.shapes = {{"data", Shape{4, 5}}};
  small.shared_exec = big.get();
  small.shared_arg_names = {"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias", "bn_gamma",
                            "bn_beta"};
  auto exe = Executor::SimpleBind(Mlp(), small);
  EXPECT_TRUE(exe->arg_dict().at("data").SharesStorageWith(buffer.at("data")));
  EXPECT_EQ(exe->arg_dict().at("data").shape(), Shape({4, 5}));
  EXPECT_TRUE(exe->grad_dict().at("data").SharesStorageWith(buffer.at("grad of data")));
  for (const std::string& p : small.shared_arg_names) {
    EXPECT_TRUE(SameMemory(exe->arg_dict().at(p), big->arg_dict().at(p))) << p;
    EXPECT_TRUE(SameMemory(exe->grad_dict().at(p), big->grad_dict().at(p))) << p;
  }
  for (const char* a : {"bn_moving_mean", "bn_moving_var"}) {
    EXPECT_TRUE(SameMemory(exe->aux_dict().at(a), big->aux_dict().at(a))) << a;
  }
  // Everything it needed was there: views, shared arrays and pooled blocks.
  EXPECT_EQ(Allocated(*exe), 0u);

  // Larger than the buffer: a warning naming the input and both shapes, and a
  // new array that replaces the buffer's.
  SimpleBindOptions larger = small;
  larger.shapes = {{"data", Shape{16, 5}}};
  ::testing::internal::CaptureStderr();
  auto exe2 = Executor::SimpleBind(Mlp(), larger);
  std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(warning, HasSubstr("Bucketing: data data has a shape [16,5]"));
  EXPECT_THAT(warning, HasSubstr("larger than already allocated shape [8,5]"));
  EXPECT_FALSE(exe2->arg_dict().at("data").SharesStorageWith(big->arg_dict().at("data")));
  EXPECT_TRUE(SameMemory(exe2->arg_dict().at("data"), buffer.at("data")));
  EXPECT_EQ(buffer.at("data").shape(), Shape({16, 5}));
}

TEST(SharedBuffer, SharedArgumentsMustMatch) {
  std::map<std::string, Tensor> buffer;
  SimpleBindOptions o{.ctx = testing::TestDevice(0), .shapes = {{"data", Shape{8, 5}}}};
  o.shared_buffer = &buffer;
  auto big = Executor::SimpleBind(Mlp(), o);
  SimpleBindOptions other = o;
  other.shapes = {{"data", Shape{8, 6}}};  // fc1_weight becomes (16, 6)
  other.shared_exec = big.get();
  other.shared_arg_names = {"fc1_weight"};
  std::string err = ErrorOf([&] { Executor::SimpleBind(Mlp(), other); });
  EXPECT_THAT(err, HasSubstr("Inferred shape does not match shared_exec.arg_array's shape"));
  EXPECT_THAT(err, HasSubstr("fc1_weight"));
  // Without shared_exec, shared names are fresh arrays left out of the buffer.
  std::map<std::string, Tensor> empty;
  SimpleBindOptions alone = o;
  alone.shared_buffer = &empty;
  alone.shared_arg_names = {"fc1_weight"};
  auto exe = Executor::SimpleBind(Mlp(), alone);
  EXPECT_FALSE(empty.count("fc1_weight"));
  EXPECT_TRUE(empty.count("data"));
}

TEST(SharedExec, PoolOnlyWithoutSharedBuffer) {
  auto big = Executor::SimpleBind(Mlp(), {.ctx = testing::TestDevice(0), .shapes = {{"data", Shape{8, 5}}}});
  auto small = Executor::SimpleBind(Mlp(), {.ctx = testing::TestDevice(0),
                                            .shapes = {{"data", Shape{4, 5}}},
                                            .shared_arg_names = {"fc1_weight"},
                                            .shared_exec = big.get()});
  // shared_arg_names is ignored without a shared_buffer: fresh parameters...
  EXPECT_FALSE(small->arg_dict().at("fc1_weight").SharesStorageWith(big->arg_dict().at("fc1_weight")));
  // ... but the intermediates all come from big's pool.
  for (const MemoryStats& m : small->memory_stats()) {
    EXPECT_EQ(m.allocated_bytes, m.array_bytes) << m.ctx;
  }
}

// Reshape of a split executor: smaller shapes are views, intermediates come
// from the pools, and the results equal a single-device Reshape's.
TEST(Reshape, ThroughTheSharedPoolsOfEveryDevice) {
  Symbol net = Symbol::Load("tools/examples/legacy_mlp-symbol.json");
  SimpleBindOptions o{.ctx = testing::TestDevice(0), .shapes = {{"data", Shape{8, 10}}}};
  auto single = Executor::SimpleBind(net, o);
  o.group2ctx = {{"stage1", testing::TestDevice(1)}, {"stage2", testing::TestDevice(2)}};
  auto split = Executor::SimpleBind(net, o);
  auto small_split = split->Reshape({{"data", Shape{3, 10}}, {"softmax_label", Shape{3}}});
  auto small_single = single->Reshape({{"data", Shape{3, 10}}, {"softmax_label", Shape{3}}});
  EXPECT_EQ(Allocated(*small_split), 0u);
  EXPECT_TRUE(small_split->arg_dict().at("data").SharesStorageWith(split->arg_dict().at("data")));
  EXPECT_EQ(small_split->arg_dict().at("data").ctx(), testing::TestDevice(1));
  std::map<std::string, Tensor> values;
  for (const auto& [name, t] : small_single->arg_dict()) {
    values[name] = testing::Iota(t.shape(), [&](int64_t i) {
      return name == "softmax_label" ? (i % 8) : 0.05 * ((i * 3 + name.size()) % 11) - 0.25;
    });
  }
  for (Executor* exe : {small_split.get(), small_single.get()}) {
    exe->CopyParamsFrom(values);
    exe->Forward(true);
    exe->Backward();
  }
  testing::ExpectNear(small_split->outputs()[0], small_single->outputs()[0].ToDoubles(), 0,
                      "output");
  testing::ExpectNear(small_split->grad_dict().at("fc1_weight"),
                      small_single->grad_dict().at("fc1_weight").ToDoubles(), 0, "gradient");
}

// A monitor callback that blocks lets a test hold an executor mid-Forward.
class Latch {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// Runs exe->Forward on another thread and holds it inside its first monitor
// call (pools claimed, nothing finished) until Release().
class HeldForward {
 public:
  explicit HeldForward(Executor* exe) {
    exe->SetMonitorCallback([this](const std::string&, const Tensor&) {
      if (!first_) return;
      first_ = false;
      started_.Open();
      release_.Wait();
    });
    thread_ = std::thread([exe] { exe->Forward(false); });
    started_.Wait();
  }
  void Release() {
    release_.Open();
    thread_.join();
  }

 private:
  Latch started_, release_;
  bool first_ = true;
  std::thread thread_;
};

TEST(SharedExec, ConcurrentUseOfASharedPoolIsRefused) {
  for (bool split : {false, true}) {
    SimpleBindOptions o{.ctx = testing::TestDevice(0), .shapes = {{"data", Shape{8, 10}}}};
    if (split) o.group2ctx = {{"stage1", testing::TestDevice(1)}, {"stage2", testing::TestDevice(2)}};
    auto exe = Executor::SimpleBind(Symbol::Load("tools/examples/legacy_mlp-symbol.json"), o);
    auto smaller = exe->Reshape({{"data", Shape{4, 10}}, {"softmax_label", Shape{4}}});
    HeldForward held(exe.get());
    std::string err = ErrorOf([&] { smaller->Forward(false); });
    EXPECT_THAT(err, HasSubstr("shares this executor's memory pool"));
    EXPECT_THAT(err, HasSubstr("must not run Forward/Backward concurrently"));
    std::string again = ErrorOf([&] { exe->Forward(false); });
    EXPECT_THAT(again, HasSubstr("already running on another thread"));
    held.Release();
    // Once the first is done, the second runs.
    EXPECT_EQ(ErrorOf([&] { smaller->Forward(false); }), "");
  }
}

// A refused call writes nothing: inputs are copied only once the pools are
// claimed. Executors on other devices share no pool and may run concurrently.
TEST(SharedExec, RefusedCallWritesNothingAndOtherDevicesRun) {
  SimpleBindOptions o{.ctx = testing::TestDevice(0), .shapes = {{"data", Shape{8, 10}}}};
  Symbol net = Symbol::Load("tools/examples/legacy_mlp-symbol.json");
  auto exe = Executor::SimpleBind(net, o);
  auto same_pool = exe->Reshape({{"data", Shape{8, 10}}});
  SimpleBindOptions elsewhere = o;
  elsewhere.ctx = testing::TestDevice(3);
  elsewhere.shared_exec = exe.get();
  auto other_device = Executor::SimpleBind(net, elsewhere);
  HeldForward held(exe.get());
  // same_pool's data is exe's data (same shape): a refused Forward must not
  // have overwritten it.
  ASSERT_TRUE(SameMemory(same_pool->arg_dict().at("data"), exe->arg_dict().at("data")));
  std::vector<double> before = exe->arg_dict().at("data").ToDoubles();
  std::string err =
      ErrorOf([&] { same_pool->Forward(false, {{"data", Full(Shape{8, 10}, 9.0)}}); });
  EXPECT_THAT(err, HasSubstr("shares this executor's memory pool"));
  EXPECT_EQ(exe->arg_dict().at("data").ToDoubles(), before);
  EXPECT_EQ(ErrorOf([&] { other_device->Forward(false); }), "");
  held.Release();
}

}  // namespace
}  // namespace symx
