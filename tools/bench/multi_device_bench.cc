// Multi-device placement, measured side by side in one run:
//   1. what a cross-device edge costs: the copy kernel and an executor forward
//      that crosses cpu(1) -> cpu(2), per MiB, against std::memcpy;
//   2. what splitting pays back: two independent FullyConnected branches on
//      one device against the same graph with one branch per device;
//   3. what bucketing costs in memory: five unrolled recurrent buckets sharing
//      parameters, gradients, inputs and the memory pool of the largest,
//      against the largest bucket bound alone.
// Every device gets one intra-op thread, so part 2 measures placement, not
// Eigen's pool: with two cores or more its speed-up is at most 2x, less the
// serial part (the copies of the input and the final sum on cpu(0)).
//
//   multi_device_bench [--quick]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "devices/device.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "tools/bench/bench_util.h"

namespace {

using namespace symx;  // NOLINT: a benchmark binary, not a library

constexpr size_t kMiB = size_t{1} << 20;

struct Config {
  int reps = 21;          // samples per median
  int copy_budget = 256;  // MiB moved per sample in part 1
};

const std::map<std::string, Context> kTwoGroups = {{"a", Context::CPU(1)}, {"b", Context::CPU(2)}};

// Bytes in use summed over every cpu(N) device of this process.
size_t BytesInUseAllDevices() {
  size_t total = 0;
  for (int i = 0; i < NumCpuDevices(); ++i) {
    total += ValueOrThrow(GetDevice(Context::CPU(i)))->allocator().bytes_in_use();
  }
  return total;
}

Tensor Filled(const Shape& shape, double value, Context ctx) {
  Tensor t = ValueOrThrow(Tensor::Empty(shape, DType::kFloat32, ctx));
  t.Fill(value);
  return t;
}

// ------------------------------------------------------------------ 1. copies

// y = _copy(x) with x in group "a" and the copy in group "b": bound with
// kTwoGroups, placement inserts exactly one _CrossDeviceCopy (cpu(1) ->
// cpu(2)); bound without group2ctx, everything runs on cpu(0).
Symbol CopyGraph() {
  Symbol x;
  {
    AttrScope a(AttrMap{{"ctx_group", "a"}});
    x = Symbol::Variable("x");
  }
  AttrScope b(AttrMap{{"ctx_group", "b"}});
  return OpCall("_copy").Name("y").Input(x);
}

struct CopyRow {
  int mib = 0;
  double memcpy_us = 0, kernel_us = 0, one_device_us = 0, split_us = 0;  // per MiB
  bool identity_in_place = false;
};

// How the cost is isolated. The _CrossDeviceCopy CPU kernel is CopyTensor, so
// "copy kernel" times CopyTensor between a tensor on cpu(1) and one on cpu(2)
// next to std::memcpy between two preallocated host buffers: the kernel's own
// cost. The executor figures are what a user pays. On one device, forward is
// one _copy of a bound array (it cannot run in place on a bound array). Split,
// forward is the cross-device copy followed by the _copy, which the memory
// planner runs in place on the copy's output (the kernel then moves nothing;
// checked below from the planned bytes on cpu(2)). Both forwards therefore
// move the same bytes once, so split - one device is the price of the
// multi-device machinery (the worker hand-off), and split / memcpy is the
// whole cost of one cross-device edge against a raw memcpy.
CopyRow MeasureCopy(int mib, const Config& cfg) {
  CopyRow row;
  row.mib = mib;
  const size_t bytes = static_cast<size_t>(mib) * kMiB;
  const Shape shape{static_cast<int64_t>(bytes / sizeof(float))};
  const int inner = std::max(1, cfg.copy_budget / mib);

  std::vector<char> host_src(bytes, 1), host_dst(bytes, 0);
  Tensor src = Filled(shape, 1.0, Context::CPU(1));
  Tensor dst = Filled(shape, 0.0, Context::CPU(2));
  auto [memcpy_s, kernel_s] =
      bench::MedianSecondsPaired([&] { std::memcpy(host_dst.data(), host_src.data(), bytes); },
                                 [&] { ThrowIfError(CopyTensor(src, dst)); }, cfg.reps, inner);

  Symbol graph = CopyGraph();
  SimpleBindOptions opts{
      .ctx = Context::CPU(0), .shapes = {{"x", shape}}, .grad_req = GradReq::kNull};
  auto one_device = Executor::SimpleBind(graph, opts);
  opts.group2ctx = kTwoGroups;
  auto split = Executor::SimpleBind(graph, opts);
  one_device->arg_dict().at("x").Fill(1.0);
  split->arg_dict().at("x").Fill(1.0);
  auto [one_s, split_s] = bench::MedianSecondsPaired(
      [&] { one_device->Forward(false); }, [&] { split->Forward(false); }, cfg.reps, inner);
  for (const MemoryStats& m : split->memory_stats()) {
    if (m.ctx == Context::CPU(2)) row.identity_in_place = m.planned_bytes < 2 * bytes;
  }
  const double per_mib = 1e6 / mib;
  row.memcpy_us = memcpy_s * per_mib;
  row.kernel_us = kernel_s * per_mib;
  row.one_device_us = one_s * per_mib;
  row.split_us = split_s * per_mib;
  return row;
}

std::vector<CopyRow> RunCopies(const Config& cfg) {
  std::printf("1. cross-device copy, float32, cpu(1) -> cpu(2) (us per MiB, median of %d)\n",
              cfg.reps);
  std::printf("   %-7s %9s %12s %12s %11s %11s %13s %12s\n", "size", "memcpy", "copy kernel",
              "kernel/memcpy", "fwd 1 dev", "fwd split", "split/memcpy", "split-1 dev");
  std::vector<CopyRow> rows;
  for (int mib : {1, 4, 16, 64}) {
    CopyRow r = MeasureCopy(mib, cfg);
    std::printf("   %3d MiB %9.1f %12.1f %12.2fx %11.1f %11.1f %12.2fx %12.1f\n", r.mib,
                r.memcpy_us, r.kernel_us, r.kernel_us / r.memcpy_us, r.one_device_us, r.split_us,
                r.split_us / r.memcpy_us, r.split_us - r.one_device_us);
    rows.push_back(r);
  }
  bool in_place = true;
  for (const CopyRow& r : rows) in_place = in_place && r.identity_in_place;
  std::printf("   (split graph: the _copy after the cross-device copy runs in place: %s)\n",
              in_place ? "yes" : "NO - fwd split also includes a second copy");
  return rows;
}

// --------------------------------------------------------------- 2. branches

constexpr int kBranchLayers = 4;
constexpr int kHidden = 1024;
constexpr int kBranchBatch = 64;

Symbol Branch(const Symbol& data, const std::string& prefix) {
  Symbol x = data;
  for (int i = 0; i < kBranchLayers; ++i) {
    const std::string n = prefix + "_fc" + std::to_string(i + 1);
    x = OpCall("FullyConnected").Name(n).Attr("num_hidden", kHidden).Input("data", x);
    x = OpCall("Activation").Name(n + "_relu").Attr("act_type", "relu").Input("data", x);
  }
  return x;
}

// data -> A and data -> B, summed; A in group "a", B in group "b", the sum in
// no group (the bind context).
Symbol TwoBranchNet() {
  Symbol data = Symbol::Variable("data");
  Symbol a, b;
  {
    AttrScope scope(AttrMap{{"ctx_group", "a"}});
    a = Branch(data, "a");
  }
  {
    AttrScope scope(AttrMap{{"ctx_group", "b"}});
    b = Branch(data, "b");
  }
  return a + b;
}

std::unique_ptr<Executor> BindBranches(const Symbol& net,
                                       const std::map<std::string, Context>& group2ctx) {
  std::map<std::string, GradReq> reqs;
  for (const std::string& a : net.ListArguments()) {
    if (a != "data") reqs[a] = GradReq::kWrite;
  }
  auto exe = Executor::SimpleBind(net, {.ctx = Context::CPU(0),
                                        .shapes = {{"data", Shape{kBranchBatch, kHidden}}},
                                        .grad_req = reqs,
                                        .group2ctx = group2ctx});
  // Weights of 1/hidden keep activations near 1 through every layer (no
  // overflow, no denormals).
  for (auto& [name, t] : exe->arg_dict()) t.Fill(name == "data" ? 1.0 : 1.0 / kHidden);
  return exe;
}

struct BranchResult {
  double fwd_one = 0, fwd_split = 0, step_one = 0, step_split = 0;  // seconds
};

BranchResult RunBranches(const Config& cfg) {
  std::printf(
      "\n2. two independent branches (%d x FullyConnected %d + relu each), batch %d,\n"
      "   %d intra-op thread(s) per device (ms per iteration, median of %d)\n",
      kBranchLayers, kHidden, kBranchBatch, ValueOrThrow(GetDevice(Context::CPU(0)))->num_threads(),
      cfg.reps);
  Symbol net = TwoBranchNet();
  auto one = BindBranches(net, {});
  auto split = BindBranches(net, kTwoGroups);
  Tensor head = Filled(Shape{kBranchBatch, kHidden}, 1.0, Context::CPU(0));
  BranchResult r;
  std::tie(r.fwd_one, r.fwd_split) = bench::MedianSecondsPaired(
      [&] { one->Forward(false); }, [&] { split->Forward(false); }, cfg.reps,
      /*inner=*/4);
  std::tie(r.step_one, r.step_split) = bench::MedianSecondsPaired(
      [&] {
        one->Forward(true);
        one->Backward({head});
      },
      [&] {
        split->Forward(true);
        split->Backward({head});
      },
      cfg.reps, /*inner=*/2);
  std::printf("   %-18s %14s %26s %9s\n", "", "cpu(0) only", "A cpu(1), B cpu(2), sum cpu(0)",
              "speed-up");
  std::printf("   %-18s %11.2f ms %23.2f ms %8.2fx\n", "forward", r.fwd_one * 1e3,
              r.fwd_split * 1e3, r.fwd_one / r.fwd_split);
  std::printf("   %-18s %11.2f ms %23.2f ms %8.2fx\n", "forward+backward", r.step_one * 1e3,
              r.step_split * 1e3, r.step_one / r.step_split);
  return r;
}

// --------------------------------------------------------------- 3. buckets

constexpr int kRnnBatch = 32;
constexpr int kRnnInput = 128;
constexpr int kRnnHidden = 256;
constexpr int kRnnClasses = 10;
const std::vector<std::string> kRnnParams = {"i2h_weight", "i2h_bias",   "h2h_weight",
                                             "h2h_bias",   "cls_weight", "cls_bias"};

// A vanilla RNN unrolled over `steps`: data [batch, steps, input] split per
// step, h_t = tanh(i2h(x_t) + h2h(h_{t-1})) with the same weights at every
// step, a classifier on the last state.
Symbol UnrolledRnn(int steps) {
  std::map<std::string, Symbol> p;
  for (const std::string& name : kRnnParams) p[name] = Symbol::Variable(name);
  Symbol slices = OpCall("SliceChannel")
                      .Name("slice")
                      .Attr("num_outputs", steps)
                      .Attr("axis", 1)
                      .Attr("squeeze_axis", true)
                      .Input("data", Symbol::Variable("data"));
  Symbol h;
  for (int t = 0; t < steps; ++t) {
    const std::string n = "t" + std::to_string(t);
    Symbol pre = OpCall("FullyConnected")
                     .Name(n + "_i2h")
                     .Attr("num_hidden", kRnnHidden)
                     .Input("data", slices[static_cast<size_t>(t)])
                     .Input("weight", p["i2h_weight"])
                     .Input("bias", p["i2h_bias"]);
    if (t > 0) {
      pre = pre + OpCall("FullyConnected")
                      .Name(n + "_h2h")
                      .Attr("num_hidden", kRnnHidden)
                      .Input("data", h)
                      .Input("weight", p["h2h_weight"])
                      .Input("bias", p["h2h_bias"])
                      .Build();
    }
    h = OpCall("Activation").Name(n + "_tanh").Attr("act_type", "tanh").Input("data", pre);
  }
  Symbol out = OpCall("FullyConnected")
                   .Name("cls")
                   .Attr("num_hidden", kRnnClasses)
                   .Input("data", h)
                   .Input("weight", p["cls_weight"])
                   .Input("bias", p["cls_bias"]);
  return OpCall("SoftmaxOutput").Name("softmax").Input("data", out);
}

SimpleBindOptions BucketOptions(int steps) {
  std::map<std::string, GradReq> reqs;
  for (const std::string& name : kRnnParams) reqs[name] = GradReq::kWrite;
  return {
      .ctx = Context::CPU(0),
      .shapes = {{"data", Shape{kRnnBatch, steps, kRnnInput}}, {"softmax_label", Shape{kRnnBatch}}},
      .grad_req = reqs};
}

void TrainStep(Executor& exe) {
  exe.Forward(true);
  exe.Backward();
}

struct BucketResult {
  size_t alone = 0, unshared_sum = 0, shared = 0;
};

BucketResult RunBuckets() {
  const std::vector<int> buckets = {50, 40, 30, 20, 10};  // the largest first, as MXNet binds
  std::printf(
      "\n3. bucketing memory: RNN batch %d, input %d, hidden %d, T = 10..50\n"
      "   (device bytes in use across all devices, after bind + forward + backward)\n",
      kRnnBatch, kRnnInput, kRnnHidden);
  BucketResult r;
  const size_t base = BytesInUseAllDevices();
  for (int steps : buckets) {
    auto exe = Executor::SimpleBind(UnrolledRnn(steps), BucketOptions(steps));
    TrainStep(*exe);
    const size_t used = BytesInUseAllDevices() - base;
    if (steps == buckets.front()) r.alone = used;
    r.unshared_sum += used;
    std::printf("   T=%-3d alone         %8.2f MB\n", steps, used / 1e6);
  }
  const size_t leftover = BytesInUseAllDevices() - base;

  std::map<std::string, Tensor> shared_buffer;
  std::vector<std::unique_ptr<Executor>> execs;
  for (int steps : buckets) {
    SimpleBindOptions o = BucketOptions(steps);
    o.shared_arg_names = kRnnParams;
    o.shared_exec = execs.empty() ? nullptr : execs.front().get();
    o.shared_buffer = &shared_buffer;
    execs.push_back(Executor::SimpleBind(UnrolledRnn(steps), o));
    std::printf("   T=%-3d bound shared, total in use %8.2f MB\n", steps,
                (BytesInUseAllDevices() - base) / 1e6);
  }
  for (auto& exe : execs) TrainStep(*exe);
  r.shared = BytesInUseAllDevices() - base;
  std::printf(
      "   largest bucket alone                 %8.2f MB   (%zu bytes left once all were freed)\n",
      r.alone / 1e6, leftover);
  std::printf("   all %zu buckets, unshared (sum)        %8.2f MB   %.2fx the largest\n",
              buckets.size(), r.unshared_sum / 1e6, static_cast<double>(r.unshared_sum) / r.alone);
  std::printf(
      "   all %zu buckets, shared (after steps)  %8.2f MB   %.2fx the largest (%+lld bytes)\n",
      buckets.size(), r.shared / 1e6, static_cast<double>(r.shared) / r.alone,
      static_cast<long long>(r.shared) - static_cast<long long>(r.alone));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      cfg.reps = 3;
      cfg.copy_budget = 64;
    } else {
      std::fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
      return 2;
    }
  }
  // Before any device exists: every cpu(N) gets a one-thread pool.
  symx::SetCpuThreadsForNewDevices(1);
  try {
    std::vector<CopyRow> copies = RunCopies(cfg);
    BranchResult branches = RunBranches(cfg);
    BucketResult buckets = RunBuckets();
    std::printf("\nsummary\n");
    std::printf("   copy kernel / memcpy       ");
    for (const CopyRow& r : copies) std::printf("  %d MiB %.2fx", r.mib, r.kernel_us / r.memcpy_us);
    std::printf("\n   forward split / memcpy     ");
    for (const CopyRow& r : copies) std::printf("  %d MiB %.2fx", r.mib, r.split_us / r.memcpy_us);
    std::printf(
        "\n   two branches speed-up       forward %.2fx, forward+backward %.2fx "
        "(at most 2x; %u cores here)\n",
        branches.fwd_one / branches.fwd_split, branches.step_one / branches.step_split,
        std::thread::hardware_concurrency());
    std::printf(
        "   bucketing memory            shared / largest alone %.2fx (target <= 1.2), "
        "unshared %.2fx\n",
        static_cast<double>(buckets.shared) / buckets.alone,
        static_cast<double>(buckets.unshared_sum) / buckets.alone);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "multi_device_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
